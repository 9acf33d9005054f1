"""Sheets pages through the Flask test client: the workbook list, the grid (values, window, frozen
rows, selection, errors) and the formula bar, the cell forms, sharing, history, names and
import/export; viewers see everything read-only. The toolbar forms are in test_sheets_ui_tools.py."""

from __future__ import annotations

import io
import re

import openpyxl
import pytest
from sheets_ui_helpers import (DEALS, field_value, grid, make_book, make_viewed_book, member, raw, rows_shown,
                               sheet_names, shown, value)
from sqlalchemy import select
from test_ui_structure import PageAudit
from ui_helpers import error_message, text_of

from officegym.apps.sheets import services
from officegym.apps.sheets.models import Share, Workbook


def ids_listed(response) -> list[int]:
    """Workbook ids of the rows of the list page, in order."""
    return [int(i) for i in re.findall(r'data-testid="workbook-row" data-id="(\d+)"', text_of(response))]


def test_home_lists_my_workbooks_with_search_and_pages(browser):
    made = [make_book(browser, f"Zq budget {n:02d}", rows=None) for n in range(27)]
    other = make_book(browser, "Zq other", rows=None)
    with browser.db() as db:
        me = browser.episode.actor(db)
        stranger = member(db, me.id)
        hidden = services.create_workbook(db, stranger, "Zq secret plan").id
        shared = services.create_workbook(db, stranger, "Zq shared plan")
        services.share_workbook(db, stranger, shared.id, me.id, "viewer")
        shared = shared.id
    first = browser.get("/sheets/", query_string={"q": "zq"})
    assert first.status_code == 200 and len(ids_listed(first)) == 25 and 'data-testid="page-next"' in text_of(first)
    second = browser.get("/sheets/", query_string={"q": "zq", "offset": 25})
    everything = ids_listed(first) + ids_listed(second)
    assert sorted(everything) == sorted(made + [other, shared]) and hidden not in everything
    narrowed = browser.get("/sheets/", query_string={"q": "shared plan"})
    assert ids_listed(narrowed) == [shared]
    assert re.search(rf'data-id="{shared}">.*?data-testid="workbook-role">viewer<', text_of(narrowed), re.S)


def test_create_form_makes_a_workbook_and_opens_it(browser):
    response = browser.post("/sheets/create", {"title": " Q3 forecast ", "sheets": "Data, Summary",
                                               "description": "Regional numbers"})
    assert response.status_code == 303
    with browser.db() as db:
        book = db.scalars(select(Workbook).where(Workbook.title == "Q3 forecast")).one()
        assert book.description == "Regional numbers" and sheet_names(db, book.id) == ["Data", "Summary"]
        assert book.owner_id == browser.episode.actor(db).id
    assert response.headers["Location"].endswith(f"/sheets/w/{book.id}")
    page = text_of(browser.get(f"/sheets/w/{book.id}"))
    assert re.findall(r'data-testid="sheet-tab" data-sheet="([^"]+)"', page) == ["Data", "Summary"]


def test_grid_shows_computed_values_headers_tabs_and_the_selection(browser):
    wb = make_book(browser, cells={"D2": "=C2*2"})
    response = browser.get(f"/sheets/w/{wb}", query_string={"cell": "D2"})
    page, cells = text_of(response), grid(response)
    assert response.status_code == 200
    assert re.findall(r'data-testid="col-header"[^>]*>([A-Z]+)<', page) == list("ABCDEFGHIJKL")
    assert rows_shown(response) == list(range(1, 41)) and len(cells) == 40 * 12
    assert [cells[f"{c}1"]["display"] for c in "ABC"] == DEALS[0] and shown(response, "C5") == "200"
    assert cells["D2"]["display"] == "240" and cells["D2"]["raw"] == "=C2*2" and cells["D2"]["selected"]
    assert [ref for ref, c in cells.items() if c["selected"]] == ["D2"] and cells["D2"]["label"] == "240"
    assert "<a " not in page.split('data-testid="grid"', 1)[1].split("</table>", 1)[0], "no link per cell"
    assert "num" in cells["C2"]["classes"] and "text" in cells["A2"]["classes"]
    assert field_value(response, "fx-value") == "=C2*2" and field_value(response, "fx-cell") == "D2"
    assert 'data-sheet="Deals" aria-current="page"' in page
    other = browser.get(f"/sheets/w/{wb}", query_string={"sheet": "notes"})
    assert 'data-sheet="Notes" aria-current="page"' in text_of(other) and shown(other, "A1") == ""


