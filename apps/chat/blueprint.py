"""The chat blueprint and what its page modules share: the page sizes, the template helpers, the
URL of a conversation, and the render wrapper that draws every page inside the layout with the sidebar.

The routes are in the `*_views.py` modules (listed in `views.py`), each registering on `bp`.
Channels appear in URLs by their stored name (`/c/general`, `/c/dm-3-7`); an id works too.
"""

from __future__ import annotations

from typing import Iterable

from flask import Blueprint, render_template, url_for
from sqlalchemy.orm import Session

from officegym.apps.org.models import Person

from . import presenters, schemas, services, timeline
from .models import Channel

bp = Blueprint("chat", __name__, template_folder="templates")
PAGE = 50  # rows of a list (channels, conversations, search results)
HISTORY = 30  # messages of a channel's page, newest last, with a link to older ones: light to read
SIDEBAR_CONVERSATIONS = 12  # the most recent; "+ New message" lists them all
WAIT_CHOICES = (15, 60, 240, services.MAX_WAIT_MINUTES)  # the minutes a conversation's wait control offers


@bp.context_processor
def chat_helpers() -> dict:
    """What chat templates draw with: icons, avatars' initials and colours, emoji names, wait choices."""
    return {"chat_icons": timeline.ICON_PATHS, "initials": timeline.initials, "avatar_colour": timeline.avatar_colour,
            "emoji_name": timeline.emoji_name, "wait_choices": WAIT_CHOICES}


def channel_url(channel: Channel | schemas.ChannelOut, **args) -> str:
    """The page of a channel or DM."""
    return url_for("chat.channel", ref=channel.name, **args)


def conversations(db: Session, actor: Person, channel_ids: Iterable[int]) -> dict[int, schemas.ChannelOut]:
    """These conversations as shown on screen (display name, archived or not), by id."""
    channels = [services.get_channel(db, actor, cid) for cid in sorted(set(channel_ids))]
    return {c.id: c for c in presenters.channels_out(db, actor, channels)}


def render_chat(db: Session, actor: Person, template: str, current: Channel | None = None, **context):
    """Render a chat page inside the layout with the sidebar (channels and DMs, with unread counts)."""
    channels = services.list_channels(db, actor, member_only=True, limit=200).items
    conversations = services.list_conversations(db, actor, limit=SIDEBAR_CONVERSATIONS).items
    return render_template(
        template, current=current, info=presenters.channel_out(db, actor, current) if current else None,
        side_channels=presenters.channels_out(db, actor, channels),
        side_conversations=presenters.channels_out(db, actor, conversations), **context)
