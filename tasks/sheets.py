"""Sheets task templates that change one figure or one setting of a seeded workbook, and the helpers
every sheets task module shares: set a department's budget line, change the benefits assumption,
plan more hires, share a workbook.

Graders read computed values from the final state, name the exact cells a task may change
(`sheet_guards`: nothing outside them changes, formulas included) and check formulas by behaviour
(graders.sheets.formulas_follow)."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from officegym.apps.org.models import Person
from officegym.apps.sheets.book import cell_value
from officegym.apps.sheets.cells import MAX_READ
from officegym.apps.sheets.formula.a1 import cell_text, col_name, quote_sheet
from officegym.apps.sheets.models import Cell, Share, Sheet, Workbook
from officegym.graders.checks import Allow, CheckResult, check, nothing_else_changed
from officegym.graders.sheets import allow_workbook_cells, cells_guard, close, value_of

from .base import Declaration, TaskInstance, TaskTemplate, Target, ToolCall
from .common import everyone, named, pick
from .registry import register
from .split import in_split, person_in

BUDGET_LINES = {"Software": "F", "Travel": "G", "Other": "H"}


# ---------------------------------------------------------------- helpers shared by sheets task modules

def workbook_titled(session: Session, prefix: str) -> Workbook | None:
    """The first workbook whose title starts with `prefix` (seeded titles carry the year)."""
    return session.scalars(select(Workbook).where(Workbook.title.startswith(prefix)).order_by(Workbook.id)).first()


def sheet_named(session: Session, workbook_id: int, name: str) -> Sheet | None:
    """A sheet (tab) of a workbook by exact name."""
    return session.scalar(select(Sheet).where(Sheet.workbook_id == workbook_id, Sheet.name == name))


def first_sheet(session: Session, workbook_id: int) -> Sheet:
    """A workbook's first tab."""
    return session.scalars(select(Sheet).where(Sheet.workbook_id == workbook_id).order_by(Sheet.position)).first()


def a1(sheet: str, row: int, col: int) -> str:
    """A cell as tool arguments name it: Budget!F3, 'Closed Won'!A11 (row and col 0-based)."""
    return f"{quote_sheet(sheet)}!{cell_text(row, col)}"


def read_calls(workbook_id: int, sheet: str, width: int, rows: int) -> list[ToolCall]:
    """`sheets_read_range` calls reading the first `width` columns of rows 1..`rows` of a sheet, as
    few as the tool's cell limit allows (a large company's sheets take several)."""
    step = MAX_READ // width
    return [ToolCall("sheets_read_range", {"workbook": workbook_id,
                                           "range": f"{sheet}!A{top}:{col_name(width - 1)}{min(rows, top + step - 1)}"})
            for top in range(1, rows + 1, step)]


def values(session: Session, sheet_id: int) -> dict[tuple[int, int], object]:
    """Computed values of a sheet by (row, col), 0-based (read as plain columns: sheets grow large)."""
    stored = select(Cell.row, Cell.col, Cell.kind, Cell.number, Cell.text, Cell.note).where(Cell.sheet_id == sheet_id)
    return {(row, col): cell_value(kind, number, text, note) for row, col, kind, number, text, note in
            session.execute(stored)}


def row_labelled(cells: dict, label: str, col: int = 0) -> int | None:
    """The first row (0-based) whose cell in `col` reads `label`, ignoring case and spaces."""
    wanted = " ".join(label.casefold().split())
    for (row, c), value in sorted(cells.items()):
        if c == col and isinstance(value, str) and " ".join(value.casefold().split()) == wanted:
            return row
    return None


def editors(session: Session, workbook: Workbook, split: str | None = None) -> list[Person]:
    """The owner and the people a workbook is shared with as editors, by id (of `split`, when given)."""
    ids = {workbook.owner_id} | set(session.scalars(select(Share.person_id).where(
        Share.workbook_id == workbook.id, Share.role == "editor")))
    return [p for p in everyone(session) if p.id in ids and (split is None or person_in(split, p.id))]


