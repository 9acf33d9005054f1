"""Chat services for channels and direct messages: list, create, update, archive, join, leave,
invite, remove, and open conversations. Re-exported by `services.py`, where callers find them."""

from __future__ import annotations

from sqlalchemy import and_, func, or_, select
from sqlalchemy.orm import Session

from officegym import clock
from officegym.apps.org.models import Person
from officegym.apps.org.services import contains, resolve_people, resolve_person
from officegym.errors import Conflict, Forbidden, Invalid
from officegym.journal import journaled
from officegym.pagination import Page, paginate

from .access import (GENERAL, MAX_GROUP, MAX_TOPIC, NAMED, _clean_name, _clean_text, _join, _require_member,
                     _require_open, conversation_name, is_member, resolve_channel)
from .models import Channel, Membership, Message


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


def people_to_invite(session: Session, actor: Person, channel: int | str, query: str = "", offset: int = 0,
                     limit: int = 20) -> Page[Person]:
    """The people a channel could take in: those not in it yet whose name, handle, email or title
    contains every word of `query`, by name."""
    found = resolve_channel(session, actor, channel)
    if not isinstance(query, str) or len(query) > 200:
        raise Invalid("query must be text of at most 200 characters.")
    in_channel = select(Membership.person_id).where(Membership.channel_id == found.id)
    stmt = select(Person).where(Person.id.not_in(in_channel)).order_by(Person.name, Person.id)
    for term in query.split():
        stmt = stmt.where(or_(*(contains(column, term) for column in (Person.name, Person.handle, Person.email,
                                                                       Person.title))))
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
