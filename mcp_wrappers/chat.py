"""Chat tools: channels, DMs, messages, threads, reactions, pins and unread state. Each tool calls one
function of officegym.apps.chat.services (where every rule lives) and presents it with chat.presenters."""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver import Context
from pydantic import Field

from officegym.apps.chat import presenters, schemas, services
from officegym.apps.org.presenters import people_out
from officegym.apps.org.schemas import PersonPage

from .base import Id, IdOrName, Limit, Offset, PersonRef, episode_call, page_of, tool

ChannelRef = Annotated[IdOrName, Field(description=(
    "The channel: #name (e.g. #general), name, or numeric id; a DM or group DM by its numeric id"))]
People = Annotated[list[IdOrName], Field(min_length=1, max_length=50, description=(
    "People as a list of @handles, emails, exact full names or numeric ids, e.g. [\"@ana.lopez\"]"))]
MessageId = Annotated[Id, Field(description="Numeric id of the message (from a list, search or thread)")]
Text = Annotated[str, Field(max_length=services.MAX_TEXT, description=(
    f"Message text (plain text, at most {services.MAX_TEXT} characters); write @handle to mention someone"))]
Emoji = Annotated[str, Field(max_length=60, description="Emoji name such as thumbsup, tada or :white_check_mark:")]


# ---------------------------------------------------------------- channels

@tool(read_only=True)
def chat_list_channels(
    ctx: Context,
    query: Annotated[str, Field(max_length=80, description=(
        "Part of a channel name, topic or purpose; empty lists every channel you can see"))] = "",
    include_archived: Annotated[bool, Field(description="Also list archived channels")] = False,
    member_only: Annotated[bool, Field(description="Only channels you are a member of")] = False,
    offset: Offset = 0,
    limit: Limit = 50,
) -> schemas.ChannelPage:
    """List the public channels and the private channels you are in, by name; use it to find a channel."""
    with episode_call(ctx) as (session, actor):
        page = services.list_channels(session, actor, query, include_archived, member_only, offset, limit)
        return schemas.ChannelPage(items=presenters.channels_out(session, actor, page.items),
                                   **presenters.page_fields(page))


@tool(read_only=True)
def chat_get_channel(ctx: Context, channel: ChannelRef) -> schemas.ChannelOut:
    """Get one channel or DM: topic, purpose, whether it is archived, your membership and unread count."""
    with episode_call(ctx) as (session, actor):
        return presenters.channel_out(session, actor, services.get_channel(session, actor, channel))


@tool(read_only=True)
def chat_list_members(ctx: Context, channel: ChannelRef, offset: Offset = 0, limit: Limit = 100) -> PersonPage:
    """List the people in a channel or DM, by name, with their directory profiles."""
    with episode_call(ctx) as (session, actor):
        page = services.list_members(session, actor, channel, offset, limit)
        return PersonPage(items=people_out(session, page.items), **presenters.page_fields(page))


@tool()
def chat_create_channel(
    ctx: Context,
    name: Annotated[str, Field(max_length=100, description=(
        "New channel name: lowercase letters, digits, '-' or '_', e.g. q3-launch (a leading # is ignored)"))],
    is_private: Annotated[bool, Field(description="true for a private channel visible to members only")] = False,
    topic: Annotated[str, Field(max_length=services.MAX_TOPIC, description="Short topic shown in the header")] = "",
    purpose: Annotated[str, Field(max_length=services.MAX_TOPIC, description="What the channel is for")] = "",
    members: Annotated[list[IdOrName] | None, Field(max_length=50, description=(
        "People to add besides you: @handles, emails, full names or ids (optional)"))] = None,
) -> schemas.ChannelOut:
    """Create a public or private channel; you and the listed members join it."""
    with episode_call(ctx) as (session, actor):
        made = services.create_channel(session, actor, name, is_private, topic, purpose, members)
        return presenters.channel_out(session, actor, made)


@tool()
def chat_update_channel(
    ctx: Context,
    channel: ChannelRef,
    topic: Annotated[str | None, Field(max_length=services.MAX_TOPIC, description=(
        "New topic ('' clears it); omit to keep"))] = None,
    purpose: Annotated[str | None, Field(max_length=services.MAX_TOPIC, description=(
        "New purpose ('' clears it); omit to keep"))] = None,
    name: Annotated[str | None, Field(max_length=100, description=(
        "New name (lowercase letters, digits, '-' or '_'); omit to keep. Only the creator or an admin renames"
    ))] = None,
) -> schemas.ChannelOut:
    """Change a channel's topic or purpose (members may) or rename it (its creator or an admin may)."""
    with episode_call(ctx) as (session, actor):
        changed = services.update_channel(session, actor, channel, topic, purpose, name)
        return presenters.channel_out(session, actor, changed)