def test_formula_bar_writes_a_formula_and_the_grid_shows_its_value(browser):
    wb = make_book(browser)
    form = browser.get(f"/sheets/w/{wb}", query_string={"cell": "C7"})
    assert 'data-testid="formula-bar"' in text_of(form) and 'for="fx-value"' in text_of(form)
    saved = browser.post(f"/sheets/w/{wb}/cells", {"sheet": "Deals", "cell": "C7", "value": "=SUM(C2:C6)"})
    assert saved.status_code == 303 and "cell=C7" in saved.headers["Location"]
    with browser.db() as db:
        assert (raw(db, wb, "Deals!C7"), value(db, wb, "Deals!C7")) == ("=SUM(C2:C6)", 480)
    after = browser.get(saved.headers["Location"].split(browser.base, 1)[1])
    assert shown(after, "C7") == "480" and field_value(after, "fx-value") == "=SUM(C2:C6)"
    # a change upstream recalculates the formula the grid shows
    assert browser.post(f"/sheets/w/{wb}/cells", {"sheet": "Deals", "cell": "C2", "value": "20"}).status_code == 303
    assert shown(browser.get(f"/sheets/w/{wb}"), "C7") == "380"
    # an empty value clears the cell; a cell on another sheet is named with its sheet
    assert browser.post(f"/sheets/w/{wb}/cells", {"sheet": "Deals", "cell": "C7", "value": ""}).status_code == 303
    assert browser.post(f"/sheets/w/{wb}/cells", {"sheet": "Deals", "cell": "Notes!B2",
                                                  "value": "=SUM(Deals!C2:C3)"}).status_code == 303
    with browser.db() as db:
        assert raw(db, wb, "Deals!C7") == "" and value(db, wb, "Notes!B2") == 100


def test_the_grid_script_gets_json_and_pastes_tab_separated_text(browser):
    wb = make_book(browser)
    saved = browser.post(f"/sheets/w/{wb}/cells", {"sheet": "Deals", "cell": "c7", "value": "=SUM(C2:C6)"},
                         headers={"Accept": "application/json"})
    assert saved.status_code == 200
    assert saved.get_json() == {"cell": "C7", "changed": 1, "message": "Saved C7 (1 cell changed value)."}
    text = "North\t7\r\nSouth\t=F2*2\n"  # copied cells: a tab between cells, a line per row
    pasted = browser.post(f"/sheets/w/{wb}/block", {"sheet": "Deals", "start": "E2", "text": text})
    assert pasted.status_code == 303
    with browser.db() as db:
        assert [raw(db, wb, f"Deals!{r}") for r in ("E2", "F2", "E3", "F3")] == ["North", "7", "South", "=F2*2"]
    assert browser.post(f"/sheets/w/{wb}/block", {"sheet": "Deals", "start": "E2", "text": "\n"}).status_code == 400


def test_errors_show_their_code_with_the_reason(browser):
    wb = make_book(browser)
    assert browser.post(f"/sheets/w/{wb}/cells", {"sheet": "Deals", "cell": "D2", "value": "=C2/0"}).status_code == 303
    response = browser.get(f"/sheets/w/{wb}", query_string={"cell": "D2"})
    cell = grid(response)["D2"]
    assert cell["display"] == "#DIV/0!" and "err" in cell["classes"] and cell["title"].startswith("#DIV/0!: ")
    assert len(cell["title"]) > len("#DIV/0!: ") and 'data-testid="selected-error"' in text_of(response)


