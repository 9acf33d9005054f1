"""The grid's toolbar forms: sort, rows and columns, find and replace, copy and paste, fill down,
freeze, sheets (add, rename, move, delete), named ranges, filter views and summary tables. Each
hands what was typed to one service; ranges without a sheet mean the sheet the form was on."""

from __future__ import annotations

from flask import url_for

from officegym.errors import Invalid
from officegym.web_request import see_other, ui

from . import services
from .blueprint import bp, checked, done, flash_info, form, grid_url, qualify
from .formula.a1 import BadReference, cell_text, parse_area

CONDITIONS = 3  # condition rows on the filter view form


def _sheet() -> str | None:
    """The sheet the form was on (None: the first)."""
    return form("sheet").strip() or None


def _direction(name: str) -> bool:
    """Whether a direction field asks for descending order."""
    value = form(name).strip().lower()
    if value not in ("", "asc", "desc"):
        raise Invalid(f"Sort direction is asc or desc; got {value!r}.")
    return value == "desc"


@bp.post("/w/<int:wb>/sort")
def sort(wb: int):
    """Sort a range by a column (then optionally by a second one), with or without a header row."""
    keys = [{"column": form("column").strip(), "descending": _direction("direction")}]
    if form("column2").strip():
        keys.append({"column": form("column2").strip(), "descending": _direction("direction2")})
    with ui() as (db, actor):
        count = services.sort_range(db, actor, wb, qualify(form("sheet"), form("range")), keys, checked("header"))
    return done(wb, f"Sorted {count} row(s).", form("sheet"))


def _insert_or_delete(wb: int, noun: str, insert, delete):
    """Insert empty rows/columns before the one named in the form's `noun` field, or delete them from it
    (`action` insert or delete), and confirm."""
    action, count, at = form("action"), form("count").strip() or "1", form(noun).strip()
    with ui() as (db, actor):
        if action == "insert":
            first = insert(db, actor, wb, _sheet(), at, count)
            message = f"Inserted {count} {noun}(s) at {noun} {first}."
        elif action == "delete":
            deleted = delete(db, actor, wb, _sheet(), at, count)
            message = f"Deleted {deleted} {noun}(s) from {noun} {at.upper()}."
        else:
            raise Invalid(f"Choose to insert or delete {noun}s.")
    return done(wb, message, form("sheet"))


@bp.post("/w/<int:wb>/rows")
def rows(wb: int):
    """Insert empty rows before a row, or delete rows from a row (`action` insert or delete)."""
    return _insert_or_delete(wb, "row", services.insert_rows, services.delete_rows)


@bp.post("/w/<int:wb>/columns")
def columns(wb: int):
    """Insert empty columns before a column, or delete columns from one (`action` insert or delete)."""
    return _insert_or_delete(wb, "column", services.insert_columns, services.delete_columns)


@bp.post("/w/<int:wb>/find-replace")
def find_replace(wb: int):
    """Replace text in this sheet's cells or in every sheet's."""
    scope = _sheet() if form("scope") != "all" else None
    with ui() as (db, actor):
        changed = services.find_replace(db, actor, wb, form("find"), form("replacement"), scope,
                                        match_case=checked("match_case"), whole_cell=checked("whole_cell"),
                                        in_formulas=checked("in_formulas"))
    return done(wb, f"Replaced in {changed} cell(s).", form("sheet"))


@bp.post("/w/<int:wb>/paste")
def paste(wb: int):
    """Copy a range to a target cell (formulas shift), or paste its values only."""
    with ui() as (db, actor):
        written = services.copy_paste(db, actor, wb, qualify(form("sheet"), form("source")),
                                      qualify(form("sheet"), form("target")), values_only=checked("values_only"))
    return done(wb, f"Pasted {written} cell(s) at {form('target').strip().upper()}.", form("sheet"))


@bp.post("/w/<int:wb>/fill-down")
def fill_down(wb: int):
    """Copy a range's first row into the rows below it."""
    with ui() as (db, actor):
        filled = services.fill_down(db, actor, wb, qualify(form("sheet"), form("range")))
    return done(wb, f"Filled {filled} cell(s) down.", form("sheet"))


