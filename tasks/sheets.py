"""Sheets task templates that change one figure or one setting of a seeded workbook, and the helpers
every sheets task module shares: set a department's budget line, change the benefits assumption,
plan more hires, share a workbook, sort the forecast's pipeline.

Graders read computed values from the final state and compare them with a tolerance; where a task
asks for a formula, `formula_responds` changes the formula's inputs in an in-memory copy of the
final workbook and checks that the cell follows."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from officegym.apps.org.models import Person
from officegym.apps.sheets.book import cell_value, read_book
from officegym.apps.sheets.cells import MAX_READ
from officegym.apps.sheets.formula.a1 import cell_text, col_name, parse_area
from officegym.apps.sheets.models import Cell, Share, Sheet, Workbook
from officegym.graders.checks import Allow, CheckResult, check, nothing_else_changed

from .base import TaskInstance, TaskTemplate, ToolCall
from .common import everyone, pick
from .registry import register

VALUE_FIELDS = ("kind", "number", "text", "note")
BUDGET_LINES = {"Software": "F", "Travel": "G", "Other": "H"}


# ---------------------------------------------------------------- helpers shared by sheets task modules

def workbook_titled(session: Session, prefix: str) -> Workbook | None:
    """The first workbook whose title starts with `prefix` (seeded titles carry the year)."""
    return session.scalars(select(Workbook).where(Workbook.title.startswith(prefix)).order_by(Workbook.id)).first()


def sheet_named(session: Session, workbook_id: int, name: str) -> Sheet | None:
    """A sheet (tab) of a workbook by exact name."""
    return session.scalar(select(Sheet).where(Sheet.workbook_id == workbook_id, Sheet.name == name))


def read_calls(workbook_id: int, sheet: str, width: int, rows: int) -> list[ToolCall]:
    """`sheets_read_range` calls reading the first `width` columns of rows 1..`rows` of a sheet, as
    few as the tool's cell limit allows (a large company's sheets take several)."""
    step = MAX_READ // width
    return [ToolCall("sheets_read_range", {"workbook": workbook_id,
                                           "range": f"{sheet}!A{top}:{col_name(width - 1)}{min(rows, top + step - 1)}"})
            for top in range(1, rows + 1, step)]


def sheet_ids(session: Session, workbook_id: int) -> set[int]:
    """Ids of every sheet of a workbook."""
    return set(session.scalars(select(Sheet.id).where(Sheet.workbook_id == workbook_id)))


def grid(session: Session, sheet_id: int) -> dict[tuple[int, int], Cell]:
    """The stored cells of a sheet by (row, col), 0-based."""
    return {(c.row, c.col): c for c in session.scalars(select(Cell).where(Cell.sheet_id == sheet_id))}


def value_of(cell: Cell | None):
    """A stored cell's computed value (None when empty)."""
    return None if cell is None else cell_value(cell.kind, cell.number, cell.text, cell.note)


def values(session: Session, sheet_id: int) -> dict[tuple[int, int], object]:
    """Computed values of a sheet by (row, col)."""
    return {key: value_of(cell) for key, cell in grid(session, sheet_id).items()}


def column_values(cells: dict, col: int, first: int, last: int) -> list:
    """Values of one column from row `first` to `last` (0-based, inclusive)."""
    return [cells.get((r, col)) for r in range(first, last + 1)]


def row_labelled(cells: dict, label: str, col: int = 0) -> int | None:
    """The first row (0-based) whose cell in `col` reads `label`, ignoring case and spaces."""
    wanted = " ".join(label.casefold().split())
    for (row, c), value in sorted(cells.items()):
        if c == col and isinstance(value, str) and " ".join(value.casefold().split()) == wanted:
            return row
    return None


def editors(session: Session, workbook: Workbook) -> list[Person]:
    """The owner and the people a workbook is shared with as editors, by id."""
    ids = {workbook.owner_id} | set(session.scalars(select(Share.person_id).where(
        Share.workbook_id == workbook.id, Share.role == "editor")))
    return [p for p in everyone(session) if p.id in ids]


