"""The part of a sheet the grid page shows: which rows and columns (frozen ones kept in view, a
filter view's rows when one is applied), reading their cells, and shaping them for the template.
Pure presentation over services.read_area: no rule lives here and nothing is written."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from sqlalchemy.orm import Session

from officegym.errors import Invalid

from . import services
from .formula.a1 import MAX_COLS, MAX_ROWS, Area, cell_text, col_index
from .formula.values import CellError
from .models import Sheet

ROWS = 40
COLS = 12


def column_start(text: str) -> int | None:
    """A 0-based column from ?c= given as letters (D) or a 1-based number; None when blank."""
    text = (text or "").strip()
    if not text:
        return None
    if text.isascii() and text.isalpha() and len(text) <= 3 and col_index(text) < MAX_COLS:
        return col_index(text)
    if text.isascii() and text.isdigit() and 1 <= int(text) <= MAX_COLS:
        return int(text) - 1
    raise Invalid(f"'c' is a column such as D (or its number, 4); got {text!r}.")


@dataclass
class Window:
    """Rows and columns shown (0-based): frozen rows and a filter view's header in `head_rows`, the
    scrolled rows in `body_rows`; `offset`/`total` page through a filter view's matches."""

    top: int
    left: int
    head_rows: list[int]
    body_rows: list[int]
    cols: list[int]
    offset: int = 0
    total: int | None = None
    matching: list[int] = field(default_factory=list)

    @classmethod
    def around(cls, start_row: int | None, start_col: int | None, row: int | None, col: int | None,
               frozen_rows: int, frozen_cols: int) -> "Window":
        """The window starting at a 1-based row and a column, or the page of rows and columns
        holding the selected cell when they are not given."""
        if start_row:
            top = start_row - 1
        else:
            top = (row // ROWS) * ROWS if row is not None else 0
        if start_col is None:
            start_col = (col // COLS) * COLS if col is not None else 0
        top, left = min(top, MAX_ROWS - ROWS), min(start_col, MAX_COLS - COLS)
        head = list(range(frozen_rows))
        body = [r for r in range(top, top + ROWS) if r >= frozen_rows]
        cols = list(range(frozen_cols)) + [c for c in range(left, left + COLS) if c >= frozen_cols]
        return cls(top, left, head, body, cols)

    def filtered(self, rows: list[int], offset: int) -> "Window":
        """This window showing a filter view's rows (0-based, header first) from the nth match."""
        header, matching = rows[0], rows[1:]
        head = sorted(set(self.head_rows) | {header})
        body = [r for r in matching[offset:offset + ROWS] if r not in head]
        return replace(self, head_rows=head, body_rows=body, offset=offset, total=len(matching), matching=matching)

    @property
    def all_rows(self) -> list[int]:
        """Every row shown, head first."""
        return self.head_rows + self.body_rows

    @property
    def prev_top(self) -> int | None:
        """1-based first row of the previous page of rows, None at the top."""
        return max(self.top - ROWS, 0) + 1 if self.top > 0 else None

    @property
    def next_top(self) -> int | None:
        """1-based first row of the next page of rows, None at the end of the sheet."""
        return self.top + ROWS + 1 if self.top + ROWS < MAX_ROWS else None

    @property
    def prev_left(self) -> int | None:
        """0-based first column of the previous page of columns."""
        return max(self.left - COLS, 0) if self.left > 0 else None

    @property
    def next_left(self) -> int | None:
        """0-based first column of the next page of columns."""
        return self.left + COLS if self.left + COLS < MAX_COLS else None


def _runs(numbers: list[int]) -> list[tuple[int, int]]:
    """Sorted numbers as (first, last) runs of consecutive ones."""
    runs: list[tuple[int, int]] = []
    for n in sorted(set(numbers)):
        if runs and n == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], n)
        else:
            runs.append((n, n))
    return runs


def read_cells(db: Session, sheet: Sheet, rows: list[int], cols: list[int]) -> dict:
    """{(row, col): CellOut} for every shown cell, read block by block."""
    found = {}
    for top, bottom in _runs(rows):
        for left, right in _runs(cols):
            block = services.read_area(db, sheet, Area(sheet.name, top, left, bottom, right))
            for r, line in enumerate(block.rows, start=top):
                for c, cell in enumerate(line, start=left):
                    found[(r, c)] = cell
    return found


@dataclass
class GridCell:
    """One cell as the grid shows it."""

    ref: str
    display: str
    raw: str
    kind: str  # "num", "bool", "err", "text" or "" (empty)
    detail: str
    selected: bool


@dataclass
class GridRow:
    """One row of the grid: its 1-based number and cells."""

    number: int
    cells: list[GridCell]


def _kind(value) -> str:
    if value is None:
        return ""
    if isinstance(value, CellError):
        return "err"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "num"
    return "text"


def build_rows(rows: list[int], cols: list[int], cells: dict, selected: tuple[int, int]) -> list[GridRow]:
    """Rows of GridCells, the selected one marked."""
    shaped = []
    for row in rows:
        line = []
        for col in cols:
            out = cells[(row, col)]
            kind = _kind(out.value)
            detail = (out.value.detail or out.note) if kind == "err" else ""
            ref = cell_text(row, col)
            line.append(GridCell(ref, out.display, out.raw, kind, detail, (row, col) == selected))
        shaped.append(GridRow(row + 1, line))
    return shaped
