"""Chat services for messages: post, reply, edit, delete, read a channel's history and a thread,
search, and the messages that mention you. Re-exported by `services.py`, where callers find them.

Each function takes `(session, actor, plain values)` and raises an OfficeError on refusal; the
lookups and checks they build on are in `access.py`.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from officegym import clock
from officegym.apps.org.models import Person
from officegym.apps.org.services import MAX_ID, contains, resolve_person
from officegym.errors import Conflict, Forbidden, Invalid
from officegym.journal import journaled
from officegym.pagination import Page, check_window, paginate

from .access import (_clean_text, _require_member, _require_open, _sync_mentions, readable_by, resolve_channel,
                     resolve_message)
from .models import Membership, Mention, Message, Pin, Reaction


@journaled("chat.post_message")
def post_message(session: Session, actor: Person, channel: int | str, text: str,
                 thread_parent_id: int | None = None, also_send_to_channel: bool = False) -> Message:
    """Post a message in a channel or DM you are in; with `thread_parent_id`, reply in that
    message's thread, and with `also_send_to_channel` post the reply in the channel too (a message
    of its own, after the newest). @handles in the text mention those people. Returns the reply."""
    found = resolve_channel(session, actor, channel)
    cleaned = _clean_text(text)
    if not isinstance(also_send_to_channel, bool):
        raise Invalid("also_send_to_channel must be true or false.")
    if also_send_to_channel and thread_parent_id is None:
        raise Invalid("also_send_to_channel is for thread replies: give thread_parent_id, or post in the channel "
                      "without it.")
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
    when = clock.advance(session)
    message = Message(channel_id=found.id, author_id=actor.id, text=cleaned, thread_parent_id=parent_id,
                      created_at=when)
    session.add(message)
    session.flush()
    _sync_mentions(session, message)
    in_channel = message if parent_id is None else None
    if also_send_to_channel:
        in_channel = Message(channel_id=found.id, author_id=actor.id, text=cleaned, created_at=when)
        session.add(in_channel)
        session.flush()
        _sync_mentions(session, in_channel)
    membership = session.scalar(select(Membership).where(Membership.channel_id == found.id,
                                                         Membership.person_id == actor.id))
    if in_channel is not None and membership is not None:
        membership.last_read_message_id = in_channel.id
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
