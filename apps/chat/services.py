"""Every rule of chat: who may see, post, edit, archive; what a valid name or message is.

Channels are named `#name` or `name` (or by id); DMs by id or by opening them with people.
Each function takes `(session, actor, plain values)` and raises an OfficeError on refusal.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from sqlalchemy import and_, func, literal_column, or_, select
from sqlalchemy.orm import Session

from officegym import clock
from officegym.apps.org.models import Person
from officegym.apps.org.services import (MAX_ID, contains, get_by_id, numeric_id, resolve_people,
                                         resolve_person)
from officegym.errors import Conflict, Forbidden, Invalid, NotFound
from officegym.journal import journaled
from officegym.pagination import Page, check_window, paginate

from .models import Channel, Membership, Mention, Message, Pin, Reaction

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


# ---------------------------------------------------------------- channels

def list_channels(session: Session, actor: Person, query: str = "", include_archived: bool = False,
                  member_only: bool = False, offset: int = 0, limit: int = 50) -> Page[Channel]:
    """Public channels and the private ones `actor` is in, by name."""
    mine = select(Membership.channel_id).where(Membership.person_id == actor.id)
    stmt = select(Channel).where(NAMED, or_(Channel.kind == "public", Channel.id.in_(mine))).order_by(Channel.name)
    if not isinstance(query, str) or len(query) > 80:
        raise Invalid("query must be text of at most 80 characters.")
    if query.strip():
        term = query.strip().lstrip("#")
        stmt = stmt.where(or_(*(contains(column, term) for column in (Channel.name, Channel.topic, Channel.purpose))))
    if not include_archived:
        stmt = stmt.where(Channel.is_archived.is_(False))
    if member_only:
        stmt = stmt.where(Channel.id.in_(mine))
    return paginate(session, stmt, offset, limit)


def get_channel(session: Session, actor: Person, channel: int | str) -> Channel:
    """One channel the actor may see."""
    return resolve_channel(session, actor, channel)


def list_members(session: Session, actor: Person, channel: int | str, offset: int = 0,
                 limit: int = 100) -> Page[Person]:
    """The people in a channel, by name."""
    found = resolve_channel(session, actor, channel)
    stmt = (select(Person).join(Membership, Membership.person_id == Person.id)
            .where(Membership.channel_id == found.id).order_by(Person.name, Person.id))
    return paginate(session, stmt, offset, limit)


@journaled("chat.create_channel")
def create_channel(session: Session, actor: Person, name: str, is_private: bool = False, topic: str = "",
                   purpose: str = "", members: list[int | str] | None = None) -> Channel:
    """Create a public or private channel; the creator and `members` join it."""
    cleaned = _clean_name(name)
    topic = _clean_text(topic, "Topic", MAX_TOPIC, allow_empty=True)
    purpose = _clean_text(purpose, "Purpose", MAX_TOPIC, allow_empty=True)
    if not isinstance(is_private, bool):
        raise Invalid("is_private must be true or false.")
    if session.scalar(select(Channel.id).where(Channel.name == cleaned)) is not None:
        raise Conflict(f"A channel named #{cleaned} already exists (it may be private or archived); pick another name.")
    invitees = resolve_people(session, members) if members else []
    when = clock.advance(session)
    channel = Channel(name=cleaned, kind="private" if is_private else "public", topic=topic, purpose=purpose,
                      created_by_id=actor.id, created_at=when)
    session.add(channel)
    session.flush()
    for person in [actor, *[p for p in invitees if p.id != actor.id]]:
        _join(session, channel, person, when)
    session.flush()
    return channel


@journaled("chat.update_channel")
def update_channel(session: Session, actor: Person, channel: int | str, topic: str | None = None,
                   purpose: str | None = None, name: str | None = None) -> Channel:
    """Set a channel's topic or purpose (members), or rename it (its creator or an admin)."""
    found = resolve_channel(session, actor, channel)
    if found.is_conversation:
        raise Invalid("Direct messages have no topic, purpose or name to change.")
    _require_open(found)
    _require_member(session, actor, found, "change it")
    if topic is None and purpose is None and name is None:
        raise Invalid("Give a new topic, purpose or name.")
    if name is not None:
        new_name = _clean_name(name)
        if not (actor.is_admin or found.created_by_id == actor.id):
            raise Forbidden(f"Only the creator of #{found.name} or a workspace admin may rename it.")
        if found.name == GENERAL:
            raise Forbidden("#general cannot be renamed.")
        if new_name != found.name and session.scalar(select(Channel.id).where(Channel.name == new_name)):
            raise Conflict(f"A channel named #{new_name} already exists.")
        found.name = new_name
    if topic is not None:
        found.topic = _clean_text(topic, "Topic", MAX_TOPIC, allow_empty=True)
    if purpose is not None:
        found.purpose = _clean_text(purpose, "Purpose", MAX_TOPIC, allow_empty=True)
    clock.advance(session)
    return found


