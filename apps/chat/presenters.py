"""Converters from chat records to the output models of `schemas.py`.

Presenters only read. They take whole pages at once: a page of messages costs the same handful of
queries (authors, channels, reply counts, pins, reactions, mentions) whatever its size.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Sequence

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from officegym.apps.org.models import Person
from officegym.apps.org.presenters import page_fields

from .messages import pinned_ids, reply_counts
from .models import Channel, Membership, Mention, Message, Reaction
from .reactions import unread_counts
from .schemas import ChannelOut, MessageHistory, MessageOut, MessagePage, ReactionOut, ThreadOut, UnreadPage, WaitOut

__all__ = ["page_fields", "channels_out", "channel_out", "unread_page_out", "messages_out", "message_out",
           "history_out", "message_page_out", "thread_out", "wait_out"]


def channels_out(session: Session, actor: Person, channels: Sequence[Channel]) -> list[ChannelOut]:
    """A list of channels: member counts, your membership, unread counts and DM names in batches."""
    ids = [c.id for c in channels]
    if not ids:
        return []
    counts = dict(session.execute(select(Membership.channel_id, func.count()).where(Membership.channel_id.in_(ids))
                                  .group_by(Membership.channel_id)).all())
    mine = set(session.scalars(select(Membership.channel_id).where(Membership.channel_id.in_(ids),
                                                                   Membership.person_id == actor.id)))
    unread = unread_counts(session, actor, mine) if mine else {}
    members: dict[int, list[tuple[str, str, int]]] = defaultdict(list)
    conversations = [c.id for c in channels if c.is_conversation]
    if conversations:
        rows = session.execute(select(Membership.channel_id, Person.handle, Person.name, Person.id)
                               .join(Person, Person.id == Membership.person_id)
                               .where(Membership.channel_id.in_(conversations)).order_by(Person.name, Person.id))
        for channel_id, handle, name, person_id in rows:
            members[channel_id].append((handle, name, person_id))
    out = []
    for c in channels:
        handles = [m[0] for m in members[c.id]] if c.is_conversation else None
        if c.is_conversation:
            others = [m[1] for m in members[c.id] if m[2] != actor.id] or [m[1] for m in members[c.id]]
            display = ", ".join(others)
        else:
            display = f"#{c.name}"
        out.append(ChannelOut(id=c.id, name=c.name, display_name=display, kind=c.kind, topic=c.topic,
                              purpose=c.purpose, is_archived=c.is_archived, is_member=c.id in mine,
                              member_count=counts.get(c.id, 0), members=handles,
                              unread_count=unread.get(c.id, 0) if c.id in mine else None,
                              created_at=c.created_at.isoformat()))
    return out


def channel_out(session: Session, actor: Person, channel: Channel) -> ChannelOut:
    """One channel."""
    return channels_out(session, actor, [channel])[0]


def unread_page_out(session: Session, actor: Person, page) -> UnreadPage:
    """A page of services.list_unreads, with the unread total over all conversations."""
    total_unread = sum(unread_counts(session, actor).values())
    return UnreadPage(items=channels_out(session, actor, page.items), total_unread=total_unread,
                      **page_fields(page))


def messages_out(session: Session, messages: Sequence[Message]) -> list[MessageOut]:
    """A page of messages: authors, channel names, replies, pins, reactions and mentions in batches."""
    ids = [m.id for m in messages]
    if not ids:
        return []
    authors = {pid: (handle, name) for pid, handle, name in session.execute(
        select(Person.id, Person.handle, Person.name).where(Person.id.in_({m.author_id for m in messages})))}
    names = dict(session.execute(select(Channel.id, Channel.name)
                                 .where(Channel.id.in_({m.channel_id for m in messages}))).all())
    replies = reply_counts(session, ids)
    pinned = pinned_ids(session, ids)
    reactions: dict[int, dict[str, list[str]]] = defaultdict(dict)
    for message_id, emoji, handle in session.execute(
            select(Reaction.message_id, Reaction.emoji, Person.handle).join(Person, Person.id == Reaction.person_id)
            .where(Reaction.message_id.in_(ids)).order_by(Reaction.id)):
        reactions[message_id].setdefault(emoji, []).append(handle)
    mentions: dict[int, list[str]] = defaultdict(list)
    for message_id, handle in session.execute(
            select(Mention.message_id, Person.handle).join(Person, Person.id == Mention.person_id)
            .where(Mention.message_id.in_(ids)).order_by(Mention.id)):
        mentions[message_id].append(handle)
    return [MessageOut(id=m.id, channel_id=m.channel_id, channel_name=names.get(m.channel_id, ""),
                       author=authors[m.author_id][0], author_name=authors[m.author_id][1], text=m.text,
                       created_at=m.created_at.isoformat(), edited=m.edited_at is not None, deleted=m.is_deleted,
                       thread_parent_id=m.thread_parent_id, reply_count=replies.get(m.id, 0),
                       reactions=[ReactionOut(emoji=e, count=len(who), people=who)
                                  for e, who in reactions[m.id].items()],
                       mentions=mentions[m.id], pinned=m.id in pinned)
            for m in messages]


def message_out(session: Session, message: Message) -> MessageOut:
    """One message."""
    return messages_out(session, [message])[0]


def history_out(session: Session, page) -> MessageHistory:
    """A before_id page of history (services.list_messages)."""
    items = messages_out(session, page.items)
    more = page.next_offset is not None and bool(items)
    return MessageHistory(items=items, total=page.total, next_before_id=items[-1].id if more else None)


def message_page_out(session: Session, page) -> MessagePage:
    """An offset page of messages (search, mentions)."""
    return MessagePage(items=messages_out(session, page.items), **page_fields(page))


def thread_out(session: Session, parent: Message, page) -> ThreadOut:
    """A thread's parent and one page of its replies, presented in one batch."""
    presented = messages_out(session, [parent, *page.items])
    return ThreadOut(parent=presented[0], replies=presented[1:], **page_fields(page))


def wait_out(session: Session, waited) -> WaitOut:
    """A wait's outcome (services.wait)."""
    return WaitOut(started_at=waited.started.isoformat(), now=waited.ended.isoformat(),
                   minutes_waited=waited.minutes, messages=messages_out(session, waited.messages))
