"""The CRM blueprint and what its view modules share: the query-string and form readers, the title
and the kept filters of a list, the record URLs, the confirmation flash and the page size.

The routes live in the view modules (list_views.py, record_views.py, action_views.py), which
decorate their functions with this `bp`; views.py imports them so that they register."""

from __future__ import annotations

from flask import Blueprint, flash, request, url_for

from .models import ACTIVITY_KINDS

bp = Blueprint("crm", __name__, template_folder="templates")
PAGE = 25


def arg(name: str) -> str:
    """A query-string value, stripped ("" when absent)."""
    return request.args.get(name, "").strip()


def filter_title(noun: str) -> str:
    """What a list shows, for its page title: "Opportunities: open, owner @ana, “acme”"."""
    parts = []
    for name, label in (("stage", ""), ("industry", ""), ("region", ""), ("status", ""), ("source", ""),
                        ("priority", ""), ("owner", "owner "), ("account", "account "),
                        ("close_from", "closing from "), ("close_to", "closing by ")):
        if arg(name):
            parts.append(label + arg(name))
    if arg("q"):
        parts.append(f"\u201c{arg('q')}\u201d")
    return f"{noun}: {', '.join(parts) or 'All'}"


def kept() -> dict[str, str]:
    """The filters the table and the Kanban board share, to switch views without losing them."""
    return {name: arg(name) for name in ("q", "owner", "account", "close_from", "close_to") if arg(name)}


def flash_info(text: str) -> None:
    """A confirmation shown on the next page."""
    flash(text, "info")


def form_value(name: str) -> str:
    """A posted field, "" when absent."""
    return request.form.get(name, "")


def record_url(kind: str, record_id: int, section: str = "") -> str:
    """The record page (optionally at one of its sections: details, related, activity)."""
    return url_for(f"crm.{kind}", record_id=record_id) + (f"#{section}" if section else "")


@bp.context_processor
def choices():
    """Option lists every CRM template may need."""
    return {"activity_kinds": ACTIVITY_KINDS}
