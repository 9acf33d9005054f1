"""Event templates on sheets, where a department's head asks an editor of a workbook, by DM, to set
one of the department's figures:
- `e.budget_figure_correction`: a budget line in the Department Budgets workbook (the CFO edits it);
  right after the CFO's first change, the head corrects the figure they gave (the figure to set
  changes) or confirms it (the twin);
- `e.headcount_hires_followup`: the planned hires of one quarter in the Headcount Plan; the head
  follows up while the editor works, with another number (it changes) or confirming it (the twin)."""

from __future__ import annotations

from sqlalchemy import select

from officegym.apps.org.models import Department, Person
from officegym.apps.sheets.models import Cell, Workbook
from officegym.graders.checks import CheckResult, check
from officegym.graders.sheets import close, value_of
from officegym.graders.statements import Candidate

from .base import Target, ToolCall
from .common import pick
from .e_common import Drawn, FollowupTemplate
from .registry import register
from .sheets import (BUDGET_LINES, _budget_rows, a1, editors, money, row_labelled, sheet_guards, sheet_named, typed, values,
                     workbook_titled)
from .split import person_in

SOURCES = ["our finance partner", "the latest hiring plan", "the team's revised forecast", "my own recount"]
CORRECTIONS = [0.8, 0.9, 1.1, 1.2]  # how a corrected figure relates to the first


class CellFollowup(FollowupTemplate):
    """A follow-up template whose record is one cell (`params`: workbook, row, col) of the sheet
    `sheet`, read in `span`: the reference reads the sheet and writes the cell, and no other cell may
    change (formulas included)."""

    sheet, span = "Budget", "A1:I20"

    def steps(self, inst, value):
        p = inst.params
        return [ToolCall("sheets_read_range", {"workbook": p["workbook"], "range": f"{self.sheet}!{self.span}"}),
                ToolCall("sheets_write_cells", {"workbook": p["workbook"], "cells": [
                    {"cell": a1(self.sheet, p["row"], p["col"]), "value": value}]})]

    def cell_check(self, ctx, inst, requirement: str) -> tuple[CheckResult, object]:
        """The requirement that the cell holds the final value, and the value the cell held at the start."""
        p = inst.params
        sheet = sheet_named(ctx.start, p["workbook"], self.sheet)
        now = ctx.final.get(Cell, (sheet.id, p["row"], p["col"]))
        return (check(requirement, typed(now, p["final"]), f"it holds {now.raw if now else 'nothing'!r}", weight=3),
                value_of(ctx.start.get(Cell, (sheet.id, p["row"], p["col"]))))

    def follows(self, ctx, inst, col: int, what: str, old) -> CheckResult:
        """The requirement that a computed cell of the row moved with the change."""
        p = inst.params
        sheet = sheet_named(ctx.start, p["workbook"], self.sheet)
        after, before = ctx.final.get(Cell, (sheet.id, p["row"], col)), ctx.start.get(Cell, (sheet.id, p["row"], col))
        return check(f"{what} follows", close(value_of(after), value_of(before) - (old or 0) + p["final"]),
                     f"it reads {value_of(after)!r}")

    def allowances(self, ctx, inst):
        return []  # the cells: see `guards`

    def guards(self, ctx, inst, allowed):
        return sheet_guards(ctx, inst.params["workbook"], [self.record(ctx.start, inst).ref], more=allowed)


