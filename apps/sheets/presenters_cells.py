"""Converters for cells and ranges (re-exported by presenters.py): values as JSON
(numbers, text, booleans, error codes with their reasons), ranges as their non-empty cells.

Presenters only read. Cells are read as columns, never as ORM objects, so that what a write just
stored through bulk statements is what gets shown.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from .book import cell_value
from .cells import clip
from .formula.a1 import Area, cell_text, quote_sheet
from .formula.formats import format_value
from .formula.values import CellError, format_general
from .lookups import resolve_range
from .models import Cell, Sheet, Workbook
from .schemas import AreaOut, CellOut, CellsWrittenOut, Ref, RangeOut

SHOWN = 100
ERROR_MEANINGS = {
    "#DIV/0!": "Division by zero.", "#REF!": "A reference points to a deleted cell or sheet, or is circular.",
    "#NAME?": "An unknown function or range name.", "#VALUE!": "A value of the wrong type.",
    "#N/A": "No match found.", "#NUM!": "A number out of range.", "#NULL!": "Ranges that do not intersect.",
}


def plain(value) -> tuple[object, str | None]:
    """(a value as JSON, why it is an error or None): whole numbers lose their '.0'."""
    if isinstance(value, CellError):
        return value.code, value.detail or ERROR_MEANINGS.get(value.code, "An error value.")
    if isinstance(value, float) and value.is_integer() and abs(value) < 2 ** 53:
        return int(value), None
    return value, None


def shown(value, number_format: str) -> str:
    """How a value shows under a format (a pattern the engine does not know shows it in General)."""
    try:
        return format_value(value, number_format)
    except ValueError:
        return format_value(value, "") if not isinstance(value, float) else format_general(value)


def cell_of(ref: str, raw: str, value, number_format: str) -> CellOut:
    """One cell as tools show it."""
    out, error = plain(value)
    formula = raw if raw.startswith("=") and len(raw) > 1 else None
    return CellOut(ref=ref, value=out, display=shown(value, number_format), formula=formula,
                   number_format=number_format or None, error=error)


def book_ref(workbook: Workbook) -> Ref:
    """A workbook by id and title."""
    return Ref(id=workbook.id, name=workbook.title)


def range_out(found) -> RangeOut:
    """A range read by services.read_range, keeping only its non-empty cells."""
    cells = [CellOut(ref=c.ref, value=plain(c.value)[0], display=c.display,
                     formula=c.raw if c.raw.startswith("=") and len(c.raw) > 1 else None,
                     number_format=c.number_format or None, error=plain(c.value)[1])
             for line in found.rows for c in line if c.raw != ""]
    return RangeOut(sheet=found.sheet, range=found.ref, rows=len(found.rows),
                    columns=len(found.rows[0]) if found.rows else 0, cells=cells)


_COLUMNS = (Cell.row, Cell.col, Cell.raw, Cell.kind, Cell.number, Cell.text, Cell.note, Cell.number_format)


def _stored(session: Session, sheet: Sheet, area: Area, filled_only: bool = True):
    stmt = select(*_COLUMNS).where(Cell.sheet_id == sheet.id, Cell.row.between(area.top, area.bottom),
                                   Cell.col.between(area.left, area.right))
    if filled_only:
        stmt = stmt.where(Cell.raw != "")
    return session.execute(stmt.order_by(Cell.row, Cell.col)).all()


def _cell_row(ref: str, row) -> CellOut:
    return cell_of(ref, row.raw, cell_value(row.kind, row.number, row.text, row.note), row.number_format)


def area_out(session: Session, workbook: Workbook, ref: str, count: int | None = None) -> AreaOut:
    """The range `ref` of a workbook after an edit: its first non-empty cells as they read now
    (`count` defaults to the cells the range spans)."""
    sheet, area = resolve_range(session, workbook, ref)
    area = clip(session, sheet, area)
    count = area.height * area.width if count is None else count
    rows = _stored(session, sheet, area)
    cells = [_cell_row(cell_text(r.row, r.col), r) for r in rows[:SHOWN]]
    return AreaOut(workbook=book_ref(workbook), sheet=sheet.name, range=area.text(False), count=count,
                   cells=cells, more=max(0, len(rows) - SHOWN))


def written_out(session: Session, workbook: Workbook, refs: list[str], changed: int) -> CellsWrittenOut:
    """Cells just written (named as Sheet!A1 or A1), read back with their sheet's name."""
    cells = []
    for ref in refs[:SHOWN]:
        sheet, area = resolve_range(session, workbook, ref, "cell")
        row = session.execute(select(*_COLUMNS).where(Cell.sheet_id == sheet.id, Cell.row == area.top,
                                                      Cell.col == area.left)).first()
        name = f"{quote_sheet(sheet.name)}!{cell_text(area.top, area.left)}"
        cells.append(_cell_row(name, row) if row else CellOut(ref=name, value=None, display=""))
    return CellsWrittenOut(workbook=book_ref(workbook), changed=changed, cells=cells,
                           more=max(0, len(refs) - SHOWN))


def block_refs(session: Session, workbook: Workbook, start: str, rows: list[list]) -> list[str]:
    """The cells a block of rows written from `start` covers, as Sheet!A1 text, row by row."""
    sheet, area = resolve_range(session, workbook, start, "start cell")
    prefix = quote_sheet(sheet.name) + "!"
    return [prefix + cell_text(area.top + r, area.left + c) for r, line in enumerate(rows) for c in range(len(line))]


def row_values(session: Session, sheet: Sheet, area: Area, rows: list[int]) -> list[list]:
    """The values of some 1-based rows across an area's columns (errors as their codes)."""
    if not rows:
        return []
    wanted = [r - 1 for r in rows]
    found = {(r.row, r.col): plain(cell_value(r.kind, r.number, r.text))[0] for r in session.execute(
        select(*_COLUMNS).where(Cell.sheet_id == sheet.id, Cell.row.in_(wanted),
                                Cell.col.between(area.left, area.right)))}
    return [[found.get((row, col)) for col in range(area.left, area.right + 1)] for row in wanted]


def paste_range(session: Session, workbook: Workbook, source: str, target: str) -> str:
    """The range (Sheet!A1:C3) a paste of `source` at the top-left cell `target` covers."""
    from_sheet, area = resolve_range(session, workbook, source, "source range")
    area = clip(session, from_sheet, area)
    to_sheet, anchor = resolve_range(session, workbook, target, "target cell")
    end = cell_text(anchor.top + area.height - 1, anchor.left + area.width - 1)
    return f"{quote_sheet(to_sheet.name)}!{cell_text(anchor.top, anchor.left)}:{end}"
