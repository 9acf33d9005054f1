"""Every kind of sheets form refuses bad input with the service's reason and the right status, and
changes nothing (the whole database hashes the same before and after); a viewer's edit forms are
refused the same way, and so are uploads that are not what the form takes."""

from __future__ import annotations

import io

import openpyxl
import pytest
from sheets_ui_helpers import make_viewed_book, member
from ui_helpers import assert_refused, error_message, text_of

from officegym.apps.sheets import services

W = "/sheets/w/{wb}"
SUM = {"sheet": "Deals", "source": "A1:C6", "group_by": "A", "value_column": "C", "aggregate": "sum",
       "target": "Summary!A1"}

# (what, path, form, status, message part). {wb}, {hidden}, {member} and {me} are filled from the world.
REFUSALS = [
    ("workbook without a title", "/sheets/create", {"title": " ", "sheets": "A"}, 400, "Title is required"),
    ("two sheets of one name", "/sheets/create", {"title": "x", "sheets": "Plan, plan"}, 400, "may not share a name"),
    ("settings without a title", W + "/settings", {"title": "", "description": ""}, 400, "Title is required"),
    ("malformed formula", W + "/cells", {"sheet": "Deals", "cell": "D2", "value": "=SUM(C2:C6"}, 400,
     "Deals!D2: the formula '=SUM(C2:C6' does not parse"),
    ("formula with a dangling operator", W + "/cells", {"sheet": "Deals", "cell": "D2", "value": "=C2*"}, 400,
     "does not parse"),
    ("cell outside the sheet", W + "/cells", {"sheet": "Deals", "cell": "ZZZZ1", "value": "1"}, 400,
     "'ZZZZ1' is not a cell or range in A1 notation"),
    ("a range in the cell box", W + "/cells", {"sheet": "Deals", "cell": "B2:B3", "value": "1"}, 400,
     "is a range; name one cell such as B3"),
    ("no cell", W + "/cells", {"sheet": "Deals", "cell": " ", "value": "1"}, 400, "Give the cell in A1 notation"),
    ("unknown sheet", W + "/cells", {"sheet": "Nope", "cell": "B2", "value": "1"}, 404,
     "No sheet 'Nope' in 'Pipeline'. Sheets: Deals, Notes."),
    ("input over the limit", W + "/cells", {"sheet": "Deals", "cell": "B2", "value": "x" * 50_001}, 400,
     "the limit is 50,000"),
    ("someone else's workbook", "/sheets/w/{hidden}/cells", {"sheet": "Deals", "cell": "A1", "value": "1"}, 404,
     "No workbook"),
    ("batch line without '='", W + "/batch", {"sheet": "Deals", "lines": "B2 = 1\nB3 42"}, 400,
     "Line 2 ('B3 42'): write each line as a cell, '=' and its input"),
    ("batch line without a cell", W + "/batch", {"sheet": "Deals", "lines": " = 42"}, 400, "Line 1"),
    ("batch writes a cell twice", W + "/batch", {"sheet": "Deals", "lines": "B2 = 1\nb2 = 2"}, 400,
     "is written twice in this batch"),
    ("clear past the end of the sheet", W + "/clear", {"sheet": "Deals", "range": "A1:ZZ100001"}, 400,
     "outside the sheet"),
    ("clear a half range", W + "/clear", {"sheet": "Deals", "range": "A1:B"}, 400, "'A1:B' is not a cell or range"),
    ("bad number format pattern", W + "/format", {"sheet": "Deals", "range": "C2:C6", "format": "general",
                                                  "pattern": "0.0.0%%[["}, 400, "Unknown number format '0.0.0%%[['"),
    ("unknown named format", W + "/format", {"sheet": "Deals", "range": "C2:C6", "format": "fancy"}, 400,
     "use one of general, number, currency"),
    ("sort by a column outside the range", W + "/sort", {"sheet": "Deals", "range": "A1:C6", "column": "F"}, 400,
     "Column F is outside the range A1:C6"),
    ("second sort key outside the range", W + "/sort", {"sheet": "Deals", "range": "A1:B6", "column": "A",
                                                        "column2": "C"}, 400, "Column C is outside the range A1:B6"),
    ("unknown sort direction", W + "/sort", {"sheet": "Deals", "range": "A1:C6", "column": "A", "direction": "up"},
     400, "Sort direction is asc or desc"),
    ("sort a header alone", W + "/sort", {"sheet": "Deals", "range": "A1:C1", "column": "A", "header": "1"}, 400,
     "no rows to sort below its header"),
    ("insert 0 rows", W + "/rows", {"sheet": "Deals", "row": "2", "count": "0", "action": "insert"}, 400,
     "Count must be a whole number from 1 to 1000, got 0"),
    ("insert 1e9 rows", W + "/rows", {"sheet": "Deals", "row": "2", "count": "1e9", "action": "insert"}, 400,
     "Count must be a whole number from 1 to 1000, got '1e9'"),
    ("delete row 'two'", W + "/rows", {"sheet": "Deals", "row": "two", "action": "delete"}, 400,
     "Row must be a whole number"),
    ("unknown row action", W + "/rows", {"sheet": "Deals", "row": "2", "action": "explode"}, 400,
     "Choose to insert or delete rows"),
    ("insert 1000000000 columns", W + "/columns", {"sheet": "Deals", "column": "B", "count": "1000000000",
                                                   "action": "insert"}, 400, "Count must be a whole number from 1 to 100"),
    ("delete a cell as a column", W + "/columns", {"sheet": "Deals", "column": "B2", "action": "delete"}, 400,
     "Column is a column letter such as C"),
    ("find nothing", W + "/find-replace", {"sheet": "Deals", "find": "", "replacement": "x"}, 400,
     "Give the text to find"),
    ("paste past the end of the sheet", W + "/paste", {"sheet": "Deals", "source": "A1:C6", "target": "A99999"}, 400,
     "would run past the end of the sheet"),
    ("paste without a target", W + "/paste", {"sheet": "Deals", "source": "A1:C6", "target": ""}, 400,
     "Give the target cell"),
    ("fill down one row", W + "/fill-down", {"sheet": "Deals", "range": "D2"}, 400, "at least two rows"),
    ("paste no text", W + "/block", {"sheet": "Deals", "start": "A2", "text": "\n"}, 400, "Paste some text"),
    ("paste text past the end", W + "/block", {"sheet": "Deals", "start": "ZZ1", "text": "a\tb"}, 400, "does not fit"),
    ("paste a million cells", W + "/block", {"sheet": "Deals", "start": "A2", "text": "\t" * 1_000_000}, 400,
     "paste at most 5,000"),
    ("freeze 50 rows", W + "/freeze", {"sheet": "Deals", "rows": "50", "cols": "0"}, 400,
     "Frozen rows must be a whole number from 0 to 20"),
    ("add a sheet of a taken name", W + "/sheets", {"action": "add", "name": "deals"}, 409,
     "already has a sheet named"),
    ("add a sheet without a name", W + "/sheets", {"action": "add", "name": " "}, 400, "A sheet needs a name"),
    ("rename a missing sheet", W + "/sheets", {"action": "rename", "sheet": "Nope", "new_name": "x"}, 404,
     "No sheet 'Nope'"),
    ("move past the last tab", W + "/sheets", {"action": "move", "sheet": "Deals", "position": "9"}, 400,
     "Position must be a whole number from 1 to 2"),
    ("unknown sheet action", W + "/sheets", {"action": "fold"}, 400, "Choose a sheet action"),
    ("name starting with a digit", W + "/names", {"sheet": "Deals", "name": "1abc", "range": "C2:C6"}, 400,
     "A range name starts with a letter"),
    ("name that reads as a cell", W + "/names", {"sheet": "Deals", "name": "Q1", "range": "C2:C6"}, 400,
     "'Q1' reads as a cell or value in formulas"),
    ("name on a missing sheet", W + "/names", {"sheet": "Deals", "name": "Ok", "range": "Nope!C2:C6"}, 404,
     "No sheet 'Nope'"),
    ("remove an unknown name", W + "/names/delete", {"name": "Nothing"}, 404, "No range named 'Nothing'"),
    ("filter on a column outside", W + "/filters", {"sheet": "Deals", "name": "V", "range": "A1:C6", "column_1": "F",
                                                    "value_1": "x"}, 400, "Condition column F is not a column"),
    ("unknown filter operator", W + "/filters", {"sheet": "Deals", "name": "V", "range": "A1:C6", "column_1": "A",
                                                 "op_1": "like"}, 400, "Condition operator must be one of"),
    ("filter view of a taken name", W + "/filters", {"sheet": "Deals", "name": "emea", "range": "A1:C6"}, 409,
     "already has a filter view named"),
    ("remove an unknown filter view", W + "/filters/delete", {"sheet": "Deals", "name": "Ghost"}, 404,
     "No filter view 'Ghost' on Deals. Views: EMEA."),
    ("summary with a bad aggregate", W + "/summary", {**SUM, "aggregate": "median"}, 400,
     "Aggregate must be one of: sum, count, average, min, max; got 'median'"),
    ("summary over its own data", W + "/summary", {**SUM, "target": "B2"}, 409, "on Deals empty"),
    ("summary into a range", W + "/summary", {**SUM, "target": "Summary!A1:B2"}, 400, "The target is one cell"),
    ("summary by a column outside", W + "/summary", {**SUM, "group_by": "E"}, 400,
     "The group-by column E is outside the source range"),
    ("share with an unknown person", W + "/share", {"person": "@ghost", "role": "viewer"}, 404,
     "No person matches '@ghost'"),
    ("share with a bad role", W + "/share", {"person": "@{member}", "role": "admin"}, 400,
     "Role must be one of: viewer, editor; got 'admin'"),
    ("share with the owner", W + "/share", {"person": "@{me}", "role": "editor"}, 409, "owns 'Pipeline' already"),
    ("unshare someone not shared with", W + "/unshare", {"person": "@{member}"}, 409, "is not shared with"),
    ("import empty CSV", W + "/import-csv", {"sheet": "Deals", "csv_text": " "}, 400, "Give the CSV text to import"),
    ("import CSV wider than a sheet", W + "/import-csv", {"sheet": "Deals", "csv_text": "," * 702}, 400,
     "larger than a sheet"),
    ("import CSV with a broken formula", W + "/import-csv", {"sheet": "Deals", "csv_text": "a\n=SUM(\n"}, 400,
     "Cell row 2, column 1"),
    ("import XLSX without a file", W + "/import-xlsx", {}, 400, "Give an XLSX file"),
]