@journaled("chat.archive_channel")
def archive_channel(session: Session, actor: Person, channel: int | str) -> Channel:
    """Archive a channel (workspace admins and owners only); it becomes read-only."""
    found = resolve_channel(session, actor, channel)
    if not actor.is_admin:
        raise Forbidden(f"Only workspace admins or owners may archive channels; you are a {actor.role}.")
    if found.is_conversation or found.name == GENERAL:
        raise Forbidden(f"#{found.name} cannot be archived.")
    if found.is_archived:
        raise Conflict(f"#{found.name} is already archived.")
    found.is_archived = True
    clock.advance(session)
    return found


@journaled("chat.unarchive_channel")
def unarchive_channel(session: Session, actor: Person, channel: int | str) -> Channel:
    """Bring an archived channel back (workspace admins and owners only)."""
    found = resolve_channel(session, actor, channel)
    if not actor.is_admin:
        raise Forbidden(f"Only workspace admins or owners may unarchive channels; you are a {actor.role}.")
    if not found.is_archived:
        raise Conflict(f"#{found.name} is not archived.")
    found.is_archived = False
    clock.advance(session)
    return found


@journaled("chat.join_channel")
def join_channel(session: Session, actor: Person, channel: int | str) -> Channel:
    """Join a public channel."""
    found = resolve_channel(session, actor, channel)
    if is_member(session, found, actor):
        raise Conflict(f"You are already a member of #{found.name}.")
    if found.kind != "public":
        raise Forbidden(f"#{found.name} is private; a member must invite you.")
    _require_open(found)
    _join(session, found, actor, clock.advance(session))
    return found


@journaled("chat.leave_channel")
def leave_channel(session: Session, actor: Person, channel: int | str) -> Channel:
    """Leave a channel you are in (not #general, not a DM)."""
    found = resolve_channel(session, actor, channel)
    if found.is_conversation or found.name == GENERAL:
        raise Forbidden(f"You cannot leave {'a direct message' if found.is_conversation else '#general'}.")
    membership = session.scalar(select(Membership).where(Membership.channel_id == found.id,
                                                         Membership.person_id == actor.id))
    if membership is None:
        raise Conflict(f"You are not a member of #{found.name}.")
    session.delete(membership)
    clock.advance(session)
    return found


@journaled("chat.invite_to_channel")
def invite_to_channel(session: Session, actor: Person, channel: int | str, people: list[int | str]) -> Channel:
    """Add people to a channel you are in."""
    found = resolve_channel(session, actor, channel)
    if found.is_conversation:
        raise Invalid("People cannot be added to a direct message; open a new one with everyone instead.")
    _require_open(found)
    _require_member(session, actor, found, "invite people")
    invitees = resolve_people(session, people)
    already = [p for p in invitees if is_member(session, found, p)]
    if already:
        names = ", ".join(f"@{p.handle}" for p in already)
        raise Conflict(f"Already in #{found.name}: {names}. Invite only people who are not members.")
    when = clock.advance(session)
    for person in invitees:
        _join(session, found, person, when)
    return found


@journaled("chat.remove_from_channel")
def remove_from_channel(session: Session, actor: Person, channel: int | str, person: int | str) -> Channel:
    """Remove someone from a channel (its creator or a workspace admin)."""
    found = resolve_channel(session, actor, channel)
    if found.is_conversation or found.name == GENERAL:
        raise Forbidden(f"Nobody can be removed from {'a direct message' if found.is_conversation else '#general'}.")
    _require_open(found)
    if not (actor.is_admin or found.created_by_id == actor.id):
        raise Forbidden(f"Only the creator of #{found.name} or a workspace admin may remove people.")
    target = resolve_person(session, person)
    membership = session.scalar(select(Membership).where(Membership.channel_id == found.id,
                                                         Membership.person_id == target.id))
    if membership is None:
        raise Conflict(f"@{target.handle} is not a member of #{found.name}.")
    session.delete(membership)
    clock.advance(session)
    return found


# ---------------------------------------------------------------- direct messages

