"""Sheets pages: the list of workbooks with search and the create form, and the workbook settings
forms. The grid and its cell forms live in grid_views.py, the toolbar forms in tool_views.py, and
the share, history, names and import/export pages in book_views.py. Views parse the form, call a
service and render or redirect; every rule is in the services."""

from __future__ import annotations

from flask import Blueprint, flash, render_template, request, url_for

from officegym.web import arg_int, back_url, see_other, ui

from . import services
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


@bp.get("/")
def home():
    """Workbooks I own or that are shared with me, searchable by title, in pages, and the create form."""
    query = arg("q")
    with ui() as (db, actor):
        page = services.list_workbooks(db, actor, query, arg_int("offset", 0), PAGE)
        rows = [(w, services.my_role(db, actor, w)) for w in page.items]
        return render_template("sheets/home.html", page=page, rows=rows, q=query)


@bp.post("/create")
def create():
    """Create a workbook (sheet names separated by commas; Sheet1 when blank) and open it."""
    names = [n.strip() for n in form("sheets").split(",") if n.strip()] or None
    with ui() as (db, actor):
        made = services.create_workbook(db, actor, form("title"), names, form("description"))
        wb, title = made.id, made.title
    flash_info(f"Created '{title}'.")
    return see_other(grid_url(wb))


@bp.post("/w/<int:wb>/settings")
def settings(wb: int):
    """Rename the workbook and change its description."""
    with ui() as (db, actor):
        changed = services.update_workbook(db, actor, wb, title=form("title"), description=form("description"))
        title = changed.title
    return done(wb, f"Saved the workbook '{title}'.")


@bp.post("/w/<int:wb>/delete")
def delete(wb: int):
    """Delete the workbook with everything in it (owner only)."""
    with ui() as (db, actor):
        title = services.get_workbook(db, actor, wb).title
        services.delete_workbook(db, actor, wb)
    flash_info(f"Deleted '{title}'.")
    return see_other(url_for("sheets.home"))


from . import book_views, grid_views, tool_views  # noqa: E402,F401  (register their pages and forms on bp)
