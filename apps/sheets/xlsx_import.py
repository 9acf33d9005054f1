"""XLSX import, bounded before the work: the file's size, then the sizes its zip declares once
unpacked, then the cells its worksheets declare and the cells their XML holds (counted, not parsed),
and last its cells counted again as the rows stream in (openpyxl's read-only reader), so a small
file that unpacks to a huge sheet is refused before a row is parsed, in a few megabytes of memory."""

from __future__ import annotations

import base64
import binascii
import io
import re
import zipfile
import zlib
from datetime import date, datetime

from openpyxl import load_workbook
from sqlalchemy.orm import Session

from officegym.apps.org.models import Person
from officegym.errors import Invalid
from officegym.journal import journaled

from .access import require_editor
from .exchange import MAX_IMPORT_CELLS, check_size, fill_sheet, one_import_at_a_time, target_sheet
from .formula.a1 import MAX_COLS, MAX_ROWS, col_index
from .formula.parser import FormulaError, read_input
from .lookups import resolve_workbook

MAX_XLSX_BYTES = 3_000_000  # the file
MAX_XLSX_BASE64 = 4_000_000  # the same file as base64 text (4 characters per 3 bytes)
MAX_XLSX_UNPACKED = 40_000_000  # what its zip declares once unpacked, all parts together
MAX_XLSX_PART = 8_000_000  # one part read whole (shared strings, styles); worksheets are streamed
MAX_XLSX_PARTS = 1_000
SCAN_CHUNK = 1 << 20  # unpacked worksheet XML counted at a time
TAG_OVERLAP = 64  # longer than any cell's opening tag up to its first space
CELL_TAG = re.compile(rb"<(?:[A-Za-z_][\w.-]{0,40}:)?c[\s/>]")  # <c r="A1" ...>, <c>, <x:c ...>
DIMENSION = re.compile(rb"<(?:[A-Za-z_][\w.-]{0,40}:)?dimension\s[^>]{0,200}?ref=\"([^\"]{0,40})\"")
CORNER = re.compile(r"\$?([A-Z]{1,3})\$?([0-9]{1,7})")


def _file_bytes(data) -> bytes:
    """The file's bytes from bytes or base64 text, its size checked before anything is decoded."""
    if isinstance(data, str):
        if len(data) > MAX_XLSX_BASE64:
            raise Invalid(f"Give an XLSX file of at most {MAX_XLSX_BYTES:,} bytes "
                          f"({MAX_XLSX_BASE64:,} characters of base64).")
        try:
            data = base64.b64decode(data, validate=True)
        except (ValueError, binascii.Error):
            raise Invalid("The XLSX data is not valid base64.") from None
    if not isinstance(data, bytes) or not data or len(data) > MAX_XLSX_BYTES:
        raise Invalid(f"Give an XLSX file of at most {MAX_XLSX_BYTES:,} bytes.")
    return data


def _check_unpacked(data: bytes) -> None:
    """Refuse a zip whose parts are too many or would unpack to more than MAX_XLSX_UNPACKED bytes (the
    reader never unpacks more than a part declares)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            parts = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as bad:
        raise Invalid(f"That is not a readable XLSX file ({type(bad).__name__}).") from None
    if len(parts) > MAX_XLSX_PARTS:
        raise Invalid(f"The XLSX file holds {len(parts):,} parts; at most {MAX_XLSX_PARTS:,} are read.")
    advice = f"import at most {MAX_IMPORT_CELLS:,} cells at a time."
    unpacked = sum(part.file_size for part in parts)
    if unpacked > MAX_XLSX_UNPACKED:
        raise Invalid(f"The XLSX file unpacks to {unpacked:,} bytes, more than the {MAX_XLSX_UNPACKED:,} read; "
                      + advice)
    for part in parts:
        if not part.filename.startswith("xl/worksheets/") and part.file_size > MAX_XLSX_PART:
            raise Invalid(f"The XLSX file unpacks to {part.file_size:,} bytes in {part.filename}, more than the "
                          f"{MAX_XLSX_PART:,} read; {advice}")


def _count_cells(data: bytes) -> None:
    """Refuse a file whose worksheets declare (in their <dimension ref>) or hold (their <c> elements,
    counted in the unpacked XML as it streams, a megabyte at a time) more than MAX_IMPORT_CELLS cells,
    before any row is parsed: counting bytes costs a small part of parsing them."""
    declared = counted = 0
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            for part in archive.infolist():
                if not (part.filename.startswith("xl/worksheets/") and part.filename.endswith(".xml")):
                    continue
                with archive.open(part) as stream:
                    head = stream.read(SCAN_CHUNK)
                    declared += _declared_cells(head, part.filename)
                    if declared > MAX_IMPORT_CELLS:
                        raise Invalid(f"The XLSX file declares {declared:,} cells ({part.filename} spans "
                                      f"{_dimension(head)}), more than the {MAX_IMPORT_CELLS:,} imported at a "
                                      "time; split it.")
                    counted = _count_tags(stream, head, counted)
    except (zipfile.BadZipFile, zlib.error, EOFError) as bad:
        raise Invalid(f"That is not a readable XLSX file ({type(bad).__name__}).") from None


def _count_tags(stream, window: bytes, counted: int) -> int:
    """`counted` plus the cell elements of a worksheet's XML (`window`, its start, then the rest of
    `stream`), refused as soon as the total passes MAX_IMPORT_CELLS."""
    while True:
        chunk = stream.read(SCAN_CHUNK)
        window += chunk
        # Up to the last "<" near the end, which may open a tag cut in two (it is counted next time).
        cut = window.rfind(b"<", max(len(window) - TAG_OVERLAP, 0)) if chunk else -1
        cut = len(window) if cut < 0 else cut
        counted += len(CELL_TAG.findall(window, 0, cut))
        if counted > MAX_IMPORT_CELLS:
            raise Invalid(f"The XLSX file holds more than {MAX_IMPORT_CELLS:,} cells; split it.")
        if not chunk:
            return counted
        window = window[cut:]


def _dimension(head: bytes) -> str:
    """The range a worksheet's XML declares it spans ('' when it declares none)."""
    found = DIMENSION.search(head)
    return found.group(1).decode("ascii", "replace") if found else ""


