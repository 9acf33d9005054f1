"""Chat pages: the blueprint `bp` of `blueprint.py`, with the routes of its page modules registered on it.

- `reading_views.py`: opening chat, a channel or DM with its thread pane, message links, pins, unread state;
- `message_views.py`: every action on a message (post, reply, edit, delete, react, pin);
- `channel_views.py`: browsing, creating and administering channels, members, DMs, search, mentions;
- `wait_views.py`: waiting for a reply (simulated time passes).
"""

from __future__ import annotations

from .blueprint import bp
from . import channel_views, message_views, reading_views, wait_views  # noqa: F401  (their routes register on bp)

__all__ = ["bp"]
