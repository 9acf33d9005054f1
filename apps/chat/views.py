"""Chat pages, part 1: the blueprint, the sidebar, the channel page with its thread pane,
message links, pins and unread state.

Message actions are in `message_views.py`; channel administration, DMs, search and mentions in
`channel_views.py`. Both register their routes on this blueprint. Channels appear in URLs by
their stored name (`/c/general`, `/c/dm-3-7`); an id works too.
"""

from __future__ import annotations

from typing import Iterable

from flask import Blueprint, redirect, render_template, url_for
from sqlalchemy.orm import Session

from officegym import clock
from officegym.apps.org.models import Person
from officegym.web import arg_int, back_url, form_int, see_other, ui

from . import schemas, services, timeline
from .models import Channel, Message

bp = Blueprint("chat", __name__, template_folder="templates")
PAGE = 50  # rows of a list (channels, conversations, search results)
HISTORY = 30  # messages of a channel's page, newest last, with a link to older ones: light to read
SIDEBAR_CONVERSATIONS = 12  # the most recent; "+ New message" lists them all


@bp.context_processor
def chat_helpers() -> dict:
    """What chat templates draw with: icons, avatars' initials and colours, emoji names."""
    return {"chat_icons": timeline.ICON_PATHS, "initials": timeline.initials, "avatar_colour": timeline.avatar_colour,
            "emoji_name": timeline.emoji_name}


def channel_url(channel: Channel | schemas.ChannelOut, **args) -> str:
    """The page of a channel or DM."""
    return url_for("chat.channel", ref=channel.name, **args)


def conversations(db: Session, actor: Person, channel_ids: Iterable[int]) -> dict[int, schemas.ChannelOut]:
    """These conversations as shown on screen (display name, archived or not), by id."""
    channels = [services.get_channel(db, actor, cid) for cid in sorted(set(channel_ids))]
    return {c.id: c for c in schemas.channels_out(db, actor, channels)}


def render_chat(db: Session, actor: Person, template: str, current: Channel | None = None, **context):
    """Render a chat page inside the layout with the sidebar (channels and DMs, with unread counts)."""
    channels = services.list_channels(db, actor, member_only=True, limit=200).items
    conversations = services.list_conversations(db, actor, limit=SIDEBAR_CONVERSATIONS).items
    return render_template(
        template, current=current, info=schemas.channel_out(db, actor, current) if current else None,
        side_channels=schemas.channels_out(db, actor, channels),
        side_conversations=schemas.channels_out(db, actor, conversations), **context)


@bp.get("/")
def index():
    """Chat opens on #general."""
    with ui() as (db, actor):
        general = services.get_channel(db, actor, services.GENERAL)
        return redirect(channel_url(general, _anchor="latest"))


def _channel_page(db: Session, actor: Person, channel: Channel, thread_parent: Message | None = None):
    before = arg_int("before")
    page = services.list_messages(db, actor, channel.id, before, HISTORY)
    last_read = services.last_read_id(db, actor, channel)
    if services.unread_counts(db, actor, [channel.id]).get(channel.id):
        # Opening a conversation reads it, as in any chat app.
        services.mark_read(db, actor, channel.id)
    messages = schemas.messages_out(db, list(reversed(page.items)))
    first_new = next((m.id for m in messages if last_read is not None and m.id > last_read
                      and m.author != actor.handle), None)
    now = clock.now(db)
    thread = None
    if thread_parent is not None:
        parent, replies = services.get_thread(db, actor, thread_parent.id, arg_int("offset", 0))
        presented = schemas.thread_out(db, parent, replies)
        thread = {"parent": presented.parent, "rows": timeline.rows(presented.replies, now), "page": replies}
    return render_chat(db, actor, "chat/channel.html", current=channel, messages=messages, before=before,
                       rows=timeline.rows(messages, now),
                       older=messages[0].id if page.next_offset is not None and messages else None,
                       first_new=first_new if before is None else None, thread=thread)


@bp.get("/c/<ref>")
def channel(ref: str):
    """A channel or DM: header, messages (oldest to newest, older pages by `?before=<id>`), composer."""
    with ui() as (db, actor):
        return _channel_page(db, actor, services.get_channel(db, actor, ref))


@bp.get("/c/<ref>/t/<message_id>")
def thread(ref: str, message_id: str):
    """A channel with a message's thread open in the side pane."""
    with ui() as (db, actor):
        found = services.get_channel(db, actor, ref)
        message = services.get_message(db, actor, message_id)
        if message.channel_id != found.id:
            return redirect(url_for(".thread", ref=message.channel.name, message_id=message.id))
        return _channel_page(db, actor, found, message)


@bp.get("/m/<message_id>")
def message(message_id: str):
    """A link to one message: it opens in its thread, or on the page of its channel's history."""
    with ui() as (db, actor):
        found = services.get_message(db, actor, message_id)
        anchor = f"message-{found.id}"
        if found.thread_parent_id:
            return redirect(url_for(".thread", ref=found.channel.name, message_id=found.thread_parent_id,
                                    _anchor=anchor))
        latest = services.list_messages(db, actor, found.channel_id, None, HISTORY).items
        before = None if any(m.id == found.id for m in latest) else found.id + 1
        return redirect(channel_url(found.channel, before=before, _anchor=anchor))


@bp.get("/c/<ref>/pins")
def pins(ref: str):
    """A channel's pinned messages."""
    with ui() as (db, actor):
        found = services.get_channel(db, actor, ref)
        messages = schemas.messages_out(db, services.list_pins(db, actor, found.id))
        return render_chat(db, actor, "chat/pins.html", current=found, messages=messages)


@bp.get("/unreads")
def unreads():
    """Your conversations with unread messages, most unread first."""
    with ui() as (db, actor):
        unread = schemas.channels_out(db, actor, services.list_unreads(db, actor))
        return render_chat(db, actor, "chat/unreads.html", unread=unread,
                           total=sum(c.unread_count or 0 for c in unread))


@bp.post("/c/<ref>/read")
def mark_read(ref: str):
    """Mark a conversation read, entirely or up to the message given."""
    upto = form_int("message_id", "The message id")
    with ui() as (db, actor):
        services.mark_read(db, actor, ref, upto)
    return see_other(back_url(url_for(".unreads")))


from . import channel_views, message_views  # noqa: E402,F401  (register the other routes on `bp`)
