"""Checks of workbooks: edits confined to named ranges, and formulas that follow their inputs.

`cells_guard` is the sheets task's "nothing else changed": every cell of the workbook outside the
ranges a task names must keep its input and number format (formulas included; a formula's value
may change when its inputs do). Where the task inserts rows, the start state is first moved as the
app's own insert would move it, references included, and then compared cell by cell.

`formulas_follow` checks a whole range of formulas by behaviour: it types new inputs into an
in-memory copy of the final workbook and checks that every cell of the range computes what it
should, so typed numbers, or a formula in the first cell above typed numbers, fail.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from officegym.apps.sheets.book import all_rows, cell_value, read_book
from officegym.apps.sheets.formula.a1 import cell_text, parse_area
from officegym.apps.sheets.formula.shift import Edit
from officegym.apps.sheets.models import Cell, Sheet, Workbook
from officegym.apps.sheets.tabs import rewrite_all

from .checks import Allow, CheckResult, GradeContext, check, guard

VALUE_FIELDS = ("kind", "number", "text", "note")


@dataclass(frozen=True)
class Region:
    """A rectangle of one sheet (0-based, inclusive) that a task may change."""

    sheet_id: int
    top: int
    left: int
    bottom: int
    right: int

    def holds(self, sheet_id: int, row: int, col: int) -> bool:
        """Whether a cell lies inside."""
        return sheet_id == self.sheet_id and self.top <= row <= self.bottom and self.left <= col <= self.right


def sheet_ids(session: Session, workbook_id: int) -> dict[str, int]:
    """A workbook's sheets: lower-cased name -> id."""
    return {n.lower(): i for i, n in session.execute(select(Sheet.id, Sheet.name).where(Sheet.workbook_id == workbook_id))}


def regions(session: Session, workbook_id: int, ranges: list[str]) -> list[Region]:
    """The named ranges ("Budget!K1:K12", "'Closed Won'!A5:E9") as regions of the workbook in
    `session`; a range on a sheet the workbook does not have names nothing."""
    ids = sheet_ids(session, workbook_id)
    found = []
    for text in ranges:
        area = parse_area(text)
        sheet_id = ids.get((area.sheet or "").lower())
        if sheet_id is not None:
            found.append(Region(sheet_id, area.top, area.left, area.bottom, area.right))
    return found


def allow_workbook_cells(ctx: GradeContext, workbook_id: int) -> list[Allow]:
    """Allowances that leave a workbook's cells to `cells_guard` (which checks them cell by cell)
    and permit its change stamp."""
    mine = set(sheet_ids(ctx.start, workbook_id).values()) | set(sheet_ids(ctx.final, workbook_id).values())
    return [Allow("sheets_cell", ("added", "updated", "removed"), lambda r: r["sheet_id"] in mine,
                  ("raw", "number_format") + VALUE_FIELDS, limit=None),
            Allow("sheets_workbook", ("updated",), lambda r: r["id"] == workbook_id, ("updated_at", "version"))]


def cells_guard(ctx: GradeContext, workbook_id: int, ranges: list[str],
                inserted: tuple[str, int, int] | None = None) -> CheckResult:
    """A guard: no cell of the workbook outside `ranges` (final coordinates) changed its input or
    format. `inserted` = (sheet, at, count): `count` rows were inserted before 0-based row `at`."""
    allowed = regions(ctx.final, workbook_id, ranges)
    inside = lambda s, r, c: any(a.holds(s, r, c) for a in allowed)  # noqa: E731
    names = {i: n for session in (ctx.start, ctx.final)
             for i, n in session.execute(select(Sheet.id, Sheet.name).where(Sheet.workbook_id == workbook_id))}
    changed = _changes_moved(ctx, workbook_id, inserted) if inserted else _changes_logged(ctx, workbook_id)
    outside = [f"{names.get(s, s)}!{cell_text(r, c)}: {before!r} -> {after!r}"
               for (s, r, c), before, after in changed if not inside(s, r, c)]
    where = ", ".join(ranges) or "nothing"
    return guard(f"No cell outside {where} changed (formulas included)", not outside,
                 f"{len(outside)} cells changed outside: {'; '.join(outside[:5])}")


def _changes_logged(ctx: GradeContext, workbook_id: int) -> list[tuple[tuple, str, str]]:
    """Cells whose input or format changed, from the diff (a recomputed value is no change)."""
    mine = set(sheet_ids(ctx.start, workbook_id).values()) | set(sheet_ids(ctx.final, workbook_id).values())
    table = ctx.diff.table("sheets_cell")
    found = [((r["sheet_id"], r["row"], r["col"]), "", r["raw"]) for r in table.added if r["sheet_id"] in mine]
    found += [((r["sheet_id"], r["row"], r["col"]), r["raw"], "") for r in table.removed if r["sheet_id"] in mine]
    found += [(u.key, u.before["raw"], u.after["raw"]) for u in table.updated
              if u.after["sheet_id"] in mine and not set(u.fields) <= set(VALUE_FIELDS)]
    return found