def is_number(value) -> bool:
    """A computed number (not a boolean)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def close(value, expected: float, tolerance: float = 0.005) -> bool:
    """A computed number within `tolerance` (absolute, or relative for large figures) of the expected one."""
    return is_number(value) and abs(value - expected) <= max(tolerance, abs(expected) * 1e-9)


def money(amount: float) -> str:
    """$12,400 or $12,400.50 for instructions."""
    return f"${amount:,.0f}" if amount == int(amount) else f"${amount:,.2f}"


def allow_edits(session: Session, workbook_id: int, editable: set[int], where=None,
                structural: bool = False) -> list[Allow]:
    """Allow input changes to cells of the `editable` sheets (only those `where(row)` accepts, when
    given), recomputed values anywhere in the workbook, and the workbook's change stamp. With
    `structural`, formulas elsewhere in the workbook may also be rewritten (rows or columns inserted
    or deleted shift their references): a task allowing it checks that those formulas still read right."""
    every = sheet_ids(session, workbook_id)
    ok = lambda row: row["sheet_id"] in editable and (where is None or where(row))  # noqa: E731
    allowed = [Allow("sheets_cell", ("added", "updated", "removed"), ok),
               Allow("sheets_cell", ("updated",), lambda row: row["sheet_id"] in every, VALUE_FIELDS),
               Allow("sheets_workbook", ("updated",), lambda row: row["id"] == workbook_id, ("updated_at", "version"))]
    if structural:
        allowed.append(Allow("sheets_cell", ("updated",), lambda row: row["sheet_id"] in every
                             and row["raw"].startswith("="), ("raw",) + VALUE_FIELDS))
    return allowed


def allow_cells(session: Session, workbook_id: int, sheet_id: int, cells: set[tuple[int, int]]) -> list[Allow]:
    """Allow input changes to exactly these cells (row, col) of one sheet, and their consequences."""
    return allow_edits(session, workbook_id, {sheet_id}, lambda row: (row["row"], row["col"]) in cells)


def formula_responds(session: Session, workbook_id: int, target: str, inputs: dict[str, float | str]):
    """The value `target` (such as Budget!K3) computes after typing `inputs` ({ref: number or text})
    into an in-memory copy of the workbook as stored in `session`; None when a reference names no sheet."""
    book = read_book(session, session.get(Workbook, workbook_id))
    keys = []
    for ref, number in inputs.items():
        area = parse_area(ref)
        sid = book.sheet_ids.get((area.sheet or "").lower())
        if sid is None:
            return None
        key = (sid, area.top, area.left)
        value = number if isinstance(number, str) else float(number)
        book.put(key, f"'{value}" if isinstance(value, str) else repr(value), None, value)
        keys.append(key)
    book.recalculate(keys)
    area = parse_area(target)
    sid = book.sheet_ids.get((area.sheet or "").lower())
    return None if sid is None else book.value((sid, area.top, area.left))


def formula_check(session: Session, workbook_id: int, sheet: Sheet, row: int, col: int, what: str,
                  inputs: dict[str, float | str], expected: float, weight: float = 1.0) -> CheckResult:
    """The cell holds a formula that computes `expected` once `inputs` change (not a typed number)."""
    cell = session.get(Cell, (sheet.id, row, col))
    ref = f"{sheet.name}!{cell_text(row, col)}"
    if cell is None or not cell.raw.startswith("="):
        return check(f"{ref} ({what}) is a formula that follows its inputs", False,
                     f"it holds {cell.raw if cell else 'nothing'!r}", weight)
    got = formula_responds(session, workbook_id, f"'{sheet.name}'!{cell_text(row, col)}", inputs)
    return check(f"{ref} ({what}) is a formula that follows its inputs", close(got, expected),
                 f"with {', '.join(f'{k} = {v!r}' for k, v in inputs.items())} it computes {got!r}, not "
                 f"{expected:g}", weight)


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
    summary = "Change one department's software, travel or other budget in the department budgets workbook."

    def sample(self, session, rng, instance):
        book = workbook_titled(session, "Department Budgets")
        sheet, cells, rows, _ = _budget_rows(session, book)
        row, (line, letter) = pick(rng, rows), pick(rng, sorted(BUDGET_LINES.items()))
        old = cells[(row, "ABCDEFGH".index(letter))]
        amount = max(500, round(old * pick(rng, [0.8, 0.9, 1.1, 1.15, 1.25, 1.4]) / 500) * 500)
        actor = pick(rng, editors(session, book))
        dept = cells[(row, 0)]
        return TaskInstance(
            self.id, instance, actor.id,
            f"In the workbook \"{book.title}\", set the {dept} department's {line} budget to {money(amount)}.",
            [ToolCall("sheets_write_cells", {"workbook": book.id, "cells": [
                {"cell": f"Budget!{letter}{row + 1}", "value": amount}]})],
            {"workbook": book.id, "row": row, "col": "ABCDEFGH".index(letter), "amount": amount, "dept": dept,
             "line": line})

    def check(self, ctx, inst):
        p = inst.params
        sheet = sheet_named(ctx.final, p["workbook"], "Budget")
        now = ctx.final.get(Cell, (sheet.id, p["row"], p["col"]))
        total = ctx.final.get(Cell, (sheet.id, p["row"], 8))
        before = ctx.start.get(Cell, (sheet.id, p["row"], 8))
        old = value_of(ctx.start.get(Cell, (sheet.id, p["row"], p["col"])))
        return [check(f"{p['dept']}'s {p['line']} budget is {money(p['amount'])}",
                      now is not None and close(value_of(now), p["amount"]) and not now.raw.startswith("="),
                      f"it holds {now.raw if now else 'nothing'!r}", weight=2),
                check(f"{p['dept']}'s total follows", close(value_of(total), value_of(before) - old + p["amount"]),
                      f"it reads {value_of(total)!r}"),
                nothing_else_changed(ctx.diff, allow_cells(ctx.start, p["workbook"], sheet.id,
                                                           {(p["row"], p["col"])}))]


@register
class UpdateBenefitsLoad(TaskTemplate):
    id, apps, difficulty = "sheets.update_benefits_load", ("sheets",), 1
    summary = "Change the benefits and payroll-tax assumption that every salary cost of the budget uses."

    def sample(self, session, rng, instance):
        book = workbook_titled(session, "Department Budgets")
        sheet = sheet_named(session, book.id, "Assumptions")
        current = round(value_of(session.get(Cell, (sheet.id, 1, 1))) * 1000)
        percent = pick(rng, [p for p in range(150, 360, 5) if p != current]) / 10
        actor = pick(rng, editors(session, book))
        why = pick(rng, ["Finance revised", "The new payroll provider quoted", "The auditors set",
                         "This year's benefits renewal brings"])
        return TaskInstance(
            self.id, instance, actor.id,
            f"{why} the benefits and payroll-tax load to {percent:g}%. Update the assumption in "
            f"\"{book.title}\" so that every salary cost uses it.",
            [ToolCall("sheets_write_cells", {"workbook": book.id, "cells": [
                {"cell": "Assumptions!B2", "value": f"{percent:g}%"}]})],
            {"workbook": book.id, "percent": percent})

    def check(self, ctx, inst):
        p = inst.params
        notes, budget = (sheet_named(ctx.final, p["workbook"], n) for n in ("Assumptions", "Budget"))
        load = ctx.final.get(Cell, (notes.id, 1, 1))
        first = value_of(ctx.final.get(Cell, (budget.id, 1, 4)))
        size, salary = (value_of(ctx.final.get(Cell, (budget.id, 1, c))) for c in (2, 3))
        return [check(f"The benefits load reads {p['percent']:g}%", load is not None and not load.raw.startswith("=")
                      and close(value_of(load), p["percent"] / 100, 1e-9), f"it holds {load.raw if load else ''!r}",
                      weight=2),
                check("Salary costs use it", close(first, size * salary * (1 + p["percent"] / 100), 0.01),
                      f"the first department's salary cost reads {first!r}"),
                nothing_else_changed(ctx.diff, allow_cells(ctx.start, p["workbook"], notes.id, {(1, 1)}))]


@register
class PlanMoreHires(TaskTemplate):
    id, apps, difficulty = "sheets.plan_more_hires", ("sheets",), 1
    summary = "Add planned hires for a department in one quarter of the headcount plan."

    def sample(self, session, rng, instance):
        book = workbook_titled(session, "Headcount Plan")
        sheet = sheet_named(session, book.id, "Plan")
        cells = values(session, sheet.id)
        row = pick(rng, list(range(1, row_labelled(cells, "Total"))))
        quarter, more = pick(rng, [1, 2, 3, 4]), pick(rng, [1, 2, 3])
        old = cells.get((row, quarter + 1)) or 0
        actor = pick(rng, editors(session, book))
        dept = cells[(row, 0)]
        word = "hire" if more == 1 else "hires"
        return TaskInstance(
            self.id, instance, actor.id,
            f"{dept} got approval for {more} more {word} in Q{quarter}. Update \"{book.title}\" accordingly.",
            [ToolCall("sheets_write_cells", {"workbook": book.id, "cells": [
                {"cell": f"Plan!{col_name(quarter + 1)}{row + 1}", "value": int(old + more)}]})],
            {"workbook": book.id, "row": row, "col": quarter + 1, "hires": int(old + more), "dept": dept,
             "quarter": quarter})

    def check(self, ctx, inst):
        p = inst.params
        sheet = sheet_named(ctx.final, p["workbook"], "Plan")
        now = ctx.final.get(Cell, (sheet.id, p["row"], p["col"]))
        end_before = value_of(ctx.start.get(Cell, (sheet.id, p["row"], 6)))
        old = value_of(ctx.start.get(Cell, (sheet.id, p["row"], p["col"]))) or 0
        end = value_of(ctx.final.get(Cell, (sheet.id, p["row"], 6)))
        return [check(f"{p['dept']} plans {p['hires']} hires in Q{p['quarter']}",
                      now is not None and close(value_of(now), p["hires"]) and not now.raw.startswith("="),
                      f"it holds {now.raw if now else 'nothing'!r}", weight=2),
                check("The end-of-year headcount follows", close(end, end_before + p["hires"] - old),
                      f"it reads {end!r}"),
                nothing_else_changed(ctx.diff, allow_cells(ctx.start, p["workbook"], sheet.id, {(p["row"], p["col"])}))]


@register
class ShareWorkbook(TaskTemplate):
    id, apps, difficulty = "sheets.share_workbook", ("sheets",), 1
    summary = "Share a workbook you own with a colleague as viewer or editor."

    def sample(self, session, rng, instance):
        book = pick(rng, list(session.scalars(select(Workbook).order_by(Workbook.id))))
        shared = set(session.scalars(select(Share.person_id).where(Share.workbook_id == book.id)))
        person = pick(rng, [p for p in everyone(session) if p.id != book.owner_id and p.id not in shared])
        role = pick(rng, ["viewer", "editor"])
        verb = "view" if role == "viewer" else "edit"
        return TaskInstance(
            self.id, instance, book.owner_id,
            f"Share your workbook \"{book.title}\" with {person.name} so that they can {verb} it.",
            [ToolCall("sheets_share_workbook", {"workbook": book.id, "person": f"@{person.handle}", "role": role})],
            {"workbook": book.id, "person": person.id, "role": role})

    def check(self, ctx, inst):
        p = inst.params
        share = ctx.final.get(Share, (p["workbook"], p["person"]))
        name = ctx.start.get(Person, p["person"]).name
        return [check(f"{name} has the workbook as {p['role']}", share is not None and share.role == p["role"],
                      f"their role is {share.role if share else 'none'}", weight=2),
                nothing_else_changed(ctx.diff, [Allow("sheets_share", ("added",), lambda row: (
                    row["workbook_id"], row["person_id"]) == (p["workbook"], p["person"]))])]


SORTS = [("Amount", "E", True, "largest first"), ("Expected close", "G", False, "earliest first"),
         ("Weighted", "H", True, "largest first"), ("Account", "A", False, "A to Z"), ("Owner", "C", False, "A to Z"),
         ("Amount", "E", False, "smallest first"), ("Expected close", "G", True, "latest first"),
         ("Stage", "D", False, "A to Z"), ("Deal", "B", False, "A to Z")]


PIPELINE_COLUMNS = "ABCDEGH"  # account, deal, owner, stage, amount, expected close, weighted


def pipeline_rows(session: Session, workbook_id: int) -> tuple[Sheet, list[tuple]]:
    """The forecast's Pipeline sheet and its deal rows as values of PIPELINE_COLUMNS."""
    sheet = sheet_named(session, workbook_id, "Pipeline")
    cells = values(session, sheet.id)
    last = max(r for r, _ in cells)
    return sheet, [tuple(cells.get((r, "ABCDEFGHI".index(c))) for c in PIPELINE_COLUMNS) for r in range(1, last + 1)]


