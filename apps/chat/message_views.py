"""Chat pages for every action on a message: post, reply, edit, delete, react, pin.

Message ids come from the URL as text and go to the services as given: they refuse a
non-number ("abc") with a clear message, like the MCP tools do.
"""

from __future__ import annotations

from flask import flash, request, url_for

from officegym.web_request import back_url, form_int, safe_target, see_other, ui

from . import presenters, services
from .blueprint import bp, channel_url, render_chat


def _page_to_return_to(default: str) -> str:
    """The page a confirmation came from (`?next=`, a page of this episode only), else `default`."""
    wanted = request.args.get("next", "")
    return wanted if safe_target(wanted) else default


@bp.post("/c/<ref>/messages")
def post(ref: str):
    """Post a message, or a reply when the form names the thread's message."""
    parent = form_int("thread_parent_id", "The thread's message id")
    also = "also_send_to_channel" in request.form
    with ui() as (db, actor):
        posted = services.post_message(db, actor, ref, request.form.get("text", ""), parent, also)
        for warning in services.mention_warnings(db, posted):
            flash(warning, "warning")
        target = url_for(".message", message_id=posted.id)
    return see_other(target)


@bp.route("/m/<message_id>/edit", methods=["GET", "POST"])
def edit(message_id: str):
    """Edit one of your own messages: a form with its text, and saving it."""
    if request.method == "POST":
        with ui() as (db, actor):
            edited = services.edit_message(db, actor, message_id, request.form.get("text", ""))
            target = url_for(".message", message_id=edited.id)
        return see_other(target)
    with ui() as (db, actor):
        found = services.get_message(db, actor, message_id)
        return render_chat(db, actor, "chat/edit.html", current=found.channel,
                           message=presenters.message_out(db, found))


@bp.route("/m/<message_id>/delete", methods=["GET", "POST"])
def delete(message_id: str):
    """Delete one of your own messages: a page that asks first (showing the message), and the deletion."""
    if request.method == "POST":
        with ui() as (db, actor):
            channel = services.delete_message(db, actor, message_id).channel
            fallback = channel_url(channel, _anchor="latest")
        flash("Message deleted.", "info")
        return see_other(back_url(fallback))
    with ui() as (db, actor):
        found = services.get_message(db, actor, message_id)
        return render_chat(db, actor, "chat/confirm_delete.html", current=found.channel,
                           message=presenters.message_out(db, found),
                           back=_page_to_return_to(channel_url(found.channel, _anchor="latest")))


@bp.get("/m/<message_id>/actions")
def actions(message_id: str):
    """A message's actions (what its "More actions" menu offers) on a page of their own."""
    with ui() as (db, actor):
        found = services.get_message(db, actor, message_id)
        return render_chat(db, actor, "chat/actions.html", current=found.channel,
                           message=presenters.message_out(db, found))


@bp.get("/m/<message_id>/react")
def reaction_picker(message_id: str):
    """Pick an emoji to react to a message with."""
    with ui() as (db, actor):
        found = services.get_message(db, actor, message_id)
        return render_chat(db, actor, "chat/react.html", current=found.channel,
                           message=presenters.message_out(db, found), next=request.args.get("next", ""))


@bp.post("/m/<message_id>/reactions")
def react(message_id: str):
    """Add your reaction."""
    with ui() as (db, actor):
        services.add_reaction(db, actor, message_id, request.form.get("emoji", ""))
    return see_other(back_url())


@bp.post("/m/<message_id>/reactions/remove")
def unreact(message_id: str):
    """Take back your reaction."""
    with ui() as (db, actor):
        services.remove_reaction(db, actor, message_id, request.form.get("emoji", ""))
    return see_other(back_url())


@bp.post("/m/<message_id>/pin")
def pin(message_id: str):
    """Pin a message to its channel."""
    with ui() as (db, actor):
        services.pin_message(db, actor, message_id)
    return see_other(back_url())


@bp.post("/m/<message_id>/unpin")
def unpin(message_id: str):
    """Unpin a message."""
    with ui() as (db, actor):
        services.unpin_message(db, actor, message_id)
    return see_other(back_url())
