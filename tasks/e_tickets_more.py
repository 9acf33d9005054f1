"""More event templates on tickets, where a ticket's reporter asks its assignee by DM:
- `e.ticket_due_correction`: to set the due date, and corrects the date they gave (or re-checks it)
  right after the assignee's first change;
- `e.ticket_priority_followup`: to set the priority, and follows up while the assignee works: the
  team lead wants another priority (the value to set changes) or agreed (the twin)."""

from __future__ import annotations

from officegym.apps.org.models import Person
from officegym.apps.tickets.models import PRIORITIES, PRIORITY_RANK, Ticket
from officegym.graders.checks import check
from officegym.graders.statements import Candidate

from .base import ToolCall
from .common import pick
from .e_common import Correction, Drawn
from .e_tickets import TicketDueFollowup
from .registry import register
from .tickets_common import allow_ticket


@register
class TicketDueCorrection(Correction, TicketDueFollowup):
    id, split = "e.ticket_due_correction", "train"
    summary = "Set a ticket's due date as its reporter asked, and fix it when they correct the date they gave."


PRIORITY_PENDING = ["{source} still has to agree on the priority; I'll let you know shortly if it changes.",
                    "I'm checking the priority with {source}, so expect a quick follow-up from me.",
                    "{source} may want it ranked differently; I'll message you as soon as they've looked."]
PRIORITY_CHANGED = ["Update on {thing}: {source} wants it at {new}, not {old}. Please use {new}.",
                    "{source} looked at {thing}: make it {new} instead of {old}.",
                    "Change on {thing}: {source} ranked it {new}, so not {old}."]
PRIORITY_AGREED = ["Update on {thing}: {source} agreed with {old}, go ahead.",
                   "{source} looked at {thing} and is fine with {old}.",
                   "Confirmed on {thing}: {source} says {old} is right."]


@register
class TicketPriorityFollowup(TicketDueFollowup):
    id, split = "e.ticket_priority_followup", "test"
    pending, changed, confirmed = PRIORITY_PENDING, PRIORITY_CHANGED, PRIORITY_AGREED
    summary = "Set a ticket's priority as its reporter asked, after their follow-up (which may change it)."

    def candidates(self, session):
        return [t for t in super().candidates(session) if t.type != "Incident"]  # an incident's priority is derived

    def draw(self, session, rng, instance, changes):
        ticket = pick(rng, self.candidates(session))
        first = pick(rng, [p for p in PRIORITIES if p != ticket.priority])
        final = pick(rng, [p for p in PRIORITIES if p not in (ticket.priority, first)]) if changes else first
        return Drawn(session.get(Person, ticket.assignee_id), session.get(Person, ticket.reporter_id),
                     f"the priority of {ticket.key}", pick(rng, ["the team lead", "the release manager",
                                                                 "the product owner", "the change board"]),
                     f"set the priority of {ticket.key} ({ticket.summary}) to {{value}}", first, final,
                     [p for p in PRIORITIES if p != final], {"ticket": ticket.id, "key": ticket.key})

    def candidate(self, value):
        return Candidate.text(value)

    def steps(self, inst, value):
        key = inst.params["key"]
        return [ToolCall("tickets_get_ticket", {"key": key}),
                ToolCall("tickets_update_ticket", {"key": key, "priority": value})]

    def state_checks(self, ctx, inst):
        ticket = ctx.final.get(Ticket, inst.params["ticket"])
        return [check(f"{ticket.key} has priority {inst.params['final']}, as finally agreed",
                      ticket.priority == inst.params["final"], f"it has {ticket.priority}")]

    def allowances(self, ctx, inst):
        final = inst.params["final"]
        return [allow_ticket(inst.params["ticket"], values={"priority": (final,), "priority_rank": (
            PRIORITY_RANK[final],)})]
