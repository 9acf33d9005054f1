"""The seeded workbooks as drafts before they are inserted (what a person would type, cell by
cell), the records of those inserted, and the `Sheets` that later generators read."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime

from officegym.apps.sheets.formula.parser import read_input


ROLE_ORDER = {"editor": 0, "viewer": 1}


@dataclass
class WorkbookRec:
    """A stored workbook, as chat (and task authors) need it."""

    id: int
    key: str  # forecast, budget, headcount, rota, or personal:<owner id>
    title: str
    owner_id: int
    created_at: datetime
    updated_at: datetime
    sheets: dict[str, int]  # sheet name -> id, in tab order
    shares: dict[int, str]  # person id -> viewer or editor


@dataclass
class Sheets:
    """The workbooks of a world."""

    workbooks: list[WorkbookRec]

    def get(self, key: str) -> WorkbookRec | None:
        """A workbook by key (None when the world has no such workbook)."""
        return next((w for w in self.workbooks if w.key == key), None)


def as_input(value) -> str:
    """What to type into a cell for a value: formulas as they are, numbers as the app's own writes
    store them (whole ones without a decimal point), dates in ISO form, and text with a leading
    apostrophe whenever the sheet would otherwise read it as something else (a number, a date, TRUE
    or a formula)."""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return str(int(value))  # what a person types, and what the app's own writes store (no "172800.0")
    if isinstance(value, (int, float)):
        return repr(value)  # repr round-trips a float exactly
    if isinstance(value, date):
        return value.isoformat()
    if value.startswith("=") and len(value) > 1:
        return value
    return value if read_input(value).value == value else "'" + value


@dataclass
class SheetDraft:
    """One tab being drafted: cell inputs and number formats by (row, col), 0-based."""

    name: str
    frozen_rows: int = 0
    frozen_cols: int = 0
    cells: dict[tuple[int, int], tuple[str, str]] = field(default_factory=dict)

    def put(self, row: int, col: int, value, fmt: str = "") -> None:
        """One cell: a formula (text starting with '='), text, a number or a date."""
        self.cells[(row, col)] = (as_input(value), fmt)

    def put_row(self, row: int, values: list, formats: tuple[str, ...] = ()) -> None:
        """A row from column A; None leaves a cell empty, formats go column by column."""
        for col, value in enumerate(values):
            if value is not None and value != "":
                self.put(row, col, value, formats[col] if col < len(formats) else "")


@dataclass
class WorkbookDraft:
    """A workbook being drafted: who owns it, whom it is shared with, its tabs and named ranges."""

    key: str
    title: str
    description: str
    owner_id: int
    created_at: datetime
    updated_at: datetime
    shares: dict[int, str] = field(default_factory=dict)
    tabs: list[SheetDraft] = field(default_factory=list)
    names: list[tuple[str, str, str]] = field(default_factory=list)  # (name, sheet, A1 range)

    def tab(self, name: str, frozen_rows: int = 0, frozen_cols: int = 0) -> SheetDraft:
        """Add a tab (after the others) and return it."""
        sheet = SheetDraft(name, frozen_rows, frozen_cols)
        self.tabs.append(sheet)
        return sheet

    def share(self, people, role: str) -> None:
        """Share with people (ids) in a role; the owner and people already given a stronger role are
        skipped, so editors stay editors when a wider viewer list includes them."""
        for pid in people:
            if pid != self.owner_id and ROLE_ORDER[role] < ROLE_ORDER.get(self.shares.get(pid, ""), 9):
                self.shares[pid] = role
