"""Helpers of the sheets UI tests: a small sales workbook made through the services, readers of the
grid page, readers of stored cells, and `Sheets`, a Chromium page that fills the grid's forms."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser
from urllib.parse import urlencode

from sqlalchemy import select

from officegym.apps.org.models import Person
from officegym.apps.sheets import services
from officegym.apps.sheets.models import Sheet

DEALS = [["Region", "Rep", "Amount"], ["EMEA", "Ann", 120], ["APAC", "Bob", 80], ["EMEA", "Cid", 50],
         ["AMER", "Dee", 200], ["APAC", "Eve", 30]]
CELLS = """() => Object.fromEntries([...document.querySelectorAll('td[data-testid=cell]')]
                   .map(td => [td.dataset.ref, td.textContent]))"""


class _GridCells(HTMLParser):
    """The cells of a grid page's HTML: {ref: {raw, classes, title, display, selected, label}}."""

    def __init__(self):
        super().__init__()
        self.cells: dict[str, dict] = {}
        self._open: dict | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "td" and a.get("data-testid") == "cell":
            self._open = {"raw": a.get("data-raw", ""), "classes": (a.get("class") or "").split(),
                          "title": a.get("title", ""), "display": "", "selected": a.get("aria-selected") == "true",
                          "label": a.get("aria-label", "")}
            self.cells[a["data-ref"]] = self._open

    def handle_endtag(self, tag):
        if tag == "td":
            self._open = None

    def handle_data(self, data):
        if self._open is not None:
            self._open["display"] += data


def make_book(browser, title: str = "Pipeline", sheets: list[str] | None = None, rows=DEALS,
              owner: Person | None = None, cells: dict[str, str] | None = None) -> int:
    """A workbook (first sheet Deals unless told) holding `rows` from A1, then `cells` ({ref: input});
    returns its id."""
    with browser.db() as db:
        actor = db.get(Person, owner.id) if owner is not None else browser.episode.actor(db)
        book = services.create_workbook(db, actor, title, sheets or ["Deals", "Notes"])
        if rows:
            services.write_range(db, actor, book.id, "A1", rows)
        if cells:
            services.write_cells(db, actor, book.id, [{"cell": ref, "value": raw} for ref, raw in cells.items()])
        return book.id


def make_viewed_book(browser) -> tuple[int, str]:
    """The sales workbook with a filter view EMEA (Region = EMEA) and a range named Amounts (C2:C6),
    and the handle of a plain member to share it with."""
    wb = make_book(browser)
    with browser.db() as db:
        me = browser.episode.actor(db)
        services.create_filter_view(db, me, wb, "EMEA", "Deals!A1:C6", [{"column": "A", "op": "=", "value": "EMEA"}])
        services.define_named_range(db, me, wb, "Amounts", "Deals!C2:C6")
        return wb, member(db, me.id).handle


def grid(response) -> dict[str, dict]:
    """The cells of a grid page: {ref: {raw, classes, title, display, selected, label}}."""
    parser = _GridCells()
    parser.feed(response.get_data(as_text=True))
    return parser.cells


def shown(response, ref: str) -> str:
    """What the grid shows in a cell."""
    return grid(response)[ref]["display"]


def rows_shown(response) -> list[int]:
    """The row numbers of the grid, in page order."""
    return [int(n) for n in re.findall(r'data-testid="grid-row" data-row="(\d+)"', response.get_data(as_text=True))]


def field_value(response, field_id: str) -> str:
    """The value of an input on the page, by id."""
    found = re.search(rf'id="{field_id}" [^>]*?value="([^"]*)"', response.get_data(as_text=True))
    return html.unescape(found.group(1)) if found else ""


def raw(db, wb: int, ref: str) -> str:
    """The input stored in a cell ('' when empty)."""
    cell = services.stored_cell(db, wb, ref)
    return "" if cell is None else cell.raw


def value(db, wb: int, ref: str):
    """The computed value of a cell (None when empty)."""
    cell = services.stored_cell(db, wb, ref)
    return None if cell is None else services.cell_value(cell.kind, cell.number, cell.text, cell.note)


def column(db, wb: int, ref: str) -> list:
    """The values of a one-column range such as Deals!C2:C6."""
    sheet, _, span = ref.rpartition("!")
    first, last = span.split(":")
    letter = first.rstrip("0123456789")
    prefix = f"{sheet}!" if sheet else ""
    return [value(db, wb, f"{prefix}{letter}{n}") for n in range(int(first[len(letter):]), int(last[len(letter):]) + 1)]


def sheet_names(db, wb: int) -> list[str]:
    """The workbook's sheet names in tab order."""
    return list(db.scalars(select(Sheet.name).where(Sheet.workbook_id == wb).order_by(Sheet.position)))


def member(db, *not_ids: int) -> Person:
    """A plain member of the company (not one of `not_ids`)."""
    return db.scalars(select(Person).where(Person.role == "member", Person.id.not_in(not_ids or (0,)))
                      .order_by(Person.id)).first()


class Sheets:
    """A Chromium page on the sheets app of the test's episode."""

    def __init__(self, page, root: str):
        self.page, self.root = page, root

    def open(self, path: str = "", **query) -> "Sheets":
        """Go to a sheets page (`w/7`, `w/7/names`, ...) with query arguments."""
        self.page.goto(f"{self.root}/sheets/{path}" + (f"?{urlencode(query)}" if query else ""))
        return self

    def cells(self) -> dict[str, str]:
        """What each cell of the grid shows, by reference (once the page a click led to has loaded)."""
        self.page.wait_for_load_state()
        return self.page.evaluate(CELLS)

    def column(self, letter: str, first: int, last: int) -> list[str]:
        """What the grid shows in a column from one row to another."""
        shown = self.cells()
        return [shown[f"{letter}{n}"] for n in range(first, last + 1)]

    def rows(self) -> list[int]:
        """The row numbers the grid shows (once the page a click led to has loaded)."""
        self.page.wait_for_load_state()
        return [int(n) for n in self.page.locator('[data-testid="grid-row"]').evaluate_all(
            "rows => rows.map(r => r.dataset.row)")]

    def tabs(self) -> list[str]:
        """The sheet tabs, in order."""
        return self.page.get_by_test_id("sheet-tab").all_inner_texts()

    def form(self, tool: str, testid: str, fields: dict, press: str | None = None) -> str:
        """Open "All tools (forms)" and a tool's disclosure in it, fill a form by its labels and submit
        it; returns the flash."""
        tools = self.page.get_by_test_id("all-tools")
        if tools.get_attribute("open") is None:
            tools.locator("summary").first.click()
        details = self.page.get_by_test_id(f"tool-{tool}")
        if details.get_attribute("open") is None:
            details.locator("summary").click()
        return self.fill(testid, fields, press)

    def fill(self, testid: str, fields: dict, press: str | None = None) -> str:
        """Fill a form on the page by its labels (checkboxes take booleans, selects an option's
        label), press its submit button (or the one named), and return the confirmation shown."""
        form = self.page.get_by_test_id(testid)
        for label, wanted in fields.items():
            field = form.get_by_label(label, exact=True)
            if isinstance(wanted, bool):
                field.set_checked(wanted)
            elif field.evaluate("f => f.tagName") == "SELECT":
                field.select_option(label=wanted)
            else:
                field.fill(wanted)
        form.get_by_test_id(press or testid.replace("-form", "-submit")).click()
        return self.page.get_by_test_id("flash-info").inner_text()