@bp.post("/w/<int:wb>/freeze")
def freeze(wb: int):
    """Keep the first rows and columns of the sheet in view (0 unfreezes)."""
    with ui() as (db, actor):
        frozen = services.freeze(db, actor, wb, _sheet(), form("rows").strip() or "0", form("cols").strip() or "0")
        message = f"{frozen.name}: {frozen.frozen_rows} row(s) and {frozen.frozen_cols} column(s) frozen."
    return done(wb, message, form("sheet"))


@bp.post("/w/<int:wb>/sheets")
def sheets(wb: int):
    """Add, rename, move or delete a sheet (`action`), then show the sheet concerned."""
    action, position = form("action"), form("position").strip() or None
    with ui() as (db, actor):
        if action == "add":
            shown = services.create_sheet(db, actor, wb, form("name"), position).name
            message = f"Added the sheet {shown}."
        elif action == "rename":
            shown = services.rename_sheet(db, actor, wb, form("sheet"), form("new_name")).name
            message = f"Renamed the sheet to {shown}."
        elif action == "move":
            shown = services.move_sheet(db, actor, wb, form("sheet"), position or "").name
            message = f"Moved {shown} to position {position}."
        elif action == "delete":
            message, shown = f"Deleted the sheet {services.delete_sheet(db, actor, wb, form('sheet'))}.", None
        else:
            raise Invalid("Choose a sheet action: add, rename, move or delete.")
    flash_info(message)
    return see_other(grid_url(wb, shown))


@bp.post("/w/<int:wb>/names")
def define_name(wb: int):
    """Name a range (or point an existing name elsewhere)."""
    with ui() as (db, actor):
        named = services.define_named_range(db, actor, wb, form("name"), qualify(form("sheet"), form("range")))
        message = f"{named.name} now names {named.ref}."
    return done(wb, message, form("sheet"))


@bp.post("/w/<int:wb>/names/delete")
def delete_name(wb: int):
    """Remove a named range."""
    with ui() as (db, actor):
        name = services.delete_named_range(db, actor, wb, form("name"))
    return done(wb, f"Removed the name {name}.")


def conditions() -> list[dict]:
    """The filled condition rows of the filter view form."""
    found = []
    for n in range(1, CONDITIONS + 1):
        column, op = form(f"column_{n}").strip(), form(f"op_{n}").strip()
        if column:
            found.append({"column": column, "op": op or "=", "value": form(f"value_{n}")})
    return found


@bp.post("/w/<int:wb>/filters")
def create_filter(wb: int):
    """Save a filter view and show the sheet through it."""
    with ui() as (db, actor):
        view = services.create_filter_view(db, actor, wb, form("name"), qualify(form("sheet"), form("range")),
                                           conditions(), form("sort_column"), form("sort_direction") == "desc")
        name = view.name
    flash_info(f"Saved the filter view {name}; showing its rows.")
    return see_other(grid_url(wb, form("sheet"), view=name))


@bp.post("/w/<int:wb>/filters/delete")
def delete_filter(wb: int):
    """Remove a filter view."""
    with ui() as (db, actor):
        name = services.delete_filter_view(db, actor, wb, _sheet(), form("name"))
    flash_info(f"Removed the filter view {name}.")
    return see_other(url_for("sheets.names", wb=wb))


@bp.post("/w/<int:wb>/summary")
def summary(wb: int):
    """Build a summary table (group by one column, aggregate another) and show it."""
    target = form("target").strip()
    with ui() as (db, actor):
        made = services.create_summary_table(db, actor, wb, qualify(form("sheet"), form("source")), form("group_by"),
                                             form("value_column"), form("aggregate"),
                                             qualify(form("sheet"), target))
    flash_info(f"Summary table written at {made}.")
    try:
        corner = parse_area(made)
        return see_other(grid_url(wb, corner.sheet, cell=cell_text(corner.top, corner.left)))
    except BadReference:
        return see_other(grid_url(wb, form("sheet")))