@tool(destructive=True)
def chat_archive_channel(ctx: Context, channel: ChannelRef) -> schemas.ChannelOut:
    """Archive a channel so it becomes read-only (workspace admins and owners only)."""
    with episode_call(ctx) as (session, actor):
        return presenters.channel_out(session, actor, services.archive_channel(session, actor, channel))


@tool()
def chat_unarchive_channel(ctx: Context, channel: ChannelRef) -> schemas.ChannelOut:
    """Bring an archived channel back so people can post again (workspace admins and owners only)."""
    with episode_call(ctx) as (session, actor):
        return presenters.channel_out(session, actor, services.unarchive_channel(session, actor, channel))


@tool()
def chat_join_channel(ctx: Context, channel: ChannelRef) -> schemas.ChannelOut:
    """Join a public channel (private channels need an invitation from a member)."""
    with episode_call(ctx) as (session, actor):
        return presenters.channel_out(session, actor, services.join_channel(session, actor, channel))


@tool(destructive=True)
def chat_leave_channel(ctx: Context, channel: ChannelRef) -> schemas.ChannelOut:
    """Leave a channel you are in (you cannot leave #general or a DM)."""
    with episode_call(ctx) as (session, actor):
        return presenters.channel_out(session, actor, services.leave_channel(session, actor, channel))


@tool()
def chat_invite_to_channel(ctx: Context, channel: ChannelRef, people: People) -> schemas.ChannelOut:
    """Add people to a channel you are a member of."""
    with episode_call(ctx) as (session, actor):
        return presenters.channel_out(session, actor, services.invite_to_channel(session, actor, channel, people))


@tool(destructive=True)
def chat_remove_from_channel(ctx: Context, channel: ChannelRef, person: PersonRef) -> schemas.ChannelOut:
    """Remove someone from a channel (the channel's creator or a workspace admin only)."""
    with episode_call(ctx) as (session, actor):
        return presenters.channel_out(session, actor, services.remove_from_channel(session, actor, channel, person))


# ---------------------------------------------------------------- direct messages

@tool()
def chat_open_conversation(ctx: Context, people: People) -> schemas.ChannelOut:
    """Open (or find) the DM with one person or the group DM with 2-8 people; post in it with its id."""
    with episode_call(ctx) as (session, actor):
        return presenters.channel_out(session, actor, services.open_conversation(session, actor, people))


@tool(read_only=True)
def chat_list_conversations(ctx: Context, offset: Offset = 0, limit: Limit = 50) -> schemas.ChannelPage:
    """List your DMs and group DMs, most recently active first."""
    with episode_call(ctx) as (session, actor):
        page = services.list_conversations(session, actor, offset, limit)
        return schemas.ChannelPage(items=presenters.channels_out(session, actor, page.items),
                                   **presenters.page_fields(page))


# ---------------------------------------------------------------- messages

@tool()
def chat_post_message(
    ctx: Context,
    channel: ChannelRef,
    text: Text,
    thread_parent_id: Annotated[Id | None, Field(description=(
        "To reply in a thread, the id of the message to reply to; omit to post in the channel"))] = None,
    also_send_to_channel: Annotated[bool, Field(description=(
        "With thread_parent_id: also post the reply in the channel (\"Also send to #channel\")"))] = False,
) -> schemas.MessageOut:
    """Post a message in a channel or DM you are in, or reply in a thread; @handles in the text mention people."""
    with episode_call(ctx) as (session, actor):
        posted = services.post_message(session, actor, channel, text, thread_parent_id, also_send_to_channel)
        return presenters.message_out(session, posted).model_copy(
            update={"warnings": services.mention_warnings(session, posted)})


@tool()
def chat_edit_message(ctx: Context, message_id: MessageId, text: Text) -> schemas.MessageOut:
    """Replace the text of one of your own messages."""
    with episode_call(ctx) as (session, actor):
        return presenters.message_out(session, services.edit_message(session, actor, message_id, text))


@tool(destructive=True)
def chat_delete_message(ctx: Context, message_id: MessageId) -> schemas.MessageOut:
    """Delete one of your own messages; its text, reactions, mentions and pin are removed."""
    with episode_call(ctx) as (session, actor):
        return presenters.message_out(session, services.delete_message(session, actor, message_id))


@tool(read_only=True)
def chat_get_message(ctx: Context, message_id: MessageId) -> schemas.MessageOut:
    """Get one message with its reactions, mentions, reply count and pin state."""
    with episode_call(ctx) as (session, actor):
        return presenters.message_out(session, services.get_message(session, actor, message_id))


