"""The on-call handover procedures: the week being handed over (`OnCallWeek`: last week's incidents of
a group, the rota swaps that name who hands over and who takes over, and the reads that find them)
and the handover of one open incident (`HandOverIncident`: a work note, the new assignee and a reply
in its #incidents thread). Built on the on-call family's stories (tasks.procedures.oncall_week): the
week's draw and setup."""

from __future__ import annotations

from dataclasses import dataclass

from officegym.apps.org.models import Person
from officegym.apps.tickets.models import Ticket
from officegym.apps.tickets.workflow import is_open
from officegym.graders.checks import check
from officegym.graders.statements import Candidate, says

from ..base import Declaration, Ref, Target, ToolCall
from ..common import added_messages, allow_posts, channel_named
from ..tickets_common import LOOKALIKES, allow_comment, allow_ticket, ending, group_named, group_people, new_comments
from ..w_incidents import HANDOVER, incident_thread, production_incidents, read_rota
from .core import Graded, Procedure
from .oncall_week import Handover, draw_handover, handover_setup, open_incidents

__all__ = ["COVER", "HandOverIncident", "Handover", "OnCallWeek", "draw_handover", "handover_allowed",
           "handover_lookalikes", "handover_reads", "handovers", "thread_replies"]

COVER = "On-call cover"


def handover_reads(group: str) -> list[ToolCall]:
    """The reads that find who takes over and what is open: the rota, the group, its open incidents."""
    return [*read_rota(), ToolCall("tickets_get_group", {"group": group}),
            ToolCall("tickets_search_tickets", {"query": f"project = IT AND type = Incident AND group = \"{group}\" "
                                                         "AND statusCategory != Done ORDER BY key"})]


@dataclass(frozen=True)
class OnCallWeek(Procedure):
    """The week being handed over (`Handover`): its setup, and the reads of the rota, the group and its
    open incidents."""

    rules = (HANDOVER,)
    week: Handover

    def setup(self, session):
        handover_setup(self.week)(session)

    def steps(self):
        return handover_reads(self.week.group)


@dataclass(frozen=True)
class HandOverIncident(Procedure):
    """Hand the open incident `key` (`summary`) over to `to`: read it, its comments and its thread, add
    the handover work note `note`, assign it, and reply "Handing over to @handle." in the thread.
    `away`: the engineer the rota puts on call, who is away and named `to` as their cover (the
    difficulty `away`: the near miss hands over to them), or named `named`, outside the group, so
    that `to` is their team lead (the difficulty `exception`)."""

    rules = (HANDOVER,)
    hard = ("away", "exception")

    key: str
    summary: str
    note: str
    to: int
    to_handle: str
    away: int = 0
    away_handle: str = ""
    named: int = 0  # the cover the away engineer named, outside the group (the difficulty `exception`)
    named_handle: str = ""
    state: str = ""  # when given, the work note and the reply are free texts: the note states the state

    def reads(self) -> list[ToolCall]:
        """The reads before the handover: the incident, its comments, its #incidents message and thread
        (the steps after them refer to the thread's top message as `Ref(3, "parent.id")`)."""
        return [ToolCall("tickets_get_ticket", {"key": self.key}), ToolCall("tickets_list_comments", {"key": self.key}),
                ToolCall("chat_search_messages", {"query": f"{self.key} {self.summary}", "channel": "incidents"}),
                ToolCall("chat_get_thread", {"message_id": Ref(2, "items.0.id")})]

    def _block(self, to: int, handle: str) -> list[ToolCall]:
        return [*self.reads(),
                ToolCall("tickets_add_work_note", {"key": self.key, "body": self.note},
                         role="note" if self.state else ""),
                ToolCall("tickets_assign_ticket", {"key": self.key, "assignee": to}),
                ToolCall("chat_post_message", {"channel": "incidents", "thread_parent_id": Ref(3, "parent.id"),
                                               "text": f"Handing over to @{handle}."}, role="note" if self.state else "")]

    def steps(self):
        return self._block(self.to, self.to_handle)

    def declared(self):
        return (("away",) if self.away else ()) + (("exception",) if self.named else ())

    def fallen(self, kind):
        if kind == "away" and self.away:  # hands over to the rota's engineer, who is away
            return self._block(self.away, self.away_handle)
        if kind == "exception" and self.named:  # hands over to the cover named outside the group
            return self._block(self.named, self.named_handle)
        return None

    def declare(self, start):
        ticket = next(t for t in production_incidents(start) if t.key == self.key)
        return Declaration([Target("ticket", self.key, handover_lookalikes(start, {self.key}, ticket.group_id))])

    def check(self, ctx):
        ticket = next(t for t in production_incidents(ctx.start) if t.key == self.key)
        now, to = ctx.final.get(Ticket, ticket.id), ctx.start.get(Person, self.to)
        replies = thread_replies(ctx, self.key)
        pool = [Candidate.person(p) for p in group_people(ctx.start, ticket.group_id)
                if p.id not in (to.id, ctx.actor_id, self.away)]
        pool += [Candidate.person(ctx.start.get(Person, self.named))] if self.named else []
        results = [check(f"{self.key} is assigned to {to.name}", now.assignee_id == to.id,
                         f"assigned to {now.assignee_id}", weight=2),
                   check(f"{self.key} has your handover work note",
                         len(new_comments(ctx, ticket.id, internal=True)) == 1, "no work note of yours"),
                   *says(replies, Candidate.person(to), pool, f"Its #incidents thread says you hand over to "
                         f"@{to.handle}", "incoming engineer", weight=2)]
        if self.state:
            notes = [c["body"] for c in new_comments(ctx, ticket.id, internal=True)]
            results += says(notes, Candidate.text(self.state), [], f"Your work note on {self.key} states its state, "
                            f"{self.state}", "state", weight=6)
        return Graded(results, handover_allowed(ctx, ticket, to.id, channel_named(ctx.start, "incidents").id))


