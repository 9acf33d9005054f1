"""The Sheets grid as a spreadsheet, in real Chromium: click to select, type into a cell, Enter/Tab/
Escape/arrows, Shift+arrows for a range, copy and paste, fill down, the menu bar and the context
menu running the existing tools, frozen rows that stay in view, the title, and the weight of the page's
accessibility tree. Each change is checked in the database through the services."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from benchmarks.page_tree import tree_characters
from benchmarks.page_trees import TREE_LIMIT, heaviest_pages
from officegym.apps.org.models import Person
from officegym.apps.sheets import services
from officegym.apps.sheets.models import Workbook

pytestmark = pytest.mark.e2e

DEALS = [["Region", "Rep", "Amount"], ["EMEA", "Ann", 120], ["APAC", "Bob", 80], ["EMEA", "Cid", 50],
         ["AMER", "Dee", 200], ["APAC", "Eve", 30]]


@pytest.fixture
def free_episode(live_server):
    """A free episode on the live server's tiny world, and its UI's base URL."""
    episode = live_server.store.create(scale="tiny")
    yield episode, f"{live_server.base_url}/e/{episode.id}"
    live_server.store.delete(episode.id)


@pytest.fixture
def book(free_episode, page):
    """A workbook of the episode's person holding DEALS from A1 (and =SUM(C2:C6) in C7), opened in
    the page; yields a reader of stored inputs {ref: raw}."""
    episode, base = free_episode
    with episode.session() as db:
        made = services.create_workbook(db, episode.actor(db), "Grid deals", ["Deals", "Notes"])
        services.write_range(db, episode.actor(db), made.id, "A1", DEALS)
        services.write_cells(db, episode.actor(db), made.id, [{"cell": "C7", "value": "=SUM(C2:C6)"}])
        wb = made.id
        db.commit()
    page.goto(f"{base}/sheets/w/{wb}")

    def stored(*refs: str) -> dict[str, str]:
        with episode.session() as db:
            return {ref: (c.raw if (c := services.stored_cell(db, wb, ref)) else "") for ref in refs}
    stored.wb, stored.episode = wb, episode
    return stored


def cell(page, ref: str):
    """A grid cell by its reference."""
    return page.locator(f'td[data-ref="{ref}"]')


def settled(page) -> None:
    """Wait until the grid's writes are answered and shown."""
    expect(page.get_by_test_id("grid")).not_to_have_attribute("aria-busy", "true")


def test_a_click_selects_and_typing_then_enter_saves_and_moves_down(page, book):
    page.get_by_role("gridcell", name="Ann").click()
    expect(page.get_by_label("Cell", exact=True)).to_have_value("B2")
    expect(cell(page, "B2")).to_have_attribute("aria-selected", "true")
    assert re.fullmatch(r"Deals – Grid deals · B2 · officegym", page.title())
    page.keyboard.type("Anna")
    expect(page.get_by_test_id("cell-editor")).to_be_visible()
    page.keyboard.press("Enter")
    settled(page)
    expect(cell(page, "B3")).to_have_attribute("aria-selected", "true")
    expect(cell(page, "B3")).to_be_focused()
    expect(page.get_by_role("gridcell", name="Anna")).to_have_count(1)
    assert book("B2") == {"B2": "Anna"}
    page.keyboard.type("=C2*2")  # typed on B3, which moves down to B4
    page.keyboard.press("Enter")
    settled(page)
    assert book("B3") == {"B3": "=C2*2"} and cell(page, "B3").inner_text() == "240"
    page.reload()
    expect(page.get_by_role("gridcell", name="Anna")).to_have_attribute("data-ref", "B2")


def test_tab_moves_right_escape_cancels_and_arrows_move(page, book):
    cell(page, "A2").click()
    page.keyboard.type("Europe")
    page.keyboard.press("Tab")
    settled(page)
    expect(cell(page, "B2")).to_be_focused()
    assert book("A2") == {"A2": "Europe"}
    page.keyboard.type("Nobody")
    page.keyboard.press("Escape")
    expect(page.get_by_test_id("cell-editor")).to_be_hidden()
    expect(cell(page, "B2")).to_have_text("Ann")
    assert book("B2") == {"B2": "Ann"}
    for key, ref in [("ArrowDown", "B3"), ("ArrowRight", "C3"), ("ArrowUp", "C2"), ("ArrowLeft", "B2")]:
        page.keyboard.press(key)
        expect(cell(page, ref)).to_be_focused()
        expect(page.get_by_label("Cell", exact=True)).to_have_value(ref)
    page.keyboard.press("ArrowRight")
    page.keyboard.press("F2")  # edits the existing input
    expect(page.get_by_test_id("cell-editor")).to_have_value("120")
    page.keyboard.press("End")
    page.keyboard.type("0")
    page.keyboard.press("Enter")
    settled(page)
    assert book("C2", "C7") == {"C2": "1200", "C7": "=SUM(C2:C6)"}
    expect(cell(page, "C7")).to_have_text("1560")  # the total the service recalculated
    cell(page, "C7").dblclick()
    expect(page.get_by_test_id("cell-editor")).to_have_value("=SUM(C2:C6)")
    page.keyboard.press("Escape")