@journaled("chat.open_conversation")
def open_conversation(session: Session, actor: Person, people: list[int | str]) -> Channel:
    """The DM (one other person) or group DM (2-8 others) with `people`, created if needed."""
    others = [p for p in resolve_people(session, people) if p.id != actor.id]
    if not others:
        raise Invalid("Name at least one other person to message.")
    if len(others) > MAX_GROUP:
        raise Invalid(f"A group DM holds at most {MAX_GROUP} other people; create a private channel instead.")
    everyone = [actor, *others]
    name = conversation_name(everyone)
    existing = session.scalar(select(Channel).where(Channel.name == name))
    if existing is not None:
        return existing
    when = clock.advance(session)
    channel = Channel(name=name, kind="dm" if len(others) == 1 else "group_dm", created_by_id=actor.id,
                      created_at=when)
    session.add(channel)
    session.flush()
    for person in everyone:
        _join(session, channel, person, when)
    session.flush()
    return channel


def list_conversations(session: Session, actor: Person, offset: int = 0, limit: int = 50) -> Page[Channel]:
    """The actor's DMs and group DMs, most recently active first."""
    # The newest message of each of the actor's conversations, looked up per conversation on the
    # channel index (grouping every message of the world by channel would read them all).
    last_id = (select(func.max(Message.id)).where(Message.channel_id == Channel.id)
               .correlate(Channel).scalar_subquery())
    stmt = (select(Channel).join(Membership, and_(Membership.channel_id == Channel.id,
                                                  Membership.person_id == actor.id))
            .where(Channel.kind.in_(("dm", "group_dm")))
            .order_by(func.coalesce(last_id, 0).desc(), Channel.id.desc()))
    return paginate(session, stmt, offset, limit)


def conversation_members(session: Session, channel: Channel) -> list[Person]:
    """Everyone in a conversation, by name."""
    return list(session.scalars(select(Person).join(Membership, Membership.person_id == Person.id)
                                .where(Membership.channel_id == channel.id).order_by(Person.name)))


# ---------------------------------------------------------------- messages

@journaled("chat.post_message")
def post_message(session: Session, actor: Person, channel: int | str, text: str,
                 thread_parent_id: int | None = None) -> Message:
    """Post a message in a channel or DM you are in; with `thread_parent_id`, reply in that
    message's thread. @handles in the text mention those people."""
    found = resolve_channel(session, actor, channel)
    cleaned = _clean_text(text)
    _require_open(found)
    _require_member(session, actor, found, "post")
    parent_id = None
    if thread_parent_id is not None:
        parent = resolve_message(session, actor, thread_parent_id)
        if parent.channel_id != found.id:
            raise Invalid(f"Message {parent.id} is in another conversation, not #{found.name}; "
                          "reply in the channel the message is in.")
        if parent.is_deleted:
            raise Conflict(f"Message {parent.id} was deleted; its thread takes no new replies.")
        parent_id = parent.thread_parent_id or parent.id
    message = Message(channel_id=found.id, author_id=actor.id, text=cleaned, thread_parent_id=parent_id,
                      created_at=clock.advance(session))
    session.add(message)
    session.flush()
    _sync_mentions(session, message)
    membership = session.scalar(select(Membership).where(Membership.channel_id == found.id,
                                                         Membership.person_id == actor.id))
    if parent_id is None and membership is not None:
        membership.last_read_message_id = message.id
    reached = session.info.get("on_message")  # colleagues who answer (officegym.colleagues), in episodes
    if reached is not None:
        reached(session, message)
    return message


def _own_message(session: Session, actor: Person, message_id: int, doing: str) -> Message:
    message = resolve_message(session, actor, message_id)
    if message.author_id != actor.id:
        raise Forbidden(f"Only the author may {doing} message {message.id}.")
    if message.is_deleted:
        raise Conflict(f"Message {message.id} is already deleted.")
    _require_open(message.channel)
    return message


@journaled("chat.edit_message")
def edit_message(session: Session, actor: Person, message_id: int, text: str) -> Message:
    """Change the text of one of your own messages."""
    message = _own_message(session, actor, message_id, "edit")
    message.text = _clean_text(text)
    message.edited_at = clock.advance(session)
    _sync_mentions(session, message)
    return message


@journaled("chat.delete_message")
def delete_message(session: Session, actor: Person, message_id: int) -> Message:
    """Delete one of your own messages: its text, reactions, mentions and pin are removed."""
    message = _own_message(session, actor, message_id, "delete")
    message.text = ""
    message.deleted_at = clock.advance(session)
    for model in (Reaction, Mention, Pin):
        session.query(model).filter(model.message_id == message.id).delete()
    return message


