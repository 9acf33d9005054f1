"""Every rule of chat: who may see, post, edit, archive; what a valid name or message is.

Channels are named `#name` or `name` (or by id); DMs by id or by opening them with people.
Each function takes `(session, actor, plain values)` and raises an OfficeError on refusal.
This module is the facade callers import every chat service from; the rules live in one module
per subject:

- `access.py`: lookups and checks shared by every service (names, visibility, membership, clean
  text, mentions);
- `channels.py`: channels and DMs (list, create, update, archive, join, leave, invite, remove,
  open conversations);
- `messages.py`: messages (post, reply, edit, delete, history, threads, search, mentions);
- `reactions.py`: reactions, pins and unread state;
- `waiting.py`: waiting for simulated time to pass, until a message reaches you.
"""

from __future__ import annotations

from .access import (  # noqa: F401  (re-exported)
    CHANNEL_NAME, EMOJI, GENERAL, MAX_GROUP, MAX_TEXT, MAX_TOPIC, MENTION_PATTERN, NAMED, can_see, conversation_name,
    is_member, mention_warnings, mentioned_handles, readable_by, resolve_channel, resolve_message)
from .channels import (  # noqa: F401  (re-exported)
    archive_channel, conversation_members, create_channel, get_channel, invite_to_channel, join_channel,
    leave_channel, list_channels, list_conversations, list_members, open_conversation, people_to_invite,
    remove_from_channel, unarchive_channel, update_channel)
from .messages import (  # noqa: F401  (re-exported)
    delete_message, edit_message, get_message, get_thread, list_mentions, list_messages, pinned_ids, post_message,
    reply_counts, search_messages)
from .reactions import (  # noqa: F401  (re-exported)
    add_reaction, last_read_id, list_pins, list_unreads, mark_read, pin_message, recent_window, remove_reaction,
    unpin_message, unread_counts)
from .waiting import MAX_WAIT_MINUTES, Waited, wait  # noqa: F401  (re-exported)

__all__ = [
    "CHANNEL_NAME", "EMOJI", "GENERAL", "MAX_GROUP", "MAX_TEXT", "MAX_TOPIC", "MENTION_PATTERN", "NAMED",
    "can_see", "conversation_name", "is_member", "mention_warnings", "mentioned_handles", "readable_by",
    "resolve_channel",
    "resolve_message",
    "list_channels", "get_channel", "list_members", "create_channel", "update_channel", "archive_channel",
    "unarchive_channel", "join_channel", "leave_channel", "invite_to_channel", "remove_from_channel",
    "open_conversation", "list_conversations", "conversation_members", "people_to_invite",
    "post_message", "edit_message", "delete_message", "get_message", "list_messages", "get_thread", "reply_counts",
    "pinned_ids", "search_messages", "list_mentions",
    "add_reaction", "remove_reaction", "pin_message", "unpin_message", "list_pins",
    "unread_counts", "list_unreads", "mark_read", "recent_window", "last_read_id",
    "MAX_WAIT_MINUTES", "Waited", "wait",
]
