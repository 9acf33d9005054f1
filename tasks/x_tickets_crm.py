"""Cross-app tasks between the CRM and the tickets app: escalate a CRM case into an engineering bug
and record the ticket on the case; open a contract review in LEGAL for your biggest open deal and
tell #deals the ticket key."""

from __future__ import annotations

from datetime import date, timedelta

from sqlalchemy import select

from officegym import clock
from officegym.apps.crm.models import CASE_PRIORITIES, Account, Case
from officegym.apps.org.models import Person
from officegym.apps.tickets.models import Component, TicketComponent, TicketLabel
from officegym.graders.checks import Allow, check, nothing_else_changed
from officegym.graders.statements import Candidate, says

from .base import Claim, Declaration, Ref, TaskInstance, TaskTemplate, Target, ToolCall
from . import tickets_vocab as vocab
from .common import added_messages, allow_posts, channel_named, channels_of, member_ids, pick, spread
from .crm import open_deals
from .crm_answers import _periods
from .registry import register
from .split import in_split, person_in
from .tickets_common import (LOOKALIKES, added_tickets, allow_new_ticket, key_pool, next_key, project_id, same_text,
                             text_pool)


@register
class EscalateCaseToTicket(TaskTemplate):
    id, apps, difficulty = "x.escalate_case_to_ticket", ("crm", "tickets"), 3
    rules = ("Customer escalation path",)
    summary = "Escalate an open CRM case into an engineering bug for the account, and record the ticket on the case."

    def sample(self, session, rng, instance):
        cases = list(session.scalars(select(Case).where(Case.status.in_(("New", "Working"))).order_by(Case.id)))
        cases = [c for c in cases if in_split(self.split, "case", c.id) and person_in(self.split, c.owner_id)]
        # Instances step through the cases and the reasons: a split has few open cases.
        case, reason = spread([(c, r) for c in cases for r in vocab.REASONS], instance)
        owner = session.get(Person, case.owner_id)
        account = session.get(Account, case.account_id)
        summary = f"{account.name}: {case.subject}"
        return TaskInstance(
            self.id, instance, owner.id,
            f"Your CRM case \"{case.subject}\" for {account.name} needs engineering. Hand it over the way the "
            "handbook's Customer escalation path says (the bug's summary is the account's name, a colon and the "
            f"case's subject), then escalate the case in the CRM with the reason \"{reason}\" (word for word) and "
            "the new bug's key. Change nothing else.",
            [ToolCall("crm_list_cases", {"query": case.subject, "status": "open", "owner": f"@{owner.handle}"}),
             ToolCall("tickets_search_articles", {"query": "customer escalation"}),
             ToolCall("tickets_get_article", {"article": "Customer escalation path"}),
             ToolCall("tickets_create_ticket", {"project": "ENG", "type": "Bug", "summary": summary,
                                                "account": account.name, "labels": ["customer-escalation"],
                                                "priority": "High", "description": case.description}),
             ToolCall("crm_escalate_case", {"case": case.id, "reason": reason, "ticket": Ref(3, "key")})],
            {"case": case.id, "summary": summary, "reason": reason})

    def declare(self, start, inst):
        p = inst.params
        case = start.get(Case, p["case"])
        open_cases = list(start.scalars(select(Case).where(Case.status.in_(("New", "Working")), Case.id != case.id)
                                        .order_by(Case.owner_id != case.owner_id, Case.id)))
        accounts = start.scalars(select(Account.name).where(Account.id != case.account_id).order_by(Account.id))
        return Declaration([Target("case", case.id, [c.id for c in open_cases][:LOOKALIKES]),
                            Target("account", start.get(Account, case.account_id).name,
                                   list(accounts)[:LOOKALIKES])],
                           [Claim(Candidate.text(p["reason"]), text_pool(vocab.REASONS, p["reason"]), "reason",
                                  "reason")])

    def check(self, ctx, inst):
        p = inst.params
        case, now = ctx.start.get(Case, p["case"]), ctx.final.get(Case, p["case"])
        bugs = [r for r in added_tickets(ctx, "ENG") if r["type"] == "Bug" and same_text(r["summary"], p["summary"])]
        bug = bugs[0] if bugs else {}
        labels = set(ctx.final.scalars(select(TicketLabel.name).where(TicketLabel.ticket_id == bug.get("id"))))
        note = f"{p['reason']} (ticket {bug.get('key') or next_key(ctx.start, 'ENG')})"
        escalated = lambda row: (row["record_type"], row["record_id"], row["kind"], row["subject"]) == (  # noqa: E731
            "case", case.id, "note", "Escalated") and same_text(row["body"], note)
        raised = ("High",) if CASE_PRIORITIES.index(case.priority) < CASE_PRIORITIES.index("High") else ()
        return [check(f"An ENG bug \"{p['summary']}\" was filed", bug, "no bug of yours with that summary"),
                check("It names the account and has the label customer-escalation",
                      bug and bug["account_id"] == case.account_id and "customer-escalation" in labels,
                      f"account {bug.get('account_id')}, labels {sorted(labels)}"),
                check("The case is Escalated and records the ticket key",
                      now.status == "Escalated" and bug and now.ticket_key == bug["key"],
                      f"case is {now.status} with ticket {now.ticket_key}", weight=2),
                check(f"The escalation gives the reason \"{p['reason']}\" word for word",
                      any(escalated(r) for r in ctx.diff.table("crm_activity").added), "no such escalation note"),
                nothing_else_changed(ctx.diff, allow_new_ticket(ctx, "ENG", "Bug", p["summary"],
                                                                labels=("customer-escalation",))
                                     + [Allow("tickets_ticket_component", ("added",),  # the owning team's, per the handbook
                                              lambda row: row["ticket_id"] == bug.get("id"), limit=1),
                                        Allow("crm_case", ("updated",), lambda row: row["id"] == case.id
                                              and row["priority"] in (case.priority, *raised),
                                              ("status", "ticket_key", "priority")),
                                        Allow("crm_activity", ("added",), escalated)])]


