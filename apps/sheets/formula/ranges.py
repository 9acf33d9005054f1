"""Range values kept between recalculations.

A Book reads the same large ranges (whole columns, named ranges) for many formulas, and again after
every write; reading one cell by cell costs far more than the function that uses it. So the Book
keeps the ranges it reads here (each a range_entry.RangeEntry, with what functions derive from it)
and patches a kept range cell by cell when a value inside changes instead of reading it again.

A kept range always equals what reading its cells afresh gives: every change of a cell's value or
presence (Book.put, Book.load, Book._set) calls `RangeCache.patch`.

A range is kept from its second read on, so that one read once (as most are in a full
recalculation of many distinct ranges) costs no more than a plain read. Memory is bounded: ranges of
fewer than `min_cells` or more than `max_cells` cells are not kept, and the cost kept (cells, rows,
and derived numbers and positions) never passes `budget`. To make room, ranges idle since before the
previous recalculation are dropped, least recently used first; ranges read in this or the previous
recalculation are not, so a recalculation that reads more than fits (as a long column of running
totals does) keeps what fits instead of dropping each range before its turn.
"""

from __future__ import annotations

from collections import OrderedDict

from .range_entry import RangeEntry, rows_of
from .values import Grid

Bounds = tuple[int, int, int, int, int]  # (sheet id, top, left, bottom, right), 0-based, inclusive
_BLOCK = 6  # kept ranges are found by column and block of 2**6 rows, so a patch checks few of them
_WIDE = 32  # ranges wider than this are listed per sheet rather than per column
_SEEN = 4_096  # ranges remembered as read once, to keep them when read again


class RangeCache:
    """The ranges one Book keeps, least recently used first, found by where their cells are."""

    def __init__(self, budget: int = 300_000, min_cells: int = 16, max_cells: int = 100_000):
        self.budget, self.min_cells, self.max_cells = budget, min_cells, max_cells
        self.entries: OrderedDict[Bounds, RangeEntry] = OrderedDict()
        self.cost = 0
        self.generation = 0  # recalculations begun
        self._narrow: dict[tuple[int, int, int], set[RangeEntry]] = {}
        self._wide: dict[int, set[RangeEntry]] = {}
        self._seen: set[Bounds] = set()

    def tick(self) -> None:
        """A recalculation begins."""
        self.generation += 1

    def get(self, bounds: Bounds) -> Grid | None:
        """The kept Grid of a range, or None."""
        entry = self.entries.get(bounds)
        if entry is None:
            return None
        entry.used = self.generation
        self.entries.move_to_end(bounds)
        return entry.grid

    def keep(self, bounds: Bounds, flat: list, clipped: bool) -> Grid:
        """A Grid of values just read (row by row), kept when read before and there is room."""
        width = bounds[4] - bounds[2] + 1
        seen = self._seen
        if bounds not in seen:
            if len(seen) >= _SEEN:
                seen.clear()
            seen.add(bounds)
            return Grid(rows_of(flat, width))
        if not self.room(len(flat) + len(flat) // width):
            return Grid(rows_of(flat, width))
        seen.discard(bounds)
        entry = RangeEntry(self, bounds, flat, clipped)
        self.entries[bounds] = entry
        self.cost += entry.cost
        if width > _WIDE:
            self._wide.setdefault(entry.sheet, set()).add(entry)
        else:
            for place in self._places(entry):
                self._narrow.setdefault(place, set()).add(entry)
        return entry.grid

    def room(self, amount: int) -> bool:
        """Whether `amount` more fits within the budget, dropping idle ranges to make room."""
        entries = self.entries
        while self.cost + amount > self.budget:
            oldest = next(iter(entries.values()), None)
            if oldest is None or oldest.used >= self.generation - 1:
                return False
            self._drop(oldest)
        return True

    def patch(self, key: tuple[int, int, int], value) -> None:
        """A cell's value changed (None: empty or removed): update every kept range holding it."""
        if not self.entries:
            return
        sheet, row, col = key
        for entry in self._narrow.get((sheet, col, row >> _BLOCK), ()):
            if entry.top <= row <= entry.bottom:
                entry.patch(row, col, value)
        for entry in self._wide.get(sheet, ()):
            if entry.top <= row <= entry.bottom and entry.left <= col <= entry.right:
                entry.patch(row, col, value)
        # patched indexes may grow a little: drop the least recently used (no function reads now)
        while self.cost > self.budget and self.entries:
            self._drop(next(iter(self.entries.values())))

    def drop_clipped(self, sheet: int) -> None:
        """The sheet grew: ranges cut at its old edge are no longer what whole rows or columns read."""
        for entry in [e for e in self.entries.values() if e.sheet == sheet and e.clipped]:
            self._drop(entry)

    def clear(self) -> None:
        """Forget every kept range."""
        for entry in list(self.entries.values()):
            self._drop(entry)

    @staticmethod
    def _places(entry: RangeEntry):
        for col in range(entry.left, entry.right + 1):
            for block in range(entry.top >> _BLOCK, (entry.bottom >> _BLOCK) + 1):
                yield entry.sheet, col, block

    def _drop(self, entry: RangeEntry) -> None:
        del self.entries[(entry.sheet, entry.top, entry.left, entry.bottom, entry.right)]
        self.cost -= entry.cost
        entry.grid.entry = None  # a function still holding the grid reads it as a plain one
        if entry.width > _WIDE:
            self._wide[entry.sheet].discard(entry)
            return
        for place in self._places(entry):
            bucket = self._narrow[place]
            bucket.discard(entry)
            if not bucket:
                del self._narrow[place]