def test_window_moves_by_rows_and_columns_and_go_to_cell(browser):
    wb = make_book(browser, cells={"Z100": "far away"})
    jumped = browser.get(f"/sheets/w/{wb}", query_string={"cell": "z100"})
    assert rows_shown(jumped) == list(range(81, 121)) and shown(jumped, "Z100") == "far away"
    assert re.findall(r'data-testid="col-header"[^>]*>([A-Z]+)<', text_of(jumped))[0] == "Y"
    assert grid(jumped)["Z100"]["selected"]
    down = browser.get(f"/sheets/w/{wb}", query_string={"r": 41, "c": "M"})
    assert rows_shown(down) == list(range(41, 81)) and "M41" in grid(down) and "A41" not in grid(down)
    page = text_of(down)
    assert "r=1&amp;c=M" in page and "r=81&amp;c=M" in page and "r=41&amp;c=A" in page and "r=41&amp;c=Y" in page
    other_sheet = browser.get(f"/sheets/w/{wb}", query_string={"cell": "Notes!B3"})
    assert 'data-sheet="Notes" aria-current="page"' in text_of(other_sheet)


def test_frozen_rows_and_columns_stay_in_view(browser):
    wb = make_book(browser)
    assert browser.post(f"/sheets/w/{wb}/freeze", {"sheet": "Deals", "rows": "1", "cols": "1"}).status_code == 303
    response = browser.get(f"/sheets/w/{wb}", query_string={"r": 41, "c": "M"})
    assert rows_shown(response) == [1] + list(range(41, 81))
    assert re.search(r'data-row="1" [^>]*class="frozen"', text_of(response))
    assert re.findall(r'data-testid="col-header"[^>]*>([A-Z]+)<', text_of(response))[:2] == ["A", "M"]
    assert shown(response, "A1") == "Region" and "C1" not in grid(response) and "A41" in grid(response)


def test_cell_forms_batch_clear_and_number_format(browser):
    wb = make_book(browser)
    lines = "E1 = Bonus\nE2 = =C2*0.1\n\nE3 = 'quoted\nA6 ="
    assert browser.post(f"/sheets/w/{wb}/batch", {"sheet": "Deals", "lines": lines}).status_code == 303
    assert browser.post(f"/sheets/w/{wb}/clear", {"sheet": "Deals", "range": "B5:C5"}).status_code == 303
    assert browser.post(f"/sheets/w/{wb}/format", {"sheet": "Deals", "range": "C2:C4",
                                                   "format": "currency"}).status_code == 303
    assert browser.post(f"/sheets/w/{wb}/format", {"sheet": "Deals", "range": "E2", "format": "general",
                                                   "pattern": "0.0"}).status_code == 303
    with browser.db() as db:
        assert (value(db, wb, "Deals!E1"), raw(db, wb, "Deals!E2"), value(db, wb, "Deals!E2")) == ("Bonus", "=C2*0.1", 12)
        assert value(db, wb, "Deals!E3") == "quoted" and raw(db, wb, "Deals!A6") == ""
        assert raw(db, wb, "Deals!B5") == "" and raw(db, wb, "Deals!C5") == "" and raw(db, wb, "Deals!A5") == "AMER"
        assert services.stored_cell(db, wb, "Deals!C2").number_format == "$#,##0.00"
    grid_page = browser.get(f"/sheets/w/{wb}")
    assert shown(grid_page, "C2") == "$120.00" and shown(grid_page, "C4") == "$50.00" and shown(grid_page, "E2") == "12.0"
    assert shown(grid_page, "C6") == "30"


