"""Event templates on sheets: a department's head asks the CFO, by DM, to set one of the
department's budget lines in the Department Budgets workbook, and, right after the CFO's first
change, corrects the figure they gave (the figure to set changes) or confirms it (the twin)."""

from __future__ import annotations

from sqlalchemy import select

from officegym.apps.org.models import Department, Person
from officegym.apps.sheets.models import Cell, Workbook
from officegym.graders.checks import check
from officegym.graders.sheets import close, value_of
from officegym.graders.statements import Candidate

from .base import Target, ToolCall
from .common import pick
from .e_common import Drawn, FollowupTemplate
from .registry import register
from .sheets import BUDGET_LINES, _budget_rows, a1, editors, money, sheet_guards, sheet_named, typed, workbook_titled

SOURCES = ["our finance partner", "the latest hiring plan", "the team's revised forecast", "my own recount"]
CORRECTIONS = [0.8, 0.9, 1.1, 1.2]  # how a corrected figure relates to the first


@register
class BudgetFigureCorrection(FollowupTemplate):
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

    def steps(self, inst, value):
        p = inst.params
        return [ToolCall("sheets_read_range", {"workbook": p["workbook"], "range": "Budget!A1:I20"}),
                ToolCall("sheets_write_cells", {"workbook": p["workbook"], "cells": [
                    {"cell": a1("Budget", p["row"], p["col"]), "value": value}]})]

    def record(self, start, inst):
        p = inst.params
        _, _, rows, _ = _budget_rows(start, start.get(Workbook, p["workbook"]))
        others = [a1("Budget", r, c) for r in rows for c in (5, 6, 7) if (r, c) != (p["row"], p["col"])]
        return Target("cell", a1("Budget", p["row"], p["col"]), others, {"workbook": p["workbook"]})

    def state_checks(self, ctx, inst):
        p = inst.params
        sheet = sheet_named(ctx.start, p["workbook"], "Budget")
        now = ctx.final.get(Cell, (sheet.id, p["row"], p["col"]))
        total, before = ctx.final.get(Cell, (sheet.id, p["row"], 8)), ctx.start.get(Cell, (sheet.id, p["row"], 8))
        old = value_of(ctx.start.get(Cell, (sheet.id, p["row"], p["col"])))
        return [check(f"{p['dept']}'s {p['line']} budget is {money(p['final'])}, as finally agreed",
                      typed(now, p["final"]), f"it holds {now.raw if now else 'nothing'!r}", weight=3),
                check(f"{p['dept']}'s total follows", close(value_of(total), value_of(before) - old + p["final"]),
                      f"it reads {value_of(total)!r}")]

    def allowances(self, ctx, inst):
        return []  # the cells: see `guards`

    def guards(self, ctx, inst, allowed):
        return sheet_guards(ctx, inst.params["workbook"], [self.record(ctx.start, inst).ref], more=allowed)