def is_number(value) -> bool:
    """A computed number (not a boolean)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def money(amount: float) -> str:
    """$12,400 or $12,400.50 for instructions."""
    return f"${amount:,.0f}" if amount == int(amount) else f"${amount:,.2f}"


def typed(cell: Cell | None, expected: float, tolerance: float = 0.005) -> bool:
    """A cell holds a typed number (not a formula) equal to `expected`."""
    return cell is not None and not cell.raw.startswith("=") and close(value_of(cell), expected, tolerance)


def sheet_guards(ctx, workbook_id: int, ranges: list[str], inserted: tuple[str, int, int] | None = None,
                 more: list[Allow] = ()) -> list[CheckResult]:
    """The guards of a task that edits one workbook: no cell outside `ranges` changed (after the
    rows `inserted`, if any), and nothing else in the workspace but `more`."""
    return [cells_guard(ctx, workbook_id, ranges, inserted),
            nothing_else_changed(ctx.diff, allow_workbook_cells(ctx, workbook_id) + list(more))]


# ---------------------------------------------------------------- templates

def _budget_rows(session: Session, workbook: Workbook) -> tuple[Sheet, dict, list[int], int]:
    """The Budget sheet, its values, the department rows (0-based) and the Total row."""
    sheet = sheet_named(session, workbook.id, "Budget")
    cells = values(session, sheet.id)
    total = row_labelled(cells, "Total")
    return sheet, cells, list(range(1, total)), total


@register
class SetBudgetLine(TaskTemplate):
    id, apps, difficulty = "sheets.set_budget_line", ("sheets",), 1
    split = "test"  # the Department Budgets workbook is of the test split, and so is its only editor (the CFO)
    summary = "Change one department's software, travel or other budget in the department budgets workbook."

    def sample(self, session, rng, instance):
        book = workbook_titled(session, "Department Budgets")
        sheet, cells, rows, _ = _budget_rows(session, book)
        row, (line, letter) = pick(rng, rows), pick(rng, sorted(BUDGET_LINES.items()))
        old = cells[(row, "ABCDEFGH".index(letter))]
        amount = pick(rng, [a for a in (max(500, round(old * f / 500) * 500) for f in (0.8, 0.9, 1.1, 1.15, 1.25, 1.4))
                            if a != old])
        actor = pick(rng, editors(session, book, self.split))
        dept = cells[(row, 0)]
        return TaskInstance(
            self.id, instance, actor.id,
            f"In the workbook \"{book.title}\", set the {dept} department's {line} budget to {money(amount)}. "
            "Change nothing else.",
            [ToolCall("sheets_read_range", {"workbook": book.title, "range": "Budget!A1:I20"}),
             ToolCall("sheets_write_cells", {"workbook": book.id, "cells": [
                {"cell": f"Budget!{letter}{row + 1}", "value": amount}]})],
            {"workbook": book.id, "row": row, "col": "ABCDEFGH".index(letter), "amount": amount, "dept": dept,
             "line": line})

    def declare(self, start, inst):
        p = inst.params
        _, _, rows, _ = _budget_rows(start, start.get(Workbook, p["workbook"]))
        others = [a1("Budget", r, c) for r in rows for c in (5, 6, 7) if (r, c) != (p["row"], p["col"])]
        return Declaration([Target("cell", a1("Budget", p["row"], p["col"]), others, {"workbook": p["workbook"]})])

    def check(self, ctx, inst):
        p = inst.params
        sheet = sheet_named(ctx.start, p["workbook"], "Budget")  # ids stay; the final may have renamed it
        now = ctx.final.get(Cell, (sheet.id, p["row"], p["col"]))
        total = ctx.final.get(Cell, (sheet.id, p["row"], 8))
        before = ctx.start.get(Cell, (sheet.id, p["row"], 8))
        old = value_of(ctx.start.get(Cell, (sheet.id, p["row"], p["col"])))
        target = self.declare(ctx.start, inst).targets[0].ref
        return [check(f"{p['dept']}'s {p['line']} budget is {money(p['amount'])}", typed(now, p["amount"]),
                      f"it holds {now.raw if now else 'nothing'!r}", weight=2),
                check(f"{p['dept']}'s total follows", close(value_of(total), value_of(before) - old + p["amount"]),
                      f"it reads {value_of(total)!r}"),
                *sheet_guards(ctx, p["workbook"], [target])]


@register
class UpdateBenefitsLoad(TaskTemplate):
    id, apps, difficulty = "sheets.update_benefits_load", ("sheets",), 1
    split = "test"  # the Department Budgets workbook is of the test split, and so is its only editor (the CFO)
    summary = "Change the benefits and payroll-tax assumption that every salary cost of the budget uses."

    def sample(self, session, rng, instance):
        book = workbook_titled(session, "Department Budgets")
        sheet = sheet_named(session, book.id, "Assumptions")
        current = round(value_of(session.get(Cell, (sheet.id, 1, 1))) * 1000)
        percent = pick(rng, [p for p in range(150, 360, 5) if p != current]) / 10
        actor = pick(rng, editors(session, book, self.split))
        why = pick(rng, ["Finance revised", "The new payroll provider quoted", "The auditors set",
                         "This year's benefits renewal brings"])
        return TaskInstance(
            self.id, instance, actor.id,
            f"{why} the benefits and payroll-tax load to {percent:g}%. Update the assumption in "
            f"\"{book.title}\" so that every salary cost uses it, and change nothing else.",
            [ToolCall("sheets_read_range", {"workbook": book.title, "range": "Assumptions!A1:C20"}),
             ToolCall("sheets_write_cells", {"workbook": book.id, "cells": [
                {"cell": "Assumptions!B2", "value": f"{percent:g}%"}]})],
            {"workbook": book.id, "percent": percent})

    def declare(self, start, inst):
        book = inst.params["workbook"]
        notes = values(start, sheet_named(start, book, "Assumptions").id)
        others = [a1("Assumptions", r, 1) for r, c in sorted(notes) if c == 1 and r > 1]
        return Declaration([Target("cell", "Assumptions!B2", others, {"workbook": book})])

    def check(self, ctx, inst):
        p = inst.params
        load = ctx.final.get(Cell, (sheet_named(ctx.start, p["workbook"], "Assumptions").id, 1, 1))
        sheet, start, rows, _ = _budget_rows(ctx.start, ctx.start.get(Workbook, p["workbook"]))
        cells, rate = values(ctx.final, sheet.id), 1 + p["percent"] / 100
        wrong = [start[(r, 0)] for r in rows
                 if not close(cells.get((r, 4)), start[(r, 2)] * start[(r, 3)] * rate, 0.01)]
        return [check(f"The benefits load reads {p['percent']:g}%", typed(load, p["percent"] / 100, 1e-9),
                      f"it holds {load.raw if load else ''!r}", weight=2),
                check("Every department's salary cost uses it", not wrong, f"these do not: {wrong}"),
                *sheet_guards(ctx, p["workbook"], [self.declare(ctx.start, inst).targets[0].ref])]


@register
class PlanMoreHires(TaskTemplate):
    id, apps, difficulty = "sheets.plan_more_hires", ("sheets",), 1
    summary = "Add planned hires for a department in one quarter of the headcount plan."

    def sample(self, session, rng, instance):
        book = workbook_titled(session, "Headcount Plan")
        cells = values(session, sheet_named(session, book.id, "Plan").id)
        row = pick(rng, list(range(1, row_labelled(cells, "Total"))))
        quarter, more = pick(rng, [1, 2, 3, 4]), pick(rng, [1, 2, 3])
        old = cells.get((row, quarter + 1)) or 0
        actor = pick(rng, editors(session, book, self.split))
        dept = cells[(row, 0)]
        word = "hire" if more == 1 else "hires"
        return TaskInstance(
            self.id, instance, actor.id,
            f"{dept} got approval for {more} more {word} in Q{quarter}. Update \"{book.title}\" accordingly and "
            "change nothing else.",
            [ToolCall("sheets_read_range", {"workbook": book.title, "range": "Plan!A1:F20"}),
             ToolCall("sheets_write_cells", {"workbook": book.id, "cells": [
                {"cell": f"Plan!{col_name(quarter + 1)}{row + 1}", "value": int(old + more)}]})],
            {"workbook": book.id, "row": row, "col": quarter + 1, "hires": int(old + more), "dept": dept,
             "quarter": quarter})

    def declare(self, start, inst):
        p = inst.params
        cells = values(start, sheet_named(start, p["workbook"], "Plan").id)
        rows = range(1, row_labelled(cells, "Total"))
        others = [a1("Plan", r, p["col"]) for r in rows if r != p["row"]]
        others += [a1("Plan", p["row"], c) for c in (2, 3, 4, 5) if c != p["col"]]
        return Declaration([Target("cell", a1("Plan", p["row"], p["col"]), others, {"workbook": p["workbook"]})])

    def check(self, ctx, inst):
        p = inst.params
        sheet = sheet_named(ctx.start, p["workbook"], "Plan")
        now = ctx.final.get(Cell, (sheet.id, p["row"], p["col"]))
        end_before = value_of(ctx.start.get(Cell, (sheet.id, p["row"], 6)))
        old = value_of(ctx.start.get(Cell, (sheet.id, p["row"], p["col"]))) or 0
        end = value_of(ctx.final.get(Cell, (sheet.id, p["row"], 6)))
        return [check(f"{p['dept']} plans {p['hires']} hires in Q{p['quarter']}", typed(now, p["hires"]),
                      f"it holds {now.raw if now else 'nothing'!r}", weight=2),
                check("The end-of-year headcount follows", close(end, end_before + p["hires"] - old),
                      f"it reads {end!r}"),
                *sheet_guards(ctx, p["workbook"], [self.declare(ctx.start, inst).targets[0].ref])]


@register
class ShareWorkbook(TaskTemplate):
    id, apps, difficulty = "sheets.share_workbook", ("sheets",), 1
    summary = "Share a workbook you own with a colleague as viewer or editor."

    def sample(self, session, rng, instance):
        book = pick(rng, [w for w in session.scalars(select(Workbook).order_by(Workbook.id))
                          if in_split(self.split, "workbook", w.id) and person_in(self.split, w.owner_id)])
        shared = set(session.scalars(select(Share.person_id).where(Share.workbook_id == book.id)))
        person = pick(rng, [p for p in everyone(session) if p.id != book.owner_id and p.id not in shared])
        role = pick(rng, ["viewer", "editor"])
        verb = "view" if role == "viewer" else "edit"
        return TaskInstance(
            self.id, instance, book.owner_id,
            f"Share your workbook \"{book.title}\" with {named(session, person)} so that they can {verb} it, and "
            "change nothing else.",
            [ToolCall("sheets_share_workbook", {"workbook": book.id, "person": f"@{person.handle}", "role": role})],
            {"workbook": book.id, "person": person.id, "role": role})

    def declare(self, start, inst):
        """The workbook (by its first cell, which must stay as it is) and the person, among everyone
        it is not shared with yet."""
        p = inst.params
        book = start.get(Workbook, p["workbook"])
        shared = set(start.scalars(select(Share.person_id).where(Share.workbook_id == book.id)))
        others = [f"@{q.handle}" for q in everyone(start) if q.id not in shared | {book.owner_id, p["person"]}]
        return Declaration([Target("cell", a1(first_sheet(start, book.id).name, 0, 0), [], {"workbook": book.id}),
                            Target("person", f"@{start.get(Person, p['person']).handle}", others)])

    def check(self, ctx, inst):
        p = inst.params
        share = ctx.final.get(Share, (p["workbook"], p["person"]))
        name = ctx.start.get(Person, p["person"]).name
        return [check(f"{name} has the workbook as {p['role']}", share is not None and share.role == p["role"],
                      f"their role is {share.role if share else 'none'}", weight=2),
                nothing_else_changed(ctx.diff, [Allow("sheets_share", ("added",), lambda row: (
                    row["workbook_id"], row["person_id"]) == (p["workbook"], p["person"]))])]


PIPELINE_COLUMNS = "ABCDEGH"  # account, deal, owner, stage, amount, expected close, weighted


def pipeline_rows(session: Session, workbook_id: int, sheet: Sheet | None = None) -> tuple[Sheet, list[tuple]]:
    """The forecast's Pipeline sheet (found by name unless given) and its deal rows as values of
    PIPELINE_COLUMNS."""
    sheet = sheet or sheet_named(session, workbook_id, "Pipeline")
    cells = values(session, sheet.id)
    last = max((r for r, _ in cells), default=0)
    return sheet, [tuple(cells.get((r, "ABCDEFGHI".index(c))) for c in PIPELINE_COLUMNS) for r in range(1, last + 1)]


def sort_key(value):
    """How a sort orders a value: numbers, then text without case."""
    return (isinstance(value, str), value.casefold() if isinstance(value, str) else value)
