"""Reading and writing cells: a range's values, formulas and formats; writing one cell, a batch
or a block of rows; clearing; number formats. Writes recalculate only what depends on them."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from officegym.apps.org.models import Person
from officegym.errors import Invalid
from officegym.journal import journaled

from .access import require_editor
from .book import Change, cell_value, forget_book, store_inputs
from .formula.a1 import MAX_COLS, MAX_ROWS, Area, cell_text
from .formula.formats import format_value, resolve_format
from .lookups import resolve_range, resolve_sheet, resolve_workbook
from .models import Cell, Sheet

MAX_READ = 10_000
MAX_WRITE = 5_000
MAX_INPUT = 50_000
MAX_SORT = 50_000  # a sort rewrites its rows in one pass: a large company's whole pipeline fits


@dataclass
class CellOut:
    """One cell as read: where, what was typed, its value, how it shows, and why if it is an error."""

    ref: str
    raw: str
    value: object
    display: str
    number_format: str
    note: str = ""


@dataclass
class RangeOut:
    """A block of cells, row by row, with the sheet and A1 range it covers."""

    sheet: str
    ref: str
    rows: list[list[CellOut]]


def used_extent(session: Session, sheet: Sheet) -> tuple[int, int]:
    """(last row, last column) holding a cell, 0-based; (-1, -1) for an empty sheet."""
    rows, cols = session.execute(select(func.max(Cell.row), func.max(Cell.col)).where(Cell.sheet_id == sheet.id)).one()
    return (-1 if rows is None else rows, -1 if cols is None else cols)


def clip(session: Session, sheet: Sheet, area: Area) -> Area:
    """Whole rows and columns cut to the part of the sheet in use."""
    if not area.whole:
        return area
    last_row, last_col = used_extent(session, sheet)
    if area.whole == "cols":
        return replace(area, bottom=max(area.top, min(area.bottom, last_row)), whole="")
    return replace(area, right=max(area.left, min(area.right, last_col)), whole="")


def read_area(session: Session, sheet: Sheet, area: Area) -> RangeOut:
    """The cells of an area of a sheet (empty ones included), row by row."""
    area = clip(session, sheet, area)
    if area.height * area.width > MAX_READ:
        raise Invalid(f"{area.text(False)} holds {area.height * area.width:,} cells; read at most {MAX_READ:,} "
                      "at a time (split the range).")
    stored = {(c.row, c.col): c for c in session.scalars(select(Cell).where(
        Cell.sheet_id == sheet.id, Cell.row.between(area.top, area.bottom), Cell.col.between(area.left, area.right)))}
    rows = []
    for row in range(area.top, area.bottom + 1):
        line = []
        for col in range(area.left, area.right + 1):
            cell = stored.get((row, col))
            line.append(cell_out(cell, row, col))
        rows.append(line)
    return RangeOut(sheet.name, area.text(False), rows)


def cell_out(cell: Cell | None, row: int, col: int) -> CellOut:
    """How one stored cell reads (an empty one when None)."""
    if cell is None:
        return CellOut(cell_text(row, col), "", None, "", "")
    value = cell_value(cell.kind, cell.number, cell.text, cell.note)
    return CellOut(cell_text(row, col), cell.raw, value, format_value(value, cell.number_format),
                   cell.number_format, cell.note)


def read_range(session: Session, actor: Person, workbook, ref: str) -> RangeOut:
    """Values, formulas and formats of a range such as Budget!A1:D20 (at most 10,000 cells)."""
    found = resolve_workbook(session, actor, workbook)
    sheet, area = resolve_range(session, found, ref)
    return read_area(session, sheet, area)


def _raw_of(value, where: str) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, (int, float)):
        try:
            finite = math.isfinite(value)  # an int beyond the floats' range overflows here
        except OverflowError:
            finite = False
        if not finite:
            raise Invalid(f"{where}: that number is not one a cell can hold (it is infinite, not a number, or "
                          "beyond ±1.8E+308).")
        return repr(float(value)) if isinstance(value, float) and not value.is_integer() else str(int(value))
    if not isinstance(value, str):
        raise Invalid(f"{where}: a cell takes text, a number, TRUE/FALSE or a formula such as =A1*2; "
                      f"got {type(value).__name__}.")
    if len(value) > MAX_INPUT:
        raise Invalid(f"{where}: the input is {len(value):,} characters; the limit is {MAX_INPUT:,}.")
    return value


@journaled("sheets.write_cells")
def write_cells(session: Session, actor: Person, workbook, cells: list) -> int:
    """Write a batch of cells given as [{"cell": "Budget!B3", "value": "=B1*2"}, ...] (a value of ""
    or None empties the cell); returns how many cells changed value."""
    found = resolve_workbook(session, actor, workbook)
    require_editor(session, actor, found)
    if not isinstance(cells, list) or not cells:
        raise Invalid("Give the cells to write as a list of {cell, value} pairs, such as "
                      "[{\"cell\": \"B3\", \"value\": \"=B1*2\"}].")
    if len(cells) > MAX_WRITE:
        raise Invalid(f"That is {len(cells):,} cells; write at most {MAX_WRITE:,} per call.")
    changes, seen = [], set()
    for index, item in enumerate(cells):
        if not isinstance(item, dict) or "cell" not in item:
            raise Invalid(f"Item {index + 1} must be an object with 'cell' and 'value'.")
        sheet, area = resolve_range(session, found, item["cell"], "cell")
        if not area.single:
            raise Invalid(f"Item {index + 1}: {item['cell']!r} is a range; name one cell such as B3.")
        if (sheet.id, area.top, area.left) in seen:
            raise Invalid(f"Item {index + 1}: {item['cell']} is written twice in this batch.")
        seen.add((sheet.id, area.top, area.left))
        changes.append(Change(sheet, area.top, area.left, _raw_of(item.get("value"), item["cell"])))
    return len(store_inputs(session, actor, found, changes, "write cells"))


@journaled("sheets.write_range")
def write_range(session: Session, actor: Person, workbook, start: str, rows: list) -> int:
    """Write rows of values from a top-left cell (such as Data!A2); returns how many cells changed value."""
    found = resolve_workbook(session, actor, workbook)
    require_editor(session, actor, found)
    sheet, area = resolve_range(session, found, start, "start cell")
    if not isinstance(rows, list) or not all(isinstance(r, list) for r in rows) or not any(rows):
        raise Invalid("Give rows as a list of lists of values, such as [[\"Region\", \"Total\"], [\"EMEA\", 120]].")
    total = sum(len(r) for r in rows)
    if total > MAX_WRITE:
        raise Invalid(f"That is {total:,} cells; write at most {MAX_WRITE:,} per call.")
    width = max(len(r) for r in rows)
    if area.top + len(rows) > MAX_ROWS or area.left + width > MAX_COLS:
        raise Invalid(f"The block does not fit on the sheet from {area.text(False)}.")
    changes = [Change(sheet, area.top + r, area.left + c, _raw_of(value, cell_text(area.top + r, area.left + c)))
               for r, line in enumerate(rows) for c, value in enumerate(line)]
    return len(store_inputs(session, actor, found, changes, f"write {area.text(False)}"))


@journaled("sheets.clear_range")
def clear_range(session: Session, actor: Person, workbook, ref: str) -> int:
    """Empty every cell of a range (their formats stay); returns how many cells were cleared."""
    found = resolve_workbook(session, actor, workbook)
    require_editor(session, actor, found)
    sheet, area = resolve_range(session, found, ref)
    area = clip(session, sheet, area)
    stored = list(session.scalars(select(Cell).where(Cell.sheet_id == sheet.id, Cell.raw != "",
                                                     Cell.row.between(area.top, area.bottom),
                                                     Cell.col.between(area.left, area.right))))
    if len(stored) > MAX_WRITE * 4:
        raise Invalid(f"{area.text(False)} holds {len(stored):,} cells; clear at most {MAX_WRITE * 4:,} at a time.")
    store_inputs(session, actor, found, [Change(sheet, c.row, c.col, "") for c in stored], f"clear {area.text(False)}")
    return len(stored)


@journaled("sheets.set_number_format")
def set_number_format(session: Session, actor: Person, workbook, ref: str, number_format: str) -> int:
    """Show a range's numbers in a format: general, number, currency, percent, date, text, or a
    pattern such as #,##0.00 or yyyy-mm-dd; returns how many cells it covers."""
    found = resolve_workbook(session, actor, workbook)
    require_editor(session, actor, found)
    sheet, area = resolve_range(session, found, ref)
    area = clip(session, sheet, area)
    if area.height * area.width > MAX_WRITE * 4:
        raise Invalid(f"Format at most {MAX_WRITE * 4:,} cells at a time.")
    try:
        pattern = resolve_format(number_format if isinstance(number_format, str) else "")
    except ValueError as bad:
        raise Invalid(str(bad)) from None
    stored = {(c.row, c.col): c for c in session.scalars(select(Cell).where(
        Cell.sheet_id == sheet.id, Cell.row.between(area.top, area.bottom), Cell.col.between(area.left, area.right)))}
    for row in range(area.top, area.bottom + 1):
        for col in range(area.left, area.right + 1):
            cell = stored.get((row, col))
            if cell is not None:
                cell.number_format = pattern
            elif pattern:
                session.add(Cell(sheet_id=sheet.id, row=row, col=col, raw="", kind="", number_format=pattern))
    forget_book(session, found)
    return area.height * area.width


def sheet_for(session: Session, actor: Person, workbook, name: str | None) -> Sheet:
    """A sheet of a workbook the actor sees (None: the first)."""
    return resolve_sheet(session, resolve_workbook(session, actor, workbook), name)
