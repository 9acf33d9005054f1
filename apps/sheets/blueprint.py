"""The sheets blueprint and what its view modules share: reading the query string and the form,
answering JSON or a page, confirming a form, and the URL of the grid. It defines no routes: those
are in home_views.py, grid_views.py, tool_views.py and book_views.py (gathered by views.py)."""

from __future__ import annotations

from flask import Blueprint, flash, request, url_for

from officegym.web_request import back_url, see_other

from .formula.a1 import quote_sheet

bp = Blueprint("sheets", __name__, template_folder="templates")
PAGE = 25


def arg(name: str) -> str:
    """A stripped query-string argument ('' when absent)."""
    return request.args.get(name, "").strip()


def form(name: str) -> str:
    """A form field as typed ('' when absent)."""
    return request.form.get(name, "")


def checked(name: str) -> bool:
    """Whether a checkbox of the form was ticked."""
    return request.form.get(name, "") not in ("", "0", "off", "false")


def wants_json() -> bool:
    """Whether the request asks for a JSON answer (the grid's script does) rather than a page."""
    return request.accept_mimetypes.best_match(["text/html", "application/json"]) == "application/json"


def flash_info(text: str) -> None:
    """A confirmation shown on the next page."""
    flash(text, "info")


def qualify(sheet: str, ref: str) -> str:
    """A cell or range typed on a sheet's page, prefixed with that sheet unless it names one itself
    (services read a bare B3 as the first sheet's)."""
    ref = (ref or "").strip()
    if not ref or "!" in ref or not sheet:
        return ref
    return f"{quote_sheet(sheet)}!{ref}"


def grid_url(wb: int, sheet: str | None = None, **args) -> str:
    """The grid page of a workbook, on a sheet, with optional query arguments."""
    return url_for("sheets.workbook", wb=wb, sheet=sheet or None, **{k: v for k, v in args.items() if v})


def done(wb: int, message: str, sheet: str | None = None):
    """Confirm and go back to the page the form was on (else the grid)."""
    flash_info(message)
    return see_other(back_url(grid_url(wb, sheet)))