@register
class BudgetFigureCorrection(CellFollowup):
    id, apps = "e.budget_figure_correction", ("chat", "sheets")
    split = "test"  # the Department Budgets workbook is of the test split, and so is its only editor (the CFO)
    after_first_write = True
    summary = "Set a budget line a department head asked for, and follow their correction when one comes."

    def draw(self, session, rng, instance, changes):
        book = workbook_titled(session, "Department Budgets")
        sheet, cells, rows, _ = _budget_rows(session, book)
        actor = pick(rng, editors(session, book, self.split))
        heads = {d.name: d.head_id for d in session.scalars(select(Department))}
        rows = [r for r in rows if heads.get(cells[(r, 0)]) not in (None, actor.id)]
        row, (line, letter) = pick(rng, rows), pick(rng, sorted(BUDGET_LINES.items()))
        col, dept = "ABCDEFGH".index(letter), cells[(row, 0)]
        old = cells[(row, col)]
        first = pick(rng, [a for a in (max(1000, round(old * f / 500) * 500) for f in (0.85, 1.1, 1.2, 1.3))
                           if a != old])
        options = sorted({max(500, round(first * f / 500) * 500) for f in CORRECTIONS} - {first, old})
        final = pick(rng, options) if changes else first
        return Drawn(actor, session.get(Person, heads[dept]), f"the {dept} {line} budget", pick(rng, SOURCES),
                     f"set the {dept} department's {line} budget in \"{book.title}\" to {{value}}", first, final,
                     sorted(({old} | set(options)) - {final}), {"workbook": book.id, "row": row, "col": col,
                                                                "dept": dept, "line": line})

    def candidate(self, value):
        return Candidate.money(int(value) * 100)

    def record(self, start, inst):
        p = inst.params
        _, _, rows, _ = _budget_rows(start, start.get(Workbook, p["workbook"]))
        others = [a1("Budget", r, c) for r in rows for c in (5, 6, 7) if (r, c) != (p["row"], p["col"])]
        return Target("cell", a1("Budget", p["row"], p["col"]), others, {"workbook": p["workbook"]})

    def state_checks(self, ctx, inst):
        p = inst.params
        cell, old = self.cell_check(ctx, inst, f"{p['dept']}'s {p['line']} budget is {money(p['final'])}, as finally "
                                                "agreed")
        return [cell, self.follows(ctx, inst, 8, f"{p['dept']}'s total", old)]


HIRING_SOURCES = ["the recruiting team", "finance", "the VP I report to", "the hiring committee"]


@register
class HeadcountHiresFollowup(CellFollowup):
    id, apps = "e.headcount_hires_followup", ("chat", "sheets")
    sheet, span = "Plan", "A1:H20"
    summary = "Set a department's planned hires for a quarter as its head asked, after their follow-up."

    def draw(self, session, rng, instance, changes):
        book = workbook_titled(session, "Headcount Plan")
        cells = values(session, sheet_named(session, book.id, "Plan").id)
        actor = pick(rng, editors(session, book, self.split))
        heads = {d.name: d.head_id for d in session.scalars(select(Department))}
        rows = [r for r in range(1, row_labelled(cells, "Total"))
                if heads.get(cells[(r, 0)]) not in (None, actor.id) and person_in(self.split, heads[cells[(r, 0)]])]
        row, quarter = pick(rng, rows), pick(rng, [1, 2, 3, 4])
        dept, old = cells[(row, 0)], int(cells.get((row, quarter + 1)) or 0)
        first = old + pick(rng, [1, 2, 3])
        moved = pick(rng, [n for n in (first - 1, first + 1, first + 2) if n != old])
        final = moved if changes else first
        return Drawn(actor, session.get(Person, heads[dept]), f"{dept}'s planned Q{quarter} hires",
                     pick(rng, HIRING_SOURCES), f"set {dept}'s planned Q{quarter} hires in \"{book.title}\" to {{value}}",
                     first, final, sorted({old, first, moved, first + 3} - {final}),
                     {"workbook": book.id, "row": row, "col": quarter + 1, "dept": dept, "quarter": quarter})

    def candidate(self, value):
        return Candidate.text(f"{value} hire" if value == 1 else f"{value} hires", f"to {value}", f"{value} people",
                              f"{value} new hires")

    def record(self, start, inst):
        p = inst.params
        cells = values(start, sheet_named(start, p["workbook"], "Plan").id)
        rows = range(1, row_labelled(cells, "Total"))
        others = [a1("Plan", r, p["col"]) for r in rows if r != p["row"]]
        others += [a1("Plan", p["row"], c) for c in (2, 3, 4, 5) if c != p["col"]]
        return Target("cell", a1("Plan", p["row"], p["col"]), others, {"workbook": p["workbook"]})

    def state_checks(self, ctx, inst):
        p = inst.params
        cell, old = self.cell_check(ctx, inst, f"{p['dept']} plans {p['final']} hires in Q{p['quarter']}, as finally "
                                               "agreed")
        return [cell, self.follows(ctx, inst, 6, "The end-of-year headcount", old)]
