"""Import and export: CSV text for one sheet, XLSX files (openpyxl) for a whole workbook, with
formulas and number formats kept."""

from __future__ import annotations

import base64
import csv
import io
import threading
from contextlib import contextmanager

from openpyxl import Workbook as XlsxBook
from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE
from sqlalchemy import select
from sqlalchemy.orm import Session

from officegym.apps.org.models import Person
from officegym.errors import Conflict, Invalid
from officegym.journal import journaled

from .access import require_editor
from .book import all_rows, cell_value, formula_of, replace_cells, sheets_of
from .cells import read_area, used_extent
from .formula.a1 import MAX_COLS, MAX_ROWS, Area
from .formula.parser import FormulaError, read_input
from .lookups import resolve_sheet, resolve_workbook
from .models import Cell, Sheet, Workbook
from .tabs import check_sheet_name, create_sheet

MAX_IMPORT_CELLS = 100_000
MAX_CSV_CHARS = 2_000_000
# Text that a spreadsheet program would run as a formula when it opens a CSV file (OWASP's list).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def check_size(height: int, width: int, cells: int, what: str) -> None:
    """Refuse a grid larger than a sheet or holding more than MAX_IMPORT_CELLS cells (counting the empty
    ones between filled ones in a row)."""
    if height > MAX_ROWS or width > MAX_COLS:
        raise Invalid(f"The {what} is larger than a sheet ({MAX_ROWS:,} rows, {MAX_COLS} columns).")
    if cells > MAX_IMPORT_CELLS:
        raise Invalid(f"The {what} holds more than {MAX_IMPORT_CELLS:,} cells; split it.")


_importing: set[str] = set()  # the databases (episodes) an import is running in
_importing_lock = threading.Lock()


@contextmanager
def one_import_at_a_time(session: Session):
    """Refuse a second import into an episode while one runs there (each holds its file in memory)."""
    key = str(session.get_bind().url)
    with _importing_lock:
        if key in _importing:
            raise Conflict("Another import is running in this episode; try again once it has finished.")
        _importing.add(key)
    try:
        yield
    finally:
        with _importing_lock:
            _importing.discard(key)


def _csv_rows(csv_text: str) -> list[list[str]]:
    """The rows of CSV text, read only as far as the size limits allow."""
    rows, cells = [], 0
    for line in csv.reader(io.StringIO(csv_text)):
        rows.append(line)
        cells += len(line)
        check_size(len(rows), len(line), cells, "CSV")
    return rows


def fill_sheet(session, actor, workbook: Workbook, sheet: Sheet, cells: list[dict], action: str) -> int:
    for item in cells:
        tree = formula_of(item["raw"])
        if isinstance(tree, tuple) and tree[0] == "err_text":
            raise Invalid(f"Cell row {item['row'] + 1}, column {item['col'] + 1}: {tree[1]}")
    rows = [r for r in all_rows(session, workbook) if r["sheet_id"] != sheet.id] + cells
    replace_cells(session, actor, workbook, rows, action)
    return len(cells)


def target_sheet(session, actor, workbook: Workbook, sheet_name: str) -> Sheet:
    name = check_sheet_name(sheet_name)
    existing = [s for s in sheets_of(session, workbook) if s.name.lower() == name.lower()]
    return existing[0] if existing else create_sheet(session, actor, workbook.id, name)


@journaled("sheets.import_csv")
def import_csv(session: Session, actor: Person, workbook, sheet: str, csv_text: str) -> int:
    """Replace a sheet's contents with CSV text (the sheet is created if missing); numbers, dates and
    formulas are read as if typed. Returns the cells written."""
    found = resolve_workbook(session, actor, workbook)
    require_editor(session, actor, found)
    if not isinstance(csv_text, str) or not csv_text.strip():
        raise Invalid("Give the CSV text to import.")
    if len(csv_text) > MAX_CSV_CHARS:
        raise Invalid(f"The CSV text is larger than {MAX_CSV_CHARS:,} characters.")
    with one_import_at_a_time(session):
        try:
            rows = _csv_rows(csv_text)
        except csv.Error as bad:
            raise Invalid(f"The CSV does not parse: {bad}.") from None
        target = target_sheet(session, actor, found, sheet)
        cells = [{"sheet_id": target.id, "row": r, "col": c, "raw": raw, "number_format": _implied(raw)}
                 for r, line in enumerate(rows) for c, raw in enumerate(line) if raw != ""]
        return fill_sheet(session, actor, found, target, cells, f"import CSV into {target.name}")


def _implied(raw: str) -> str:
    try:
        return read_input(raw).implied_format
    except FormulaError:
        return ""


def export_csv(session: Session, actor: Person, workbook, sheet: str | None = None) -> str:
    """A sheet's shown values as CSV text."""
    found = resolve_workbook(session, actor, workbook)
    target = resolve_sheet(session, found, sheet)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")  # RFC 4180; with "\n" a field holding "\r" went unquoted
    last_row, last_col = used_extent(session, target)
    if last_row < 0:
        return ""
    for start in range(0, last_row + 1, 200):
        block = read_area(session, target, Area(None, start, 0, min(last_row, start + 199), last_col))
        for line in block.rows:
            writer.writerow([_csv_text(c) for c in line])
    return out.getvalue()


def _csv_text(cell) -> str:
    """A cell's shown value for CSV; text that would open as a formula gets a leading apostrophe
    (the spreadsheet mark for text, so importing the file back gives the same text)."""
    if isinstance(cell.value, str) and cell.display.startswith(FORMULA_STARTS):
        return "'" + cell.display
    return cell.display


def xml_safe(value):
    """Text without the control characters that an XLSX file cannot hold (dropped, as spreadsheet
    apps do); any other value as it is."""
    return ILLEGAL_CHARACTERS_RE.sub("", value) if isinstance(value, str) else value


def export_xlsx(session: Session, actor: Person, workbook) -> bytes:
    """The workbook as an XLSX file: every sheet, inputs (formulas as formulas) and number formats."""
    found = resolve_workbook(session, actor, workbook)
    book = XlsxBook()
    book.remove(book.active)
    for sheet in sheets_of(session, found):
        page = book.create_sheet(xml_safe(sheet.name)[:31])
        for cell in session.scalars(select(Cell).where(Cell.sheet_id == sheet.id).order_by(Cell.row, Cell.col)):
            target = page.cell(row=cell.row + 1, column=cell.col + 1)
            if cell.is_formula:
                target.value = xml_safe(cell.raw)
            else:
                value = cell_value(cell.kind, cell.number, cell.text, cell.note)
                target.value = value.code if hasattr(value, "code") else xml_safe(value)
                if isinstance(value, str):
                    target.data_type = "s"  # text stays text, even when it starts with "="
            if cell.number_format:
                target.number_format = xml_safe(cell.number_format)
        if sheet.frozen_rows or sheet.frozen_cols:
            page.freeze_panes = page.cell(row=sheet.frozen_rows + 1, column=sheet.frozen_cols + 1)
    if not book.sheetnames:
        book.create_sheet("Sheet1")
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def export_xlsx_base64(session: Session, actor: Person, workbook) -> str:
    """export_xlsx as base64 text (for tools, which carry text)."""
    return base64.b64encode(export_xlsx(session, actor, workbook)).decode("ascii")