@pytest.fixture
def names(browser) -> dict:
    """A sales workbook with a filter view EMEA and a name Amounts, a member, and their private workbook."""
    wb, someone = make_viewed_book(browser)
    with browser.db() as db:
        me = browser.episode.actor(db)
        hidden = services.create_workbook(db, member(db, me.id), "Private plan", ["Deals"]).id
        return {"wb": wb, "hidden": hidden, "member": someone, "me": me.handle}


@pytest.mark.parametrize("what,path,form,status,message", REFUSALS, ids=[r[0] for r in REFUSALS])
def test_a_refused_sheets_form_says_why_and_changes_nothing(browser, names, what, path, form, status, message):
    assert_refused(browser, names, path, form, status, message)


def test_every_kind_of_sheets_form_has_a_refusal_case(web_app):
    forms = {r.endpoint for r in web_app.url_map.iter_rules() if r.endpoint.startswith("sheets.") and "POST" in r.methods}
    urls = web_app.url_map.bind("localhost")
    covered = {urls.match("/e/x" + path.format(wb=1, hidden=2), method="POST")[0]
               for _what, path, *_ in REFUSALS + VIEWER}
    assert forms and forms <= covered, f"forms without a refusal case: {forms - covered}"


# Edit forms a viewer sends anyway (valid input): refused because they may only look.
VIEW_ONLY = "You can only view 'Pipeline'; ask its owner to make you an editor."
VIEWER = [
    ("write a cell", W + "/cells", {"sheet": "Deals", "cell": "D2", "value": "1"}),
    ("batch edit", W + "/batch", {"sheet": "Deals", "lines": "D2 = 1"}),
    ("clear", W + "/clear", {"sheet": "Deals", "range": "A1:C6"}),
    ("number format", W + "/format", {"sheet": "Deals", "range": "C2", "format": "currency"}),
    ("sort", W + "/sort", {"sheet": "Deals", "range": "A1:C6", "column": "C", "header": "1"}),
    ("insert rows", W + "/rows", {"sheet": "Deals", "row": "2", "action": "insert"}),
    ("delete columns", W + "/columns", {"sheet": "Deals", "column": "B", "action": "delete"}),
    ("find and replace", W + "/find-replace", {"sheet": "Deals", "find": "EMEA", "replacement": "EU"}),
    ("paste", W + "/paste", {"sheet": "Deals", "source": "A1", "target": "E1"}),
    ("fill down", W + "/fill-down", {"sheet": "Deals", "range": "A1:A3"}),
    ("freeze", W + "/freeze", {"sheet": "Deals", "rows": "1"}),
    ("add a sheet", W + "/sheets", {"action": "add", "name": "Mine"}),
    ("define a name", W + "/names", {"sheet": "Deals", "name": "Mine", "range": "A1:A2"}),
    ("remove a name", W + "/names/delete", {"name": "Amounts"}),
    ("create a filter view", W + "/filters", {"sheet": "Deals", "name": "Mine", "range": "A1:C6"}),
    ("remove a filter view", W + "/filters/delete", {"sheet": "Deals", "name": "EMEA"}),
    ("summary table", W + "/summary", SUM),
    ("import CSV", W + "/import-csv", {"sheet": "Deals", "csv_text": "a,b"}),
    ("import XLSX", W + "/import-xlsx", {}),
    ("workbook settings", W + "/settings", {"title": "Mine now"}),
    ("share", W + "/share", {"person": "@{me}", "role": "viewer"}),
    ("stop sharing with the owner", W + "/unshare", {"person": "@{me}"}),
    ("delete the workbook", W + "/delete", {}, "Only the owner of 'Pipeline' can delete it."),
]


