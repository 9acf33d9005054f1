"""Edits that move cells: inserting and deleting rows and columns (references follow, references
to deleted cells become #REF!), sorting a range, copy and paste, fill down, find and replace."""

from __future__ import annotations

import re
from functools import cmp_to_key

from sqlalchemy import select
from sqlalchemy.orm import Session

from officegym.apps.org.models import Person
from officegym.apps.org.services import numeric_id
from officegym.errors import Invalid
from officegym.journal import journaled
from officegym.values import whole

from .access import require_editor
from .book import Change, all_rows, cell_value, replace_cells, sheets_of, store_inputs
from .cells import MAX_SORT, MAX_WRITE, clip
from .formula.a1 import MAX_COLS, MAX_ROWS, col_index, col_name, parse_area
from .formula.shift import Edit, rewrite, shift_area
from .formula.parser import read_input
from .formula.values import CellError, compare, format_general
from .lookups import resolve_range, resolve_sheet, resolve_workbook
from .models import Cell, FilterView, NamedRange
from .tabs import rewrite_all


def column_number(value, what: str) -> int:
    """A 0-based column from letters (C) or a 1-based number."""
    if isinstance(value, str) and value.strip().isascii() and value.strip().isalpha() and len(value.strip()) <= 3:
        index = col_index(value.strip())
        if index < MAX_COLS:
            return index
    number = numeric_id(value)
    if number is not None and number >= 0:
        return whole(value, what, 1, MAX_COLS) - 1
    raise Invalid(f"{what} is a column letter such as C (or its number, 3); got {value!r}.")


def _structural(session: Session, actor: Person, workbook, sheet_name, kind: str, at: int, count: int) -> None:
    found = resolve_workbook(session, actor, workbook)
    require_editor(session, actor, found)
    sheet = resolve_sheet(session, found, sheet_name)
    names = {s.id: s.name for s in sheets_of(session, found)}
    edit = Edit(kind, sheet=sheet.name, at=at, count=count)
    rows_axis = kind.endswith("rows")
    moved = []
    for item in rewrite_all(all_rows(session, found), names, edit):
        if item["sheet_id"] == sheet.id:
            index = item["row"] if rows_axis else item["col"]
            if kind.startswith("delete") and at <= index < at + count:
                continue
            if index >= at:
                index = index + count if kind.startswith("insert") else index - count
            if index >= (MAX_ROWS if rows_axis else MAX_COLS):
                raise Invalid("Inserting would push cells past the end of the sheet; delete some first.")
            item = {**item, ("row" if rows_axis else "col"): index}
        moved.append(item)
    _shift_names_and_filters(session, found, sheet, names, edit)
    what = f"{count} row(s) at {at + 1}" if rows_axis else f"{count} column(s) at {col_name(at)}"
    replace_cells(session, actor, found, moved, f"{kind.split('_')[0]} {what} of {sheet.name}")


def _shift_names_and_filters(session, workbook, sheet, names, edit: Edit) -> None:
    for named in session.scalars(select(NamedRange).where(NamedRange.workbook_id == workbook.id,
                                                          NamedRange.sheet_id == sheet.id)):
        area = shift_area(parse_area(named.ref), sheet.name, edit)
        if area is None:
            session.delete(named)
        else:
            named.ref = area.text(False)
    for view in session.scalars(select(FilterView).where(FilterView.sheet_id == sheet.id)):
        area = shift_area(parse_area(view.ref), sheet.name, edit)
        if area is None:
            session.delete(view)
        else:
            view.ref = area.text(False)


@journaled("sheets.insert_rows")
def insert_rows(session: Session, actor: Person, workbook, sheet: str | None, before: int, count: int = 1) -> int:
    """Insert empty rows before a 1-based row number; returns the first new row's number."""
    at = whole(before, "Row", 1, MAX_ROWS) - 1
    _structural(session, actor, workbook, sheet, "insert_rows", at, whole(count, "Count", 1, 1000))
    return at + 1


@journaled("sheets.delete_rows")
def delete_rows(session: Session, actor: Person, workbook, sheet: str | None, first: int, count: int = 1) -> int:
    """Delete rows from a 1-based row number; returns how many."""
    at = whole(first, "Row", 1, MAX_ROWS) - 1
    count = whole(count, "Count", 1, MAX_ROWS - at)
    _structural(session, actor, workbook, sheet, "delete_rows", at, count)
    return count


