"""Chat services for reactions, pins and unread state. Re-exported by `services.py`."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from officegym import clock
from officegym.apps.org.models import Person
from officegym.errors import Conflict, Forbidden, Invalid, NotFound
from officegym.journal import journaled

from .access import EMOJI, _require_member, _require_open, resolve_channel, resolve_message
from .models import Channel, Membership, Message, Pin, Reaction


# ---------------------------------------------------------------- reactions and pins

def _clean_emoji(emoji: str) -> str:
    if not isinstance(emoji, str):
        raise Invalid("An emoji is a name such as thumbsup or :tada:.")
    cleaned = emoji.strip().strip(":").lower()
    if not EMOJI.match(cleaned):
        raise Invalid(f"Emoji {emoji!r} is not valid: use a name such as thumbsup, tada or white_check_mark.")
    return cleaned


@journaled("chat.add_reaction")
def add_reaction(session: Session, actor: Person, message_id: int, emoji: str) -> Message:
    """React to a message with an emoji."""
    message = resolve_message(session, actor, message_id)
    name = _clean_emoji(emoji)
    _require_open(message.channel)
    if message.is_deleted:
        raise Conflict(f"Message {message.id} was deleted.")
    if session.scalar(select(Reaction.id).where(Reaction.message_id == message.id, Reaction.person_id == actor.id,
                                                Reaction.emoji == name)):
        raise Conflict(f"You already reacted with :{name}: to message {message.id}.")
    session.add(Reaction(message_id=message.id, person_id=actor.id, emoji=name))
    clock.advance(session)
    session.flush()
    return message


@journaled("chat.remove_reaction")
def remove_reaction(session: Session, actor: Person, message_id: int, emoji: str) -> Message:
    """Take back one of your reactions."""
    message = resolve_message(session, actor, message_id)
    name = _clean_emoji(emoji)
    _require_open(message.channel)
    reaction = session.scalar(select(Reaction).where(Reaction.message_id == message.id,
                                                     Reaction.person_id == actor.id, Reaction.emoji == name))
    if reaction is None:
        raise NotFound(f"You have no :{name}: reaction on message {message.id}.")
    session.delete(reaction)
    clock.advance(session)
    session.flush()
    return message


@journaled("chat.pin_message")
def pin_message(session: Session, actor: Person, message_id: int) -> Message:
    """Pin a message to its channel (members only)."""
    message = resolve_message(session, actor, message_id)
    _require_open(message.channel)
    _require_member(session, actor, message.channel, "pin messages")
    if message.is_deleted:
        raise Conflict(f"Message {message.id} was deleted.")
    if session.scalar(select(Pin.id).where(Pin.message_id == message.id)):
        raise Conflict(f"Message {message.id} is already pinned.")
    session.add(Pin(channel_id=message.channel_id, message_id=message.id, pinned_by_id=actor.id,
                    pinned_at=clock.advance(session)))
    session.flush()
    return message


@journaled("chat.unpin_message")
def unpin_message(session: Session, actor: Person, message_id: int) -> Message:
    """Unpin a message (members only)."""
    message = resolve_message(session, actor, message_id)
    _require_open(message.channel)
    _require_member(session, actor, message.channel, "unpin messages")
    pin = session.scalar(select(Pin).where(Pin.message_id == message.id))
    if pin is None:
        raise NotFound(f"Message {message.id} is not pinned.")
    session.delete(pin)
    clock.advance(session)
    return message


def list_pins(session: Session, actor: Person, channel: int | str) -> list[Message]:
    """A channel's pinned messages, most recently pinned first."""
    found = resolve_channel(session, actor, channel)
    return list(session.scalars(select(Message).join(Pin, Pin.message_id == Message.id)
                                .where(Pin.channel_id == found.id).order_by(Pin.id.desc())))


# ---------------------------------------------------------------- unread state

def unread_counts(session: Session, actor: Person, channel_ids=None) -> dict[int, int]:
    """For each conversation the actor is in (or only those of `channel_ids`), how many top-level
    messages by others are unread (conversations with none are left out)."""
    # One count per membership, on the (channel, thread parent, id) index: as a join, SQLite would
    # walk every top-level message of the world by its thread-parent index instead.
    unread = (select(func.count(Message.id))
              .where(Message.channel_id == Membership.channel_id, Message.thread_parent_id.is_(None),
                     Message.id > Membership.last_read_message_id, Message.author_id != actor.id,
                     Message.deleted_at.is_(None))
              .correlate(Membership).scalar_subquery())
    stmt = select(Membership.channel_id, unread).where(Membership.person_id == actor.id)
    if channel_ids is not None:
        stmt = stmt.where(Membership.channel_id.in_(list(channel_ids)))
    return {channel_id: count for channel_id, count in session.execute(stmt.order_by(Membership.channel_id)) if count}


def list_unreads(session: Session, actor: Person) -> list[Channel]:
    """The conversations the actor has unread messages in, most unread first (then by name)."""
    counts = {cid: n for cid, n in unread_counts(session, actor).items() if n > 0}
    channels = list(session.scalars(select(Channel).where(Channel.id.in_(counts)))) if counts else []
    return sorted(channels, key=lambda c: (-counts[c.id], c.name))


@journaled("chat.mark_read")
def mark_read(session: Session, actor: Person, channel: int | str, message_id: int | None = None) -> Channel:
    """Mark a conversation read up to `message_id` (default: its newest message)."""
    found = resolve_channel(session, actor, channel)
    membership = session.scalar(select(Membership).where(Membership.channel_id == found.id,
                                                         Membership.person_id == actor.id))
    if membership is None:
        raise Forbidden(f"You are not a member of #{found.name}, so it has no unread state for you.")
    newest = session.scalar(select(func.max(Message.id)).where(Message.channel_id == found.id)) or 0
    if message_id is not None:
        target = resolve_message(session, actor, message_id)
        if target.channel_id != found.id:
            raise Invalid(f"Message {target.id} is not in #{found.name}.")
        newest = target.id
    membership.last_read_message_id = max(membership.last_read_message_id, newest)
    return found


def recent_window(session: Session, days: int) -> datetime:
    """The start of the last `days` days of company time (for 'this week' style questions)."""
    return clock.now(session) - timedelta(days=days)


def last_read_id(session: Session, actor: Person, channel: Channel) -> int | None:
    """The id of the last message `actor` has read in `channel`, or None when not a member."""
    return session.scalar(select(Membership.last_read_message_id).where(
        Membership.channel_id == channel.id, Membership.person_id == actor.id))
