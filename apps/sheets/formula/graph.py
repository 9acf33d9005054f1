"""A workbook in memory: its cells, which formulas depend on which cells, and recalculation of only
what a change reaches, in dependency order, with circular references found and marked.

Services load a Book from the database, `put` the cells that change, call `recalculate` with them,
and write back the values it reports changed.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from datetime import date

from .a1 import Area, cell_text, quote_sheet
from .evaluator import evaluate, final_value
from .ranges import RangeCache
from .values import CellError, Grid, ref_error, value_error

Key = tuple[int, int, int]  # (sheet id, row, column), 0-based
MAX_GRID = 2_000_000  # cells one range may read at once
_WIDE = 32  # ranges wider than this are checked one by one rather than per column
VOLATILE = frozenset({"TODAY", "NOW"})


@dataclass(frozen=True)
class Context:
    """What functions may read besides cells: the company's simulated date."""

    today: date


@dataclass
class CellState:
    """One stored cell: the input as typed, its parsed formula (or None) and its value."""

    raw: str
    formula: tuple | None
    value: object


_REFERENCES: dict[int, tuple[tuple, tuple[tuple[tuple, ...], bool]]] = {}


def references(tree: tuple) -> tuple[tuple[tuple, ...], bool]:
    """(the areas and names a formula reads, whether it is volatile) for a syntax tree, remembered
    per tree object (trees come from the parse cache, so one text gives one object; hashing a
    nested tuple on every lookup would cost more than the walk)."""
    known = _REFERENCES.get(id(tree))
    if known is not None and known[0] is tree:
        return known[1]
    if len(_REFERENCES) > 200_000:
        _REFERENCES.clear()
    result = _walk(tree)
    _REFERENCES[id(tree)] = (tree, result)
    return result


def _walk(tree: tuple) -> tuple[tuple[tuple, ...], bool]:
    found, volatile, stack = [], False, [tree]
    while stack:
        node = stack.pop()
        kind = node[0]
        if kind == "ref":
            found.append(("area", node[1]))
        elif kind == "name":
            found.append(("name", node[1]))
        elif kind == "call":
            volatile = volatile or node[1] in VOLATILE
            stack.extend(node[2])
        elif kind == "bin":
            stack.extend((node[2], node[3]))
        elif kind in ("neg", "pos", "pct"):
            stack.append(node[1])
    return tuple(found), volatile