@journaled("sheets.insert_columns")
def insert_columns(session: Session, actor: Person, workbook, sheet: str | None, before, count: int = 1) -> str:
    """Insert empty columns before a column (letter or number); returns the first new column's letter."""
    at = column_number(before, "Column")
    _structural(session, actor, workbook, sheet, "insert_cols", at, whole(count, "Count", 1, 100))
    return col_name(at)


@journaled("sheets.delete_columns")
def delete_columns(session: Session, actor: Person, workbook, sheet: str | None, first, count: int = 1) -> int:
    """Delete columns from a column (letter or number); returns how many."""
    at = column_number(first, "Column")
    count = whole(count, "Count", 1, MAX_COLS - at)
    _structural(session, actor, workbook, sheet, "delete_cols", at, count)
    return count


def _sort_keys(keys, area) -> list[tuple[int, bool]]:
    if not isinstance(keys, list) or not keys:
        raise Invalid("Sort by at least one column: [{\"column\": \"C\", \"descending\": true}].")
    parsed = []
    for item in keys:
        column = item.get("column") if isinstance(item, dict) else item
        index = column_number(column, "Sort column")
        if not area.left <= index <= area.right:
            raise Invalid(f"Column {col_name(index)} is outside the range {area.text(False)}.")
        descending = bool(item.get("descending", False)) if isinstance(item, dict) else False
        parsed.append((index, descending))
    return parsed


@journaled("sheets.sort_range")
def sort_range(session: Session, actor: Person, workbook, ref: str, keys: list, has_header: bool = False) -> int:
    """Sort the rows of a range by one or more columns ([{"column": "C", "descending": true}, ...]);
    formulas moved with their rows keep pointing at their own row. Returns the rows sorted."""
    found = resolve_workbook(session, actor, workbook)
    require_editor(session, actor, found)
    sheet, area = resolve_range(session, found, ref)
    area = clip(session, sheet, area)
    order = _sort_keys(keys, area)
    top = area.top + (1 if has_header else 0)
    if top > area.bottom:
        raise Invalid("The range has no rows to sort below its header.")
    if (area.bottom - top + 1) * area.width > MAX_SORT:
        raise Invalid(f"Sort at most {MAX_SORT:,} cells at a time.")
    rows = all_rows(session, found)
    inside = {(r["row"], r["col"]): r for r in rows if r["sheet_id"] == sheet.id and top <= r["row"] <= area.bottom
              and area.left <= r["col"] <= area.right}
    values = {(c.row, c.col): cell_value(c.kind, c.number, c.text) for c in session.scalars(select(Cell).where(
        Cell.sheet_id == sheet.id, Cell.row.between(top, area.bottom), Cell.col.between(area.left, area.right)))}

    def by_keys(a: int, b: int) -> int:
        for col, descending in order:
            left, right = values.get((a, col)), values.get((b, col))
            if left is None or right is None:  # empty cells go last whatever the direction
                if (left is None) != (right is None):
                    return 1 if left is None else -1
                continue
            result = compare(left, right)
            if result:
                return -result if descending else result
        return a - b
    sorted_rows = sorted(range(top, area.bottom + 1), key=cmp_to_key(by_keys))
    kept = [r for r in rows if (r["row"], r["col"]) not in inside or r["sheet_id"] != sheet.id]
    for new_row, old_row in zip(range(top, area.bottom + 1), sorted_rows):
        for col in range(area.left, area.right + 1):
            item = inside.get((old_row, col))
            if item is not None:
                moved = {**item, "row": new_row}
                if item["raw"].startswith("=") and len(item["raw"]) > 1:
                    moved["raw"] = "=" + rewrite(item["raw"][1:], sheet.name, Edit("move", rows=new_row - old_row))
                kept.append(moved)
    replace_cells(session, actor, found, kept, f"sort {sheet.name}!{area.text(False)}")
    return area.bottom - top + 1


def _copied(raw: str, sheet_name: str, rows: int, cols: int) -> str:
    if raw.startswith("=") and len(raw) > 1:
        return "=" + rewrite(raw[1:], sheet_name, Edit("move", rows=rows, cols=cols))
    return raw


