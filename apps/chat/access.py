"""Chat's lookups and checks shared by every chat service: names, visibility, membership, clean text.

Each function takes plain values (and a session) and raises an OfficeError on refusal; the write
services of `channels.py`, `messages.py` and `reactions.py` build on them.
"""

from __future__ import annotations

import re
from datetime import datetime

from sqlalchemy import func, literal_column, or_, select
from sqlalchemy.orm import Session

from officegym.apps.org.models import Person
from officegym.apps.org.services import get_by_id, numeric_id
from officegym.errors import Conflict, Forbidden, Invalid, NotFound

from .models import Channel, Membership, Mention, Message

MAX_TEXT = 4000
MAX_TOPIC = 250
GENERAL = "general"
CHANNEL_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,79}$")
EMOJI = re.compile(r"^[a-z0-9_+-]{1,40}$")
# @handle, where a handle is lowercase letters, digits, dots, dashes or underscores.
MENTION_PATTERN = re.compile(r"(?<![\w@])@([a-z0-9][a-z0-9._-]*[a-z0-9])")
MAX_GROUP = 8


# ---------------------------------------------------------------- lookups and visibility

def mentioned_handles(text: str) -> list[str]:
    """The @handles written in a text, in order, without repeats."""
    seen: list[str] = []
    for handle in MENTION_PATTERN.findall(text.lower()):
        if handle not in seen:
            seen.append(handle)
    return seen


def conversation_name(people: list[Person]) -> str:
    """The stored name of a DM or group DM: its members' ids, sorted."""
    return "dm-" + "-".join(str(i) for i in sorted(p.id for p in people))


def is_member(session: Session, channel: Channel, person: Person) -> bool:
    """Whether `person` belongs to `channel`."""
    return session.scalar(select(Membership.id).where(
        Membership.channel_id == channel.id, Membership.person_id == person.id)) is not None


def can_see(session: Session, actor: Person, channel: Channel) -> bool:
    """Public channels are seen by everyone; everything else by its members only."""
    return channel.kind == "public" or is_member(session, channel, actor)


# Public and private channels (not DMs), with the kinds written into the SQL as the partial index
# of channels by name has them (models.NAMED_KINDS_SQL): a bound parameter would hide the match.
NAMED = Channel.kind.in_([literal_column("'public'"), literal_column("'private'")])


def readable_by(actor: Person, channel_id):
    """A condition: the conversation `channel_id` names is one `actor` may read. It tests two small
    sets, the public channels (from the kind index) and the actor's memberships, rather than
    joining every conversation, which in a company with tens of thousands of DMs costs a scan."""
    public = select(Channel.id).where(Channel.kind == "public")
    mine = select(Membership.channel_id).where(Membership.person_id == actor.id)
    return or_(channel_id.in_(public), channel_id.in_(mine))


def _channel_hint(session: Session, actor: Person) -> str:
    names = session.scalars(select(Channel.name).where(NAMED, readable_by(actor, Channel.id),
                                                       Channel.is_archived.is_(False)).order_by(Channel.name).limit(25))
    return ", ".join(f"#{n}" for n in names)


def resolve_channel(session: Session, actor: Person, ref: int | str) -> Channel:
    """The channel named by id, `#name` or `name`, if `actor` may see it. A private channel the
    actor is not in is reported as not found, so its existence does not leak."""
    if not isinstance(ref, (int, str)) or isinstance(ref, bool) or (isinstance(ref, str) and not ref.strip()):
        raise Invalid(f"Name a channel by #name or numeric id, got {ref!r}.")
    ident = numeric_id(ref)
    if ident is not None:
        channel = get_by_id(session, Channel, ident)
    else:
        channel = session.scalar(select(Channel).where(Channel.name == str(ref).strip().lstrip("#").lower()))
    if channel is not None and can_see(session, actor, channel):
        return channel
    if channel is not None:
        _refuse_former_member(session, actor, channel)
    raise NotFound(f"Channel {ref!r} not found. Channels you can see: {_channel_hint(session, actor)}.")