def sort_key(value):
    """How a sort orders a value: numbers, then text without case."""
    return (isinstance(value, str), value.casefold() if isinstance(value, str) else value)


@register
class SortPipeline(TaskTemplate):
    id, apps, difficulty = "sheets.sort_pipeline", ("sheets",), 1
    summary = "Sort the forecast's pipeline by a column, keeping each deal's row together."

    def sample(self, session, rng, instance):
        book = workbook_titled(session, "FY")
        sheet, rows = pipeline_rows(session, book.id)
        label, letter, descending, words = pick(rng, SORTS)
        then = pick(rng, [other for other in SORTS if other[1] != letter])
        actor = pick(rng, editors(session, book))
        keys = [{"column": letter, "descending": descending}, {"column": then[1], "descending": then[2]}]
        return TaskInstance(
            self.id, instance, actor.id,
            f"Sort the deals on the Pipeline sheet of \"{book.title}\" by {label} ({words}), then by {then[0]} "
            f"({then[3]}) where they tie. Keep the header row on top and each deal's row together.",
            [ToolCall("sheets_sort_range", {"workbook": book.id, "range": f"Pipeline!A1:I{len(rows) + 1}",
                                            "keys": keys, "has_header": True})],
            {"workbook": book.id, "keys": keys})

    def check(self, ctx, inst):
        p = inst.params
        sheet, before = pipeline_rows(ctx.start, p["workbook"])
        _, after = pipeline_rows(ctx.final, p["workbook"])
        order = list(before)
        for key in reversed(p["keys"]):
            index = PIPELINE_COLUMNS.index(key["column"])
            order.sort(key=lambda r: sort_key(r[index]), reverse=key["descending"])
        cells = values(ctx.final, sheet.id)
        weighted_ok = all(close(cells.get((r, 7)), (cells.get((r, 4)) or 0) * (cells.get((r, 5)) or 0), 0.01)
                          for r in range(1, len(after) + 1))
        return [check("Every deal is still listed once, with its own values", sorted(map(repr, after)) ==
                      sorted(map(repr, before)), "rows were lost, duplicated or mixed up", weight=2),
                check("The deals are in the asked order", after == order,
                      "the rows are in another order", weight=2),
                check("Each row's weighted amount still reads its own row", weighted_ok,
                      "a weighted amount no longer equals its row's amount times probability"),
                nothing_else_changed(ctx.diff, allow_edits(ctx.start, p["workbook"], {sheet.id}))]
