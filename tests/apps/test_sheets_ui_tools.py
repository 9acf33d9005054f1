"""The grid's toolbar forms driven in real Chromium (Playwright) against the UI served over the test
store: each test fills a form as a person would, then reads the result from the grid page and from
the services. The cell forms and the other pages are in test_sheets_ui.py."""

from __future__ import annotations

import io
import threading

import openpyxl
import pytest
from sheets_ui_helpers import Sheets, column, make_book, raw, sheet_names, value
from werkzeug.serving import make_server

from officegym.apps.sheets import services

pytestmark = pytest.mark.e2e



@pytest.fixture(scope="module")
def served(web_app):
    """The UI app served on a free local port for the module; yields its base URL."""
    server = make_server("127.0.0.1", 0, web_app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    thread.join(10)


@pytest.fixture
def sheets(browser, served, chromium):
    """The sheets app of the test's episode in a fresh Chromium context."""
    context = chromium.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    context.set_default_timeout(10_000)
    yield Sheets(context.new_page(), f"{served}{browser.base}")
    context.close()


def test_grid_page_is_laid_out_as_a_spreadsheet(browser, sheets, tmp_path):
    wb = make_book(browser)
    page = sheets.open(f"w/{wb}", cell="C3").page
    page.screenshot(path=tmp_path / "grid.png", full_page=True)  # kept in pytest's temp folder to look at
    order = ("menubar", "formula-bar", "grid", "sheet-tabs", "all-tools")
    box = {t: page.get_by_test_id(t).bounding_box() for t in order}
    assert [box[t]["y"] for t in order] == sorted(box[t]["y"] for t in order), "menus, formula bar, grid, tabs, tools"
    assert not page.get_by_test_id("toolbar").is_visible(), "the tool forms wait behind one disclosure"
    assert box["grid"]["y"] < 900, "the grid starts on the first screen"
    wrap = page.locator(".grid-wrap").bounding_box()
    headers = page.get_by_test_id("col-header")
    assert headers.all_inner_texts() == list("ABCDEFGHIJKL")
    last = headers.nth(11).bounding_box()
    assert last["x"] + last["width"] <= wrap["x"] + wrap["width"], "all twelve columns fit the window"
    a1, b2 = (page.locator(f'td[data-ref="{ref}"]').bounding_box() for ref in ("A1", "B2"))
    a_head, row_1 = headers.nth(0).bounding_box(), page.get_by_test_id("row-header").nth(0).bounding_box()
    assert abs(a_head["x"] - a1["x"]) < 1 and a_head["y"] < a1["y"] and abs(row_1["y"] - a1["y"]) < 1
    assert row_1["x"] < a1["x"] and b2["x"] > a1["x"] and b2["y"] > a1["y"]
    # the page ends with the grid, its tabs and the tools' disclosure: rows scrolled out of the grid's box
    # do not stretch the page
    tools_end = box["all-tools"]["y"] + box["all-tools"]["height"]
    assert page.evaluate("document.documentElement.scrollHeight") < tools_end + 80
    page.get_by_test_id("all-tools").locator("summary").first.click()
    page.get_by_test_id("tool-data").locator("summary").click()
    page.screenshot(path=tmp_path / "tools.png")
    assert page.get_by_test_id("sort-form").is_visible()
    # a click selects a cell in place: the formula bar shows its input
    page.locator('td[data-ref="B4"]').click()
    assert page.get_by_label("Cell", exact=True).input_value() == "B4"
    assert page.get_by_test_id("formula-input").input_value() == "Cid"


def test_sort_by_one_key_then_by_two(browser, sheets):
    wb = make_book(browser)
    sheets.open(f"w/{wb}")
    assert sheets.form("data", "sort-form", {"Range": "A1:C6", "By column": "C", "Order": "Z→A, 9→0"}) \
        == "Sorted 5 row(s)."
    assert sheets.column("C", 1, 6) == ["Amount", "200", "120", "80", "50", "30"]
    sheets.form("data", "sort-form", {"By column": "A", "Order": "A→Z, 0→9", "Then by column": "C",
                                      "Then order": "A→Z, 0→9"})
    assert sheets.column("A", 2, 6) == ["AMER", "APAC", "APAC", "EMEA", "EMEA"]
    assert sheets.column("C", 2, 6) == ["200", "30", "80", "50", "120"]
    with browser.db() as db:
        assert column(db, wb, "Deals!B2:B6") == ["Dee", "Eve", "Bob", "Cid", "Ann"]


def test_filter_view_is_created_applied_and_deleted(browser, sheets):
    wb = make_book(browser)
    sheets.open(f"w/{wb}")
    said = sheets.form("data", "filter-form", {"Name": "Big deals", "Range": "A1:C6", "Condition 1 column": "C",
                                               "Condition 1 is": ">", "Condition 1 value": "60", "Sort by column": "C",
                                               "Order": "descending"})
    assert said.startswith("Saved the filter view Big deals")
    assert sheets.rows() == [1, 5, 2, 3] and "3 matching row(s)" in sheets.page.get_by_test_id("view-banner").inner_text()
    sheets.page.get_by_test_id("view-clear").click()
    assert sheets.rows()[:7] == [1, 2, 3, 4, 5, 6, 7]
    sheets.page.get_by_label("Filter view").select_option("Big deals")
    sheets.page.get_by_test_id("apply-view-submit").click()
    assert sheets.rows() == [1, 5, 2, 3]
    sheets.open(f"w/{wb}/names").page.get_by_label("Remove the filter view Big deals").click()
    assert sheets.page.get_by_test_id("flash-info").inner_text() == "Removed the filter view Big deals."
    with browser.db() as db:
        assert services.list_filter_views(db, browser.episode.actor(db), wb) == []


def test_insert_and_delete_rows_and_a_formula_on_a_deleted_cell_shows_ref(browser, sheets):
    wb = make_book(browser, cells={"E1": "=SUM(C2:C6)", "F1": "=C3*2"})
    sheets.open(f"w/{wb}")
    assert sheets.form("structure", "rows-form", {"Row number": "3", "How many": "2"}, "rows-insert") \
        == "Inserted 2 row(s) at row 3."
    assert sheets.column("A", 1, 8) == ["Region", "EMEA", "", "", "APAC", "EMEA", "AMER", "APAC"]
    with browser.db() as db:
        assert (raw(db, wb, "Deals!E1"), raw(db, wb, "Deals!F1")) == ("=SUM(C2:C8)", "=C5*2")
    assert sheets.form("structure", "rows-form", {"Row number": "3", "How many": "3"}, "rows-delete") \
        == "Deleted 3 row(s) from row 3."
    shown = sheets.cells()
    assert [shown[f"B{n}"] for n in range(1, 6)] == ["Rep", "Ann", "Cid", "Dee", "Eve"]
    assert shown["E1"] == "400" and shown["F1"] == "#REF!"
    with browser.db() as db:
        assert raw(db, wb, "Deals!F1") == "=#REF!*2" and value(db, wb, "Deals!E1") == 400


def test_insert_and_delete_columns(browser, sheets):
    wb = make_book(browser, cells={"E2": "=B2&C2"})
    sheets.open(f"w/{wb}")
    assert sheets.form("structure", "columns-form", {"Column": "B"}, "columns-insert") \
        == "Inserted 1 column(s) at column B."
    shown = sheets.cells()
    assert [shown[f"{c}1"] for c in "ABCD"] == ["Region", "", "Rep", "Amount"] and shown["F2"] == "Ann120"
    sheets.form("structure", "columns-form", {"Column": "c", "How many": "1"}, "columns-delete")
    shown = sheets.cells()
    assert [shown[f"{c}1"] for c in "ABC"] == ["Region", "", "Amount"] and shown["E2"] == "#REF!"
    with browser.db() as db:
        assert raw(db, wb, "Deals!E2") == "=#REF!&C2"


def test_find_and_replace_in_this_sheet_or_all(browser, sheets):
    wb = make_book(browser, cells={"Notes!A1": "EMEA target", "D2": '=COUNTIF(A2:A6,"EMEA")'})
    sheets.open(f"w/{wb}")
    assert sheets.form("copy", "find-form", {"Find": "emea", "Replace with": "Europe", "Whole cell": True}) \
        == "Replaced in 2 cell(s)."
    assert sheets.column("A", 2, 4) == ["Europe", "APAC", "Europe"] and sheets.cells()["D2"] == "0"
    sheets.form("copy", "find-form", {"Find": "EMEA", "Replace with": "Europe", "In": "all sheets",
                                      "Match case": True, "Also in formulas": True})
    with browser.db() as db:
        assert value(db, wb, "Notes!A1") == "Europe target" and raw(db, wb, "Deals!D2") == '=COUNTIF(A2:A6,"Europe")'
    assert sheets.cells()["D2"] == "2"


def test_copy_paste_shifts_formulas_or_pastes_values(browser, sheets):
    wb = make_book(browser, cells={"D2": "=C2*2"})
    sheets.open(f"w/{wb}", cell="D2")
    assert sheets.form("copy", "paste-form", {"Copy range": "C2:D2", "Paste at cell": "F4"}) \
        == "Pasted 2 cell(s) at F4."
    assert (sheets.cells()["F4"], sheets.cells()["G4"]) == ("120", "240")
    sheets.form("copy", "paste-form", {"Copy range": "D2:D3", "Paste at cell": "Notes!A1", "Values only": True})
    with browser.db() as db:
        assert raw(db, wb, "Deals!G4") == "=F4*2" and (raw(db, wb, "Notes!A1"), raw(db, wb, "Notes!A2")) == ("240", "")
    assert sheets.page.get_by_test_id("grid").get_attribute("data-sheet") == "Deals" and sheets.cells()["G4"] == "240"


def test_fill_down_copies_the_first_row_with_shifting_references(browser, sheets):
    wb = make_book(browser, cells={"D2": "=C2*10", "E2": "fixed"})
    sheets.open(f"w/{wb}", cell="D2")
    assert sheets.form("copy", "fill-form", {"Range (its first row is copied into the rows below)": "D2:E6"}) \
        == "Filled 8 cell(s) down."
    assert sheets.column("D", 2, 6) == ["1200", "800", "500", "2000", "300"] and sheets.column("E", 3, 6) == ["fixed"] * 4
    with browser.db() as db:
        assert raw(db, wb, "Deals!D6") == "=C6*10"


def test_summary_table_is_written_on_a_new_sheet(browser, sheets):
    wb = make_book(browser)
    sheets.open(f"w/{wb}")
    said = sheets.form("names", "summary-form", {"Source range (header first)": "A1:C6", "Group by column": "A",
                                                 "Value column": "C", "Aggregate": "sum",
                                                 "Top-left target cell": "Totals!B2"})
    assert said == "Summary table written at Totals!B2:C6."
    assert sheets.tabs() == ["Deals", "Notes", "Totals"] and sheets.column("B", 2, 6) == [
        "Region", "AMER", "APAC", "EMEA", "Total"]
    assert sheets.column("C", 2, 6) == ["SUM of Amount", "200", "110", "170", "480"]
    with browser.db() as db:
        assert raw(db, wb, "Totals!C3").startswith("=SUMIF(") and value(db, wb, "Totals!C6") == 480
    sheets.open(f"w/{wb}").form("data", "sort-form", {"By column": "C"})  # sorting the source keeps the totals
    assert sheets.open(f"w/{wb}", sheet="Totals").column("C", 3, 6) == ["200", "110", "170", "480"]


def test_named_ranges_page_defines_uses_and_removes_names(browser, sheets):
    wb = make_book(browser)
    sheets.open(f"w/{wb}/names")
    assert sheets.fill("name-form", {"Name": "Amounts", "Range with its sheet": "Deals!C2:C6"}) \
        == "Amounts now names C2:C6."
    assert sheets.page.get_by_test_id("named-row").locator("td").all_inner_texts()[:2] == ["Amounts", "Deals!C2:C6"]
    sheets.open(f"w/{wb}", cell="E1").fill("formula-bar", {"Formula or value (empty clears the cell)": "=SUM(Amounts)"},
                                           "formula-save")
    assert sheets.cells()["E1"] == "480"
    sheets.form("names", "name-form", {"Name": "Amounts", "Range": "C2:C3"})  # the grid's form points it elsewhere
    assert sheets.cells()["E1"] == "200"
    sheets.open(f"w/{wb}/names").page.get_by_label("Remove the name Amounts").click()
    assert "No named ranges." in sheets.page.get_by_test_id("named-list").inner_text()
    with browser.db() as db:
        assert services.list_named_ranges(db, browser.episode.actor(db), wb) == []
        assert raw(db, wb, "Deals!E1") == "=SUM(Amounts)" and str(value(db, wb, "Deals!E1")) == "#NAME?"


def test_sheets_are_added_renamed_moved_deleted_and_frozen(browser, sheets):
    wb = make_book(browser, cells={"Deals!E1": "=Notes!A1", "Notes!A1": "memo"})
    sheets.open(f"w/{wb}")
    assert sheets.form("sheets", "sheet-add-form", {"Name": "Plan", "Position (blank: last)": "1"}) \
        == "Added the sheet Plan."
    assert sheets.tabs() == ["Plan", "Deals", "Notes"]
    assert sheets.page.get_by_test_id("grid").get_attribute("data-sheet") == "Plan"
    sheets.form("sheets", "sheet-rename-form", {"Sheet": "Notes", "New name": "Memo"})
    sheets.form("sheets", "sheet-move-form", {"Sheet": "Plan", "To position (1 is first)": "3"})
    assert sheets.tabs() == ["Deals", "Memo", "Plan"]
    with browser.db() as db:
        assert raw(db, wb, "Deals!E1") == "=Memo!A1" and value(db, wb, "Deals!E1") == "memo"
    assert sheets.form("sheets", "sheet-delete-form", {"Sheet": "Memo"}) == "Deleted the sheet Memo."
    assert sheets.tabs() == ["Deals", "Plan"] and sheets.open(f"w/{wb}").cells()["E1"] == "#REF!"
    sheets.form("structure", "freeze-form", {"Rows": "1", "Columns": "1"})
    sheets.page.get_by_test_id("rows-down").click()
    assert sheets.rows()[:2] == [1, 41] and sheets.cells()["A1"] == "Region"
    with browser.db() as db:
        assert sheet_names(db, wb) == ["Deals", "Plan"]


def test_xlsx_export_downloads_and_import_reads_it_back(browser, sheets, tmp_path):
    wb = make_book(browser, cells={"C7": "=SUM(C2:C6)"})
    with browser.db() as db:
        services.set_number_format(db, browser.episode.actor(db), wb, "Deals!C2:C7", "$#,##0.00")
    sheets.open(f"w/{wb}/exchange")
    with sheets.page.expect_download() as download:
        sheets.page.get_by_test_id("export-xlsx").click()
    assert download.value.suggested_filename == "Pipeline.xlsx"
    saved = tmp_path / "Pipeline.xlsx"
    download.value.save_as(saved)
    book = openpyxl.load_workbook(io.BytesIO(saved.read_bytes()))
    assert book.sheetnames == ["Deals", "Notes"] and book["Deals"]["C7"].value == "=SUM(C2:C6)"
    copy = make_book(browser, "Copy", sheets=["Deals"], rows=[["stale"]])
    sheets.open(f"w/{copy}/exchange").page.get_by_label("XLSX file", exact=True).set_input_files(saved)
    sheets.page.get_by_test_id("xlsx-submit").click()
    assert sheets.page.get_by_test_id("flash-info").inner_text() == "Imported the sheet(s) Deals, Notes."
    assert sheets.tabs() == ["Deals", "Notes"] and sheets.column("C", 5, 7) == ["$200.00", "$30.00", "$480.00"]
    with browser.db() as db:
        assert raw(db, copy, "Deals!A1") == "Region" and raw(db, copy, "Deals!C7") == "=SUM(C2:C6)"
