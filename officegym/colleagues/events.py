"""Events during an episode: what a task makes happen while the agent works (a follow-up message
that changes the request, a colleague correcting a figure, a ticket escalated or commented on, a
case updated, an approval revoked). A task declares them (`Event`, on its instance); its setup stores them
(`schedule`), and they happen, in order, when the simulated clock reaches their time (`at`) or
once the agent has made its k-th write (`after_writes`): delivery runs with the colleagues' replies
(see `delivery`), so the same actions meet the same events at the same times.

An event's writes are journaled with the surface "event" and recorded like a colleague's reply
(ColleagueWrite): they are the world's doing, not the agent's, and stay out of the diff unless the
agent changes the same rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from officegym import clock
from officegym.apps.chat import services as chat
from officegym.apps.crm import services as crm
from officegym.apps.org.models import Person
from officegym.apps.tickets import services as tickets
from officegym.errors import OfficeError
from officegym.journal import JournalEntry

from .answering import _last_seq, as_colleague
from .models import ColleagueWrite, ScheduledEvent

AGENT_SURFACES = ("ui", "mcp")
NOT_WRITES = ("chat.wait",)  # journaled, but no write: waiting moves only the clock


def _message(session: Session, author: Person, args: dict[str, Any]) -> None:
    """Post a message: in `channel`, or in the DM of the author with `dm_with` (a person id)."""
    channel = args.get("channel") or chat.open_conversation(session, author, [args["dm_with"]]).id
    chat.post_message(session, author, channel, args["text"], thread_parent_id=args.get("thread_parent_id"))


# What an event may do, by kind: each runs services as the event's author with the stored args.
KINDS: dict[str, Callable[[Session, Person, dict[str, Any]], Any]] = {
    "message": _message,
    "update_ticket": lambda s, who, a: tickets.update_ticket(s, who, a["key"], **a["changes"]),
    "comment_ticket": lambda s, who, a: tickets.add_comment(s, who, a["key"], a["body"]),
    "update_opportunity": lambda s, who, a: crm.update_opportunity(s, who, a["opportunity"], **a["changes"]),
    "update_case": lambda s, who, a: crm.update_case(s, who, a["case"], **a["changes"]),
    "reject_discount": lambda s, who, a: crm.reject_discount(s, who, a["approval"], a.get("note", "")),
    "approve_discount": lambda s, who, a: crm.approve_discount(s, who, a["approval"], a.get("note", "")),
    "log_activity": lambda s, who, a: crm.log_activity(s, who, a["record_type"], a["record_id"], a["kind"],
                                                       a["subject"], a.get("body", "")),
}


@dataclass
class Event:
    """One event a task declares: `kind` (one of KINDS) done by `author_id` with `args`, at the
    simulated time `at` or once the agent has made `after_writes` writes (one of the two)."""

    kind: str
    author_id: int
    args: dict[str, Any] = field(default_factory=dict)
    at: datetime | None = None
    after_writes: int | None = None

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"an event's kind is one of {sorted(KINDS)}, not {self.kind!r}")
        if (self.at is None) == (self.after_writes is None):
            raise ValueError("an event happens either at a time or after a number of writes")


def schedule(session: Session, events: list[Event]) -> None:
    """Store a task's events in the episode's start state (a setup does this)."""
    for event in events:
        session.add(ScheduledEvent(kind=event.kind, args={**event.args, "author_id": event.author_id},
                                   due_at=event.at, after_writes=event.after_writes))
    session.flush()


def agent_writes(session: Session) -> int:
    """How many writes the agent has made in this episode (waiting is none)."""
    return session.scalar(select(func.count()).select_from(JournalEntry).where(
        JournalEntry.surface.in_(AGENT_SURFACES), JournalEntry.action.not_in(NOT_WRITES))) or 0


def next_due(session: Session) -> datetime | None:
    """The time of the next event still to happen at a time."""
    return session.scalar(select(func.min(ScheduledEvent.due_at)).where(ScheduledEvent.delivered_at.is_(None)))


def due(session: Session, now: datetime) -> list[ScheduledEvent]:
    """The events that should have happened by `now`, in order (by time, then as declared)."""
    waiting = list(session.scalars(select(ScheduledEvent).where(ScheduledEvent.delivered_at.is_(None))
                                   .order_by(ScheduledEvent.id)))
    writes = agent_writes(session) if any(e.after_writes is not None for e in waiting) else 0
    ready = [e for e in waiting if (e.due_at is not None and e.due_at <= now)
             or (e.after_writes is not None and e.after_writes <= writes)]
    return sorted(ready, key=lambda e: (e.due_at or now, e.id))


def happen(session: Session, event: ScheduledEvent) -> None:
    """Make one event happen now, as its author, journaled with the surface "event"."""
    author = session.get(Person, event.args["author_id"])
    event.delivered_at = clock.company_now(session)
    with as_colleague(session):
        session.info["surface"] = "event"
        first = _last_seq(session)
        try:
            KINDS[event.kind](session, author, event.args)
        except OfficeError:  # the agent already changed the world so that it no longer applies
            return
        session.flush()
        session.add(ColleagueWrite(person_id=author.id, message_id=0, first_seq=first + 1,
                                   last_seq=_last_seq(session)))


__all__ = ["Event", "KINDS", "schedule", "agent_writes", "next_due", "due", "happen"]
