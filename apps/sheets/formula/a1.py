"""A1 notation: column letters, cells, ranges, whole rows and columns, and sheet prefixes.

Rows and columns are 0-based inside the engine (A1 is row 0, column 0) and 1-based when written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_ROWS = 100_000
MAX_COLS = 702  # A..ZZ
SHEET_PREFIX = r"(?:'(?:[^']|'')+'|[A-Za-z_][A-Za-z0-9_.]*)!"
_CELL = r"\$?[A-Za-z]{1,3}\$?[0-9]{1,7}"
_COLS = r"\$?[A-Za-z]{1,3}:\$?[A-Za-z]{1,3}"
_ROWS = r"\$?[0-9]{1,7}:\$?[0-9]{1,7}"
REFERENCE = rf"(?:{SHEET_PREFIX})?(?:{_CELL}(?::{_CELL})?|{_COLS}|{_ROWS})"
_CELL_PARTS = re.compile(r"(\$?)([A-Za-z]{1,3})(\$?)([0-9]{1,7})$")
_COL_PART = re.compile(r"(\$?)([A-Za-z]{1,3})$")
_ROW_PART = re.compile(r"(\$?)([0-9]{1,7})$")


class BadReference(ValueError):
    """A reference that does not parse or points outside the sheet."""


def col_index(letters: str) -> int:
    """0-based index of column letters: A is 0, Z is 25, AA is 26."""
    index = 0
    for char in letters.upper():
        index = index * 26 + (ord(char) - 64)
    return index - 1


def col_name(index: int) -> str:
    """Column letters of a 0-based index."""
    letters, index = "", index + 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(65 + rest) + letters
    return letters


def quote_sheet(name: str) -> str:
    """A sheet name as written before '!': quoted when it is not a plain word."""
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]*", name) and not re.fullmatch(r"[A-Za-z]{1,3}[0-9]+", name):
        return name
    return "'" + name.replace("'", "''") + "'"


def unquote_sheet(prefix: str) -> str:
    """The sheet name of a prefix such as 'Q1 plan' or Data (without the '!')."""
    if prefix.startswith("'"):
        return prefix[1:-1].replace("''", "'")
    return prefix


@dataclass(frozen=True)
class Area:
    """A rectangle of one sheet, 0-based and inclusive, with the $ flags of each edge as written.

    A single cell has top == bottom and left == right and `single` set. Whole columns (A:C) span
    every row; whole rows (2:5) every column."""

    sheet: str | None
    top: int
    left: int
    bottom: int
    right: int
    top_abs: bool = False
    left_abs: bool = False
    bottom_abs: bool = False
    right_abs: bool = False
    single: bool = False
    whole: str = ""  # "cols", "rows" or ""

    @property
    def height(self) -> int:
        """Number of rows."""
        return self.bottom - self.top + 1

    @property
    def width(self) -> int:
        """Number of columns."""
        return self.right - self.left + 1

    def contains(self, row: int, col: int) -> bool:
        """Whether the cell lies inside."""
        return self.top <= row <= self.bottom and self.left <= col <= self.right

    def text(self, with_sheet: bool = True) -> str:
        """The area written in A1 notation, keeping its $ flags."""
        prefix = quote_sheet(self.sheet) + "!" if with_sheet and self.sheet else ""
        if self.whole == "cols":
            body = f"{'$' * self.left_abs}{col_name(self.left)}:{'$' * self.right_abs}{col_name(self.right)}"
        elif self.whole == "rows":
            body = f"{'$' * self.top_abs}{self.top + 1}:{'$' * self.bottom_abs}{self.bottom + 1}"
        else:
            body = cell_text(self.top, self.left, self.top_abs, self.left_abs)
            if not self.single:
                body += ":" + cell_text(self.bottom, self.right, self.bottom_abs, self.right_abs)
        return prefix + body


def cell_text(row: int, col: int, row_abs: bool = False, col_abs: bool = False) -> str:
    """One cell in A1 notation, such as B3 or $B$3."""
    return f"{'$' * col_abs}{col_name(col)}{'$' * row_abs}{row + 1}"


def _cell(part: str) -> tuple[int, int, bool, bool]:
    match = _CELL_PARTS.match(part)
    if match is None:
        raise BadReference(f"{part!r} is not a cell such as B3.")
    col, row = col_index(match.group(2)), int(match.group(4)) - 1
    if row < 0 or row >= MAX_ROWS or col >= MAX_COLS:
        raise BadReference(f"{part} is outside the sheet (at most {MAX_ROWS} rows and {MAX_COLS} columns, "
                           f"A1 to {col_name(MAX_COLS - 1)}{MAX_ROWS}).")
    return row, col, bool(match.group(3)), bool(match.group(1))


def parse_area(text: str) -> Area:
    """An Area from A1 text such as B3, $A$1:C10, Data!A:A, 'Q1 plan'!2:4; raises BadReference."""
    text = text.strip()
    sheet = None
    prefix = re.match(SHEET_PREFIX, text)
    if prefix:
        sheet, text = unquote_sheet(prefix.group()[:-1]), text[prefix.end():]
    if not re.fullmatch(rf"{_CELL}(?::{_CELL})?|{_COLS}|{_ROWS}", text):
        raise BadReference(f"{text!r} is not a cell or range in A1 notation (such as B3, A1:C10, A:A or 2:4).")
    first, _, second = text.partition(":")
    if _COL_PART.match(first) and second and _COL_PART.match(second):
        (la, l), (ra, r) = _col(first), _col(second)
        left, right, left_abs, right_abs = (l, r, la, ra) if l <= r else (r, l, ra, la)
        return Area(sheet, 0, left, MAX_ROWS - 1, right, False, left_abs, False, right_abs, whole="cols")
    if _ROW_PART.match(first) and second and _ROW_PART.match(second):
        (ta, t), (ba, b) = _row(first), _row(second)
        top, bottom, top_abs, bottom_abs = (t, b, ta, ba) if t <= b else (b, t, ba, ta)
        return Area(sheet, top, 0, bottom, MAX_COLS - 1, top_abs, False, bottom_abs, False, whole="rows")
    row, col, row_abs, col_abs = _cell(first)
    if not second:
        return Area(sheet, row, col, row, col, row_abs, col_abs, row_abs, col_abs, single=True)
    row2, col2, row2_abs, col2_abs = _cell(second)
    top, bottom = sorted((row, row2))
    left, right = sorted((col, col2))
    return Area(sheet, top, left, bottom, right, row_abs if row <= row2 else row2_abs,
                col_abs if col <= col2 else col2_abs, row2_abs if row <= row2 else row_abs,
                col2_abs if col <= col2 else col_abs)


def _col(part: str) -> tuple[bool, int]:
    match = _COL_PART.match(part)
    index = col_index(match.group(2))
    if index >= MAX_COLS:
        raise BadReference(f"Column {match.group(2)} is outside the sheet (the last column is {col_name(MAX_COLS - 1)}).")
    return bool(match.group(1)), index


def _row(part: str) -> tuple[bool, int]:
    match = _ROW_PART.match(part)
    index = int(match.group(2)) - 1
    if not 0 <= index < MAX_ROWS:
        raise BadReference(f"Row {match.group(2)} is outside the sheet (rows 1 to {MAX_ROWS}).")
    return bool(match.group(1)), index
