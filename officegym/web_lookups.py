"""Suggestions for the UI's typeahead pickers: `GET /e/<episode>/lookup/<kind>?q=...` answers JSON.

Every kind asks an existing search service as the acting person, so a picker suggests only what
that person may see, and a suggestion's `value` is what the field's service accepts as typed (a
handle, a name, a channel, a ticket key). Pickers are an aid: every field still takes the value
typed by hand, and pages work without JavaScript.

    {"kind": "people", "query": "ali", "results": [{"value": "alice.ng", "label": "Alice Ng",
      "detail": "@alice.ng · Account Executive"}]}
"""

from __future__ import annotations

from collections.abc import Callable

from flask import Blueprint, abort, jsonify, request

from officegym.apps.chat.services import list_channels, people_to_invite
from officegym.apps.crm.accounts import list_accounts
from officegym.apps.crm.opportunities import list_opportunities
from officegym.apps.org.services import search_people
from officegym.apps.tickets.search import search_tickets
from officegym.errors import OfficeError
from officegym.web_request import ui

bp = Blueprint("lookup", __name__)

MAX_QUERY = 80
MAX_RESULTS = 8


def _people(db, actor, q: str) -> list[dict]:
    page = search_people(db, actor, q, None, 0, MAX_RESULTS)
    return [{"value": p.handle, "label": p.name, "detail": f"@{p.handle} · {p.title}"} for p in page.items]


def _invitees(db, actor, q: str) -> list[dict]:
    """People a channel (`?channel=`) could take in: its members are not offered."""
    page = people_to_invite(db, actor, request.args.get("channel", "")[:MAX_QUERY], q, 0, MAX_RESULTS)
    return [{"value": p.handle, "label": p.name, "detail": f"@{p.handle} · {p.title}"} for p in page.items]


def _accounts(db, actor, q: str) -> list[dict]:
    page = list_accounts(db, actor, q, offset=0, limit=MAX_RESULTS)
    return [{"value": a.name, "label": a.name, "detail": " · ".join(filter(None, (a.industry, a.region)))}
            for a in page.items]


def _opportunities(db, actor, q: str) -> list[dict]:
    page = list_opportunities(db, actor, q, offset=0, limit=MAX_RESULTS)
    return [{"value": o.name, "label": o.name, "detail": f"{o.stage} · {o.account.name}"} for o in page.items]


def _channels(db, actor, q: str) -> list[dict]:
    page = list_channels(db, actor, q, offset=0, limit=MAX_RESULTS)
    return [{"value": c.name, "label": f"#{c.name}",
             "detail": ("Private channel" if c.kind == "private" else "Channel") + (f" · {c.topic}" if c.topic else "")}
            for c in page.items]


def _ticket_query(q: str) -> str:
    """The query language's form of a typed key ("IT-12") or words (in a summary or description)."""
    words = q.replace('"', " ").split()
    if len(words) == 1 and "-" in words[0] and words[0].rsplit("-", 1)[1].isdigit():
        return f"key = {words[0]}"
    return " AND ".join(f'text ~ "{word}"' for word in words) + " ORDER BY updated DESC" if words else ""


def _tickets(db, actor, q: str) -> list[dict]:
    page = search_tickets(db, actor, _ticket_query(q), 0, MAX_RESULTS)
    return [{"value": t.key, "label": f"{t.key} {t.summary}", "detail": t.status} for t in page.items]


KINDS: dict[str, Callable[..., list[dict]]] = {
    "people": _people, "invitees": _invitees, "accounts": _accounts, "opportunities": _opportunities, "channels": _channels,
    "tickets": _tickets,
}


@bp.get("/<kind>")
def lookup(kind: str):
    """Up to MAX_RESULTS suggestions of `kind` for the text typed so far (`q`)."""
    find = KINDS.get(kind)
    if find is None:
        abort(404, f"No lookup of {kind!r}. Lookups: {', '.join(KINDS)}.")
    q = request.args.get("q", "").strip()[:MAX_QUERY]
    try:
        with ui() as (db, actor):
            results = find(db, actor, q)
    except OfficeError as err:  # e.g. someone outside sales looking up deals: no suggestions, and why
        return jsonify(kind=kind, query=q, results=[], note=err.message)
    return jsonify(kind=kind, query=q, results=results)