def _changes_moved(ctx: GradeContext, workbook_id: int, inserted: tuple[str, int, int]) -> list[tuple]:
    """Cells that differ between the start moved by the insert and the final workbook."""
    sheet_name, at, count = inserted
    start_book = ctx.start.get(Workbook, workbook_id)
    exact = {s.id: s.name for s in ctx.start.scalars(select(Sheet).where(Sheet.workbook_id == workbook_id))}
    moved_sheet = next((i for i, n in exact.items() if n.lower() == sheet_name.lower()), None)
    expected = {}
    for item in rewrite_all(all_rows(ctx.start, start_book), exact, Edit("insert_rows", exact.get(moved_sheet, ""),
                                                                         at, count)):
        row = item["row"] + count if item["sheet_id"] == moved_sheet and item["row"] >= at else item["row"]
        expected[(item["sheet_id"], row, item["col"])] = (item["raw"], item["number_format"])
    final_book = ctx.final.get(Workbook, workbook_id)  # None when the workbook was deleted
    final = {(i["sheet_id"], i["row"], i["col"]): (i["raw"], i["number_format"])
             for i in (all_rows(ctx.final, final_book) if final_book is not None else [])}
    return [(key, expected.get(key, ("", ""))[0], final.get(key, ("", ""))[0])
            for key in sorted(set(expected) | set(final)) if expected.get(key) != final.get(key)]


def value_of(cell: Cell | None):
    """A stored cell's computed value (None when empty)."""
    return None if cell is None else cell_value(cell.kind, cell.number, cell.text, cell.note)


def close(value, expected: float, tolerance: float = 0.005) -> bool:
    """A computed number within `tolerance` (absolute, or relative for large figures) of the expected one."""
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and abs(value - expected) <= max(tolerance, abs(expected) * 1e-9))


def formulas_respond(session: Session, workbook_id: int, targets: list[str], inputs: dict[str, float | str]) -> list:
    """The values the `targets` (such as Budget!K3) compute after typing `inputs` ({ref: number or
    text}) into an in-memory copy of the workbook as stored in `session` (None for a reference to
    no sheet)."""
    workbook = session.get(Workbook, workbook_id)
    if workbook is None:  # deleted
        return [None] * len(targets)
    book = read_book(session, workbook)
    keys = []
    for ref, typed in inputs.items():
        area = parse_area(ref)
        sid = book.sheet_ids.get((area.sheet or "").lower())
        if sid is None:
            return [None] * len(targets)
        key = (sid, area.top, area.left)
        value = typed if isinstance(typed, str) else float(typed)
        book.put(key, f"'{value}" if isinstance(value, str) else repr(value), None, value)
        keys.append(key)
    book.recalculate(keys)
    values = []
    for target in targets:
        area = parse_area(target)
        sid = book.sheet_ids.get((area.sheet or "").lower())
        values.append(None if sid is None else book.value((sid, area.top, area.left)))
    return values


def formulas_follow(session: Session, workbook_id: int, cells: list[str], what: str,
                    inputs: dict[str, float | str], expected: list[float], weight: float = 2.0,
                    tolerance: float = 0.01) -> CheckResult:
    """Every cell of `cells` ('Sheet'!B2 ...) holds a formula, and each computes its `expected`
    value (within `tolerance`) once `inputs` change, so typed numbers that happen to match fail."""
    requirement = f"{what} {'is a formula that follows its' if len(cells) == 1 else 'are formulas that follow their'} inputs"
    typed = []
    ids = sheet_ids(session, workbook_id)
    for ref in cells:
        area = parse_area(ref)
        sid = ids.get((area.sheet or "").lower())
        cell = session.get(Cell, (sid, area.top, area.left)) if sid is not None else None
        if cell is None or not cell.raw.startswith("="):
            typed.append(f"{ref} holds {cell.raw if cell else 'nothing'!r}")
    if typed:
        return check(requirement, False, "; ".join(typed[:4]), weight)
    got = formulas_respond(session, workbook_id, cells, inputs)
    wrong = [f"{ref} computes {g!r}, not {e:g}" for ref, g, e in zip(cells, got, expected) if not close(g, e, tolerance)]
    changed = ", ".join(f"{k} = {v!r}" for k, v in inputs.items())
    return check(requirement, not wrong, f"with {changed}: {'; '.join(wrong[:4])}", weight)
