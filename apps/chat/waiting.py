"""Chat services for waiting: let simulated time pass until a new message reaches you (or one
arrives in a conversation you name), or until a bound. Reading costs no simulated time; waiting is
the way to let colleagues answer and the world move. Re-exported by `services.py`.

What reaches you: a message by someone else in a DM or group DM you are in, a message that
@mentions you, and a reply in a thread you started or replied to. Whatever falls due while the
clock moves (colleagues' replies, a task's events) is delivered through the hook the episode
installs in `session.info[WAKE]` (officegym.colleagues); without it, waiting only moves the clock.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from officegym import clock
from officegym.apps.org.models import Person
from officegym.errors import Invalid
from officegym.journal import journaled

from .access import resolve_channel
from .models import Channel, Membership, Mention, Message

MAX_WAIT_MINUTES = 480  # a working day: one wait never skips more
WAKE = "wake"  # session.info: (next_due(session) -> datetime | None, deliver(session) -> None)


@dataclass
class Waited:
    """What a wait came to: when it began and ended, and the messages that reached the actor."""

    started: datetime
    ended: datetime
    messages: list[Message]

    @property
    def minutes(self) -> float:
        """Simulated minutes waited."""
        return (self.ended - self.started) / timedelta(minutes=1)


def _reaching(session: Session, actor: Person, after_id: int, channel: Channel | None) -> list[Message]:
    """Messages newer than `after_id`, by others, that reach the actor (in `channel`, any by others there)."""
    stmt = select(Message).where(Message.id > after_id, Message.author_id != actor.id,
                                 Message.deleted_at.is_(None)).order_by(Message.id)
    if channel is not None:
        return list(session.scalars(stmt.where(Message.channel_id == channel.id)))
    conversations = select(Membership.channel_id).join(Channel, Channel.id == Membership.channel_id).where(
        Membership.person_id == actor.id, Channel.kind.in_(("dm", "group_dm")))
    mentions = select(Mention.message_id).where(Mention.person_id == actor.id)
    threads = select(Message.id).where(Message.author_id == actor.id, Message.thread_parent_id.is_(None))
    replied = select(Message.thread_parent_id).where(Message.author_id == actor.id,
                                                      Message.thread_parent_id.is_not(None))
    return list(session.scalars(stmt.where(or_(Message.channel_id.in_(conversations), Message.id.in_(mentions),
                                               Message.thread_parent_id.in_(threads),
                                               Message.thread_parent_id.in_(replied)))))


@journaled("chat.wait")
def wait(session: Session, actor: Person, minutes: int = 60, channel: int | str | None = None) -> Waited:
    """Let up to `minutes` of simulated time pass (1 to MAX_WAIT_MINUTES), stopping as soon as a new
    message reaches you (or, with `channel`, arrives there from someone else). Returns what arrived."""
    if isinstance(minutes, bool) or not isinstance(minutes, int) or not 1 <= minutes <= MAX_WAIT_MINUTES:
        raise Invalid(f"minutes must be a whole number from 1 to {MAX_WAIT_MINUTES}, got {minutes!r}.")
    found = resolve_channel(session, actor, channel) if channel not in (None, "") else None
    next_due, deliver = session.info.get(WAKE, (lambda _s: None, lambda _s: None))
    deliver(session)  # whatever is already due arrives before the wait begins
    after_id = session.scalar(select(func.max(Message.id))) or 0
    started = clock.now(session)
    deadline = started + timedelta(minutes=minutes)
    arrived: list[Message] = []
    while not arrived:
        upcoming = next_due(session)
        if upcoming is None or upcoming > deadline:
            clock.advance_to(session, deadline)
            break
        clock.advance_to(session, upcoming)
        deliver(session)
        arrived = _reaching(session, actor, after_id, found)
    return Waited(started, clock.now(session), arrived)
