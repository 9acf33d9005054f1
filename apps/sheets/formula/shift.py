"""Rewrite references when the sheet's structure changes or a formula is copied.

- inserting rows or columns moves every reference at or after the insertion (absolute ones too);
- deleting them moves later references back, shrinks ranges that lose rows, and turns references
  to deleted cells into #REF!;
- renaming a sheet renames it in references; deleting one turns its references into #REF!;
- copying a formula by (rows, cols) moves its relative references and keeps the $ ones.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .a1 import MAX_COLS, MAX_ROWS, Area, BadReference, parse_area
from .parser import FormulaError, tokenize

KINDS = ("insert_rows", "delete_rows", "insert_cols", "delete_cols", "rename_sheet", "delete_sheet", "move")


@dataclass(frozen=True)
class Edit:
    """One structural change: `sheet` is the sheet changed; `at`/`count` the rows or columns (0-based);
    `new_name` for a rename; `rows`/`cols` the offset of a copy."""

    kind: str
    sheet: str = ""
    at: int = 0
    count: int = 0
    new_name: str = ""
    rows: int = 0
    cols: int = 0


def rewrite(body: str, home_sheet: str, edit: Edit) -> str:
    """A formula body (the text after '=') on `home_sheet` with its references adjusted to the edit."""
    try:
        tokens = tokenize(body)
    except FormulaError:
        return body
    parts = []
    for token in tokens:
        if token.kind != "ref":
            parts.append(token.text)
            continue
        try:
            area = parse_area(token.text)
        except BadReference:
            parts.append(token.text)
            continue
        moved = shift_area(area, home_sheet, edit)
        parts.append("#REF!" if moved is None else moved.text())
    return "".join(parts)


def shift_area(area: Area, home_sheet: str, edit: Edit) -> Area | None:
    """The area after the edit, or None when what it pointed at is gone."""
    on_sheet = (area.sheet or home_sheet).lower() == edit.sheet.lower()
    if edit.kind == "move":
        return _moved(area, edit.rows, edit.cols)
    if edit.kind == "rename_sheet":
        return replace(area, sheet=edit.new_name) if area.sheet and on_sheet else area
    if edit.kind == "delete_sheet":
        return None if area.sheet and on_sheet else area
    if not on_sheet:
        return area
    if edit.kind in ("insert_rows", "delete_rows"):
        if area.whole == "cols":
            return area
        span = _insert if edit.kind == "insert_rows" else _delete
        edges = span(area.top, area.bottom, edit.at, edit.count, MAX_ROWS)
        return None if edges is None else replace(area, top=edges[0], bottom=edges[1])
    if area.whole == "rows":
        return area
    span = _insert if edit.kind == "insert_cols" else _delete
    edges = span(area.left, area.right, edit.at, edit.count, MAX_COLS)
    return None if edges is None else replace(area, left=edges[0], right=edges[1])


def _insert(first: int, last: int, at: int, count: int, limit: int) -> tuple[int, int] | None:
    first = first + count if first >= at else first
    last = min(last + count if last >= at else last, limit - 1)
    return None if first > last else (first, last)


def _delete(first: int, last: int, at: int, count: int, limit: int) -> tuple[int, int] | None:
    end = at + count  # deleted: at .. end-1

    def moved(index: int, is_first: bool) -> int:
        if index < at:
            return index
        if index >= end:
            return index - count
        return at if is_first else at - 1

    new_first, new_last = moved(first, True), moved(last, False)
    return None if new_first > new_last else (new_first, new_last)


def _moved(area: Area, rows: int, cols: int) -> Area | None:
    top = area.top if area.top_abs or area.whole == "cols" else area.top + rows
    bottom = area.bottom if area.bottom_abs or area.whole == "cols" else area.bottom + rows
    left = area.left if area.left_abs or area.whole == "rows" else area.left + cols
    right = area.right if area.right_abs or area.whole == "rows" else area.right + cols
    if min(top, bottom, left, right) < 0 or max(top, bottom) >= MAX_ROWS or max(left, right) >= MAX_COLS:
        return None
    if area.single:
        bottom, right = top, left
    return replace(area, top=min(top, bottom), bottom=max(top, bottom), left=min(left, right), right=max(left, right))

