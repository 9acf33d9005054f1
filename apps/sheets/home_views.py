"""Sheets home and workbook settings: the list of workbooks with search and the create form, and
the forms that rename, describe and delete a workbook. Views parse the form, call a service and
render or redirect; every rule is in the services."""

from __future__ import annotations

from flask import render_template, url_for

from officegym.web_request import arg_int, see_other, ui

from . import services
from .blueprint import PAGE, arg, bp, done, flash_info, form, grid_url


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
