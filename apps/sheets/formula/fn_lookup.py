"""Lookup functions: VLOOKUP, HLOOKUP, XLOOKUP, INDEX, MATCH, ROWS, COLUMNS.

Matching is type-strict as in spreadsheets: the number 5 does not find the text "5". Text matches
ignore case; exact VLOOKUP/HLOOKUP/MATCH honour wildcards, XLOOKUP only in match mode 2.
Approximate matches assume the data is sorted (ascending, or descending for MATCH type -1) and skip
values of another kind, such as text among numbers.
"""

from __future__ import annotations

from .criteria import has_wildcards, text_equals
from .fn_common import OMITTED, boolean, cells, describe, integer, shape
from .values import CellError, Grid, compare, is_number, na, ref_error, scalar, value_error


def _kind(value) -> str:
    if isinstance(value, bool):
        return "bool"
    if is_number(value):
        return "number"
    return "text" if isinstance(value, str) else "other"


def _same(target, key, wildcards: bool) -> bool:
    """Exact lookup equality: same kind, text without regard to case (and wildcards if allowed)."""
    if _kind(target) != _kind(key) or _kind(target) == "other":
        return False
    if isinstance(target, str):
        return text_equals(target, key) if wildcards else target.casefold() == key.casefold()
    return target == key


def exact(target, keys: list, wildcards: bool = True, reverse: bool = False) -> int | None:
    """The index of the first (or last) key equal to the target."""
    order = range(len(keys) - 1, -1, -1) if reverse else range(len(keys))
    return next((i for i in order if _same(target, keys[i], wildcards)), None)


_SCAN = object()  # what kept_exact answers when the index cannot tell


