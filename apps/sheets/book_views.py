"""Workbook pages beside the grid: sharing, the revision history, named ranges and filter views,
and import/export (CSV text or file, XLSX upload, CSV and XLSX downloads)."""

from __future__ import annotations

import re

from flask import Response, render_template, request, url_for
from sqlalchemy import select

from officegym.apps.org.models import Person
from officegym.errors import Invalid
from officegym.web_request import arg_int, see_other, ui

from . import services
from .blueprint import arg, bp, flash_info, form, grid_url

HISTORY_PAGE = 50
XLSX_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


def _book(db, actor, wb: int) -> dict:
    """What every workbook page shows: the workbook, my role, whether I may edit, its sheets."""
    book = services.get_workbook(db, actor, wb)
    role = services.my_role(db, actor, book)
    return {"book": book, "role": role, "can_edit": role in ("owner", "editor"),
            "sheets": services.list_sheets(db, actor, book.id)}


@bp.get("/w/<int:wb>/share")
def share_page(wb: int):
    """The owner and the people the workbook is shared with, and the share form."""
    with ui() as (db, actor):
        context = _book(db, actor, wb)
        shares = [(s, db.get(Person, s.person_id)) for s in services.list_shares(db, actor, wb)]
        return render_template("sheets/share.html", shares=shares, owner=context["book"].owner, **context)


@bp.post("/w/<int:wb>/share")
def share(wb: int):
    """Share with a person as viewer or editor (or change their role)."""
    with ui() as (db, actor):
        shared = services.share_workbook(db, actor, wb, form("person").strip(), form("role") or "viewer")
        message = f"Shared with {db.get(Person, shared.person_id).name} as {shared.role}."
    flash_info(message)
    return see_other(url_for("sheets.share_page", wb=wb))


@bp.post("/w/<int:wb>/unshare")
def unshare(wb: int):
    """Stop sharing with a person (or with myself: I leave the workbook)."""
    with ui() as (db, actor):
        left = services.unshare_workbook(db, actor, wb, form("person").strip())
        name, myself = left.name, left.id == actor.id
    flash_info(f"Stopped sharing with {name}.")
    return see_other(url_for("sheets.home") if myself else url_for("sheets.share_page", wb=wb))


@bp.get("/w/<int:wb>/history")
def history(wb: int):
    """The workbook's changes, newest first, in pages."""
    with ui() as (db, actor):
        context = _book(db, actor, wb)
        page = services.list_revisions(db, actor, wb, arg_int("offset", 0), HISTORY_PAGE)
        ids = {r.changed_by_id for r in page.items}
        people = {p.id: p for p in db.scalars(select(Person).where(Person.id.in_(ids)))}
        return render_template("sheets/history.html", page=page, people=people, **context)


@bp.get("/w/<int:wb>/names")
def names(wb: int):
    """Named ranges and filter views of every sheet, with their forms."""
    with ui() as (db, actor):
        context = _book(db, actor, wb)
        views = services.list_filter_views(db, actor, wb)
        sheet_names = {s.id: s.name for s in context["sheets"]}
        return render_template("sheets/names.html", named=services.list_named_ranges(db, actor, wb),
                               views=[(v, sheet_names[v.sheet_id]) for v in views], **context)


@bp.get("/w/<int:wb>/exchange")
def exchange(wb: int):
    """Import CSV or XLSX into the workbook, and download it as CSV or XLSX."""
    with ui() as (db, actor):
        return render_template("sheets/exchange.html", max_csv=services.MAX_CSV_CHARS, max_xlsx=services.MAX_XLSX_BYTES,
                               max_cells=services.MAX_IMPORT_CELLS, **_book(db, actor, wb))


def _uploaded(name: str) -> bytes | None:
    """The bytes of an uploaded file field, None when no file was chosen."""
    upload = request.files.get(name)
    if upload is None or not upload.filename:
        return None
    return upload.read()


@bp.post("/w/<int:wb>/import-csv")
def import_csv(wb: int):
    """Replace a sheet's contents with CSV from the text box or an uploaded file (the file wins)."""
    data, text = _uploaded("file"), form("csv_text")
    if data is not None:
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise Invalid("The CSV file is not UTF-8 text; save it as CSV UTF-8 and upload it again.") from None
    with ui() as (db, actor):
        written = services.import_csv(db, actor, wb, form("sheet"), text)
    flash_info(f"Imported {written} cell(s) into {form('sheet').strip()}.")
    return see_other(grid_url(wb, form("sheet").strip()))


@bp.post("/w/<int:wb>/import-xlsx")
def import_xlsx(wb: int):
    """Replace or add the sheets of an uploaded XLSX file."""
    data = _uploaded("file") or b""
    with ui() as (db, actor):
        imported = services.import_xlsx(db, actor, wb, data)
    flash_info(f"Imported the sheet(s) {', '.join(imported)}.")
    return see_other(grid_url(wb, imported[0] if imported else None))


def _filename(*parts: str) -> str:
    """A safe download file name made of the parts."""
    return re.sub(r"[^A-Za-z0-9 ._-]+", "_", " - ".join(p for p in parts if p)).strip() or "workbook"


@bp.get("/w/<int:wb>/export.csv")
def export_csv(wb: int):
    """Download one sheet's shown values as CSV."""
    with ui() as (db, actor):
        book = services.get_workbook(db, actor, wb)
        text = services.export_csv(db, actor, wb, arg("sheet") or None)
        sheet = arg("sheet") or services.list_sheets(db, actor, wb)[0].name
        name = _filename(book.title, sheet)
    return Response(text, mimetype="text/csv",
                    headers={"Content-Disposition": f'attachment; filename="{name}.csv"'})


@bp.get("/w/<int:wb>/export.xlsx")
def export_xlsx(wb: int):
    """Download the whole workbook as an XLSX file (formulas and number formats kept)."""
    with ui() as (db, actor):
        name = _filename(services.get_workbook(db, actor, wb).title)
        data = services.export_xlsx(db, actor, wb)
    return Response(data, mimetype=XLSX_TYPE, headers={"Content-Disposition": f'attachment; filename="{name}.xlsx"'})
