"""CRM task templates about deals on the sales path, and the helpers every CRM task module shares:
set a deal's next step, give yourself a follow-up task on a deal (closing deals: crm_closing).

Actors are always allowed to do what they are asked (the record's owner or a manager above them in
Sales) and to read what they must look at; expected values are recomputed from the start state."""

from __future__ import annotations

import random
from datetime import date, timedelta
from typing import Iterable

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from officegym import clock
from officegym.apps.crm.access import sales_department_id, scope_of
from officegym.apps.crm.models import OPEN_STAGES, LineItem, Opportunity
from officegym.apps.org.models import Person
from officegym.graders.checks import Allow, CheckResult, check, nothing_else_changed
from officegym.graders.statements import Candidate, amounts_written, says

from .base import Claim, Declaration, Lookalikes, TaskInstance, TaskTemplate, Target, ToolCall
from .common import named, pick
from .registry import register
from .split import in_split, person_in

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


# ---------------------------------------------------------------- helpers shared by CRM task modules

def money(cents: int) -> str:
    """Dollars as people write them: "$120,000", or "$120,000.50" with cents."""
    return Candidate.money(cents).label


def amounts_in(text: str) -> set[int]:
    """Every amount of money written in a text, in cents ("$120,000", "$120k", "120000")."""
    return {cents for _, _, cents in amounts_written(text)}


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


def editor(session: Session, rng: random.Random, owner_id: int, owner_share: float = 0.7,
           split: str | None = None) -> Person:
    """Who acts on a record: mostly its owner, sometimes a Sales manager above them (of `split`
    only, when given: a Sales manager above them when the owner is of the other split)."""
    owner = session.get(Person, owner_id)
    managers = sales_managers(session, owner)
    if split is not None:
        managers = [m for m in managers if person_in(split, m.id)]
        if not person_in(split, owner_id):
            return pick(rng, managers)
    return pick(rng, managers) if managers and rng.random() > owner_share else owner


def actable(session: Session, split: str, owner_id: int) -> bool:
    """Whether someone of `split` may act on a record owned by `owner_id` (see `editor`)."""
    return person_in(split, owner_id) or any(person_in(split, m.id)
                                             for m in sales_managers(session, session.get(Person, owner_id)))


def deals_of(session: Session, split: str, with_items: bool | None = None) -> list[Opportunity]:
    """The open deals of `split` (see `open_deals`) that someone of the split may act on, by id."""
    return [d for d in open_deals(session, with_items) if in_split(split, "opportunity", d.id)
            and actable(session, split, d.owner_id)]


def open_deals(session: Session, with_items: bool | None = None) -> list[Opportunity]:
    """Open opportunities with a unique name, by id; optionally only those with (or without) line items."""
    names = dict(session.execute(select(Opportunity.name, func.count()).group_by(Opportunity.name)).all())
    items = set(session.scalars(select(LineItem.opportunity_id)))
    deals = session.scalars(select(Opportunity).where(Opportunity.stage.in_(OPEN_STAGES)).order_by(Opportunity.id))
    return [d for d in deals if names[d.name] == 1 and (with_items is None or (d.id in items) == with_items)]


def your(session: Session, actor: Person, owner: Person) -> str:
    """"your" for the actor's own record, else "<owner>'s" (with their @handle when someone else has
    the same name)."""
    return "your" if actor.id == owner.id else f"{named(session, owner)}'s"


def allow_deal(deal_id: int, *fields: str, where=None) -> Allow:
    """Allow changes to these fields of one opportunity (only to values `where(row)` accepts, when given)."""
    return Allow("crm_opportunity", ("updated",),
                 lambda row: row["id"] == deal_id and (where is None or where(row)), tuple(fields))


def allow_activity(record_type: str, record_id: int, kind: str | None = None, owner_id: int | None = None,
                   limit: int = 1) -> Allow:
    """Allow `limit` new activities on one record (only of one kind, or by one person, when given)."""
    return Allow("crm_activity", ("added",),
                 lambda row: row["record_type"] == record_type and row["record_id"] == record_id
                 and (kind is None or row["kind"] == kind) and (owner_id is None or row["owner_id"] == owner_id),
                 limit=limit)


def deal_lookalikes(session: Session, deal: Opportunity, actor_id: int | None = None, limit: int = 25) -> Lookalikes:
    """Ids of the deals an agent could confuse with `deal`: the other open deals of its account (those
    the actor may change, when given), then those of its owner (found when first asked for)."""
    def find() -> list[int]:
        scope = scope_of(session, session.get(Person, actor_id)) if actor_id is not None else None
        others = session.execute(select(Opportunity.id, Opportunity.account_id, Opportunity.owner_id).where(
            Opportunity.stage.in_(OPEN_STAGES), Opportunity.id != deal.id,
            (Opportunity.account_id == deal.account_id) | (Opportunity.owner_id == deal.owner_id))
            .order_by(Opportunity.account_id != deal.account_id, Opportunity.id))
        found = [i for i, account, owner in others if account == deal.account_id
                 and (scope is None or scope.can_edit(owner)) or owner == deal.owner_id]
        return found[:limit]
    return Lookalikes(find)


