"""The tickets blueprint and what its view modules share: reading the query string and the form,
rendering a page that may show a refusal, the confirmation and redirect after a write, and the page
sizes of the lists.

The routes live in the area modules (search_views.py, ticket_views.py, board_views.py, kb_views.py),
each adding its pages to `bp`; views.py imports them all. This module defines no route and imports
no view module."""

from __future__ import annotations

from flask import Blueprint, flash, render_template, request, url_for

from officegym.web_request import back_url, see_other

from .query import MAX_QUERY
from .sprints import BOARD_CARDS

bp = Blueprint("tickets", __name__, template_folder="templates")
PAGE = 25  # rows of a search or of the knowledge base a page lists
CARDS = BOARD_CARDS  # cards of each board column a page shows


def arg(name: str) -> str:
    """A stripped query-string argument ('' when absent), cut one character past the longest query
    the services read (so a longer one is still refused by them, but costs no more to refuse)."""
    return request.args.get(name, "")[:MAX_QUERY + 1].strip()


def form(name: str) -> str:
    """A form field as typed ('' when absent)."""
    return request.form.get(name, "")


def sent(name: str) -> str | None:
    """A form field stripped, or None when the form did not send it (the field is kept)."""
    return request.form[name].strip() if name in request.form else None


def flash_info(text: str) -> None:
    """A confirmation shown on the next page."""
    flash(text, "info")


def render_or_refuse(template: str, error: str | None, **context):
    """A page that may show a refused query: the template with `error`, status 400 when there is one."""
    return render_template(template, error=error, **context), 400 if error else 200


def back_to(message: str, endpoint: str, **values):
    """After a write: flash `message` and go back to the page the form came from, else to `endpoint`."""
    flash_info(message)
    return see_other(back_url(url_for(endpoint, **values)))
