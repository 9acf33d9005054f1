"""Bad input for the sheets tools, part 2 (the scene and helpers are part 1's): inserting and deleting
rows and columns, sorting, copy and paste, fill down, find and replace, named ranges, filter views,
summary tables, CSV and XLSX import and export; then the guard that every sheets tool has cases, and
what the service does with input that is not refused (unknown functions, overlapping pastes)."""

from __future__ import annotations

import base64
import io

import pytest
from openpyxl import Workbook as XlsxBook

from officegym.mcp_wrappers.server import catalog
from test_sheets_bad_input import CASES, HUGE, NOT_SEEN, ONLY_VIEW, case, refuse, sheets_world  # noqa: F401
from test_sheets_tools import BOOK, raw, value, world  # noqa: F401  (world and sheets_world are fixtures)


def xlsx(*sheets: tuple[str, dict]) -> str:
    """An XLSX file of (title, {cell: value}) sheets, base64-encoded."""
    book = XlsxBook()
    book.remove(book.active)
    for title, cells in sheets:
        page = book.create_sheet(title)
        for ref, item in cells.items():
            page[ref] = item
    out = io.BytesIO()
    book.save(out)
    return base64.b64encode(out.getvalue()).decode()


CSV_TOO_BIG = ("1," * 499 + "1\n") * 201  # 100,500 cells
SORT = "sheets_sort_range"
PASTE = "sheets_copy_paste"
SUMMARY = "sheets_create_summary_table"
GROUPS = {"source": "A1:C5", "group_by": "A", "value_column": "C", "aggregate": "sum", "target": "Summary!A1"}
VIEW = {"name": "Zz View", "range": "A1:C5", "criteria": []}
MORE = [
    case("sheets_insert_rows", "200k-rows", {"before": 2, "count": 200_000}, "Count must be a whole number from 1"),
    case("sheets_insert_rows", "negative-count", {"before": 2, "count": -1}, "from 1 to 1000"),
    case("sheets_insert_rows", "row-zero", {"before": 0}, "Row must be a whole number from 1 to 100000"),
    case("sheets_insert_rows", "unknown-sheet", {"before": 2, "sheet": "Nope"}, "No sheet 'Nope'"),
    case("sheets_insert_rows", "viewer", {"before": 2}, ONLY_VIEW, "viewer"),
    case("sheets_delete_rows", "count-zero", {"first": 2, "count": 0}, "Count must be a whole number from 1"),
    case("sheets_delete_rows", "past-last-row", {"first": 100_000, "count": 2}, "from 1 to 1, got 2"),
    case("sheets_delete_rows", "row-text", {"first": "two"}, "valid integer"),
    case("sheets_delete_rows", "viewer", {"first": 2}, ONLY_VIEW, "viewer"),
    case("sheets_insert_columns", "past-zz", {"before": "ZZZ"}, "Column is a column letter such as C"),
    case("sheets_insert_columns", "cell-not-column", {"before": "A1"}, "Column is a column letter"),
    case("sheets_insert_columns", "too-many", {"before": "B", "count": 101}, "from 1 to 100"),
    case("sheets_insert_columns", "stranger", {"before": "B"}, NOT_SEEN, "stranger"),
    case("sheets_delete_columns", "column-zero", {"first": 0}, "Column must be a whole number from 1 to 702"),
    case("sheets_delete_columns", "past-last-column", {"first": "ZZ", "count": 2}, "from 1 to 1, got 2"),
    case("sheets_delete_columns", "viewer", {"first": "B"}, ONLY_VIEW, "viewer"),
    case(SORT, "column-outside", {"range": "A1:C5", "keys": [{"column": "E"}]}, "Column E is outside the range A1:C5"),
    case(SORT, "no-keys", {"range": "A1:C5", "keys": []}, "at least 1 item"),
    case(SORT, "header-only", {"range": "A1:C1", "keys": [{"column": "A"}], "has_header": True}, "no rows to sort"),
    case(SORT, "over-50k", {"range": "A1:Z2000", "keys": [{"column": "A"}]}, "Sort at most 50,000"),
    case(SORT, "bad-column", {"range": "A1:C5", "keys": [{"column": "1A"}]}, "Sort column is a column letter"),
    case(SORT, "extra-key", {"range": "A1:C5", "keys": [{"column": "A", "order": "desc"}]}, "Extra inputs"),
    case(SORT, "viewer", {"range": "A1:C5", "keys": [{"column": "A"}]}, ONLY_VIEW, "viewer"),
    case(PASTE, "past-last-column", {"source": "A1:C5", "target": "ZY1"}, "run past the end of the sheet"),
    case(PASTE, "past-last-row", {"source": "A1:C5", "target": "A99999"}, "run past the end of the sheet"),
    case(PASTE, "target-outside", {"source": "A1:C5", "target": "A100001"}, "outside the sheet"),
    case(PASTE, "over-5k", {"source": HUGE, "target": "AA1"}, "Copy at most 5,000"),
    case(PASTE, "unknown-target-sheet", {"source": "A1:C5", "target": "Nope!A1"}, "No sheet 'Nope'"),
    case(PASTE, "half-source", {"source": "A1:B", "target": "G1"}, "The source range 'A1:B' is not valid"),
    case(PASTE, "viewer", {"source": "A1:C5", "target": "G1"}, ONLY_VIEW, "viewer"),
    case("sheets_fill_down", "one-row", {"range": "C2:E2"}, "at least two rows"),
    case("sheets_fill_down", "one-cell", {"range": "C2"}, "at least two rows"),
    case("sheets_fill_down", "whole-column", {"range": "C:C"}, "at least two rows"),
    case("sheets_fill_down", "over-5k", {"range": HUGE}, "Fill at most 5,000"),
    case("sheets_fill_down", "viewer", {"range": "C2:C5"}, ONLY_VIEW, "viewer"),
    case("sheets_find_replace", "empty-find", {"find": "", "replacement": "x"}, "Give the text to find"),
    case("sheets_find_replace", "unknown-sheet", {"find": "EMEA", "replacement": "x", "sheet": "Nope"},
         "No sheet 'Nope'"),
    case("sheets_find_replace", "find-too-long", {"find": "f" * 501, "replacement": ""}, "at most 500 characters"),
    case("sheets_find_replace", "viewer", {"find": "EMEA", "replacement": "x"}, ONLY_VIEW, "viewer"),
    case("sheets_define_named_range", "cell-name", {"name": "A1", "range": "C2:C5"}, "'A1' reads as a cell"),
    case("sheets_define_named_range", "digit-first", {"name": "1abc", "range": "C2:C5"},
         "A range name starts with a letter"),
    case("sheets_define_named_range", "space", {"name": "has space", "range": "C2:C5"}, "starts with a letter"),
    case("sheets_define_named_range", "past-last-column", {"name": "zzz1", "range": "C2:C5"}, "reads as a cell"),
    case("sheets_define_named_range", "boolean", {"name": "true", "range": "C2:C5"}, "reads as a cell or value"),
    case("sheets_define_named_range", "unknown-sheet", {"name": "Zz", "range": "Nope!A1"}, "No sheet 'Nope'"),
    case("sheets_define_named_range", "viewer", {"name": "Zz", "range": "C2:C5"}, ONLY_VIEW, "viewer"),
    case("sheets_delete_named_range", "unknown", {"name": "Nope"}, "No range named 'Nope'"),
    case("sheets_delete_named_range", "viewer", {"name": "Amounts"}, ONLY_VIEW, "viewer"),
    case("sheets_create_filter_view", "duplicate", {**VIEW, "name": "big DEALS"}, "already has a filter view"),
    case("sheets_create_filter_view", "bad-op", {**VIEW, "criteria": [{"column": "C", "op": "~", "value": 1}]},
         "Condition operator must be one of"),
    case("sheets_create_filter_view", "column-outside", {**VIEW, "criteria": [{"column": "E", "value": 1}]},
         "Condition column E is not a column of the range A1:C5"),
    case("sheets_create_filter_view", "sort-outside", {**VIEW, "sort_column": "E"}, "Sort column E is not a column"),
    case("sheets_create_filter_view", "empty-name", {**VIEW, "name": " "}, "Filter view name is required"),
    case("sheets_create_filter_view", "bad-range", {**VIEW, "range": "A1:C"}, "is not valid"),
    case("sheets_create_filter_view", "viewer", VIEW, ONLY_VIEW, "viewer"),
    case("sheets_list_filter_views", "unknown-sheet", {"sheet": "Nope"}, "No sheet 'Nope'"),
    case("sheets_list_filter_views", "limit-zero", {"limit": 0}, "greater than or equal to 1"),
    case("sheets_list_filter_views", "stranger", {}, NOT_SEEN, "stranger"),
    case("sheets_apply_filter_view", "unknown", {"name": "Nope"}, "No filter view 'Nope' on Data. Views: Big deals"),
    case("sheets_apply_filter_view", "other-sheet", {"name": "Big deals", "sheet": "Q1 plan"}, "Views: none"),
    case("sheets_apply_filter_view", "stranger", {"name": "Big deals"}, NOT_SEEN, "stranger"),
    case("sheets_delete_filter_view", "unknown", {"name": "Nope"}, "No filter view 'Nope'"),
    case("sheets_delete_filter_view", "viewer", {"name": "Big deals"}, ONLY_VIEW, "viewer"),
    case(SUMMARY, "bad-aggregate", {**GROUPS, "aggregate": "median"}, "Aggregate must be one of"),
    case(SUMMARY, "group-outside", {**GROUPS, "group_by": "E"}, "The group-by column E is outside"),
    case(SUMMARY, "target-taken", {**GROUPS, "target": "Data!B2"}, "empty; clear it or pick another place"),
    case(SUMMARY, "header-only", {**GROUPS, "source": "A1:C1"}, "needs a header row and at least one row"),
    case(SUMMARY, "target-range", {**GROUPS, "target": "Summary!A1:B2"}, "The target is one cell"),
    case(SUMMARY, "target-row-zero", {**GROUPS, "target": "Summary!A0"}, "The target 'Summary!A0' is not valid"),
    case(SUMMARY, "nothing-to-group", {**GROUPS, "source": "D1:D5", "group_by": "D", "value_column": "D"},
         "has no values to group by"),
    case(SUMMARY, "new-sheet-too-low", {**GROUPS, "target": "Summary!A99999"}, "run past the end of the sheet"),
    case(SUMMARY, "viewer", GROUPS, ONLY_VIEW, "viewer"),
    case("sheets_import_csv", "empty", {"sheet": "Data", "csv": "  "}, "Give the CSV text"),
    case("sheets_import_csv", "bad-formula", {"sheet": "Zz New", "csv": "a,b\n1,=SUM(\n"}, "Cell row 2, column 2"),
    case("sheets_import_csv", "over-100k-cells", {"sheet": "Data", "csv": CSV_TOO_BIG}, "more than 100,000 cells"),
    case("sheets_import_csv", "too-wide", {"sheet": "Data", "csv": "1," * 702 + "1\n"}, "larger than a sheet"),
    case("sheets_import_csv", "too-tall", {"sheet": "Data", "csv": "1\n" * 100_001}, "larger than a sheet"),
    case("sheets_import_csv", "bad-sheet-name", {"sheet": "a/b", "csv": "1\n"}, "may not contain /"),
    case("sheets_import_csv", "viewer", {"sheet": "Data", "csv": "1\n"}, ONLY_VIEW, "viewer"),
    case("sheets_export_csv", "unknown-sheet", {"sheet": "Nope"}, "No sheet 'Nope'"),
    case("sheets_export_csv", "stranger", {}, NOT_SEEN, "stranger"),
    case("sheets_import_xlsx", "not-base64", {"data": "not base64!"}, "not valid base64"),
    case("sheets_import_xlsx", "not-xlsx", {"data": base64.b64encode(b"a,b\n1,2\n").decode()}, "XLSX file"),
    case("sheets_import_xlsx", "empty", {"data": ""}, "Give an XLSX file"),
    case("sheets_import_xlsx", "second-sheet-broken", {"data": xlsx(("Zz Fine", {"A1": 1}), ("Zz Bad", {"B1": "=("}))},
         "Cell row 1, column 2"),
    case("sheets_import_xlsx", "cell-past-the-sheet", {"data": xlsx(("Zz Far", {"A1": 1, "XFD1048576": 2}))},
         "spans A1:XFD1048576, larger than a sheet"),
    case("sheets_import_xlsx", "beyond-a-sheet", {"data": xlsx(("Zz Far", {"A1": 1, "A100001": 2}))},
         "larger than a sheet (100,000 rows, 702 columns)"),
    case("sheets_import_xlsx", "viewer", {"data": xlsx(("Zz Fine", {"A1": 1}))}, ONLY_VIEW, "viewer"),
    case("sheets_export_xlsx", "stranger", {}, NOT_SEEN, "stranger"),
    case("sheets_export_xlsx", "text-id", {}, "No workbook '999999'", book="999999"),
]


