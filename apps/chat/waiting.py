"""Chat services for waiting: let simulated time pass until a new message reaches you (or one
arrives in a conversation you name), or until a bound. Reading costs no simulated time; waiting is
the way to let colleagues answer and the world move. Re-exported by `services.py`.

What reaches you: a message by someone else in a DM or group DM you are in, a message that
@mentions you, and a reply in a thread you started or replied to. What reached you with your last
action (an answer or an event that came with a write) is handed over at once, without waiting. Whatever falls due while the
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
from officegym.journal import JournalEntry, journaled

from .access import resolve_channel
from .models import Channel, Membership, Mention, Message

MAX_WAIT_MINUTES = 480  # a working day: one wait never skips more
WAKE = "wake"  # session.info: (next_due(session) -> datetime | None, deliver(session) -> None)
NOT_THE_ACTOR = ("setup", "event", "colleague")  # journal surfaces of writes the actor did not make


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


def _reaching(session: Session, actor: Person, after_id: int, channel: Channel | None,
              since: datetime | None = None) -> list[Message]:
    """Messages newer than `after_id` (and, with `since`, made at or after it), by others, that reach
    the actor (in `channel`, any by others there)."""
    stmt = select(Message).where(Message.id > after_id, Message.author_id != actor.id,
                                 Message.deleted_at.is_(None)).order_by(Message.id)
    if since is not None:
        stmt = stmt.where(Message.created_at >= since)
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


def _came_with_last_action(session: Session, actor: Person, channel: Channel | None) -> list[Message]:
    """What reached the actor at the moment of their last action, when that action was not a wait
    (a colleague's answer or an event delivered with a write, at the same simulated instant): no time
    has passed since, so a wait hands it over at once rather than waiting past it."""
    last = session.scalars(select(JournalEntry).where(JournalEntry.actor_id == actor.id,
                                                      JournalEntry.surface.not_in(NOT_THE_ACTOR))
                           .order_by(JournalEntry.seq.desc())).first()
    if last is None or last.action == "chat.wait":
        return []
    return _reaching(session, actor, 0, channel, since=last.at)


@journaled("chat.wait")
def wait(session: Session, actor: Person, minutes: int = 60, channel: int | str | None = None) -> Waited:
    """Let up to `minutes` of simulated time pass (1 to MAX_WAIT_MINUTES), stopping as soon as a new
    message reaches you (or, with `channel`, arrives there from someone else). Returns what arrived."""
    if isinstance(minutes, bool) or not isinstance(minutes, int) or not 1 <= minutes <= MAX_WAIT_MINUTES:
        raise Invalid(f"minutes must be a whole number from 1 to {MAX_WAIT_MINUTES}, got {minutes!r}.")
    found = resolve_channel(session, actor, channel) if channel not in (None, "") else None
    next_due, deliver = session.info.get(WAKE, (lambda _s: None, lambda _s: None))
    deliver(session)  # whatever is already due arrives before the wait begins
    started = clock.now(session)
    already = _came_with_last_action(session, actor, found)
    if already:
        return Waited(started, started, already)
    after_id = session.scalar(select(func.max(Message.id))) or 0
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
