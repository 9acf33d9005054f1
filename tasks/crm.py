"""CRM task templates about deals on the sales path, and the helpers every CRM task module shares:
close a deal as won on its signing day, close one as lost with its reason, set a deal's next step,
give yourself a follow-up task on a deal.

Actors are always allowed to do what they are asked (the record's owner or a manager above them in
Sales) and to read what they must look at; expected values are recomputed from the start state."""

from __future__ import annotations

import random
import re
from datetime import date, timedelta

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from officegym import clock
from officegym.apps.crm.access import sales_department_id, scope_of
from officegym.apps.crm.models import LOSS_REASONS, OPEN_STAGES, LineItem, Opportunity
from officegym.apps.org.models import Person
from officegym.graders.checks import Allow, check, nothing_else_changed

from .base import TaskInstance, TaskTemplate, ToolCall
from .common import contains_text, pick
from .registry import register

COMPETITORS = ["Northwind Software", "Globex Cloud", "Initech Systems", "Umbrella Analytics", "Hooli Enterprise",
               "Vandelay Platforms", "Stark Data", "Wayne Digital"]
NEXT_STEPS = ["Send the revised order form to procurement", "Book a security review with their IT team",
              "Schedule the executive sponsor call", "Share the ROI model with the CFO",
              "Run a technical deep dive with their architects", "Confirm budget with the finance director",
              "Walk legal through the redlines", "Set up a pilot workspace for two teams",
              "Get a date for the final pricing meeting", "Introduce our customer success lead"]
TASK_SUBJECTS = ["Follow up on the pricing questions", "Check in on the legal review", "Send the case studies",
                 "Chase the signed order form", "Confirm the pilot success criteria", "Prepare the renewal quote",
                 "Call the champion about timing", "Send the security questionnaire answers"]
_MONEY = re.compile(r"\$?\d[\d,]*(?:\.\d+)?")


# ---------------------------------------------------------------- helpers shared by CRM task modules

def money(cents: int) -> str:
    """Dollars as people write them: "$120,000", or "$120,000.50" with cents."""
    whole, rest = divmod(cents, 100)
    return f"${whole:,}" + (f".{rest:02d}" if rest else "")


def amounts_in(text: str) -> set[int]:
    """Every amount of money written in a text, in cents ("$120,000", "120000", "$1,234.50")."""
    found = set()
    for token in _MONEY.findall(text or ""):
        digits = token.lstrip("$").replace(",", "")
        try:
            found.add(round(float(digits) * 100))
        except ValueError:
            continue
    return found


def today(session: Session) -> date:
    """The company's current day."""
    return clock.now(session).date()


def sales_people(session: Session) -> list[Person]:
    """Everyone in the Sales department, by id."""
    return list(session.scalars(select(Person).where(Person.department_id == sales_department_id(session))
                                .order_by(Person.id)))


def sales_managers(session: Session, person: Person) -> list[Person]:
    """The managers above `person` who are in Sales (nearest first)."""
    dept, found, current = sales_department_id(session), [], person
    while current.manager_id is not None:
        current = session.get(Person, current.manager_id)
        if current.department_id != dept or current in found:
            break
        found.append(current)
    return found


def editor(session: Session, rng: random.Random, owner_id: int, owner_share: float = 0.7) -> Person:
    """Who acts on a record: mostly its owner, sometimes a Sales manager above them."""
    owner = session.get(Person, owner_id)
    managers = sales_managers(session, owner)
    return pick(rng, managers) if managers and rng.random() > owner_share else owner


def can_read(session: Session, actor: Person, owner_id: int) -> bool:
    """Whether the actor sees records owned by `owner_id`."""
    scope = scope_of(session, actor)
    return (scope.is_admin or scope.is_sales) and scope.can_read(owner_id)


def open_deals(session: Session, with_items: bool | None = None) -> list[Opportunity]:
    """Open opportunities with a unique name, by id; optionally only those with (or without) line items."""
    names = dict(session.execute(select(Opportunity.name, func.count()).group_by(Opportunity.name)).all())
    items = set(session.scalars(select(LineItem.opportunity_id)))
    deals = session.scalars(select(Opportunity).where(Opportunity.stage.in_(OPEN_STAGES)).order_by(Opportunity.id))
    return [d for d in deals if names[d.name] == 1 and (with_items is None or (d.id in items) == with_items)]


