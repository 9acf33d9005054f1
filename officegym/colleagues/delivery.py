"""Replies and events fall due at simulated times. A message the agent posts is read by each
colleague it reaches (see `reach`) when their working hours allow, and answered after their
delay (see `availability`); someone out of office sends their auto-reply at once. Each reply owed
is stored (PendingReply) and delivered when the company clock reaches its time: a write moves
the clock a tick, waiting (chat's `wait`) moves it to the next thing due, reading moves nothing.
A task's events (see `events`) are delivered the same way, in time order with the replies.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from officegym import clock
from officegym.apps.chat.models import Message
from officegym.apps.org.models import Person

from . import availability, events
from .answering import answer_as
from .models import PendingReply
from .reach import reach_of

MAX_REPLIERS = 5


def schedule(session: Session, message: Message) -> list[PendingReply]:
    """Owe a reply to `message` from each colleague it reaches (at most MAX_REPLIERS, never its author)."""
    reach = reach_of(session, message, MAX_REPLIERS)
    owed = []
    for person in reach.people:
        absence = availability.away(session, person, message.created_at)
        due = message.created_at if absence is not None else \
            availability.reply_due(person, message.id, message.created_at)
        owed.append(PendingReply(message_id=message.id, person_id=person.id, direct=person.id in reach.addressed,
                                 away_until=absence.ends_at if absence is not None else None, due_at=due))
    session.add_all(owed)
    session.flush()
    return owed


def next_due(session: Session) -> datetime | None:
    """The simulated time of the next reply or timed event still to come (None: nothing is)."""
    reply = session.scalar(select(func.min(PendingReply.due_at)))
    event = events.next_due(session)
    return min((t for t in (reply, event) if t is not None), default=None)


def anything_due(session: Session) -> bool:
    """Whether a reply or an event is due by the company clock's time (what `deliver_due` would
    deliver)."""
    now = clock.company_now(session)
    if session.scalar(select(PendingReply.id).where(PendingReply.due_at <= now).limit(1)) is not None:
        return True
    return bool(events.due(session, now))


def deliver_due(session: Session) -> int:
    """Deliver every reply and event due by the company clock's time, in time order (an event
    before the replies due at its time); how many were delivered."""
    now, delivered = clock.company_now(session), 0
    while True:
        reply = session.scalars(select(PendingReply).where(PendingReply.due_at <= now)
                                .order_by(PendingReply.due_at, PendingReply.id).limit(1)).first()
        happening = events.due(session, now)
        if happening and (reply is None or (happening[0].due_at or now) <= reply.due_at):
            events.happen(session, happening[0])
        elif reply is not None:
            _reply(session, reply)
        else:
            return delivered
        delivered += 1


def _reply(session: Session, owed: PendingReply) -> None:
    """Deliver one owed reply (the colleague reads the world as it is now)."""
    session.delete(owed)
    message, person = session.get(Message, owed.message_id), session.get(Person, owed.person_id)
    if message is None or person is None:
        return
    skip = {p.id for p in reach_of(session, message, MAX_REPLIERS).people}
    away_text = ""
    if owed.away_until is not None:
        absence = availability.away(session, person, message.created_at)
        away_text = availability.auto_reply(session, absence) if absence is not None else ""
        if not away_text or not owed.direct:
            return
    answer_as(session, person, message, owed.direct, skip, away_text)
