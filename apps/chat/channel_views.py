"""Chat pages for channels and people: browsing and creating channels, channel details and members,
direct messages, search and mentions. Routes register on `bp` of `blueprint.py`."""

from __future__ import annotations

from flask import flash, request, url_for

from officegym.apps.org.services import get_person, search_people
from officegym.web_request import arg_int, back_url, form_people, see_other, ui

from . import presenters, services
from .blueprint import PAGE, bp, channel_url, conversations, render_chat

SEARCH_FIELDS = ("q", "channel", "author", "after", "before")
PICK = 20  # people offered as checkboxes by a people picker
MEMBERS = 50  # members of a channel a page lists


def _picker(db, actor):
    """People to tick in a picker: those matching `?find=`, first few by name otherwise."""
    return search_people(db, actor, request.args.get("find", ""), None, 0, PICK)


@bp.get("/channels")
def browse():
    """Find channels by name, topic or purpose, and join them."""
    query = request.args.get("q", "")
    archived = request.args.get("archived") == "1"
    with ui() as (db, actor):
        page = services.list_channels(db, actor, query, archived, False, arg_int("offset", 0), PAGE)
        return render_chat(db, actor, "chat/browse.html", page=page, q=query, archived=archived,
                           found=presenters.channels_out(db, actor, page.items))


@bp.route("/channels/new", methods=["GET", "POST"])
def new_channel():
    """Create a public or private channel with a topic, purpose and first members."""
    if request.method == "POST":
        with ui() as (db, actor):
            created = services.create_channel(
                db, actor, request.form.get("name", ""), "is_private" in request.form,
                request.form.get("topic", ""), request.form.get("purpose", ""), form_people("members") or None)
            target, name = channel_url(created, _anchor="latest"), created.name
        flash(f"Created #{name}.", "info")
        return see_other(target)
    with ui() as (db, actor):
        return render_chat(db, actor, "chat/new_channel.html")


@bp.get("/c/<ref>/details")
def details(ref: str):
    """About a channel (topic, purpose, creator) and its settings: rename, archive, join or leave."""
    with ui() as (db, actor):
        found = services.get_channel(db, actor, ref)
        creator = get_person(db, actor, found.created_by_id) if found.created_by_id else None
        return render_chat(db, actor, "chat/details.html", current=found, creator=creator)


@bp.post("/c/<ref>/update")
def update(ref: str):
    """Change whichever of topic, purpose and name the form carries."""
    changes = {key: request.form[key] for key in ("topic", "purpose", "name") if key in request.form}
    with ui() as (db, actor):
        updated = services.update_channel(db, actor, ref, **changes)
        target = url_for(".details", ref=updated.name)
    flash("Channel updated.", "info")
    return see_other(target)


@bp.route("/c/<ref>/archive", methods=["GET", "POST"])
def archive(ref: str):
    """Archive a channel (admins): a page that asks first, and the archiving."""
    if request.method == "POST":
        with ui() as (db, actor):
            target = url_for(".details", ref=services.archive_channel(db, actor, ref).name)
        flash("Channel archived: it is now read-only.", "info")
        return see_other(back_url(target))
    with ui() as (db, actor):
        found = services.get_channel(db, actor, ref)
        return render_chat(db, actor, "chat/confirm_archive.html", current=found)


@bp.post("/c/<ref>/unarchive")
def unarchive(ref: str):
    """Unarchive a channel (admins)."""
    with ui() as (db, actor):
        services.unarchive_channel(db, actor, ref)
    flash("Channel unarchived.", "info")
    return see_other(back_url())


@bp.post("/c/<ref>/join")
def join(ref: str):
    """Join a public channel."""
    with ui() as (db, actor):
        joined = services.join_channel(db, actor, ref)
        target, name = channel_url(joined, _anchor="latest"), joined.name
    flash(f"You joined #{name}.", "info")
    return see_other(target)


@bp.post("/c/<ref>/leave")
def leave(ref: str):
    """Leave a channel (you may lose sight of it if it is private)."""
    with ui() as (db, actor):
        name = services.leave_channel(db, actor, ref).name
    flash(f"You left #{name}.", "info")
    return see_other(url_for(".browse"))


@bp.get("/c/<ref>/members")
def members(ref: str):
    """Who is in a channel; invite and remove people."""
    with ui() as (db, actor):
        found = services.get_channel(db, actor, ref)
        page = services.list_members(db, actor, found.id, arg_int("offset", 0), MEMBERS)
        pick = services.people_to_invite(db, actor, found.id, request.args.get("find", ""), 0, PICK)
        return render_chat(db, actor, "chat/members.html", current=found, page=page, pick=pick)


@bp.post("/c/<ref>/invite")
def invite(ref: str):
    """Add people to a channel."""
    people = form_people("people")
    with ui() as (db, actor):
        services.invite_to_channel(db, actor, ref, people)
    flash(f"Added {len(people)} {'person' if len(people) == 1 else 'people'}.", "info")
    return see_other(back_url())


@bp.post("/c/<ref>/remove")
def remove(ref: str):
    """Remove someone from a channel (its creator or an admin)."""
    with ui() as (db, actor):
        services.remove_from_channel(db, actor, ref, request.form.get("person", ""))
    flash("Removed from the channel.", "info")
    return see_other(back_url())


@bp.get("/dms")
def dms():
    """Your direct messages, and a form to start one with the people you pick."""
    with ui() as (db, actor):
        page = services.list_conversations(db, actor, arg_int("offset", 0), PAGE)
        return render_chat(db, actor, "chat/dms.html", page=page, found=presenters.channels_out(db, actor, page.items),
                           pick=_picker(db, actor))


@bp.post("/dms/open")
def open_dm():
    """Open (or create) the DM or group DM with the people named."""
    with ui() as (db, actor):
        found = services.open_conversation(db, actor, form_people("people"))
        target = channel_url(found, _anchor="latest")
    return see_other(target)


@bp.get("/search")
def search():
    """Search messages by words, channel, author and dates."""
    fields = {key: request.args.get(key, "").strip() for key in SEARCH_FIELDS}
    with ui() as (db, actor):
        page, messages = None, []
        if any(fields.values()):
            page = services.search_messages(
                db, actor, fields["q"], fields["channel"] or None, fields["author"] or None,
                fields["after"] or None, fields["before"] or None, arg_int("offset", 0), 20)
            messages = presenters.messages_out(db, page.items)
        return render_chat(db, actor, "chat/search.html", fields=fields, page=page, messages=messages,
                           where=conversations(db, actor, (m.channel_id for m in messages)))


@bp.get("/mentions")
def mentions():
    """Messages that mention you."""
    with ui() as (db, actor):
        page = services.list_mentions(db, actor, arg_int("offset", 0), 20)
        messages = presenters.messages_out(db, page.items)
        return render_chat(db, actor, "chat/mentions.html", page=page, messages=messages,
                           where=conversations(db, actor, (m.channel_id for m in messages)))
