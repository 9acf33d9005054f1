"""One range a Book keeps between recalculations (see ranges.py): its values, and what functions
derive from them, patched cell by cell as values change.

What a kept range derives, from the second time a function asks (so that a range a function reads
once costs no more than a plain read):
- numbers: the numbers SUM-like functions read, in order (or the first error); a number changing to
  another is patched in place, any other change drops them;
- index: value key (see `filed_under`) -> ascending positions, so that equality criteria and exact
  lookups find their cells without comparing every one; patched in place;
- matches: ascending positions meeting one other criterion (such as "<46097"); patched in place.
Positions count row by row from the top-left cell. Lists handed out are the kept ones: read only.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections import OrderedDict
from typing import Callable, Protocol

from .values import CellError, Grid, is_number, parse_number

BLANK = ("blank",)
MAX_MATCHES = 8  # other criteria remembered per range; each is re-tested on every patch


def filed_under(value) -> tuple:
    """The index keys of a cell value: its kind and value (texts folded for case); a text that reads
    as a number is also filed as ("t", number), apart from real numbers, which lookups tell apart."""
    if value is None:
        return (BLANK,)
    if isinstance(value, bool):
        return (("b", value),)
    if isinstance(value, str):
        number = parse_number(value)
        text = ("s", value.casefold())
        return (text,) if number is None else (text, ("t", number))
    if isinstance(value, CellError):
        return (("e", value.code),)
    if is_number(value):
        return (("n", float(value)),)
    return ()


def rows_of(flat: list, width: int) -> list[list]:
    """Values row by row from values in one list."""
    if width == 1:
        return [[value] for value in flat]
    return [flat[i:i + width] for i in range(0, len(flat), width)]


def _numbers_of(flat: list, kept: bool) -> tuple[CellError | None, list[float] | None, list[int] | None]:
    """(the first error, None, None) or (None, the numbers as floats, where each one is when kept)."""
    found: list[float] = []
    at: list[int] = []
    for i, value in enumerate(flat):
        if type(value) is float:  # the usual case, first and without a call
            found.append(value)
        elif isinstance(value, CellError):
            return value, None, None
        elif is_number(value):
            found.append(float(value))
        else:
            continue
        if kept:
            at.append(i)
    return None, found, at


class Keeper(Protocol):
    """What a kept range needs of the cache that keeps it (ranges.RangeCache): the recalculations
    begun, the cost kept, and room within the budget."""

    generation: int
    cost: int

    def room(self, amount: int) -> bool:
        """Whether `amount` more fits within the budget."""


class RangeEntry:
    """One kept range of a sheet: its Grid, its values flat (row by row) and what was derived."""

    __slots__ = ("cache", "sheet", "top", "left", "bottom", "right", "width", "clipped", "grid", "flat", "used",
                 "asked", "kept_numbers", "index", "matches", "cost")

    def __init__(self, cache: Keeper, bounds: tuple[int, int, int, int, int], flat: list, clipped: bool):
        self.cache = cache
        self.sheet, self.top, self.left, self.bottom, self.right = bounds
        self.width = self.right - self.left + 1
        self.clipped = clipped  # cut at the sheet's last row or column, so a grown sheet reads more
        self.flat = flat
        self.grid = Grid(rows_of(flat, self.width), self)
        self.used = cache.generation  # the last recalculation that read it
        self.asked = {"numbers": 0, "index": 0, "matches": 0}
        self.kept_numbers: tuple[CellError | None, list[float] | None, list[int] | None] | None = None
        self.index: dict[tuple, list[int]] | None = None
        self.matches: OrderedDict[str, tuple[Callable, list[int]]] = OrderedDict()
        self.cost = len(flat) + len(self.grid.rows)

    def _derive(self, kind: str, bound: int) -> bool:
        """Whether to keep something derived of at most `bound` items: asked before, and room for it."""
        self.asked[kind] += 1
        return self.asked[kind] > 1 and self.grid.entry is not None and self.cache.room(bound)

    def _count(self, amount: int) -> None:
        self.cost += amount
        self.cache.cost += amount

    def numbers(self) -> tuple[CellError | None, list[float] | None]:
        """(the first error, None) or (None, the numbers as floats), as fn_common.numbers reads a range."""
        kept = self.kept_numbers
        if kept is None:
            keep = self._derive("numbers", 2 * len(self.flat))
            kept = _numbers_of(self.flat, keep)
            if keep:
                self.kept_numbers = kept
                self._count(2 * len(kept[1] or ()))
        return kept[0], kept[1]

    def positions(self, keys: tuple) -> list[int] | None:
        """Ascending positions of the cells filed under any of `keys` (keys file disjoint cells), or
        None while the range has no index (the caller compares cells itself)."""
        index = self.index
        if index is None:
            if not self._derive("index", 2 * len(self.flat)):  # at most two keys per cell
                return None
            index = self.index = {}
            for i, value in enumerate(self.flat):
                for key in filed_under(value):
                    found = index.get(key)
                    if found is None:
                        index[key] = [i]
                    else:
                        found.append(i)
            self._count(sum(len(found) for found in index.values()))
        lists = [index[key] for key in keys if key in index]
        if len(lists) == 1:
            return lists[0]
        return sorted(i for found in lists for i in found)

    def matching(self, token: str, test: Callable) -> list[int]:
        """Ascending positions of the cells `test` accepts; `token` names the criterion test stands for."""
        known = self.matches.get(token)
        if known is not None:
            self.matches.move_to_end(token)
            return known[1]
        found = [i for i, value in enumerate(self.flat) if test(value)]
        if self._derive("matches", len(found)):
            if len(self.matches) >= MAX_MATCHES:
                self._count(-len(self.matches.popitem(last=False)[1][1]))
            self.matches[token] = (test, found)
            self._count(len(found))
        return found

    def patch(self, row: int, col: int, value) -> None:
        """Put a cell's new value into the range and everything derived from it."""
        r, c = row - self.top, col - self.left
        i = r * self.width + c
        old = self.flat[i]
        if old is value:
            return
        self.flat[i] = value
        self.grid.rows[r][c] = value
        delta = 0
        if self.kept_numbers is not None:
            error, found, at = self.kept_numbers
            if error is None and is_number(old) and is_number(value):
                found[bisect_left(at, i)] = float(value)  # same place in the list, so same order
            else:  # rebuilt on next use: numbers come or go, or an error does
                delta -= 2 * len(found or ())
                self.kept_numbers = None
        index = self.index
        if index is not None:
            for key in filed_under(old):
                found = index[key]
                del found[bisect_left(found, i)]
                if not found:
                    del index[key]
                delta -= 1
            for key in filed_under(value):
                found = index.get(key)
                if found is None:
                    index[key] = [i]
                else:
                    insort(found, i)
                delta += 1
        for test, found in self.matches.values():
            was, now = bool(test(old)), bool(test(value))
            if was and not now:
                del found[bisect_left(found, i)]
                delta -= 1
            elif now and not was:
                insort(found, i)
                delta += 1
        self._count(delta)