@tool(read_only=True)
def chat_list_messages(
    ctx: Context,
    channel: ChannelRef,
    before_id: Annotated[Id | None, Field(description=(
        "Only messages older than this id: pass next_before_id from the previous page; omit for the newest"))] = None,
    limit: Limit = 50,
) -> schemas.MessageHistory:
    """Read a channel's or DM's top-level messages, newest first; page back in time with before_id."""
    with episode_call(ctx) as (session, actor):
        return presenters.history_out(session, services.list_messages(session, actor, channel, before_id, limit))


@tool(read_only=True)
def chat_get_thread(ctx: Context, message_id: MessageId, offset: Offset = 0, limit: Limit = 100) -> schemas.ThreadOut:
    """Read a thread: its parent message and the replies, oldest first (any message of the thread works)."""
    with episode_call(ctx) as (session, actor):
        parent, page = services.get_thread(session, actor, message_id, offset, limit)
        return presenters.thread_out(session, parent, page)


@tool(read_only=True)
def chat_search_messages(
    ctx: Context,
    query: Annotated[str, Field(max_length=500, description="Words that must all appear in the message")] = "",
    channel: Annotated[IdOrName | None, Field(
        description="Only in this channel (#name, name or id); omit for everywhere you can read")] = None,
    author: Annotated[IdOrName | None, Field(
        description="Only messages by this person (@handle, email, full name or id)")] = None,
    after: Annotated[str | None, Field(max_length=40, description=(
        "Only messages on or after this day, YYYY-MM-DD"))] = None,
    before: Annotated[str | None, Field(max_length=40, description="Only messages before this day, YYYY-MM-DD")] = None,
    offset: Offset = 0,
    limit: Limit = 20,
) -> schemas.MessagePage:
    """Search the messages you can read by words, channel, author and date range, newest first."""
    with episode_call(ctx) as (session, actor):
        page = services.search_messages(session, actor, query, channel, author, after, before, offset, limit)
        return presenters.message_page_out(session, page)


@tool(read_only=True)
def chat_list_mentions(ctx: Context, offset: Offset = 0, limit: Limit = 20) -> schemas.MessagePage:
    """List the messages that @mention you, newest first."""
    with episode_call(ctx) as (session, actor):
        return presenters.message_page_out(session, services.list_mentions(session, actor, offset, limit))


# ---------------------------------------------------------------- reactions and pins

@tool()
def chat_add_reaction(ctx: Context, message_id: MessageId, emoji: Emoji) -> schemas.MessageOut:
    """React to a message with an emoji."""
    with episode_call(ctx) as (session, actor):
        return presenters.message_out(session, services.add_reaction(session, actor, message_id, emoji))


@tool(destructive=True)
def chat_remove_reaction(ctx: Context, message_id: MessageId, emoji: Emoji) -> schemas.MessageOut:
    """Take back one of your emoji reactions on a message."""
    with episode_call(ctx) as (session, actor):
        return presenters.message_out(session, services.remove_reaction(session, actor, message_id, emoji))


@tool()
def chat_pin_message(ctx: Context, message_id: MessageId) -> schemas.MessageOut:
    """Pin a message to its channel so everyone finds it (channel members only)."""
    with episode_call(ctx) as (session, actor):
        return presenters.message_out(session, services.pin_message(session, actor, message_id))


@tool(destructive=True)
def chat_unpin_message(ctx: Context, message_id: MessageId) -> schemas.MessageOut:
    """Unpin a pinned message (channel members only)."""
    with episode_call(ctx) as (session, actor):
        return presenters.message_out(session, services.unpin_message(session, actor, message_id))


@tool(read_only=True)
def chat_list_pins(ctx: Context, channel: ChannelRef, offset: Offset = 0, limit: Limit = 50) -> schemas.MessagePage:
    """List a channel's pinned messages, most recently pinned first."""
    with episode_call(ctx) as (session, actor):
        return presenters.message_page_out(session, page_of(services.list_pins(session, actor, channel), offset, limit))


# ---------------------------------------------------------------- unread state

@tool(read_only=True)
def chat_list_unreads(ctx: Context, offset: Offset = 0, limit: Limit = 50) -> schemas.UnreadPage:
    """List your channels and DMs with unread messages by others, most unread first."""
    with episode_call(ctx) as (session, actor):
        page = page_of(services.list_unreads(session, actor), offset, limit)
        return presenters.unread_page_out(session, actor, page)


@tool()
def chat_mark_read(
    ctx: Context,
    channel: ChannelRef,
    message_id: Annotated[Id | None, Field(description=(
        "Mark read up to and including this message; omit to mark everything read"))] = None,
) -> schemas.ChannelOut:
    """Mark a channel or DM you are in as read, up to a message or entirely."""
    with episode_call(ctx) as (session, actor):
        return presenters.channel_out(session, actor, services.mark_read(session, actor, channel, message_id))