def amounts_but(cents: Iterable[int], right: int) -> list[Candidate]:
    """Amounts of money other than `right`, as candidates (a pool of look-alike amounts)."""
    return [Candidate.money(c) for c in sorted(set(cents) - {right})]


def quoted(words: list[str], right: str, field: str, kind: str) -> Claim:
    """The claim of a text the instruction quotes from a vocabulary: its pool is the other entries."""
    return Claim(Candidate.text(right), [Candidate.text(w) for w in words if not same_text(w, right)], field, kind)


def reads_exactly(texts: list[str], claim: Claim, requirement: str, weight: float = 1.0) -> list[CheckResult]:
    """A requirement that a field reads exactly the claim's text (case, spacing and surrounding
    punctuation aside), and the guard of `says`: no field states another candidate or denies it."""
    texts = [t for t in texts if t]
    return [check(requirement, any(same_text(t, claim.right.label) for t in texts),
                  f"it reads {texts[:2]!r}" if texts else "nothing was written", weight),
            says(texts, claim.right, claim.others, requirement, claim.kind)[1]]


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

def deal_target(start: Session, inst: TaskInstance) -> Target:
    """The deal of a task's "deal" parameter as its target, with the deals it could be confused with."""
    deal = start.get(Opportunity, inst.params["deal"])
    return Target("opportunity", deal.id, deal_lookalikes(start, deal, inst.actor_id))


@register
class UpdateNextStep(TaskTemplate):
    id, apps, difficulty = "crm.update_next_step", ("crm",), 1
    summary = "Set the next step of an open deal."

    def sample(self, session, rng, instance):
        deal = pick(rng, deals_of(session, self.split))
        actor, owner = editor(session, rng, deal.owner_id, split=self.split), session.get(Person, deal.owner_id)
        step = pick(rng, [s for s in NEXT_STEPS if not same_text(deal.next_step, s)])
        return TaskInstance(
            self.id, instance, actor.id,
            f"Set the next step of {your(session, actor, owner)} opportunity \"{deal.name}\" to \"{step}\". "
            "Change nothing else.",
            [ToolCall("crm_list_opportunities", {"query": deal.name, "owner": f"@{owner.handle}"}),
             ToolCall("crm_update_opportunity", {"opportunity": deal.id, "next_step": step})],
            {"deal": deal.id, "step": step})

    def declare(self, start, inst):
        return Declaration([deal_target(start, inst)],
                           [quoted(NEXT_STEPS, inst.params["step"], "next_step", "next step")])

    def check(self, ctx, inst):
        declared = self.declare(ctx.start, inst)
        deal = declared.targets[0].ref
        now = ctx.final.get(Opportunity, deal)
        return [*reads_exactly([now.next_step], declared.claims[0], f"The next step reads \"{inst.params['step']}\"",
                               weight=2),
                nothing_else_changed(ctx.diff, [allow_deal(deal, "next_step")])]


@register
class FollowUpTask(TaskTemplate):
    id, apps, difficulty = "crm.follow_up_task", ("crm",), 1
    summary = "Give yourself one follow-up task on a deal, due on a given day."

    def sample(self, session, rng, instance):
        deal = pick(rng, deals_of(session, self.split))
        actor = editor(session, rng, deal.owner_id, 0.8, self.split)
        due = today(session) + timedelta(days=rng.randint(1, 21))
        subject = pick(rng, TASK_SUBJECTS)
        return TaskInstance(
            self.id, instance, actor.id,
            f"Create one CRM task for yourself on the opportunity \"{deal.name}\" with the subject \"{subject}\", "
            f"due on {due.isoformat()}. Change nothing else.",
            [ToolCall("crm_list_opportunities", {"query": deal.name}),
             ToolCall("crm_log_activity", {"record_type": "opportunity", "record_id": deal.id, "kind": "task",
                                           "subject": subject, "due_date": due.isoformat()})],
            {"deal": deal.id, "subject": subject, "due": due.isoformat()})

    def declare(self, start, inst):
        return Declaration([deal_target(start, inst)],
                           [quoted(TASK_SUBJECTS, inst.params["subject"], "subject", "task subject")])

    def check(self, ctx, inst):
        p = inst.params
        declared = self.declare(ctx.start, inst)
        deal = declared.targets[0].ref
        tasks = new_activities(ctx, "opportunity", deal, "task")
        due = [t for t in tasks if str(t["due_date"]) == p["due"] and t["status"] == "Open"]
        return [check(f"You created a task on the opportunity, due {p['due']}", due,
                      f"tasks found: {[(t['subject'], str(t['due_date'])) for t in tasks][:3]}"),
                *reads_exactly([t["subject"] for t in due], declared.claims[0],
                               f"Its subject is \"{p['subject']}\"", weight=2),
                nothing_else_changed(ctx.diff, [allow_activity("opportunity", deal, "task", ctx.actor_id)])]