def kept_exact(target, grid: Grid, wildcards: bool = True, reverse: bool = False, first_column: bool = False):
    """exact() over a one-row or one-column grid (or a table's first column) read from the index of
    a range the Book keeps: the index of the first (or last) match, None for none, or _SCAN when
    there is no index or the target needs comparing (wildcards, NaN, an empty cell or an error)."""
    if grid.entry is None:
        return _SCAN
    kind = _kind(target)
    if kind == "number" and target == target:
        key = ("n", float(target))
    elif kind == "text" and not (wildcards and has_wildcards(target)):
        key = ("s", target.casefold())
    elif kind == "bool":
        key = ("b", target)
    else:
        return _SCAN
    found = grid.entry.positions((key,))  # positions row by row, matching _same exactly
    if found is None:  # not indexed (yet)
        return _SCAN
    width = grid.width
    if first_column and width > 1:
        return next((p // width for p in (reversed(found) if reverse else found) if p % width == 0), None)
    return (found[-1] if reverse else found[0]) if found else None


def sorted_match(target, keys: list, descending: bool = False) -> int | None:
    """The last key <= target in ascending data (>= target in descending data), stopping at the
    first key past the target, as a lookup over sorted data does."""
    found = None
    for i, key in enumerate(keys):
        if _kind(key) != _kind(target):
            continue
        order = compare(key, target)
        if (order > 0) if not descending else (order < 0):
            break
        found = i
    return found


def nearest(target, keys: list, larger: bool, reverse: bool) -> int | None:
    """XLOOKUP match modes -1/1: an exact match, else the next smaller (or larger) key, in any order."""
    hit = exact(target, keys, wildcards=False, reverse=reverse)
    if hit is not None:
        return hit
    order = range(len(keys) - 1, -1, -1) if reverse else range(len(keys))
    best = None
    for i in order:
        key = keys[i]
        if _kind(key) != _kind(target) or (compare(key, target) > 0) != larger:
            continue
        if best is None:
            best = i
        elif (compare(key, keys[best]) < 0) if larger else (compare(key, keys[best]) > 0):
            best = i  # strictly closer to the target; on a tie the first in search order stays
    return best


def _lookup_value(value):
    value = scalar(value)
    if value is None:
        return na("The lookup value is empty.")
    return value


def _table_lookup(name: str, value, table, index, approximate, transpose: bool):
    target = _lookup_value(value)
    if isinstance(target, CellError):
        return target
    if isinstance(table, CellError):
        return table
    grid = cells(table)
    if transpose:  # HLOOKUP searches the first row and reads down a column
        grid = Grid([list(column) for column in zip(*grid.rows)])
    at = integer(index)
    if isinstance(at, CellError):
        return at
    if at < 1:
        return value_error(f"{name} index must be at least 1; got {at}.")
    if at > grid.width:
        return ref_error(f"{name} index {at} is beyond the table's {grid.width} {'rows' if transpose else 'columns'}.")
    fuzzy = True if approximate is OMITTED else boolean(approximate)
    if isinstance(fuzzy, CellError):
        return fuzzy
    hit = _SCAN if fuzzy else kept_exact(target, grid, first_column=True)
    if hit is _SCAN:
        keys = grid.column(0)
        hit = sorted_match(target, keys) if fuzzy else exact(target, keys)
    if hit is None:
        where = "first row" if transpose else "first column"
        how = "no value at or below" if fuzzy else "no match for"
        return na(f"{name} found {how} {describe(target)} in the {where}.")
    return grid.rows[hit][at - 1]


def vlookup(ctx, value, table, column, approximate=OMITTED):
    """VLOOKUP: search the first column, return the value in the given column of that row."""
    return _table_lookup("VLOOKUP", value, table, column, approximate, transpose=False)


def hlookup(ctx, value, table, row, approximate=OMITTED):
    """HLOOKUP: search the first row, return the value in the given row of that column."""
    return _table_lookup("HLOOKUP", value, table, row, approximate, transpose=True)


def _line(value) -> list | None:
    """The values of a one-row or one-column range, or None for a 2-D range."""
    grid = cells(value)
    if grid.width == 1:
        return grid.column(0)
    return list(grid.rows[0]) if grid.height == 1 else None


def xlookup(ctx, value, lookup_array, return_array, if_not_found=None, match_mode=None, search_mode=None):
    """XLOOKUP: find a value in one row or column and return the matching cell of another."""
    target = scalar(value)
    if isinstance(target, CellError):
        return target
    for area in (lookup_array, return_array):
        if isinstance(area, CellError):
            return area
    keys, results = _line(lookup_array), cells(return_array)
    if keys is None:
        return value_error(f"XLOOKUP needs a single row or column to search; got {shape(cells(lookup_array))}.")
    vertical = cells(lookup_array).width == 1
    size = results.height if vertical else results.width
    if size != len(keys):
        side = "rows" if vertical else "columns"
        return value_error(f"XLOOKUP's return range must have as many {side} as the lookup range; got {size} and {len(keys)}.")
    mode = 0 if match_mode is None else integer(match_mode)
    direction = 1 if search_mode is None else integer(search_mode)
    for setting in (mode, direction):
        if isinstance(setting, CellError):
            return setting
    if mode not in (0, -1, 1, 2):
        return value_error(f"XLOOKUP match mode must be 0, -1, 1 or 2; got {mode}.")
    if direction not in (1, -1, 2, -2):  # 2/-2 (binary search) find the same cell in sorted data
        return value_error(f"XLOOKUP search mode must be 1, -1, 2 or -2; got {direction}.")
    reverse = direction < 0
    if mode in (0, 2):
        hit = kept_exact(target, cells(lookup_array), wildcards=mode == 2, reverse=reverse)
        if hit is _SCAN:
            hit = exact(target, keys, wildcards=mode == 2, reverse=reverse)
    else:
        hit = nearest(target, keys, larger=mode == 1, reverse=reverse)
    if hit is None:
        return na(f"XLOOKUP found no match for {describe(target)}.") if if_not_found is None else if_not_found
    return results.rows[hit][0] if vertical else results.rows[0][hit]


def index(ctx, array, row, column=OMITTED):
    """INDEX: the cell at a row and column of a range (1-based); 0 means the whole row or column."""
    if isinstance(array, CellError):
        return array
    grid = cells(array)
    down = integer(row)
    across = OMITTED if column is OMITTED else integer(column)
    for position in (down, across):
        if isinstance(position, CellError):
            return position
    if across is OMITTED:
        # INDEX(A1:E1, 3) counts along a single row; a single column takes column 1
        if grid.height == 1 and grid.width > 1:
            down, across = 1, down
        else:
            across = 1 if grid.width == 1 else 0
    if down < 0 or across < 0:
        return value_error(f"INDEX positions cannot be negative; got row {down}, column {across}.")
    if down > grid.height or across > grid.width:
        return ref_error(f"INDEX row {down}, column {across} is outside the {shape(grid)} range.")
    rows = grid.rows if down == 0 else [grid.rows[down - 1]]
    picked = [list(line) if across == 0 else [line[across - 1]] for line in rows]
    return picked[0][0] if len(picked) == 1 and len(picked[0]) == 1 else Grid(picked)


def match(ctx, value, array, match_type=OMITTED):
    """MATCH: the 1-based position of a value in one row or column (type 1 sorted ascending, 0 exact
    with wildcards, -1 sorted descending)."""
    target = _lookup_value(value)
    if isinstance(target, CellError):
        return target
    if isinstance(array, CellError):
        return array
    grid = cells(array)
    if grid.width != 1 and grid.height != 1:
        return na(f"MATCH needs a single row or column; got {shape(grid)}.")
    kind = 1 if match_type is OMITTED else integer(match_type)
    if isinstance(kind, CellError):
        return kind
    hit = kept_exact(target, grid) if kind == 0 else _SCAN
    if hit is _SCAN:
        keys = _line(grid)
        hit = exact(target, keys) if kind == 0 else sorted_match(target, keys, descending=kind < 0)
    if hit is None:
        return na(f"MATCH found no match for {describe(target)}.")
    return float(hit + 1)


def rows(ctx, array):
    """ROWS: the number of rows of a range."""
    return array if isinstance(array, CellError) else float(cells(array).height)


def columns(ctx, array):
    """COLUMNS: the number of columns of a range."""
    return array if isinstance(array, CellError) else float(cells(array).width)


SPECS = {
    "VLOOKUP": (vlookup, 3, 4),
    "HLOOKUP": (hlookup, 3, 4),
    "XLOOKUP": (xlookup, 3, 6),
    "INDEX": (index, 2, 3),
    "MATCH": (match, 2, 3),
    "ROWS": (rows, 1, 1),
    "COLUMNS": (columns, 1, 1),
}