class Book:
    """The cells of one workbook with a dependency index, evaluating formulas on demand.

    Ranges read for formulas are kept between recalculations (see ranges.py) and patched as cells
    change, so change `cells` only through put, load and recalculate."""

    def __init__(self, sheets: dict[int, str], today: date, names: dict[str, Area] | None = None,
                 ranges: RangeCache | None = None):
        self.sheet_names = dict(sheets)
        self.sheet_ids = {name.lower(): sid for sid, name in sheets.items()}
        self.names = {k.upper(): v for k, v in (names or {}).items()}
        self.ctx = Context(today)
        self.cells: dict[Key, CellState] = {}
        self.extent: dict[int, list[int]] = {sid: [-1, -1] for sid in sheets}
        self.points: dict[Key, set[Key]] = {}
        self.columns: dict[tuple[int, int], list[tuple[int, int, Key]]] = {}
        self.wide: dict[int, list[tuple[Area, Key]]] = {}
        self.volatile: set[Key] = set()
        self._entries: dict[Key, list] = {}
        self.ranges = RangeCache() if ranges is None else ranges

    # ---------------------------------------------------------------- cells
    def put(self, key: Key, raw: str, formula: tuple | None, value=None) -> None:
        """Store a cell (a formula's value is kept until recalculated); an empty raw removes it."""
        self._unindex(key)
        # kept ranges hold what a read gives now: the value stored (None for a removed cell)
        self.ranges.patch(key, value)
        if not raw and formula is None and value is None:
            self.cells.pop(key, None)
            return
        self.cells[key] = CellState(raw, formula, value)
        bounds = self.extent.setdefault(key[0], [-1, -1])
        if key[1] > bounds[0] or key[2] > bounds[1]:
            bounds[0], bounds[1] = max(bounds[0], key[1]), max(bounds[1], key[2])
            self.ranges.drop_clipped(key[0])
        if formula is not None:
            self._index(key, formula)

    def value(self, key: Key):
        """The current value of a cell (None when empty)."""
        state = self.cells.get(key)
        return state.value if state else None

    def formula_keys(self) -> list[Key]:
        """Every cell holding a formula."""
        return [k for k, s in self.cells.items() if s.formula is not None]

    # ---------------------------------------------------------------- what the evaluator reads
    def _sheet_id(self, name: str) -> int | None:
        return self.sheet_ids.get(name.lower())

    def cell(self, sheet: str, row: int, col: int):
        """A cell's value by sheet name."""
        sid = self._sheet_id(sheet)
        if sid is None:
            return ref_error(f"There is no sheet named {sheet!r} in this workbook.")
        state = self.cells.get((sid, row, col))
        return state.value if state else None

    def grid(self, sheet: str, area: Area):
        """The values of an area, clipped to the part of the sheet that has cells."""
        sid = self._sheet_id(sheet)
        if sid is None:
            return ref_error(f"There is no sheet named {sheet!r} in this workbook.")
        max_row, max_col = self.extent.get(sid, [-1, -1])
        bottom = min(area.bottom, max_row) if area.whole == "cols" else area.bottom
        right = min(area.right, max_col) if area.whole == "rows" else area.right
        if bottom < area.top or right < area.left:
            return Grid([[None]])
        size = (bottom - area.top + 1) * (right - area.left + 1)
        if size > MAX_GRID:
            return value_error(f"The range {area.text()} is larger than {MAX_GRID:,} cells.")
        ranges = self.ranges
        kept = ranges.min_cells <= size <= ranges.max_cells  # a few cells read as fast as a lookup
        if kept:
            bounds = (sid, area.top, area.left, bottom, right)
            grid = ranges.get(bounds)
            if grid is not None:
                return grid
        get = self.cells.get
        flat = [state.value if (state := get((sid, row, col))) is not None else None
                for row in range(area.top, bottom + 1) for col in range(area.left, right + 1)]
        if kept:
            return ranges.keep(bounds, flat, bottom < area.bottom or right < area.right)
        width = right - area.left + 1
        return Grid([flat[i:i + width] for i in range(0, size, width)])

    def named(self, name: str) -> Area | None:
        """The area a named range stands for (with its sheet), or None."""
        return self.names.get(name.upper())

    # ---------------------------------------------------------------- dependency index
    def _areas_of(self, key: Key, formula: tuple) -> tuple[list[tuple[int, Area]], bool]:
        found, volatile = references(formula)
        areas = []
        for kind, item in found:
            area = item if kind == "area" else self.names.get(item)
            if area is None:
                continue
            if area.sheet is None:
                areas.append((key[0], area))
            else:
                sid = self.sheet_ids.get(area.sheet.lower())
                if sid is not None:
                    areas.append((sid, area))
        return areas, volatile

    def load(self, cells: list[tuple[Key, str, tuple | None, object]]) -> None:
        """Fill an empty book at once (faster than put for a whole workbook)."""
        self.ranges.clear()  # cheaper than patching them cell by cell
        store, extent = self.cells, self.extent
        for key, raw, formula, value in cells:
            store[key] = CellState(raw, formula, value)
            bounds = extent.setdefault(key[0], [-1, -1])
            if key[1] > bounds[0]:
                bounds[0] = key[1]
            if key[2] > bounds[1]:
                bounds[1] = key[2]
            if formula is not None:
                self._index(key, formula)

    def _index(self, key: Key, formula: tuple) -> None:
        areas, volatile = self._areas_of(key, formula)
        entries = []
        for sid, area in areas:
            if area.single:
                point = (sid, area.top, area.left)
                self.points.setdefault(point, set()).add(key)
                entries.append(("point", point))
            elif area.width <= _WIDE:
                for col in range(area.left, area.right + 1):
                    item = (area.top, area.bottom, key)
                    self.columns.setdefault((sid, col), []).append(item)
                    entries.append(("column", (sid, col), item))
            else:
                self.wide.setdefault(sid, []).append((area, key))
                entries.append(("wide", sid, (area, key)))
        if volatile:
            self.volatile.add(key)
        self._entries[key] = entries

    def _unindex(self, key: Key) -> None:
        for entry in self._entries.pop(key, ()):
            if entry[0] == "point":
                self.points[entry[1]].discard(key)
            elif entry[0] == "column":
                self.columns[entry[1]].remove(entry[2])
            else:
                self.wide[entry[1]].remove(entry[2])
        self.volatile.discard(key)

    def dependents(self, key: Key) -> set[Key]:
        """Formula cells that read this cell directly."""
        sid, row, col = key
        found = set(self.points.get(key, ()))
        for top, bottom, formula in self.columns.get((sid, col), ()):
            if top <= row <= bottom:
                found.add(formula)
        for area, formula in self.wide.get(sid, ()):
            if area.contains(row, col):
                found.add(formula)
        return found

    # ---------------------------------------------------------------- recalculation
    def recalculate(self, changed) -> set[Key]:
        """Recompute every formula reached from the changed cells (and volatile ones), in dependency
        order; cells on a circular reference get #REF!. Returns the cells whose value changed."""
        self.ranges.tick()
        dirty, edges, queue = set(), {}, deque()
        for key in list(changed) + sorted(self.volatile):
            if key in self.cells and self.cells[key].formula is not None and key not in dirty:
                dirty.add(key)
            queue.append(key)
        seen = set()
        while queue:
            key = queue.popleft()
            if key in seen:
                continue
            seen.add(key)
            for dependent in self.dependents(key):
                edges.setdefault(key, set()).add(dependent)
                if dependent not in dirty:
                    dirty.add(dependent)
                    queue.append(dependent)
        return self._evaluate_in_order(dirty, edges)

    def _evaluate_in_order(self, dirty: set[Key], edges: dict[Key, set[Key]]) -> set[Key]:
        waiting = {key: 0 for key in dirty}
        for source, targets in edges.items():
            if source in dirty:
                for target in targets:
                    waiting[target] += 1
        ready = sorted(k for k, n in waiting.items() if n == 0)
        changed = set()

        def release(key: Key) -> None:
            for target in edges.get(key, ()):
                waiting[target] -= 1
                if waiting[target] == 0:
                    ready.append(target)

        while True:
            while ready:
                key = ready.pop()
                del waiting[key]
                state = self.cells[key]
                self._set(key, final_value(evaluate(state.formula, self, self.sheet_names[key[0]])), changed)
                release(key)
            if not waiting:
                return changed
            cycles = self._cycles(set(waiting), edges) or [set(waiting)]  # the fallback cannot loop forever
            for cycle in cycles:
                cells = ", ".join(self.label(k) for k in sorted(cycle))
                for key in cycle:
                    self._set(key, CellError("#REF!", f"Circular reference among {cells}."), changed)
                for key in cycle:
                    del waiting[key]
                for key in cycle:
                    for target in edges.get(key, ()):
                        if target in waiting:
                            waiting[target] -= 1
                            if waiting[target] == 0:
                                ready.append(target)

    def _set(self, key: Key, value, changed: set[Key]) -> None:
        state = self.cells[key]
        old = state.value
        if type(old) is not type(value) or old != value or (
                isinstance(value, CellError) and value.detail != old.detail):
            state.value = value
            changed.add(key)
            self.ranges.patch(key, value)

    @staticmethod
    def _cycles(nodes: set[Key], edges: dict[Key, set[Key]]) -> list[set[Key]]:
        """Strongly connected groups among the stuck nodes that really loop (Kosaraju, iteratively)."""
        order, visited = [], set()
        for start in sorted(nodes):
            if start in visited:
                continue
            visited.add(start)
            stack = [(start, iter(sorted(t for t in edges.get(start, ()) if t in nodes)))]
            while stack:
                node, children = stack[-1]
                child = next(children, None)
                if child is None:
                    stack.pop()
                    order.append(node)
                elif child not in visited:
                    visited.add(child)
                    stack.append((child, iter(sorted(t for t in edges.get(child, ()) if t in nodes))))
        reverse: dict[Key, list[Key]] = {}
        for source in nodes:
            for target in edges.get(source, ()):
                if target in nodes:
                    reverse.setdefault(target, []).append(source)
        groups, assigned = [], set()
        for start in reversed(order):
            if start in assigned:
                continue
            group, stack = set(), [start]
            assigned.add(start)
            while stack:
                node = stack.pop()
                group.add(node)
                for source in reverse.get(node, ()):
                    if source not in assigned:
                        assigned.add(source)
                        stack.append(source)
            if len(group) > 1 or start in edges.get(start, ()):
                groups.append(group)
        return groups

    def label(self, key: Key) -> str:
        """A cell as Sheet!A1."""
        return f"{quote_sheet(self.sheet_names.get(key[0], '?'))}!{cell_text(key[1], key[2])}"

