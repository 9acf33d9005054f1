"""Chat pages for reading: opening chat on #general, a channel or DM with its thread pane, links to
one message, a channel's pins, and unread state. Routes register on `bp` of `blueprint.py`.
"""

from __future__ import annotations

from flask import redirect, url_for
from sqlalchemy.orm import Session

from officegym import clock
from officegym.apps.org.models import Person
from officegym.web_request import arg_int, back_url, form_int, see_other, ui

from . import presenters, services, timeline
from .blueprint import HISTORY, bp, channel_url, render_chat
from .models import Channel, Message


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
    messages = presenters.messages_out(db, list(reversed(page.items)))
    first_new = next((m.id for m in messages if last_read is not None and m.id > last_read
                      and m.author != actor.handle), None)
    now = clock.now(db)
    thread = None
    if thread_parent is not None:
        parent, replies = services.get_thread(db, actor, thread_parent.id, arg_int("offset", 0))
        presented = presenters.thread_out(db, parent, replies)
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
        messages = presenters.messages_out(db, services.list_pins(db, actor, found.id))
        return render_chat(db, actor, "chat/pins.html", current=found, messages=messages)


@bp.get("/unreads")
def unreads():
    """Your conversations with unread messages, most unread first."""
    with ui() as (db, actor):
        unread = presenters.channels_out(db, actor, services.list_unreads(db, actor))
        return render_chat(db, actor, "chat/unreads.html", unread=unread,
                           total=sum(c.unread_count or 0 for c in unread))


@bp.post("/c/<ref>/read")
def mark_read(ref: str):
    """Mark a conversation read, entirely or up to the message given."""
    upto = form_int("message_id", "The message id")
    with ui() as (db, actor):
        services.mark_read(db, actor, ref, upto)
    return see_other(back_url(url_for(".unreads")))