@pytest.mark.parametrize("what,path,form,message", [(*r, VIEW_ONLY)[:4] for r in VIEWER], ids=[r[0] for r in VIEWER])
def test_a_viewer_is_refused_every_edit_form(browser, names, what, path, form, message):
    with browser.db() as db:
        services.share_workbook(db, browser.episode.actor(db), names["wb"], names["member"], "viewer")
    browser.act_as(names["member"])
    assert_refused(browser, names, path, form, 403, message)


def _xlsx(*refs: str) -> bytes:
    """A small XLSX file with 'x' in each of the cells."""
    book = openpyxl.Workbook()
    for ref in refs:
        book.active[ref] = "x"
    saved = io.BytesIO()
    book.save(saved)
    return saved.getvalue()


UPLOADS = [
    ("picture as CSV", "import-csv", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe", 400, "is not UTF-8 text"),
    ("XLSX as CSV", "import-csv", _xlsx("A1"), 400, "is not UTF-8 text"),
    ("CSV of too many cells", "import-csv", b"1,1,1,1\n" * 25_001, 400, "holds more than 100,000 cells"),
    ("CSV over the upload limit", "import-csv", b"a,b\n" * 2_100_000, 413, "CSV imports take at most 2,000,000"),
    ("CSV as XLSX", "import-xlsx", b"Region,Total\nEMEA,120\n", 400, "not a readable XLSX file"),
    ("empty XLSX", "import-xlsx", b"", 400, "Give an XLSX file"),
    ("XLSX of a cell beyond a sheet", "import-xlsx", _xlsx("A1", "ZZ1", "A100001"), 400,
     "larger than a sheet (100,000 rows, 702 columns)"),
    ("XLSX over the upload limit", "import-xlsx", b"PK" * 4_200_000, 413, "XLSX files at most 3,000,000 bytes"),
    ("CSV file over the import limit", "import-csv", b"a,b\n" * 550_000, 400, "larger than 2,000,000 characters"),
]


@pytest.mark.parametrize("what,action,data,status,message", UPLOADS, ids=[u[0] for u in UPLOADS])
def test_an_upload_that_is_not_what_the_form_takes_is_refused(browser, names, what, action, data, status, message):
    before = browser.state()
    form = {"sheet": "Deals", "file": (io.BytesIO(data), "upload.bin")}
    response = browser.post(f"/sheets/w/{names['wb']}/{action}", form, content_type="multipart/form-data")
    assert response.status_code == status, error_message(response)
    assert message in error_message(response)
    assert browser.state() == before


def test_a_form_without_its_security_token_is_refused(browser, names):
    before = browser.state()
    response = browser.post(f"/sheets/w/{names['wb']}/cells", {"sheet": "Deals", "cell": "A1", "value": "x"}, csrf=None)
    assert response.status_code == 400 and "security token" in error_message(response)
    forged = browser.post(f"/sheets/w/{names['wb']}/delete", {}, csrf="forged")
    assert forged.status_code == 400 and "security token" in error_message(forged)
    assert browser.state() == before


@pytest.mark.parametrize("query,status,message", [
    ({"cell": "B"}, 400, "Cannot go to 'B'"),
    ({"c": "1st"}, 400, "'c' is a column such as D"),
    ({"view": "Ghost"}, 404, "No filter view 'Ghost' on Deals. Views: EMEA."),
    ({"sheet": "Nope"}, 404, "No sheet 'Nope'"),
])
def test_a_bad_grid_address_shows_the_reason_and_no_grid(browser, names, query, status, message):
    response = browser.get(f"/sheets/w/{names['wb']}", query_string=query)
    assert response.status_code == status and message in error_message(response)
    assert 'data-testid="grid"' not in text_of(response)


def test_the_import_forms_state_the_limits_the_services_apply(browser, names):
    page = text_of(browser.get(f"/sheets/w/{names['wb']}/exchange"))
    assert "At most 2,000,000 characters and 100,000 cells." in page
    assert "At most 3,000,000 bytes and 100,000 cells." in page
