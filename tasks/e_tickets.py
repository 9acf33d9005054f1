"""Event templates on tickets, where a ticket's reporter asks its assignee, by DM, to set the ticket's
due date:
- `e.ticket_due_followup`: the reporter follows up while the assignee works: the date moved (the
  date to set changes) or was confirmed (the twin: it does not);
- `e.ticket_escalation_due`: the reporter says the ticket is due sooner if it is escalated to
  Highest within the hour; then one of its workers escalates it, to Highest (the earlier date
  holds) or only to High (the twin: the first date holds). No message says so: the ticket does."""

from __future__ import annotations

from datetime import date, timedelta

from sqlalchemy import select

from officegym import clock
from officegym.apps.org.models import Absence, Person
from officegym.apps.tickets import workflow
from officegym.apps.tickets.models import PRIORITY_RANK, Ticket
from officegym.apps.tickets.access import is_worker
from officegym.colleagues.events import Event
from officegym.graders.checks import check

from .base import TaskInstance, ToolCall
from .common import pick
from .e_common import Drawn, FollowupTemplate, workday
from .registry import register
from .split import in_split, person_in
from .tickets_common import allow_ticket, ticket_target, workers
from .w_deals_common import date_said

SOURCES = ["the release manager", "the customer", "their team lead", "the change board"]
MOVES = [2, 3, 4, 7, 9]  # days a moved date moves by


@register
class TicketDueFollowup(FollowupTemplate):
    id, apps, split = "e.ticket_due_followup", ("chat", "tickets"), "test"
    summary = "Set a ticket's due date as its reporter asked, after their follow-up (which may move it)."

    def candidates(self, session) -> list[Ticket]:
        """Open tickets of the split whose assignee (of the split) and reporter differ and are at work."""
        away = set(session.scalars(select(Absence.person_id)))
        return [t for t in session.scalars(select(Ticket).where(Ticket.assignee_id.is_not(None)).order_by(Ticket.id))
                if workflow.is_open(t.status) and in_split(self.split, "ticket", t.key)
                and person_in(self.split, t.assignee_id) and t.reporter_id != t.assignee_id
                and not {t.reporter_id, t.assignee_id} & away]

    def draw(self, session, rng, instance, changes):
        ticket = pick(rng, self.candidates(session))
        today = clock.company_now(session).date()
        first = workday(today + timedelta(days=rng.randint(3, 12)))
        move = pick(rng, MOVES)
        final = workday(first + timedelta(days=move)) if changes else first
        others = sorted({d for d in (ticket.due_date, first, workday(first + timedelta(days=move)),
                                     workday(first + timedelta(days=move + 7))) if d} - {final})
        return Drawn(session.get(Person, ticket.assignee_id), session.get(Person, ticket.reporter_id),
                     f"the due date of {ticket.key}", pick(rng, SOURCES),
                     f"set the due date of {ticket.key} ({ticket.summary}) to {{value}}", first.isoformat(),
                     final.isoformat(), [d.isoformat() for d in others], {"ticket": ticket.id, "key": ticket.key})

    def candidate(self, value):
        return date_said(date.fromisoformat(value))

    def steps(self, inst, value):
        key = inst.params["key"]
        return [ToolCall("tickets_get_ticket", {"key": key}),
                ToolCall("tickets_update_ticket", {"key": key, "due_date": value})]

    def record(self, start, inst):
        return ticket_target(start, start.get(Ticket, inst.params["ticket"]), inst.actor_id)

    def state_checks(self, ctx, inst):
        ticket = ctx.final.get(Ticket, inst.params["ticket"])
        return [check(f"{ticket.key} is due on {inst.params['final']}, as finally agreed",
                      ticket.due_date == date.fromisoformat(inst.params["final"]), f"it is due {ticket.due_date}",
                      weight=3)]

    def allowances(self, ctx, inst):
        return [allow_ticket(inst.params["ticket"], "due_date")]


ESCALATION = ["If the customer escalates it to Highest within the hour, it is due {alt} instead.",
              "It may get escalated to Highest within the hour: in that case make it {alt}.",
              "Should it be raised to Highest in the next hour, it is due {alt} instead."]


@register
class TicketEscalationDue(TicketDueFollowup):
    id, split = "e.ticket_escalation_due", "train"
    summary = "Set a ticket's due date as its reporter asked, sooner if it gets escalated meanwhile."
    pending = ESCALATION

    def candidates(self, session):
        return [t for t in super().candidates(session) if t.type != "Incident" and t.priority != "Highest"
                and any(is_worker(session, p, t) for p in workers(session, t, (t.assignee_id,)))]

    def draw(self, session, rng, instance, changes):
        drawn = super().draw(session, rng, instance, changes)
        sooner = workday(date.fromisoformat(drawn.first) - timedelta(days=rng.randint(2, 3))).isoformat()
        ticket = session.get(Ticket, drawn.params["ticket"])
        escalator = pick(rng, [p for p in workers(session, ticket, (ticket.assignee_id,))
                               if is_worker(session, p, ticket)])
        drawn.final, drawn.alt = (sooner if changes else drawn.first), sooner
        drawn.others = sorted({*drawn.others, sooner, drawn.first} - {drawn.final})
        drawn.params.update(escalator=escalator.id, raised="Highest" if changes else "High")
        return drawn

    def follow_up(self, session, rng, inst, drawn, text, when):
        return [Event("update_ticket", inst.params["escalator"],
                      {"key": inst.params["key"], "changes": {"priority": inst.params["raised"]}}, **when)]

    def waiting(self, inst: TaskInstance, dm: str) -> list[ToolCall]:
        return [ToolCall("chat_wait", {"channel": dm, "minutes": 60})]

    def allowances(self, ctx, inst):
        raised = inst.params["raised"]
        return [allow_ticket(inst.params["ticket"], "due_date", values={"priority": (raised,), "priority_rank": (
            PRIORITY_RANK[raised],)})]
