"""Output models of chat, shared by the MCP tools and the UI's JSON.

The models only: the converters from records to them are in `presenters.py`.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from officegym.apps.org.schemas import PageFields


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
    warnings: list[str] = Field(default_factory=list, description=(
        "On posting: people @mentioned who are not in the conversation (their mention reaches nobody)"))


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


class WaitOut(BaseModel):
    """What a wait came to: the simulated time it began and ended, and what reached you meanwhile."""

    started_at: str = Field(description="ISO date-time the wait began")
    now: str = Field(description="ISO date-time it ended: the company's time now")
    minutes_waited: float
    messages: list[MessageOut] = Field(description=(
        "Messages that reached you while you waited, oldest first (empty: the time ran out first)"))
