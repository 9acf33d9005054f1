"""Output models of chat, shared by the MCP tools and the UI's JSON.

Presenters only read. They take whole pages at once: a page of messages costs the same handful of
queries (authors, channels, reply counts, pins, reactions, mentions) whatever its size.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Sequence

from pydantic import BaseModel, Field
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from officegym.apps.org.models import Person
from officegym.apps.org.schemas import PageFields, page_fields

from . import services
from .models import Channel, Membership, Mention, Message, Reaction


class ChannelOut(BaseModel):
    """A channel, DM or group DM as the actor sees it."""

    id: int
    name: str = Field(description="Stored name: channels are #name; DMs and group DMs are dm-<member ids>")
    display_name: str = Field(description="#name for channels; the other members' names for DMs")
    kind: str = Field(description="public, private, dm or group_dm")
    topic: str
    purpose: str
    is_archived: bool = Field(description="Archived channels are read-only")
    is_member: bool = Field(description="Whether you are in it")
    member_count: int
    members: list[str] | None = Field(description="Handles of everyone in a DM or group DM; null for channels")
    unread_count: int | None = Field(description="Top-level messages by others you have not read; null when "
                                                 "you are not a member")
    created_at: str = Field(description="ISO date-time")


class ChannelPage(PageFields):
    """One page of channels."""

    items: list[ChannelOut]


class UnreadPage(PageFields):
    """One page of your conversations with unread messages, most unread first."""

    items: list[ChannelOut]
    total_unread: int = Field(description="Unread messages over all your conversations")


class ReactionOut(BaseModel):
    """One emoji on a message and who used it."""

    emoji: str
    count: int
    people: list[str] = Field(description="Handles of the people who reacted, in order")


class MessageOut(BaseModel):
    """A message with its thread, reaction, mention and pin state."""

    id: int
    channel_id: int
    channel_name: str = Field(description="Stored name of the channel or DM (usable as the channel argument)")
    author: str = Field(description="The author's handle")
    author_name: str
    text: str = Field(description="Empty for a deleted message")
    created_at: str = Field(description="ISO date-time")
    edited: bool
    deleted: bool
    thread_parent_id: int | None = Field(description="For a thread reply, the id of the message it replies to")
    reply_count: int = Field(description="Replies in this message's thread")
    reactions: list[ReactionOut]
    mentions: list[str] = Field(description="Handles @mentioned in the text")
    pinned: bool


class MessageHistory(BaseModel):
    """A page of a channel's history, newest first."""

    items: list[MessageOut]
    total: int = Field(description="Top-level messages older than before_id, this page included")
    next_before_id: int | None = Field(description="Pass as before_id for the older page; null at the beginning")


class MessagePage(PageFields):
    """One page of messages, newest first."""

    items: list[MessageOut]


class ThreadOut(PageFields):
    """A thread: its parent message and one page of replies, oldest first."""

    parent: MessageOut
    replies: list[MessageOut]


# ---------------------------------------------------------------- presenters

def channels_out(session: Session, actor: Person, channels: Sequence[Channel]) -> list[ChannelOut]:
    """A list of channels: member counts, your membership, unread counts and DM names in batches."""
    ids = [c.id for c in channels]
    if not ids:
        return []
    counts = dict(session.execute(select(Membership.channel_id, func.count()).where(Membership.channel_id.in_(ids))
                                  .group_by(Membership.channel_id)).all())
    mine = set(session.scalars(select(Membership.channel_id).where(Membership.channel_id.in_(ids),
                                                                   Membership.person_id == actor.id)))
    unread = services.unread_counts(session, actor, mine) if mine else {}
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
    total_unread = sum(services.unread_counts(session, actor).values())
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
    replies = services.reply_counts(session, ids)
    pinned = services.pinned_ids(session, ids)
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