def get_message(session: Session, actor: Person, message_id: int) -> Message:
    """One message the actor may read."""
    return resolve_message(session, actor, message_id)


def list_messages(session: Session, actor: Person, channel: int | str, before_id: int | None = None,
                  limit: int = 50) -> Page[Message]:
    """A channel's top-level messages, newest first; pass the oldest id seen as `before_id` for the
    page before. Deleted messages without replies are left out."""
    found = resolve_channel(session, actor, channel)
    check_window(0, limit)
    replied = select(Message.thread_parent_id).where(Message.thread_parent_id.is_not(None))
    stmt = (select(Message).where(Message.channel_id == found.id, Message.thread_parent_id.is_(None),
                                  or_(Message.deleted_at.is_(None), Message.id.in_(replied)))
            .order_by(Message.id.desc()))
    if before_id is not None:
        if isinstance(before_id, bool) or not isinstance(before_id, int) or before_id < 1:
            raise Invalid(f"before_id must be a message id, got {before_id!r}.")
        stmt = stmt.where(Message.id < min(before_id, MAX_ID))
    return paginate(session, stmt, 0, limit)


def get_thread(session: Session, actor: Person, message_id: int, offset: int = 0,
               limit: int = 100) -> tuple[Message, Page[Message]]:
    """A thread's parent and its replies, oldest first."""
    message = resolve_message(session, actor, message_id)
    parent = session.get(Message, message.thread_parent_id) if message.thread_parent_id else message
    stmt = select(Message).where(Message.thread_parent_id == parent.id).order_by(Message.id)
    return parent, paginate(session, stmt, offset, limit)


def reply_counts(session: Session, message_ids: list[int]) -> dict[int, int]:
    """How many replies each of these messages has."""
    if not message_ids:
        return {}
    rows = session.execute(select(Message.thread_parent_id, func.count()).where(
        Message.thread_parent_id.in_(message_ids), Message.deleted_at.is_(None)).group_by(Message.thread_parent_id))
    return dict(rows.all())


def pinned_ids(session: Session, message_ids: list[int]) -> set[int]:
    """Which of these messages are pinned."""
    if not message_ids:
        return set()
    return set(session.scalars(select(Pin.message_id).where(Pin.message_id.in_(message_ids))))


def search_messages(session: Session, actor: Person, query: str = "", channel: int | str | None = None,
                    author: int | str | None = None, after: str | None = None, before: str | None = None,
                    offset: int = 0, limit: int = 20) -> Page[Message]:
    """Messages the actor can read containing every word of `query`, optionally in one channel,
    by one author, and on or after / before dates (YYYY-MM-DD). Newest first. Counting stops at
    the next thousand past the page (the page then says its total is a lower bound)."""
    if not isinstance(query, str) or len(query) > 500:
        raise Invalid("query must be text of at most 500 characters.")
    # `channel_id + 0` keeps SQLite off the channel index here: walking the messages newest first
    # stops at the end of the page, where going channel by channel would read and sort them all.
    stmt = (select(Message).where(readable_by(actor, Message.channel_id + 0),
                                  Message.deleted_at.is_(None)).order_by(Message.id.desc()))
    for term in query.split():
        stmt = stmt.where(contains(Message.text, term))
    if channel not in (None, ""):
        stmt = stmt.where(Message.channel_id == resolve_channel(session, actor, channel).id)
    if author not in (None, ""):
        stmt = stmt.where(Message.author_id == resolve_person(session, author).id)
    if after:
        stmt = stmt.where(Message.created_at >= _parse_day(after, "after"))
    if before:
        stmt = stmt.where(Message.created_at < _parse_day(before, "before"))
    if not (query.strip() or channel or author or after or before):
        raise Invalid("Give search words, a channel, an author or a date range.")
    return paginate(session, stmt, offset, limit, bounded=True)


def _parse_day(value: str, field: str) -> datetime:
    try:
        return datetime.strptime(str(value).strip(), "%Y-%m-%d")
    except ValueError:
        raise Invalid(f"{field} must be a date written YYYY-MM-DD, got {value!r}.") from None


def list_mentions(session: Session, actor: Person, offset: int = 0, limit: int = 20) -> Page[Message]:
    """Messages that @mention the actor, newest first."""
    stmt = (select(Message).join(Mention, Mention.message_id == Message.id)
            .where(Mention.person_id == actor.id, readable_by(actor, Message.channel_id))
            .order_by(Message.id.desc()))
    return paginate(session, stmt, offset, limit)


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