def handover_lookalikes(start, handed: set[str], group_id: int) -> list[str]:
    """The incidents an agent may take for those handed over (`handed`, of the group `group_id`): the
    other open ones and the group's closed ones, the last LOOKALIKES."""
    return [t.key for t in production_incidents(start) if t.key not in handed
            and (is_open(t.status) or t.group_id == group_id)][-LOOKALIKES:]


def thread_replies(ctx, key: str) -> list[str]:
    """The texts the agent added in the #incidents thread of incident `key`."""
    top = incident_thread(ctx.start, key)
    return [r["text"] for r in added_messages(ctx, ctx.actor_id) if top is not None and r["thread_parent_id"] == top.id]


def handover_allowed(ctx, ticket: Ticket, to: int, channel: int) -> list:
    """What handing `ticket` over to `to` may change: its assignee (a New one becomes Assigned), a work
    note on it, and posts in its thread of #incidents (`channel`)."""
    top = incident_thread(ctx.start, ticket.key)
    status = "Assigned" if ticket.status == "New" else ticket.status
    return [allow_ticket(ticket.id, values=ending(ticket, assignee_id=to, status=status)),
            allow_comment(ctx, ticket.id, None, internal=True),
            *(allow_posts(ctx, channel, top.id) if top is not None else [])]


def handovers(session, h: Handover, to: Person, away: Person | None = None,
              named: Person | None = None) -> list[HandOverIncident]:
    """The handover of each open incident of the drawn week to `to` (`away`: the rota's incoming
    engineer, away, who named `to` or, outside the group, `named`; then the work notes' words are
    read too)."""
    group = group_named(session, h.group)
    by_key = {t.key: t for t in open_incidents(session, group.id)}
    procedures = []
    for key in h.keys:
        spec = h.specs[h.planted.index(key)] if key in h.planted else None
        summary = spec[1] if spec else by_key[key].summary
        note = (f"Handover: still In Progress. Tried: {spec[4]}. Next step: {spec[5]}. Waiting: support and the "
                "customers who reported it." if spec else
                f"Handover: still {by_key[key].status}. Next step: carry on the investigation in the thread. "
                "Waiting: support and the customers who reported it.")
        procedures.append(HandOverIncident(key, summary, note, to.id, to.handle, away.id if away else 0,
                                           away.handle if away else "", named.id if named else 0,
                                           named.handle if named else "",
                                           ("In Progress" if spec else by_key[key].status) if away else ""))
    return procedures