def _declared_cells(head: bytes, part: str) -> int:
    """The number of cells of the range a worksheet declares (0 when it declares none it can read),
    refused when that range reaches beyond a sheet."""
    spans = _dimension(head)
    corners = [CORNER.fullmatch(corner) for corner in spans.upper().split(":")]
    if None in corners or len(corners) > 2:
        return 0
    rows, cols = [int(c.group(2)) for c in corners], [col_index(c.group(1)) for c in corners]
    if max(rows) > MAX_ROWS or max(cols) >= MAX_COLS:
        raise Invalid(f"The XLSX file's {part} spans {spans}, larger than a sheet ({MAX_ROWS:,} rows, "
                      f"{MAX_COLS} columns).")
    return (max(rows) - min(rows) + 1) * (max(cols) - min(cols) + 1)


def _open(data: bytes):
    """openpyxl's streaming reader over the file, or a clear refusal."""
    try:
        return load_workbook(io.BytesIO(data), read_only=True)
    except Exception as bad:  # zip, XML and openpyxl errors alike: any unreadable file is bad input
        raise Invalid(f"That is not an XLSX file openpyxl can read ({type(bad).__name__}).") from None


def _sheet_cells(page, sheet_id: int, seen: int) -> tuple[list[dict], int]:
    """The cells of one worksheet as its rows stream in, and the cells read so far (`seen` before it).
    Refused as soon as a row or column lies beyond a sheet or more than MAX_IMPORT_CELLS cells (empty
    ones between filled ones count) have been read. The declared dimensions are not trusted here: a
    file may declare less than it holds."""
    page.reset_dimensions()
    cells = []
    for r, line in enumerate(page.iter_rows()):
        seen += len(line)
        check_size(r + 1, len(line), seen, f"sheet {page.title}")
        for c, item in enumerate(line):
            if item.value is None:
                continue
            raw = xlsx_input(item.value, item.data_type)
            fmt = "" if item.number_format in ("General", None) else item.number_format
            if raw != "":
                cells.append({"sheet_id": sheet_id, "row": r, "col": c, "raw": raw, "number_format": fmt[:40]})
    return cells, seen


@journaled("sheets.import_xlsx")
def import_xlsx(session: Session, actor: Person, workbook, data) -> list[str]:
    """Replace or add the sheets of an XLSX file (bytes, or base64 text) in a workbook; returns the
    sheet names imported. At most MAX_XLSX_BYTES of file and MAX_IMPORT_CELLS cells in all."""
    found = resolve_workbook(session, actor, workbook)
    require_editor(session, actor, found)
    data = _file_bytes(data)
    _check_unpacked(data)
    _count_cells(data)
    with one_import_at_a_time(session):
        source = _open(data)
        try:
            imported, seen = [], 0
            for page in source.worksheets:
                target = target_sheet(session, actor, found, page.title)
                cells, seen = _sheet_cells(page, target.id, seen)
                fill_sheet(session, actor, found, target, cells, f"import XLSX sheet {target.name}")
                imported.append(target.name)
        except (KeyError, ValueError, TypeError, zipfile.BadZipFile, EOFError) as bad:
            raise Invalid(f"That is not an XLSX file openpyxl can read ({type(bad).__name__}).") from None
        finally:
            source.close()
    return imported


def xlsx_input(value, data_type: str) -> str:
    """What typing the value of an XLSX cell gives: formulas as formulas, numbers, dates and booleans
    as values, and text as text (marked with an apostrophe when typing it would read otherwise)."""
    if value is None or value == "":
        return ""
    if isinstance(value, str) and data_type != "f":
        try:
            typed = read_input(value)
        except FormulaError:
            typed = None
        return value if typed is not None and typed.formula is None and typed.value == value else "'" + value
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, datetime):
        return value.date().isoformat()
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, (int, float)):
        return repr(float(value)) if isinstance(value, float) and not value.is_integer() else str(int(value))
    return str(value)