def test_an_arrow_past_the_window_opens_the_next_one_and_the_cell_field_goes_to_a_cell(page, book):
    cell(page, "A40").click()
    page.keyboard.press("ArrowDown")
    expect(cell(page, "A41")).to_have_attribute("aria-selected", "true")
    expect(page.get_by_role("rowheader", name="80", exact=True)).to_have_count(1)
    expect(cell(page, "A41")).to_be_focused()
    assert "Deals – Grid deals · A41" in page.title()
    field = page.get_by_label("Cell", exact=True)
    field.fill("C43")
    field.press("Enter")  # goes to the cell: nothing is written
    expect(cell(page, "C43")).to_be_focused()
    assert book("C43") == {"C43": ""}


def test_shift_arrows_select_a_range_that_copies_and_pastes(page, book):
    cell(page, "A2").click()
    page.keyboard.press("Shift+ArrowDown")
    page.keyboard.press("Shift+ArrowRight")
    expect(page.get_by_label("Cell", exact=True)).to_have_value("A2:B3")
    expect(page.locator('td[aria-selected="true"]')).to_have_count(4)
    page.keyboard.press("Control+c")
    expect(page.get_by_test_id("grid-message")).to_have_text("Copied A2:B3.")
    cell(page, "E2").click()
    page.keyboard.press("Control+v")
    settled(page)
    assert book("E2", "F2", "E3", "F3") == {"E2": "EMEA", "F2": "Ann", "E3": "APAC", "F3": "Bob"}
    expect(cell(page, "F3")).to_have_text("Bob")
    # text copied elsewhere (tab-separated) goes through the range writer
    cell(page, "E9").click()
    page.evaluate("""() => { const data = new DataTransfer(); data.setData('text/plain', 'North\\t7\\nSouth\\t=F10*2');
        document.activeElement.dispatchEvent(new ClipboardEvent('paste', {clipboardData: data, bubbles: true})); }""")
    settled(page)
    assert book("E9", "F9", "E10", "F10") == {"E9": "North", "F9": "7", "E10": "South", "F10": "=F10*2"}
    # a mouse drag selects a range; Ctrl+D fills its first row down
    cell(page, "D2").click()
    page.keyboard.type("=C2*10")
    page.keyboard.press("Enter")
    settled(page)
    cell(page, "D2").hover()
    page.mouse.down()
    cell(page, "D6").hover()
    page.mouse.up()
    expect(page.get_by_label("Cell", exact=True)).to_have_value("D2:D6")
    page.keyboard.press("Control+d")
    settled(page)
    assert book("D6") == {"D6": "=C6*10"}
    expect(cell(page, "D6")).to_have_text("300")


def test_the_menu_bar_opens_a_tool_that_inserts_rows(page, book):
    cell(page, "A3").click()
    page.keyboard.press("Shift+ArrowDown")
    insert = page.get_by_role("menuitem", name="Insert")
    insert.click()
    expect(insert).to_have_attribute("aria-expanded", "true")
    expect(page.get_by_role("menu", name="Insert")).to_be_visible()
    page.keyboard.press("ArrowDown")  # from "Rows above…" to "Rows below…", then back
    page.keyboard.press("ArrowUp")
    expect(page.get_by_role("menuitem", name="Rows above…")).to_be_focused()
    page.keyboard.press("Enter")
    dialog = page.get_by_role("dialog", name="Rows above")
    expect(dialog.get_by_label("Row number")).to_have_value("3")
    expect(dialog.get_by_label("How many")).to_have_value("2")
    dialog.get_by_role("button", name="Insert rows above").click()
    expect(page.get_by_test_id("flash-info")).to_have_text("Inserted 2 row(s) at row 3.")
    assert book("A3", "A5", "C9") == {"A3": "", "A5": "APAC", "C9": "=SUM(C2:C8)"}
    for name in ("File", "Edit", "Format", "Data"):
        page.get_by_role("menuitem", name=name).click()
        expect(page.get_by_role("menu", name=name)).to_be_visible()
        page.keyboard.press("Escape")
        expect(page.get_by_role("menu", name=name)).to_be_hidden()