@register
class LegalReviewForBiggestDeal(TaskTemplate):
    id, apps, difficulty = "x.legal_review_for_biggest_deal", ("crm", "tickets", "chat"), 3
    toolsets = ("chat", "crm", "tickets.work")  # its apps hold over 100 tools
    rules = ("Deal desk checklist before Closed Won",)
    summary = "Open a contract review in LEGAL for your biggest open deal and tell #deals the ticket key."

    def sample(self, session, rng, instance):
        deals_channel = channel_named(session, "deals")
        inside = member_ids(session, deals_channel.id)
        choices = []
        for label, first, last in _periods(session):
            by_owner: dict[int, list] = {}
            for deal in _deals_closing(session, first, last):
                by_owner.setdefault(deal.owner_id, []).append(deal)
            choices += [(owner, label, first, last) for owner, deals in sorted(by_owner.items())
                        if owner in inside and _unique_top(deals) is not None and person_in(self.split, owner)]
        owner_id, label, first, last = pick(rng, choices)
        owner = session.get(Person, owner_id)
        deal = _unique_top([d for d in _deals_closing(session, first, last) if d.owner_id == owner_id])
        account = deal.account.name
        summary = f"Contract review: {account}"
        priority = pick(rng, ["Highest", "High", "Medium"])
        due = (clock.now(session) + timedelta(days=pick(rng, [3, 5, 7, 10]))).date().isoformat()
        return TaskInstance(
            self.id, instance, owner.id,
            f"Legal should review the contract of your biggest open deal (by amount) {label}. Open the one legal "
            "review request the handbook's deal-desk checklist asks for, with the summary \"Contract review: "
            f"<account name>\", the priority {priority} and the due date {due}, then post once in #deals (not in a "
            "thread) the ticket key and the account name. Change nothing else.",
            [ToolCall("tickets_get_article", {"article": "Deal desk checklist before Closed Won"}),
             ToolCall("crm_list_opportunities", {"owner": f"@{owner.handle}", "stage": "open", "sort": "amount",
                                                 "descending": True, "close_from": first.isoformat(),
                                                 "close_to": last.isoformat(), "limit": 1}),
             ToolCall("tickets_create_ticket", {"project": "LEGAL", "type": "Service Request", "summary": summary,
                                                "account": account, "components": ["Contracts"],
                                                "priority": priority, "due_date": due}),
             ToolCall("chat_post_message", {"channel": "deals",
                                            "text": f"Legal review for {account}: {next_key(session, 'LEGAL')}"})],
            {"owner": owner.id, "channel": deals_channel.id, "first": first.isoformat(), "last": last.isoformat(),
             "priority": priority, "due": due})

    def declare(self, start, inst):
        p = inst.params
        first, last = date.fromisoformat(p["first"]), date.fromisoformat(p["last"])
        account = _unique_top([d for d in _deals_closing(start, first, last) if d.owner_id == p["owner"]]).account.name
        theirs = sorted({d.account.name for d in open_deals(start) if d.owner_id == p["owner"]} - {account})
        key = next_key(start, "LEGAL")
        channels = [c.name for c in channels_of(start, inst.actor_id, ("public",)) if c.id != p["channel"]][:3]
        return Declaration([Target("channel", "deals", channels), Target("account", account, theirs)],
                           [Claim(Candidate.text(account), [Candidate.text(a) for a in theirs], "text", "account"),
                            Claim(Candidate.text(key), key_pool(start, "LEGAL", key), "text", "ticket key")])

    def check(self, ctx, inst):
        p = inst.params
        declared = self.declare(ctx.start, inst)
        account = ctx.start.scalar(select(Account).where(Account.name == declared.targets[1].ref))
        filed = [r for r in added_tickets(ctx, "LEGAL") if r["type"] == "Service Request"]
        ticket = filed[0] if filed else {}
        contracts = ctx.start.scalar(select(Component.id).where(Component.name == "Contracts",
                                                                Component.project_id == project_id(ctx.start, "LEGAL")))
        components = set(ctx.final.scalars(select(TicketComponent.component_id).where(
            TicketComponent.ticket_id == ticket["id"]))) if ticket else set()
        key = ticket.get("key") or declared.claims[1].right.label
        posts = [r["text"] for r in added_messages(ctx, ctx.actor_id) if r["channel_id"] == p["channel"]
                 and r["thread_parent_id"] is None and ticket]
        named = declared.claims[0]
        return [check(f"A request about {account.name} was filed in LEGAL: summary, account, component Contracts",
                      ticket and ticket["account_id"] == account.id and contracts in components
                      and same_text(ticket["summary"], f"Contract review: {account.name}"),
                      f"found {ticket.get('summary')!r}", weight=2),
                check(f"Its priority is {p['priority']} and it is due {p['due']}",
                      ticket and ticket["priority"] == p["priority"] and str(ticket["due_date"]) == p["due"],
                      f"found {ticket.get('priority')}, due {ticket.get('due_date')}"),
                *says(posts, Candidate.text(key), key_pool(ctx.start, "LEGAL", key),
                      f"Your #deals post gives the key {key}", "ticket key", weight=1, deniable=False),
                *says(posts, named.right, named.others, f"Your #deals post names {account.name}", named.kind, weight=1),
                nothing_else_changed(ctx.diff, allow_new_ticket(ctx, "LEGAL", "Service Request",
                                                                f"Contract review: {account.name}", account.id,
                                                                component=contracts)
                                     + allow_posts(ctx, p["channel"], None))]


def _deals_closing(session, first: date, last: date) -> list:
    """Open deals (with unique names) closing between two days, inclusive."""
    return [d for d in open_deals(session) if first <= d.close_date <= last]


def _unique_top(deals):
    """The deal with the largest amount, when no other deal has the same amount."""
    ranked = sorted(deals, key=lambda d: -d.amount_cents)
    if not ranked or (len(ranked) > 1 and ranked[0].amount_cents == ranked[1].amount_cents):
        return None
    return ranked[0]
