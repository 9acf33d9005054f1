"""Imports bounded before the work: an XLSX file that is small but declares or holds a huge sheet,
or hides a zip bomb, is refused before a row is parsed, in little memory, and leaves the database
unchanged; base64 and CSV text over their limits are refused before
they are decoded or parsed; one import runs per episode at a time; the tools advertise the same
limits the services apply."""

from __future__ import annotations

import base64
import io
import tracemalloc
import zipfile

import pytest
from openpyxl import Workbook
from test_sheets_services import act, people, refused, values

from officegym.apps.sheets import services
from officegym.apps.sheets.exchange import one_import_at_a_time
from officegym.apps.sheets.xlsx_import import MAX_XLSX_PART
from officegym.errors import Conflict, Invalid
from officegym.mcp_wrappers.server import served_tools


@pytest.fixture
def book(episode):
    """(episode, owner id, workbook id) of an empty workbook."""
    owner, _, _ = people(episode)
    return episode, owner, act(episode, owner, services.create_workbook, "Imports").id


def sheet_xml(rows: str, dimension: str = "A1") -> str:
    return ('<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/'
            f'spreadsheetml/2006/main"><dimension ref="{dimension}"/><sheetData>{rows}</sheetData></worksheet>')


def crafted(sheet: str, extra: dict[str, bytes] | None = None) -> bytes:
    """An XLSX file (made with openpyxl) whose only worksheet's XML is `sheet`, plus `extra` parts."""
    out = io.BytesIO()
    Workbook().save(out)
    source, rebuilt = zipfile.ZipFile(io.BytesIO(out.getvalue())), io.BytesIO()
    with zipfile.ZipFile(rebuilt, "w", zipfile.ZIP_DEFLATED) as target:
        for item in source.infolist():
            body = sheet.encode() if item.filename == "xl/worksheets/sheet1.xml" else source.read(item)
            target.writestr(item.filename, body)
        for name, body in (extra or {}).items():
            target.writestr(name, body)
    return rebuilt.getvalue()