def test_share_page_shares_changes_roles_and_removes(browser):
    wb = make_book(browser)
    with browser.db() as db:
        someone = member(db, browser.episode.actor(db).id)
    assert browser.post(f"/sheets/w/{wb}/share", {"person": f"@{someone.handle}", "role": "editor"}).status_code == 303
    page = text_of(browser.get(f"/sheets/w/{wb}/share"))
    assert f'data-handle="{someone.handle}"' in page and 'data-testid="share-role">editor<' in page
    assert browser.post(f"/sheets/w/{wb}/share", {"person": someone.name, "role": "viewer"}).status_code == 303
    with browser.db() as db:
        assert db.get(Share, (wb, someone.id)).role == "viewer"
    assert browser.post(f"/sheets/w/{wb}/unshare", {"person": f"@{someone.handle}"}).status_code == 303
    with browser.db() as db:
        assert db.get(Share, (wb, someone.id)) is None


def test_history_lists_revisions_newest_first_in_pages(browser):
    wb = make_book(browser, rows=[[n] for n in range(60)])
    browser.post(f"/sheets/w/{wb}/cells", {"sheet": "Deals", "cell": "A1", "value": "first"})
    response = browser.get(f"/sheets/w/{wb}/history")
    page = text_of(response)
    assert len(re.findall(r'data-testid="revision-row"', page)) == 50 and 'data-testid="page-next"' in page
    newest = re.search(r'data-testid="revision-row".*?</tr>', page, re.S).group(0)
    assert "Deals!A1" in newest and "<code>0</code>" in newest and "<code>first</code>" in newest
    rest = text_of(browser.get(f"/sheets/w/{wb}/history", query_string={"offset": 50}))
    assert len(re.findall(r'data-testid="revision-row"', rest)) == 11


def test_csv_import_from_text_and_file_and_exports(browser):
    wb = make_book(browser)
    assert browser.post(f"/sheets/w/{wb}/import-csv", {"sheet": "Imported", "csv_text": "a,b\n1,=A2*2\n"}).status_code == 303
    upload = {"sheet": "Notes", "csv_text": "ignored,text", "file": (io.BytesIO("x,y\n3,4\n".encode()), "data.csv")}
    assert browser.post(f"/sheets/w/{wb}/import-csv", upload, content_type="multipart/form-data").status_code == 303
    with browser.db() as db:
        assert sheet_names(db, wb) == ["Deals", "Notes", "Imported"] and value(db, wb, "Imported!B2") == 2
        assert (value(db, wb, "Notes!A1"), value(db, wb, "Notes!B2"), raw(db, wb, "Notes!C1")) == ("x", 4, "")
    csv = browser.get(f"/sheets/w/{wb}/export.csv", query_string={"sheet": "Deals"})
    assert csv.mimetype == "text/csv" and "attachment" in csv.headers["Content-Disposition"]
    assert csv.get_data(as_text=True).splitlines()[:2] == ["Region,Rep,Amount", "EMEA,Ann,120"]
    xlsx = browser.get(f"/sheets/w/{wb}/export.xlsx")
    assert xlsx.headers["Content-Disposition"] == 'attachment; filename="Pipeline.xlsx"'
    book = openpyxl.load_workbook(io.BytesIO(xlsx.data))
    assert book.sheetnames == ["Deals", "Notes", "Imported"] and book["Imported"]["B2"].value == "=A2*2"
    copy = make_book(browser, "Copy", sheets=["Sheet1"], rows=None)
    sent = {"file": (io.BytesIO(xlsx.data), "pipeline.xlsx")}
    assert browser.post(f"/sheets/w/{copy}/import-xlsx", sent, content_type="multipart/form-data").status_code == 303
    with browser.db() as db:
        assert sheet_names(db, copy) == ["Sheet1", "Deals", "Notes", "Imported"]
        assert value(db, copy, "Deals!C5") == 200 and value(db, copy, "Imported!B2") == 2


def test_workbook_settings_and_delete(browser):
    wb = make_book(browser)
    assert browser.post(f"/sheets/w/{wb}/settings", {"title": "Pipeline 2026", "description": "FY26"}).status_code == 303
    with browser.db() as db:
        assert (db.get(Workbook, wb).title, db.get(Workbook, wb).description) == ("Pipeline 2026", "FY26")
    gone = browser.post(f"/sheets/w/{wb}/delete", {})
    assert gone.status_code == 303 and gone.headers["Location"].endswith("/sheets/")
    with browser.db() as db:
        assert db.get(Workbook, wb) is None
    assert browser.get(f"/sheets/w/{wb}").status_code == 404


