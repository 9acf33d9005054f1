"""XLSX import, bounded before the work: the file's size, then the sizes its zip declares once
unpacked, then its cells counted as the rows stream in (openpyxl's read-only reader), so a small
file that unpacks to a huge sheet is refused after reading at most MAX_IMPORT_CELLS cells, in a few
megabytes of memory."""

from __future__ import annotations

import base64
import binascii
import io
import zipfile
from datetime import date, datetime

from openpyxl import load_workbook
from sqlalchemy.orm import Session

from officegym.apps.org.models import Person
from officegym.errors import Invalid
from officegym.journal import journaled

from .access import require_editor
from .exchange import MAX_IMPORT_CELLS, check_size, fill_sheet, one_import_at_a_time, target_sheet
from .formula.parser import FormulaError, read_input
from .lookups import resolve_workbook

MAX_XLSX_BYTES = 3_000_000  # the file
MAX_XLSX_BASE64 = 4_000_000  # the same file as base64 text (4 characters per 3 bytes)
MAX_XLSX_UNPACKED = 40_000_000  # what its zip declares once unpacked, all parts together
MAX_XLSX_PART = 8_000_000  # one part read whole (shared strings, styles); worksheets are streamed
MAX_XLSX_PARTS = 1_000


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


def _open(data: bytes):
    """openpyxl's streaming reader over the file, or a clear refusal."""
    try:
        return load_workbook(io.BytesIO(data), read_only=True)
    except Exception as bad:  # zip, XML and openpyxl errors alike: any unreadable file is bad input
        raise Invalid(f"That is not an XLSX file openpyxl can read ({type(bad).__name__}).") from None


def _sheet_cells(page, sheet_id: int, seen: int) -> tuple[list[dict], int]:
    """The cells of one worksheet as its rows stream in, and the cells read so far (`seen` before it).
    Refused as soon as a row or column lies beyond a sheet or more than MAX_IMPORT_CELLS cells (empty
    ones between filled ones count) have been read. The declared dimensions are ignored: a file may
    claim any size."""
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