@journaled("sheets.copy_paste")
def copy_paste(session: Session, actor: Person, workbook, source: str, target: str, values_only: bool = False) -> int:
    """Copy a range to a top-left target cell (on any sheet): formulas shift their relative references
    as in a spreadsheet's paste; `values_only` pastes the computed values. Returns cells written."""
    found = resolve_workbook(session, actor, workbook)
    require_editor(session, actor, found)
    from_sheet, area = resolve_range(session, found, source, "source range")
    area = clip(session, from_sheet, area)
    to_sheet, anchor = resolve_range(session, found, target, "target cell")
    if area.height * area.width > MAX_WRITE:
        raise Invalid(f"Copy at most {MAX_WRITE:,} cells at a time.")
    if anchor.top + area.height > MAX_ROWS or anchor.left + area.width > MAX_COLS:
        raise Invalid("The pasted block would run past the end of the sheet.")
    stored = {(c.row, c.col): c for c in session.scalars(select(Cell).where(
        Cell.sheet_id == from_sheet.id, Cell.row.between(area.top, area.bottom),
        Cell.col.between(area.left, area.right)))}
    dr, dc = anchor.top - area.top, anchor.left - area.left
    changes = []
    for row in range(area.top, area.bottom + 1):
        for col in range(area.left, area.right + 1):
            cell = stored.get((row, col))
            if values_only and cell is not None:
                value = cell_value(cell.kind, cell.number, cell.text)
                raw = literal_input(value)
            else:
                raw = "" if cell is None else _copied(cell.raw, from_sheet.name, dr, dc)
            changes.append(Change(to_sheet, row + dr, col + dc, raw, None if cell is None else cell.number_format))
    store_inputs(session, actor, found, changes, f"paste {source} to {target}")
    return len(changes)


def literal_input(value) -> str:
    """A computed value as an input that types back to the same value."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        return format_general(value) if abs(value) < 1e15 else repr(value)
    if isinstance(value, CellError):
        return "'" + value.code
    return "'" + value if value[:1] in ("=", "'") or _looks_typed(value) else value


def _looks_typed(text: str) -> bool:
    return not isinstance(read_input(text).value, str)


@journaled("sheets.fill_down")
def fill_down(session: Session, actor: Person, workbook, ref: str) -> int:
    """Copy the first row of a range into the rows below it, formulas adjusting as they go down."""
    found = resolve_workbook(session, actor, workbook)
    require_editor(session, actor, found)
    sheet, area = resolve_range(session, found, ref)
    if area.whole or area.height < 2:
        raise Invalid("Fill down needs a range of at least two rows, such as D2:D40.")
    if area.height * area.width > MAX_WRITE:
        raise Invalid(f"Fill at most {MAX_WRITE:,} cells at a time.")
    first = {c.col: c for c in session.scalars(select(Cell).where(
        Cell.sheet_id == sheet.id, Cell.row == area.top, Cell.col.between(area.left, area.right)))}
    changes = []
    for row in range(area.top + 1, area.bottom + 1):
        for col in range(area.left, area.right + 1):
            cell = first.get(col)
            raw = "" if cell is None else _copied(cell.raw, sheet.name, row - area.top, 0)
            changes.append(Change(sheet, row, col, raw, None if cell is None else cell.number_format))
    store_inputs(session, actor, found, changes, f"fill down {area.text(False)}")
    return len(changes)


@journaled("sheets.find_replace")
def find_replace(session: Session, actor: Person, workbook, find: str, replacement: str, sheet: str | None = None,
                 match_case: bool = False, whole_cell: bool = False, in_formulas: bool = False) -> int:
    """Replace text in cell inputs of one sheet or all; formulas only when `in_formulas`. Returns
    the number of cells changed."""
    found = resolve_workbook(session, actor, workbook)
    require_editor(session, actor, found)
    if not isinstance(find, str) or not find:
        raise Invalid("Give the text to find.")
    if not isinstance(replacement, str):
        raise Invalid("The replacement is text (it may be empty).")
    sheets = [resolve_sheet(session, found, sheet)] if sheet else sheets_of(session, found)
    pattern = re.compile(("^" + re.escape(find) + "$") if whole_cell else re.escape(find), 0 if match_case else re.I)
    changes = []
    for target in sheets:
        for cell in session.scalars(select(Cell).where(Cell.sheet_id == target.id, Cell.raw != "")
                                    .order_by(Cell.row, Cell.col)):
            if cell.is_formula and not in_formulas:
                continue
            new = pattern.sub(lambda _m: replacement, cell.raw)
            if new != cell.raw:
                changes.append(Change(target, cell.row, cell.col, new))
    if len(changes) > MAX_WRITE:
        raise Invalid(f"That would change {len(changes):,} cells; narrow it to at most {MAX_WRITE:,}.")
    if changes:
        store_inputs(session, actor, found, changes, f"replace {find!r} with {replacement!r}")
    return len(changes)