@pytest.fixture
def shared_as(browser):
    """A workbook of the owner shared with a plain member in a role; the browser then acts as them."""
    def share(role: str) -> int:
        wb, someone = make_viewed_book(browser)
        with browser.db() as db:
            services.share_workbook(db, browser.episode.actor(db), wb, f"@{someone}", role)
        browser.act_as(someone)
        return wb
    return share


VIEWER_PAGES = ["/sheets/w/{wb}", "/sheets/w/{wb}?view=EMEA", "/sheets/w/{wb}/share", "/sheets/w/{wb}/names",
                "/sheets/w/{wb}/exchange", "/sheets/w/{wb}/history"]


def test_a_viewer_sees_everything_but_no_edit_form(browser, shared_as):
    wb = shared_as("viewer")
    for path in VIEWER_PAGES:
        response = browser.get(path.format(wb=wb))
        assert response.status_code == 200, path
        main = text_of(response).split('<main id="main"', 1)[1]
        # the one form a viewer has is leaving the workbook (anyone may remove themselves)
        assert main.count('method="post"') == main.count('data-testid="leave"'), path
        assert 'data-testid="my-role">viewer<' in text_of(response)
    page = browser.get(f"/sheets/w/{wb}", query_string={"cell": "C5"})
    assert shown(page, "C5") == "200" and 'data-testid="formula-readonly"' in text_of(page)
    assert 'data-testid="read-only-notice"' in text_of(page) and 'data-testid="toolbar"' not in text_of(page)
    assert rows_shown(browser.get(f"/sheets/w/{wb}", query_string={"view": "EMEA"})) == [1, 2, 4]
    assert 'data-testid="leave"' in text_of(browser.get(f"/sheets/w/{wb}/share"))
    assert browser.get(f"/sheets/w/{wb}/export.csv").status_code == 200


def test_an_editor_gets_the_tools_but_not_the_owners_delete(browser, shared_as):
    wb = shared_as("editor")
    page = text_of(browser.get(f"/sheets/w/{wb}"))
    assert 'data-testid="toolbar"' in page and 'data-testid="formula-bar"' in page and 'data-testid="delete-form"' not in page
    assert browser.post(f"/sheets/w/{wb}/cells", {"sheet": "Deals", "cell": "D1", "value": "ok"}).status_code == 303
    refused = browser.post(f"/sheets/w/{wb}/delete", {})
    assert refused.status_code == 403 and "Only the owner" in error_message(refused)


SHEETS_PAGES = ["/sheets/", "/sheets/?q=pipe", "/sheets/w/{wb}", "/sheets/w/{wb}?view=EMEA&cell=C3",
                "/sheets/w/{wb}?r=41&c=M", "/sheets/w/{wb}/share", "/sheets/w/{wb}/history", "/sheets/w/{wb}/names",
                "/sheets/w/{wb}/exchange"]


@pytest.mark.parametrize("path", SHEETS_PAGES)
def test_sheets_page_is_well_formed_and_labelled(browser, path):
    wb = make_book(browser)
    with browser.db() as db:
        services.create_filter_view(db, browser.episode.actor(db), wb, "EMEA", "Deals!A1:C6",
                                    [{"column": "A", "op": "=", "value": "EMEA"}])
    response = browser.get(path.format(wb=wb))
    assert response.status_code == 200
    audit = PageAudit()
    audit.feed(text_of(response))
    assert not {i for i in audit.ids if audit.ids.count(i) > 1}
    assert {"main", "nav", "header"} <= audit.landmarks
    assert not [f for f in audit.fields if not (f.get("id") in audit.labels or f.get("aria-label") or f["wrapped"])]
    assert all(b["aria"] or b["text"] for b in audit.buttons)
    assert all(f["csrf"] for f in audit.forms if f["method"] == "post")