def your(actor: Person, owner: Person) -> str:
    """"your" for the actor's own record, else "<owner>'s"."""
    return "your" if actor.id == owner.id else f"{owner.name}'s"


def allow_deal(deal_id: int, *fields: str) -> Allow:
    """Allow changes to these fields of one opportunity."""
    return Allow("crm_opportunity", ("updated",), lambda row: row["id"] == deal_id, tuple(fields))


def allow_activity(record_type: str, record_id: int) -> Allow:
    """Allow new activities on one record."""
    return Allow("crm_activity", ("added",),
                 lambda row: row["record_type"] == record_type and row["record_id"] == record_id)


def path_to(stage: str, target: str = "Negotiation") -> list[str]:
    """The open stages to move through, one at a time, from `stage` to `target`."""
    return list(OPEN_STAGES[OPEN_STAGES.index(stage) + 1:OPEN_STAGES.index(target) + 1])


def moves_to_won(deal_id: int, stage: str) -> list[ToolCall]:
    """Reference steps: along the path to Negotiation, then Closed Won."""
    return [ToolCall("crm_move_opportunity_stage", {"opportunity": deal_id, "stage": s})
            for s in path_to(stage) + ["Closed Won"]]


def new_activities(ctx, record_type: str, record_id: int, kind: str | None = None) -> list[dict]:
    """Activity rows the episode added on one record, by the actor (optionally of one kind)."""
    return [r for r in ctx.diff.table("crm_activity").added
            if r["record_type"] == record_type and r["record_id"] == record_id and r["owner_id"] == ctx.actor_id
            and (kind is None or r["kind"] == kind)]


def same_text(a: str | None, b: str) -> bool:
    """Equal after folding case and whitespace and dropping surrounding punctuation."""
    fold = lambda s: " ".join((s or "").casefold().split()).strip(" .!\"'")  # noqa: E731
    return fold(a) == fold(b)


# ---------------------------------------------------------------- templates

@register
class CloseWonDeal(TaskTemplate):
    id, apps, difficulty = "crm.close_won_deal", ("crm",), 2
    summary = "Close a deal as won on its signing day, moving it along the sales path first."

    def sample(self, session, rng, instance):
        deal = pick(rng, [d for d in open_deals(session) if d.amount_cents > 0])
        actor, owner = editor(session, rng, deal.owner_id), session.get(Person, deal.owner_id)
        signed = today(session) - timedelta(days=rng.randint(0, 6))
        return TaskInstance(
            self.id, instance, actor.id,
            f"The customer signed {your(actor, owner)} opportunity \"{deal.name}\" on {signed.isoformat()}. Set "
            "its close date to the signing day and close it as won.",
            [ToolCall("crm_update_opportunity", {"opportunity": deal.id, "close_date": signed.isoformat()}),
             *moves_to_won(deal.id, deal.stage)],
            {"deal": deal.id, "signed": signed.isoformat()})

    def check(self, ctx, inst):
        p = inst.params
        now = ctx.final.get(Opportunity, p["deal"])
        return [check("The opportunity is Closed Won", now.stage == "Closed Won", f"it is {now.stage}", weight=2),
                check(f"Its close date is {p['signed']}", now.close_date.isoformat() == p["signed"],
                      f"it is {now.close_date}"),
                nothing_else_changed(ctx.diff, [allow_deal(p["deal"], "stage", "probability", "closed_at",
                                                           "close_date")])]