def _refuse_former_member(session: Session, actor: Person, channel: Channel) -> None:
    """Say so when the actor has posted in a conversation they can no longer see (they left it or were
    removed): it is no longer theirs, rather than not there."""
    posted = select(Message.id).where(Message.channel_id == channel.id, Message.author_id == actor.id).limit(1)
    if session.scalar(posted) is not None:
        where = "a direct message" if channel.is_conversation else f"#{channel.name}, a private channel"
        raise NotFound(f"You are no longer a member of {where}, so you cannot see it; a member must add you back.")


def resolve_message(session: Session, actor: Person, message_id: int) -> Message:
    """A message `actor` may read, by id."""
    ident = numeric_id(message_id)
    if ident is None:
        raise Invalid(f"A message is named by its numeric id, got {message_id!r}.")
    message = get_by_id(session, Message, ident)
    if message is not None and can_see(session, actor, message.channel):
        return message
    if message is not None:
        _refuse_former_member(session, actor, message.channel)
    raise NotFound(f"Message {message_id} not found in any conversation you can see. "
                   "Use chat_search_messages or chat_list_messages to find message ids.")


def _require_member(session: Session, actor: Person, channel: Channel, doing: str) -> None:
    if not is_member(session, channel, actor):
        raise Forbidden(f"You are not a member of #{channel.name}; join it first (chat_join_channel) to {doing}.")


def _require_open(channel: Channel) -> None:
    if channel.is_archived:
        raise Conflict(f"#{channel.name} is archived; it is read-only until an admin unarchives it.")


def _clean_text(text: str, what: str = "Message text", limit: int = MAX_TEXT, allow_empty: bool = False) -> str:
    if not isinstance(text, str):
        raise Invalid(f"{what} must be text, got {type(text).__name__}.")
    cleaned = text.strip()
    if not cleaned and not allow_empty:
        raise Invalid(f"{what} is empty; write something.")
    if len(cleaned) > limit:
        raise Invalid(f"{what} is {len(cleaned)} characters; the limit is {limit}.")
    return cleaned


def _clean_name(name: str) -> str:
    if not isinstance(name, str):
        raise Invalid("A channel name must be text.")
    cleaned = name.strip().lstrip("#").lower()
    # All-digit names would read as channel ids; dm- names belong to direct messages.
    if not CHANNEL_NAME.match(cleaned) or cleaned.startswith("dm-") or cleaned.isdigit():
        raise Invalid(f"Channel name {name!r} is not valid: use 1-80 lowercase letters, digits, '-' or '_', "
                      "starting with a letter or digit, with at least one letter (and not 'dm-').")
    return cleaned


def _join(session: Session, channel: Channel, person: Person, when: datetime) -> None:
    last = session.scalar(select(func.max(Message.id)).where(Message.channel_id == channel.id)) or 0
    session.add(Membership(channel_id=channel.id, person_id=person.id, joined_at=when, last_read_message_id=last))


def _sync_mentions(session: Session, message: Message) -> None:
    session.query(Mention).filter(Mention.message_id == message.id).delete()
    handles = mentioned_handles(message.text)
    if handles:
        for person_id in session.scalars(select(Person.id).where(Person.handle.in_(handles))):
            session.add(Mention(message_id=message.id, person_id=person_id))


def mention_warnings(session: Session, message: Message) -> list[str]:
    """What the author should know about the people a message mentions who are not in its
    conversation: such a mention notifies nobody and nobody there answers it (as in Slack)."""
    channel = message.channel
    handles = mentioned_handles(message.text)
    if not handles:
        return []
    outside = session.scalars(select(Person.handle).where(
        Person.handle.in_(handles), Person.id.not_in(select(Membership.person_id).where(
            Membership.channel_id == channel.id))))
    where = f"#{channel.name}" if channel.kind in ("public", "private") else "this conversation"
    advice = "invite them or message them directly" if channel.kind in ("public", "private") else \
        "message them directly"
    return [f"@{handle} is not in {where}: {advice}." for handle in sorted(outside, key=handles.index)]