def many_cells(count: int, width: int = 500, dimension: str = "A1:XFD1048576", first: str = "") -> bytes:
    """A worksheet of `count` numeric cells, `width` a row (a few kilobytes per thousand cells), that
    declares it spans `dimension`; `first` replaces its first cell."""
    rows = "".join(f'<row r="{r + 1}">' + '<c t="n"><v>1</v></c>' * min(width, count - r * width) + "</row>"
                   for r in range(-(-count // width)))
    if first:
        rows = rows.replace('<c t="n"><v>1</v></c>', first, 1)
    return crafted(sheet_xml(rows, dimension))


def test_a_small_file_declaring_a_million_cells_is_refused_before_its_rows_are_read(book):
    episode, owner, wb = book
    data = many_cells(950_000)
    assert len(data) < 3_000_000
    assert refused(episode, Invalid, owner, services.import_xlsx, wb, data) == (
        "The XLSX file's xl/worksheets/sheet1.xml spans A1:XFD1048576, larger than a sheet (100,000 rows, "
        "702 columns).")
    within_a_sheet = many_cells(950_000, dimension="A1:SF1900")
    assert refused(episode, Invalid, owner, services.import_xlsx, wb, within_a_sheet) == (
        "The XLSX file declares 950,000 cells (xl/worksheets/sheet1.xml spans A1:SF1900), more than the 100,000 "
        "imported at a time; split it.")


def test_a_file_holding_a_million_cells_is_refused_from_their_count_before_a_row_is_parsed(book):
    episode, owner, wb = book
    # It declares one cell, and its first cell is one openpyxl cannot read: had a row been parsed,
    # the refusal would say the file is unreadable.
    data = many_cells(950_000, dimension="A1", first='<c t="n"><v>not a number</v></c>')
    tracemalloc.start()
    message = refused(episode, Invalid, owner, services.import_xlsx, wb, data)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert message == "The XLSX file holds more than 100,000 cells; split it."
    assert peak < 60_000_000, f"{peak:,} bytes at the peak"  # the whole grid would take hundreds of megabytes
    unreadable = many_cells(3, dimension="A1", first='<c t="n"><v>not a number</v></c>')
    assert "openpyxl can read" in refused(episode, Invalid, owner, services.import_xlsx, wb, unreadable)


def test_declared_sizes_within_the_limit_are_not_trusted_and_cells_beyond_a_sheet_are_refused(book):
    episode, owner, wb = book
    declares_less = crafted(sheet_xml('<row r="1"><c t="n" r="A1"><v>5</v></c><c t="n" r="B1"><v>7</v></c></row>'
                                      '<row r="2"><c t="n" r="C2"><v>9</v></c></row>', "A1"))
    assert act(episode, owner, services.import_xlsx, wb, declares_less) == ["Sheet"]
    assert values(episode, owner, wb, "Sheet!A1:C2") == [[5, 7, None], [None, None, 9]]
    for where in ("XFD1", "A1048576"):
        row = where[-1] if where == "XFD1" else "1048576"
        far = crafted(sheet_xml(f'<row r="{row}"><c t="n" r="{where}"><v>1</v></c></row>'))
        assert "larger than a sheet" in refused(episode, Invalid, owner, services.import_xlsx, wb, far)


def test_a_zip_bomb_is_refused_from_its_declared_sizes_before_anything_is_unpacked(book):
    episode, owner, wb = book
    strings = b"<sst>" + b"<si><t>a</t></si>" * (MAX_XLSX_PART // 17 + 1) + b"</sst>"
    bomb = crafted(sheet_xml(""), {"xl/sharedStrings2.xml": strings})
    assert len(bomb) < 100_000
    message = refused(episode, Invalid, owner, services.import_xlsx, wb, bomb)
    assert message.startswith("The XLSX file unpacks to ") and "in xl/sharedStrings2.xml" in message
    huge = crafted(sheet_xml(""), {f"xl/media/part{k}.bin": bytes(MAX_XLSX_PART) for k in range(6)})
    assert "more than the 40,000,000 read" in refused(episode, Invalid, owner, services.import_xlsx, wb, huge)


def test_text_over_the_limits_is_refused_before_it_is_decoded_or_parsed(book):
    episode, owner, wb = book
    too_long = "A" * (services.MAX_XLSX_BASE64 + 4)
    assert "at most 3,000,000 bytes (4,000,000 characters of base64)" in refused(
        episode, Invalid, owner, services.import_xlsx, wb, too_long)
    assert refused(episode, Invalid, owner, services.import_xlsx, wb, b"x" * (services.MAX_XLSX_BYTES + 1)) == \
        "Give an XLSX file of at most 3,000,000 bytes."
    assert refused(episode, Invalid, owner, services.import_csv, wb, "Data", "1," * 1_000_001) == \
        "The CSV text is larger than 2,000,000 characters."
    assert "more than 100,000 cells" in refused(episode, Invalid, owner, services.import_csv, wb, "Data",
                                                "1,2,3,4,5,6,7,8,9,10\r\n" * 10_001)


def test_one_import_runs_per_episode_at_a_time(book):
    episode, owner, wb = book
    data = base64.b64encode(crafted(sheet_xml('<row r="1"><c t="n"><v>5</v></c></row>'))).decode()
    with episode.session() as held, one_import_at_a_time(held):
        for fn, args in ((services.import_xlsx, (wb, data)), (services.import_csv, (wb, "Data", "1,2"))):
            assert refused(episode, Conflict, owner, fn, *args) == \
                "Another import is running in this episode; try again once it has finished."
    assert act(episode, owner, services.import_xlsx, wb, data) == ["Sheet"]  # the lock is released after
    assert values(episode, owner, wb, "Sheet!A1") == [[5]]


def test_the_tools_advertise_the_limits_the_services_apply():
    tools = {t.name: t for t in served_tools(["sheets_import_csv", "sheets_import_xlsx"])}
    csv_schema = tools["sheets_import_csv"].parameters["properties"]["csv"]
    xlsx_schema = tools["sheets_import_xlsx"].parameters["properties"]["data"]
    assert (csv_schema["maxLength"], xlsx_schema["maxLength"]) == (services.MAX_CSV_CHARS, services.MAX_XLSX_BASE64)
    assert f"{services.MAX_CSV_CHARS:,} characters" in tools["sheets_import_csv"].description
    assert f"{services.MAX_XLSX_BYTES:,} bytes" in tools["sheets_import_xlsx"].description
    assert services.MAX_XLSX_BASE64 == -(-services.MAX_XLSX_BYTES // 3) * 4
