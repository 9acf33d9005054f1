"""Helpers of the sheets UI tests: a small sales workbook made through the services, readers of the
grid page, and readers of stored cells."""

from __future__ import annotations

import html
import re

from sqlalchemy import select

from officegym.apps.org.models import Person
from officegym.apps.sheets import services
from officegym.apps.sheets.models import Sheet

DEALS = [["Region", "Rep", "Amount"], ["EMEA", "Ann", 120], ["APAC", "Bob", 80], ["EMEA", "Cid", 50],
         ["AMER", "Dee", 200], ["APAC", "Eve", 30]]
_CELL = re.compile(r'data-testid="cell" data-ref="([A-Z]+\d+)" data-raw="([^"]*)" class="([^"]*)"'
                   r'(?: title="([^"]*)")?><a [^>]*><span class="visually-hidden">[^<]*</span>'
                   r'<span class="v">(.*?)</span></a>')


def make_book(browser, title: str = "Pipeline", sheets: list[str] | None = None, rows=DEALS,
              owner: Person | None = None) -> int:
    """A workbook (first sheet Deals unless told) holding `rows` from A1; returns its id."""
    with browser.db() as db:
        actor = db.get(Person, owner.id) if owner is not None else browser.episode.actor(db)
        book = services.create_workbook(db, actor, title, sheets or ["Deals", "Notes"])
        if rows:
            services.write_range(db, actor, book.id, "A1", rows)
        return book.id


def grid(response) -> dict[str, dict]:
    """The cells of a grid page: {ref: {raw, classes, title, display}}."""
    page = response.get_data(as_text=True)
    return {ref: {"raw": html.unescape(raw), "classes": classes.split(), "title": html.unescape(title or ""),
                  "display": html.unescape(display)}
            for ref, raw, classes, title, display in _CELL.findall(page)}


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