def test_the_context_menu_of_a_column_sorts_by_it(page, book):
    page.get_by_role("columnheader", name="C").click(button="right")
    menu = page.get_by_role("menu", name="Cell actions")
    expect(menu).to_be_visible()
    expect(menu.get_by_role("menuitem", name="Delete rows…")).to_be_hidden()  # a column's menu
    menu.get_by_role("menuitem", name="Sort Z→A by this column…").click()
    dialog = page.get_by_role("dialog")
    dialog.get_by_label("Range", exact=True).fill("A1:C6")
    expect(dialog.get_by_label("By column", exact=True)).to_have_value("C")
    dialog.get_by_role("button", name="Sort range").click()
    expect(page.get_by_test_id("flash-info")).to_have_text("Sorted 5 row(s).")
    assert book("C2", "C3", "C6") == {"C2": "200", "C3": "120", "C6": "30"}
    cell(page, "B4").click(button="right")  # a cell's menu offers its row's and its column's tools
    expect(menu.get_by_role("menuitem", name="Delete rows…")).to_be_visible()
    page.keyboard.press("Escape")
    expect(menu).to_be_hidden()
    expect(cell(page, "B4")).to_be_focused()


def test_frozen_rows_and_columns_stay_in_view_when_the_grid_scrolls(page, book):
    with book.episode.session() as db:
        services.write_range(db, book.episode.actor(db), book.wb, "A30", [["far down", "row 30"]])
        services.freeze(db, book.episode.actor(db), book.wb, "Deals", "1", "1")
        db.commit()
    page.reload()
    wrap, header = page.get_by_test_id("grid-wrap"), cell(page, "B1")
    top = header.bounding_box()["y"]
    wrap.evaluate("w => { w.scrollTop = 400; w.scrollLeft = 300; }")
    page.wait_for_timeout(100)
    assert abs(header.bounding_box()["y"] - top) < 2, "the frozen row stays at the top"
    assert abs(cell(page, "A30").bounding_box()["x"] - cell(page, "A1").bounding_box()["x"]) < 2
    assert cell(page, "A30").bounding_box()["x"] < cell(page, "B30").bounding_box()["x"]
    expect(page.get_by_role("columnheader", name="A")).to_be_in_viewport()


@pytest.mark.parametrize("server, scale", [("live_server", "tiny"), ("small_server", "small")])
def test_the_heaviest_grid_window_is_light_to_observe(page, request, server, scale):
    served = request.getfixturevalue(server)
    episode = served.store.create(scale=scale)
    try:
        path = heaviest_pages(episode)["sheets grid window"]
        page.goto(f"{served.base_url}/e/{episode.id}{path}")
        expect(page.get_by_role("grid")).to_be_visible()
        sizes = [tree_characters(page)]
        with episode.session() as db:  # an editor's page also has the menus and the tools
            book = db.get(Workbook, int(re.search(r"/w/(\d+)", path).group(1)))
            me, owner = episode.actor(db), db.get(Person, book.owner_id)
            if owner.id != me.id:
                services.share_workbook(db, owner, book.id, me.handle, "editor")
            db.commit()
        page.reload()
        expect(page.get_by_role("menubar")).to_be_visible()
        sizes.append(tree_characters(page))
        assert max(sizes) < TREE_LIMIT, sizes
        assert page.get_by_role("link").count() < 40, "no link per cell"
    finally:
        served.store.delete(episode.id)


def test_a_range_across_the_frozen_rows_seam_changes_nothing_unseen(page, book):
    """Row 1 frozen, the window opened at row 4: rows 2-3 are not shown, so A1 to A5 cannot be cleared
    or filled as one range (it would reach them); the grid says why and the sheet stays as it was."""
    with book.episode.session() as db:
        services.freeze(db, book.episode.actor(db), book.wb, "Deals", rows=1)
        db.commit()
    page.goto(re.sub(r"\?.*$", "", page.url) + "?sheet=Deals&r=4&c=A")
    expect(cell(page, "A2")).to_have_count(0)
    cell(page, "A1").click()
    cell(page, "A5").click(modifiers=["Shift"])
    before = book("A1", "A2", "A3", "A4", "A5")
    for key in ("Delete", "Control+d"):
        page.keyboard.press(key)
        expect(page.get_by_text("The selection spans rows or columns this window does not show")).to_be_visible()
    settled(page)
    assert book("A1", "A2", "A3", "A4", "A5") == before