@register
class CloseLostWithReason(TaskTemplate):
    id, apps, difficulty = "crm.close_lost_with_reason", ("crm",), 1
    summary = "Close a deal as lost with the given loss reason (and the competitor who won it)."

    def sample(self, session, rng, instance):
        deal = pick(rng, open_deals(session))
        actor, owner = editor(session, rng, deal.owner_id), session.get(Person, deal.owner_id)
        reason = pick(rng, LOSS_REASONS)
        rival = pick(rng, COMPETITORS) if reason == "Competitor" else ""
        why = f"Competitor (they chose {rival})" if rival else reason
        step = {"opportunity": deal.id, "stage": "Closed Lost", "loss_reason": reason}
        return TaskInstance(
            self.id, instance, actor.id,
            f"We lost {your(actor, owner)} opportunity \"{deal.name}\". Close it as lost with the loss reason "
            f"{why}.",
            [ToolCall("crm_move_opportunity_stage", {**step, "competitor": rival} if rival else step)],
            {"deal": deal.id, "reason": reason, "rival": rival})

    def check(self, ctx, inst):
        p = inst.params
        now = ctx.final.get(Opportunity, p["deal"])
        checks = [check("The opportunity is Closed Lost", now.stage == "Closed Lost", f"it is {now.stage}", weight=2),
                  check(f"The loss reason is {p['reason']}", now.loss_reason == p["reason"],
                        f"it is {now.loss_reason!r}")]
        fields = ["stage", "probability", "closed_at", "loss_reason"]
        if p["rival"]:
            checks.append(check(f"The competitor is {p['rival']}", same_text(now.competitor, p["rival"]),
                                f"it is {now.competitor!r}"))
            fields.append("competitor")
        return checks + [nothing_else_changed(ctx.diff, [allow_deal(p["deal"], *fields)])]


@register
class UpdateNextStep(TaskTemplate):
    id, apps, difficulty = "crm.update_next_step", ("crm",), 1
    summary = "Set the next step of an open deal."

    def sample(self, session, rng, instance):
        deal = pick(rng, open_deals(session))
        actor, owner = editor(session, rng, deal.owner_id), session.get(Person, deal.owner_id)
        step = pick(rng, [s for s in NEXT_STEPS if s != deal.next_step])
        return TaskInstance(
            self.id, instance, actor.id,
            f"Set the next step of {your(actor, owner)} opportunity \"{deal.name}\" to \"{step}\".",
            [ToolCall("crm_update_opportunity", {"opportunity": deal.id, "next_step": step})],
            {"deal": deal.id, "step": step})

    def check(self, ctx, inst):
        p = inst.params
        now = ctx.final.get(Opportunity, p["deal"])
        return [check(f"The next step reads \"{p['step']}\"", same_text(now.next_step, p["step"]),
                      f"it reads {now.next_step!r}", weight=2),
                nothing_else_changed(ctx.diff, [allow_deal(p["deal"], "next_step")])]


@register
class FollowUpTask(TaskTemplate):
    id, apps, difficulty = "crm.follow_up_task", ("crm",), 1
    summary = "Give yourself a follow-up task on a deal, due on a given day."

    def sample(self, session, rng, instance):
        deal = pick(rng, open_deals(session))
        actor = editor(session, rng, deal.owner_id, 0.8)
        due = today(session) + timedelta(days=rng.randint(1, 21))
        subject = pick(rng, TASK_SUBJECTS)
        return TaskInstance(
            self.id, instance, actor.id,
            f"Create a CRM task for yourself on the opportunity \"{deal.name}\" with the subject \"{subject}\", "
            f"due on {due.isoformat()}.",
            [ToolCall("crm_log_activity", {"record_type": "opportunity", "record_id": deal.id, "kind": "task",
                                           "subject": subject, "due_date": due.isoformat()})],
            {"deal": deal.id, "subject": subject, "due": due.isoformat()})

    def check(self, ctx, inst):
        p = inst.params
        tasks = new_activities(ctx, "opportunity", p["deal"], "task")
        right = [t for t in tasks if same_text(t["subject"], p["subject"]) and str(t["due_date"]) == p["due"]
                 and t["status"] == "Open"]
        return [check("You created a task on the opportunity", tasks, "no new task of yours on it"),
                check(f"It is due {p['due']} with the subject \"{p['subject']}\"", right,
                      f"tasks found: {[(t['subject'], t['due_date']) for t in tasks][:3]}", weight=2),
                nothing_else_changed(ctx.diff, [allow_activity("opportunity", p["deal"])])]


__all__ = ["money", "amounts_in", "today", "sales_people", "sales_managers", "editor", "can_read", "open_deals",
           "your", "allow_deal", "allow_activity", "path_to", "moves_to_won", "new_activities", "same_text",
           "contains_text", "COMPETITORS"]
