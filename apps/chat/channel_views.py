"""Chat pages, part 2: browsing and creating channels, channel settings and members, direct
messages, search and mentions. Routes live on the blueprint of `views.py`."""

from __future__ import annotations

from flask import flash, request, url_for

from officegym.web import arg_int, back_url, form_people, see_other, ui

from . import services
from .views import PAGE, bp, conversation_title, message_rows, render_chat

SEARCH_FIELDS = ("q", "channel", "author", "after", "before")


@bp.get("/channels")
def browse():
    """Find channels by name, topic or purpose, and join them."""
    query = request.args.get("q", "")
    archived = request.args.get("archived") == "1"
    with ui() as (db, actor):
        page = services.list_channels(db, actor, query, archived, False, arg_int("offset", 0), PAGE)
        joined = {c.id for c in page.items if services.is_member(db, c, actor)}
        return render_chat(db, actor, "chat/browse.html", page=page, joined=joined, q=query, archived=archived)


@bp.route("/channels/new", methods=["GET", "POST"])
def new_channel():
    """Create a public or private channel with a topic, purpose and first members."""
    if request.method == "POST":
        members = form_people("members")
        with ui() as (db, actor):
            created = services.create_channel(
                db, actor, request.form.get("name", ""), "is_private" in request.form,
                request.form.get("topic", ""), request.form.get("purpose", ""), members or None)
            target, name = url_for(".channel", channel_id=created.id), created.name
        flash(f"Created #{name}.", "info")
        return see_other(target)
    with ui() as (db, actor):
        return render_chat(db, actor, "chat/new_channel.html")


@bp.get("/c/<int:channel_id>/settings")
def settings(channel_id: int):
    """Topic, purpose, name, archiving and leaving."""
    with ui() as (db, actor):
        found = services.get_channel(db, actor, channel_id)
        return render_chat(db, actor, "chat/settings.html", current=found,
                           member=services.is_member(db, found, actor))


@bp.post("/c/<int:channel_id>/update")
def update(channel_id: int):
    """Change whichever of topic, purpose and name the form carries."""
    changes = {key: request.form[key] for key in ("topic", "purpose", "name") if key in request.form}
    with ui() as (db, actor):
        services.update_channel(db, actor, channel_id, **changes)
    flash("Channel updated.", "info")
    return see_other(back_url())


@bp.post("/c/<int:channel_id>/archive")
def archive(channel_id: int):
    """Archive a channel (admins)."""
    with ui() as (db, actor):
        services.archive_channel(db, actor, channel_id)
    flash("Channel archived.", "info")
    return see_other(back_url())


@bp.post("/c/<int:channel_id>/unarchive")
def unarchive(channel_id: int):
    """Unarchive a channel (admins)."""
    with ui() as (db, actor):
        services.unarchive_channel(db, actor, channel_id)
    flash("Channel unarchived.", "info")
    return see_other(back_url())


@bp.post("/c/<int:channel_id>/join")
def join(channel_id: int):
    """Join a public channel."""
    with ui() as (db, actor):
        services.join_channel(db, actor, channel_id)
    return see_other(url_for(".channel", channel_id=channel_id, _anchor="latest"))


@bp.post("/c/<int:channel_id>/leave")
def leave(channel_id: int):
    """Leave a channel (you may lose sight of it if it is private)."""
    with ui() as (db, actor):
        left = services.leave_channel(db, actor, channel_id)
        name = left.name
    flash(f"You left #{name}.", "info")
    return see_other(url_for(".browse"))


@bp.get("/c/<int:channel_id>/members")
def members(channel_id: int):
    """Who is in a channel; invite and remove people."""
    with ui() as (db, actor):
        found = services.get_channel(db, actor, channel_id)
        page = services.list_members(db, actor, found.id, arg_int("offset", 0), 100)
        return render_chat(db, actor, "chat/members.html", current=found, page=page)


@bp.post("/c/<int:channel_id>/invite")
def invite(channel_id: int):
    """Add people to a channel."""
    with ui() as (db, actor):
        services.invite_to_channel(db, actor, channel_id, form_people("people"))
    flash("Invited.", "info")
    return see_other(back_url())


@bp.post("/c/<int:channel_id>/remove")
def remove(channel_id: int):
    """Remove someone from a channel (its creator or an admin)."""
    with ui() as (db, actor):
        services.remove_from_channel(db, actor, channel_id, request.form.get("person", ""))
    flash("Removed from the channel.", "info")
    return see_other(back_url())


@bp.get("/dms")
def dms():
    """Your direct messages, and a form to start one."""
    with ui() as (db, actor):
        page = services.list_conversations(db, actor, arg_int("offset", 0), PAGE)
        return render_chat(db, actor, "chat/dms.html", page=page)


@bp.post("/dms/open")
def open_dm():
    """Open (or create) the DM or group DM with the people named."""
    with ui() as (db, actor):
        found = services.open_conversation(db, actor, form_people("people"))
        target = url_for(".channel", channel_id=found.id, _anchor="latest")
    return see_other(target)


@bp.get("/search")
def search():
    """Search messages by words, channel, author and dates."""
    fields = {key: request.args.get(key, "").strip() for key in SEARCH_FIELDS}
    with ui() as (db, actor):
        page = rows = None
        if any(fields.values()):
            page = services.search_messages(
                db, actor, fields["q"], fields["channel"] or None, fields["author"] or None,
                fields["after"] or None, fields["before"] or None, arg_int("offset", 0), 20)
            rows = message_rows(db, actor, list(page.items))
        return render_chat(db, actor, "chat/search.html", fields=fields, page=page, rows=rows,
                           where=_where(db, actor, rows or []))


@bp.get("/mentions")
def mentions():
    """Messages that mention you."""
    with ui() as (db, actor):
        page = services.list_mentions(db, actor, arg_int("offset", 0), 20)
        rows = message_rows(db, actor, list(page.items))
        return render_chat(db, actor, "chat/mentions.html", page=page, rows=rows, where=_where(db, actor, rows))


def _where(db, actor, rows) -> dict[int, str]:
    """The on-screen name of each result's conversation."""
    channels = {row.message.channel_id: row.message.channel for row in rows}
    return {cid: conversation_title(db, actor, channel) for cid, channel in channels.items()}
