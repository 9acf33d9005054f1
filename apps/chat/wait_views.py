"""Chat's wait control: let simulated time pass from a conversation's page until a message reaches
you (colleagues answer after a delay of their own, in their working hours) or the time chosen runs
out, then come back to the page with what arrived. Routes register on `bp` of `blueprint.py`.
"""

from __future__ import annotations

from flask import flash

from officegym.apps.org.models import Person
from officegym.web_request import form_int, see_other, ui

from . import services
from .blueprint import bp, channel_url, conversations

DEFAULT_WAIT = 60  # minutes, when the form sends none


def summary(waited: services.Waited, where: dict[int, str], handles: dict[int, str]) -> str:
    """One sentence on a wait: how long, the time now, and who wrote where (`where`: conversations'
    names by id; `handles`: authors' handles by id)."""
    said = f"You waited {waited.minutes:g} minutes; it is now {waited.ended:%a %d %b %H:%M}."
    if not waited.messages:
        return f"{said} Nothing reached you."
    senders = []
    for message in waited.messages:
        sender = f"@{handles[message.author_id]} in {where[message.channel_id]}"
        if sender not in senders:
            senders.append(sender)
    count = len(waited.messages)
    return f"{said} {count} new message{'s' if count > 1 else ''}: {', '.join(senders)}."


@bp.post("/c/<ref>/wait")
def wait(ref: str):
    """Wait up to the minutes chosen, or until a message reaches you; back to the conversation."""
    minutes = form_int("minutes", "The minutes to wait")
    with ui() as (db, actor):
        here = services.get_channel(db, actor, ref)
        waited = services.wait(db, actor, DEFAULT_WAIT if minutes is None else minutes)
        shown = conversations(db, actor, [m.channel_id for m in waited.messages])
        handles = {m.author_id: db.get(Person, m.author_id).handle for m in waited.messages}
        flash(summary(waited, {cid: c.display_name for cid, c in shown.items()}, handles), "info")
        target = channel_url(here, _anchor="latest")
    return see_other(target)
