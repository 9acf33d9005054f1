"""The on-call handover procedures: the week being handed over (`OnCallWeek`: last week's incidents of
a group, the rota swaps that name who hands over and who takes over, and the reads that find them)
and the handover of one open incident (`HandOverIncident`: a work note, the new assignee and a reply
in its #incidents thread). Built on the on-call family's stories (tasks.w_incidents_rota): its
incidents, rota swaps and vocabulary."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from officegym.apps.org.models import Person
from officegym.apps.tickets.models import Ticket
from officegym.apps.tickets.workflow import is_open
from officegym.graders.checks import check
from officegym.graders.statements import Candidate, says

from ..base import Declaration, Ref, Target, ToolCall
from ..common import added_messages, allow_posts, channel_named, member_ids, spread
from ..split import person_in
from ..tickets_common import (LOOKALIKES, allow_comment, allow_ticket, ending, group_named, group_people, new_comments,
                              next_key, tickets_where)
from ..w_incidents import (HANDOVER, incident_thread, on_call_groups, production_incidents, read_rota, rota_name,
                           this_monday)
from ..w_incidents_rota import NEXT, SERVICES, SYMPTOMS, TRIED, _future, _handover, _open_incidents
from .core import Graded, Procedure

COVER = "On-call cover"


@dataclass(frozen=True)
class Handover:
    """A drawn Monday handover: the group, the outgoing engineer (`actor`), the incoming one, a teammate
    who worked one of the incidents, a decoy group and engineer, spare service names, the planted
    incidents' specs (assignee, summary, impact, urgency, tried, next step, days into last week), the
    rota swaps (person, group, week, their own week) and every key to hand over, by number."""

    group: str
    actor: int
    incoming: int
    other: int
    decoy_group: str
    decoy_engineer: int
    spare: tuple[str, ...]
    specs: tuple
    swaps: tuple
    keys: tuple[str, ...]
    planted: tuple[str, ...]


def draw_handover(session, rng, split: str, instance: int) -> Handover:
    """Draw instance `instance` of a Monday handover in `split` (the incoming engineer is on the rota
    later and in #incidents; the rota swaps make them, and the actor, on call)."""
    monday = this_monday(session)
    inside = member_ids(session, channel_named(session, "incidents").id)
    choices = []
    for group in on_call_groups(session):
        ahead = _future(session, group.name, range(1, 9))
        people = [p for p in group_people(session, group.id) if p.name in ahead and p.id in inside]
        keep = {rota_name(session, group.name, monday), rota_name(session, group.name, monday - timedelta(weeks=1))}
        choices += [(group, p) for p in people if p.name not in keep and person_in(split, p.id)]
    group, actor = spread(choices, instance)
    members = group_people(session, group.id)
    ahead = _future(session, group.name, range(1, 9))
    incoming = rng.choice([p for p in members if p.name in ahead and p.id != actor.id and p.id in inside
                           and p.name not in {rota_name(session, group.name, monday + timedelta(weeks=k))
                                              for k in (-1, 0)}])
    other = rng.choice([p for p in members if p.id not in (actor.id, incoming.id)])
    decoy_group = rng.choice([g for g in on_call_groups(session) if g.id != group.id])
    decoy_engineer = rng.choice(group_people(session, decoy_group.id))
    busy = " ".join(t.summary for t in tickets_where(session, Ticket.type == "Incident") if is_open(t.status))
    services = rng.sample([s for s in SERVICES if s not in busy], 5)
    specs = []
    for k, assignee in enumerate((actor, actor, other)):
        specs.append((assignee.id, f"{services[k]} {rng.choice(SYMPTOMS)}", rng.choice(("High", "Medium")),
                      rng.choice(("High", "Medium", "Low")), rng.choice(TRIED), rng.choice(NEXT), 2 + k))
    swaps = ((actor.id, group.name, monday - timedelta(weeks=1), ahead[actor.name]),
             (incoming.id, group.name, monday, ahead[incoming.name]))
    first = int(next_key(session, "IT").split("-")[1])
    planted = tuple(f"IT-{first + k}" for k in range(3))
    existing = [t.key for t in _open_incidents(session, group.id)]
    keys = tuple(sorted(existing + list(planted), key=lambda key: int(key.split("-")[1])))
    return Handover(group.name, actor.id, incoming.id, other.id, decoy_group.name, decoy_engineer.id,
                    tuple(services[3:]), tuple(specs), swaps, keys, planted)


def handover_setup(h: Handover):
    """Setup: last week's incidents of the group, announced and updated in #incidents, a resolved one
    and another group's open one beside them, and the rota swaps (the rota family's setup)."""
    return _handover(h.group, list(h.specs), list(h.swaps), h.decoy_group, h.decoy_engineer, list(h.spare))


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

    def _block(self, to: int, handle: str) -> list[ToolCall]:
        return [ToolCall("tickets_get_ticket", {"key": self.key}), ToolCall("tickets_list_comments", {"key": self.key}),
                ToolCall("chat_search_messages", {"query": f"{self.key} {self.summary}", "channel": "incidents"}),
                ToolCall("chat_get_thread", {"message_id": Ref(2, "items.0.id")}),
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
        near = [t.key for t in production_incidents(start) if t.key != self.key
                and (is_open(t.status) or t.group_id == ticket.group_id)][-LOOKALIKES:]
        return Declaration([Target("ticket", self.key, near)])

    def check(self, ctx):
        ticket = next(t for t in production_incidents(ctx.start) if t.key == self.key)
        now, to = ctx.final.get(Ticket, ticket.id), ctx.start.get(Person, self.to)
        top = incident_thread(ctx.start, self.key)
        channel = channel_named(ctx.start, "incidents").id
        replies = [r["text"] for r in added_messages(ctx, ctx.actor_id) if top is not None
                   and r["thread_parent_id"] == top.id]
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
        status = "Assigned" if ticket.status == "New" else ticket.status
        allowed = [allow_ticket(ticket.id, values=ending(ticket, assignee_id=to.id, status=status)),
                   allow_comment(ctx, ticket.id, None, internal=True),
                   *(allow_posts(ctx, channel, top.id) if top is not None else [])]
        return Graded(results, allowed)


def handovers(session, h: Handover, to: Person, away: Person | None = None,
              named: Person | None = None) -> list[HandOverIncident]:
    """The handover of each open incident of the drawn week to `to` (`away`: the rota's incoming
    engineer, away, who named `to` or, outside the group, `named`; then the work notes' words are
    read too)."""
    group = group_named(session, h.group)
    by_key = {t.key: t for t in _open_incidents(session, group.id)}
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