@pytest.mark.parametrize("tool, args, says, who", MORE)
def test_more_bad_input_is_refused_and_changes_nothing(sheets_world, tool, args, says, who):
    refuse(sheets_world, tool, args, says, who)


def test_every_sheets_tool_has_bad_input_cases():
    covered = [c.values[0] for c in CASES + MORE]
    tools = {t.name for t in catalog() if t.name.startswith("sheets_")}
    assert len(tools) >= 37 and tools <= set(covered), tools - set(covered)
    assert len(covered) >= 150


def test_unknown_functions_and_overflowing_numbers_are_kept_as_a_spreadsheet_keeps_them(sheets_world):
    """An unknown function parses, so it is not refused: the cell keeps the input and shows #NAME?,
    saying why. Text such as 1e999, too large for a number, stays text (and reads as text in formulas)."""
    editor, scene = sheets_world("editor")
    out = editor.write("sheets_write_cells", {"workbook": BOOK, "cells": [
        {"cell": "F1", "value": "=NOPE(C2)"}, {"cell": "F2", "value": "1e999"}, {"cell": "F3", "value": "=F2*1"}]},
        "sheets.write_cells")
    first, big, product = out["cells"]
    assert first["value"] == "#NAME?" and "Unknown function NOPE" in first["error"]
    assert raw(editor, scene["book"], "F1") == "=NOPE(C2)" and value(editor, scene["book"], "F1").code == "#NAME?"
    assert big == {"ref": "Data!F2", "value": "1e999", "display": "1e999"} and product["value"] == "#VALUE!"


def test_an_overlapping_paste_copies_the_source_as_it_was(sheets_world):
    """Pasting a range one row down onto itself copies the cells as they were before the paste."""
    editor, scene = sheets_world("editor")
    editor.write(PASTE, {"workbook": BOOK, "source": "B1:C3", "target": "B2"}, "sheets.copy_paste")
    assert [raw(editor, scene["book"], f"B{r}") for r in range(1, 5)] == ["Rep", "Rep", "Ann", "Bob"]
    assert [value(editor, scene["book"], f"C{r}") for r in range(2, 5)] == ["Amount", 120, 80]
