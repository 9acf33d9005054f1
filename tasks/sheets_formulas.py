"""Sheets task templates that ask for formulas: add an expense and keep the totals right, add a share
column to the budget, add a figure to the forecast summary, fix a broken budget total.

Every formula a task asks for is checked by behaviour, cell by cell (graders.sheets.formulas_follow
types new inputs into an in-memory copy of the final workbook), so typed numbers that happen to
match, or one formula above typed numbers, fail; `sheet_guards` names the only cells that may change."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta

from sqlalchemy import select

from officegym import clock
from officegym.apps.org.models import Person
from officegym.apps.sheets.formula.a1 import quote_sheet
from officegym.apps.sheets.models import Cell, Workbook
from officegym.graders.checks import check
from officegym.graders.sheets import close, formulas_follow, formulas_respond

from .base import Declaration, TaskInstance, TaskTemplate, Target, ToolCall
from .common import nth, pick
from .registry import register
from .split import in_split, person_in
from .sheets import (a1, editors, first_sheet, money, pipeline_rows, row_labelled, sheet_guards, sheet_named, values,
                     workbook_titled)
from .sheets_answers import METRICS, perturbed

EXCEL_EPOCH = date(1899, 12, 30)
NEW_EXPENSES = [("Travel", "Taxi to the airport", 38.5), ("Meals", "Lunch with a prospect", 64.2),
                ("Travel", "Train ticket to the client", 112.0), ("Meals", "Team coffee run", 23.75),
                ("Lodging", "Hotel, one night", 189.0), ("Software", "Diagramming tool, one month", 15.0),
                ("Supplies", "Notebooks and pens", 27.3), ("Travel", "Parking at the venue", 18.0),
                ("Office", "Printer paper and toner", 42.9)]


def personal_books(session, split: str | None = None) -> list[Workbook]:
    """The seeded personal workbooks (expense reports and small budgets), by id (those of `split`
    owned by someone of the split, when given: their owner works on them)."""
    return [w for w in session.scalars(select(Workbook).order_by(Workbook.id)) if "—" in w.title
            and (split is None or in_split(split, "workbook", w.id) and person_in(split, w.owner_id))]


def expense_layout(session, workbook_id: int):
    """A personal workbook's sheet, values, last item row and Total row (0-based), and the row of each
    category in its category table."""
    sheet = first_sheet(session, workbook_id)
    cells = values(session, sheet.id)
    total = row_labelled(cells, "Total")
    last = max(r for (r, c), v in cells.items() if c == 3 and 0 < r < total and v is not None)
    categories = {v: r for (r, c), v in cells.items() if c == 5 and r > 0 and isinstance(v, str)}
    return sheet, cells, last, total, categories


@register
class AddExpenseRow(TaskTemplate):
    id, apps, difficulty = "sheets.add_expense_row", ("sheets",), 3
    summary = "Insert an expense right below the last one and keep the total and the category totals right."

    def sample(self, session, rng, instance):
        book = pick(rng, personal_books(session, self.split))
        sheet, cells, last, total, categories = expense_layout(session, book.id)
        category, text, amount = pick(rng, [e for e in NEW_EXPENSES if e[0] in categories])
        amount = round(amount * pick(rng, [1, 1.1, 1.25, 0.9, 1.4]), 2)
        day = EXCEL_EPOCH + timedelta(days=int(cells[(last, 0)]) + pick(rng, [0, 1, 2, 3, 6]))
        at = last + 1  # 0-based row of the new item
        moved = {name: r + (r >= at) for name, r in categories.items()}
        items = f"$B$2:$B${at + 1}"
        cell = lambda r, c: a1(sheet.name, r, c)  # noqa: E731
        solution = [ToolCall("sheets_list_workbooks", {"query": "expense report"}),
                    ToolCall("sheets_read_range", {"workbook": book.id, "range": f"'{sheet.name}'!A1:G40"}),
                    ToolCall("sheets_insert_rows", {"workbook": book.id, "sheet": sheet.name, "before": at + 1}),
                    ToolCall("sheets_write_cells", {"workbook": book.id, "cells": [
                        {"cell": cell(at, 0), "value": day.isoformat()}, {"cell": cell(at, 1), "value": category},
                        {"cell": cell(at, 2), "value": text}, {"cell": cell(at, 3), "value": amount},
                        {"cell": cell(total + 1, 3), "value": f"=SUM(D2:D{at + 1})"}] + [
                        {"cell": cell(r, 6), "value": f"=SUMIF({items},F{r + 1},$D$2:$D${at + 1})"}
                        for r in sorted(moved.values())]})]
        return TaskInstance(
            self.id, instance, book.owner_id,
            f"Add this expense to your workbook \"{book.title}\": insert a new row right below the last expense "
            f"and fill it with {day.isoformat()}, {category}, \"{text}\", {money(amount)}. Make sure the Total and "
            "the per-category totals include it, and change nothing else.",
            solution, {"workbook": book.id, "row": at, "day": day.isoformat(), "category": category,
                       "text": text, "amount": amount})

    def declare(self, start, inst):
        """The new row's amount; the blank row under it and the row below the Total are look-alikes."""
        p = inst.params
        sheet, _, _, total, _ = expense_layout(start, p["workbook"])
        return Declaration([Target("cell", a1(sheet.name, p["row"], 3), [a1(sheet.name, p["row"] + 1, 3),
                                                                         a1(sheet.name, total + 3, 3)],
                                   {"workbook": p["workbook"]})])

    def check(self, ctx, inst):
        p = inst.params
        sheet, before, last, total, categories = expense_layout(ctx.start, p["workbook"])
        after, at = values(ctx.final, sheet.id), p["row"]
        serial = (date.fromisoformat(p["day"]) - EXCEL_EPOCH).days
        placed = (after.get((at, 0)) == serial and after.get((at, 1)) == p["category"]
                  and after.get((at, 2)) == p["text"] and close(after.get((at, 3)), p["amount"]))
        # Every expense changes, each by its own step, so that every total must read each of its expenses.
        items = [[before[(r, 1)], before[(r, 3)]] for r in range(1, last + 1)] + [[p["category"], p["amount"]]]
        inputs = {}
        for k, item in enumerate(items):
            item[1] = round(item[1] + 10 * (k + 1) + 0.01 * k, 2)
            inputs[a1(sheet.name, k + 1, 3)] = item[1]  # the new expense is at row `at`, right below the others
        named = sorted(categories.items(), key=lambda kv: kv[1])
        totals = [a1(sheet.name, total + 1, 3)] + [a1(sheet.name, r + (r >= at), 6) for _, r in named]
        expected = [sum(v for _, v in items)] + [sum(v for k, v in items if k == name) for name, _ in named]
        return [check(f"Row {at + 1} holds the new expense", placed,
                      f"it reads {[after.get((at, c)) for c in range(4)]}", weight=2),
                formulas_follow(ctx.final, p["workbook"], totals, "The Total and every category total", inputs,
                                expected),
                *sheet_guards(ctx, p["workbook"], [f"{quote_sheet(sheet.name)}!A{at + 1}:D{at + 1}", *totals],
                              inserted=(sheet.name, at, 1))]


SHARES = [("Share of total", "I", "total budget"), ("Share of headcount", "C", "headcount"),
          ("Share of salary cost", "E", "salary cost")]


def _percent_decimals(pattern: str) -> int | None:
    """Decimals a percent format shows (0.0% -> 1); None for a format that is not a percentage."""
    if not pattern.endswith("%"):
        return None
    number = pattern[:-1]
    return len(number.split(".", 1)[1]) if "." in number else 0


@register
class AddShareColumn(TaskTemplate):
    id, apps, difficulty = "sheets.add_share_column", ("sheets",), 2
    split = "test"  # the Department Budgets workbook is of the test split, and so is its only editor (the CFO)
    summary = "Add a column of formulas giving each department's share of a budget total, as a percentage."

    def sample(self, session, rng, instance):
        book = workbook_titled(session, "Department Budgets")
        total = row_labelled(values(session, sheet_named(session, book.id, "Budget").id), "Total")
        (header, source, words), column, decimals = nth([(s, c, d) for s in SHARES for c in "KLM"
                                                            for d in (0, 1, 2)], instance)
        pattern = "0%" if not decimals else "0." + "0" * decimals + "%"
        actor = pick(rng, editors(session, book, self.split))
        formulas = [[f"={source}{r}/{source}${total + 1}"] for r in range(2, total + 1)]
        return TaskInstance(
            self.id, instance, actor.id,
            f"In \"{book.title}\", add a column \"{header}\" in column {column} of the Budget sheet (header in row 1) "
            f"with a formula on each department's row (not the Total row) giving its share of the company's {words}, "
            f"shown as a percentage with {decimals} decimal{'s' * (decimals != 1)}. Change nothing else.",
            [ToolCall("sheets_list_workbooks", {"query": book.title}),
             ToolCall("sheets_read_range", {"workbook": book.id, "range": "Budget!A1:J20"}),
             ToolCall("sheets_write_range", {"workbook": book.id, "start": f"Budget!{column}1",
                                             "rows": [[header]] + formulas}),
             ToolCall("sheets_set_number_format", {"workbook": book.id, "range": f"Budget!{column}2:{column}{total}",
                                                   "number_format": pattern})],
            {"workbook": book.id, "column": column, "header": header, "source": source, "decimals": decimals})

    def declare(self, start, inst):
        column = inst.params["column"]
        return Declaration([Target("cell", f"Budget!{column}1", [f"Budget!{c}1" for c in "KLMN" if c != column],
                                   {"workbook": inst.params["workbook"]})])

    def check(self, ctx, inst):
        p = inst.params
        budget = sheet_named(ctx.start, p["workbook"], "Budget")
        start, cells = values(ctx.start, budget.id), values(ctx.final, budget.id)
        total = row_labelled(start, "Total")
        col, src, rows = ord(p["column"]) - 65, ord(p["source"]) - 65, range(1, total)
        right = all(close(cells.get((r, col)), start[(r, src)] / start[(total, src)], 1e-6) for r in rows)
        formats = [ctx.final.get(Cell, (budget.id, r, col)) for r in rows]
        inputs = {"Budget!C2": start[(1, 2)] + 5}  # moves every department's share of every column asked for
        sources = formulas_respond(ctx.start, p["workbook"], [a1("Budget", r, src) for r in [*rows, total]], inputs)
        shares = [a1("Budget", r, col) for r in rows]
        return [check(f"{p['column']}1 reads {p['header']}", (cells.get((0, col)) or "").strip().casefold() ==
                      p["header"].casefold(), f"it reads {cells.get((0, col))!r}"),
                check("Each department's share is right", right, "a share is missing or wrong"),
                formulas_follow(ctx.final, p["workbook"], shares, "The departments' shares", inputs,
                                [s / sources[-1] for s in sources[:-1]], tolerance=1e-6),
                check(f"The shares are shown as percentages with {p['decimals']} decimals",
                      all(f and _percent_decimals(f.number_format) == p["decimals"] for f in formats),
                      "a share is not formatted so"),
                *sheet_guards(ctx, p["workbook"], [f"Budget!{p['column']}1:{p['column']}{total}"])]


@register
class AddForecastMetric(TaskTemplate):
    id, apps, difficulty = "sheets.add_forecast_metric", ("sheets",), 2
    summary = "Add a labelled figure computed by a formula over the pipeline to the forecast's summary."

    def sample(self, session, rng, instance):
        book = workbook_titled(session, "FY")
        row = max(r for r, _ in values(session, sheet_named(session, book.id, "Summary").id)) + 2  # 1-based
        label, formula, _ = nth(METRICS, instance)
        actor = pick(rng, editors(session, book, self.split))
        return TaskInstance(
            self.id, instance, actor.id,
            f"On the Summary sheet of \"{book.title}\", add a row below the key figures labelled \"{label}\": the "
            "label in column A of the row right below the last key figure and, next to it in column B, a formula "
            "that computes it from the Pipeline's amounts, so that it stays right when deals change. Change nothing "
            "else.",
            [ToolCall("sheets_list_workbooks", {"query": book.title}),
             ToolCall("sheets_read_range", {"workbook": book.id, "range": "Summary!A1:D40"}),
             ToolCall("sheets_read_range", {"workbook": book.id, "range": "Pipeline!A1:J2"}),
             ToolCall("sheets_write_range", {"workbook": book.id, "start": f"Summary!A{row}",
                                             "rows": [[label, formula]]})],
            {"workbook": book.id, "label": label, "row": row - 1})

    def declare(self, start, inst):
        p = inst.params
        return Declaration([Target("cell", a1("Summary", p["row"], 0), [a1("Summary", p["row"] + k, 0) for k in (1, 2)],
                                   {"workbook": p["workbook"]})])

    def check(self, ctx, inst):
        p = inst.params
        compute = next(m[2] for m in METRICS if m[0] == p["label"])
        _, deals = pipeline_rows(ctx.start, p["workbook"])
        shown = values(ctx.final, sheet_named(ctx.start, p["workbook"], "Summary").id)
        label, got = shown.get((p["row"], 0)), shown.get((p["row"], 1))
        typed_in, changed = perturbed(deals, compute)
        return [check(f"A{p['row'] + 1} reads {p['label']}", isinstance(label, str) and
                      label.strip().casefold() == p["label"].casefold(), f"it reads {label!r}"),
                check("Its value is right", close(got, compute(deals)), f"it reads {got!r}"),
                formulas_follow(ctx.final, p["workbook"], [a1("Summary", p["row"], 1)],
                                f"Summary!B{p['row'] + 1} ({p['label']})", typed_in,
                                [compute(changed)]),
                *sheet_guards(ctx, p["workbook"], [f"Summary!A{p['row'] + 1}:B{p['row'] + 1}"])]


BREAKS = [("=SUM(E{r}:G{r})", "leaves out Other"), ("=SUM(F{r}:H{r})", "leaves out the salary cost"),
          ("=E{r}+F{r}+G{r}", "leaves out Other"), ("=SUM(E{r}:H{s})", "adds the next department's costs")]
# Totals written another way that adds up the same four costs (the sum's own form is =SUM(E{r}:H{r})).
SAME_SUMS = ["=E{r}+F{r}+G{r}+H{r}", "=SUM(E{r}:F{r})+SUM(G{r}:H{r})", "=E{r}+SUM(F{r}:H{r})",
             "=SUM(E{r},F{r},G{r},H{r})", "=SUM(E{r}:G{r})+H{r}"]
EARLIER_EDITS = [(16, time(9, 35)), (13, time(15, 5)), (11, time(11, 50)), (9, time(17, 20))]  # days before today, at
LATER_EDITS = [(6, time(10, 40)), (4, time(11, 25)), (3, time(14, 50))]


def _break_and_edit(workbook_id: int, cell: str, raw: str, edits: list[tuple[str, int]],
                    rewritten: list[tuple[str, str]] = ()):
    """A setup: over the weeks before, the owner rewrites some totals in other forms of the same sum
    (`rewritten`); last week they break a total, then go on editing other budget lines on later
    days (so the newest revision of the workbook is not the broken one)."""
    def run(session) -> None:
        from officegym.apps.sheets import services

        owner = session.get(Person, session.get(Workbook, workbook_id).owner_id)
        today = datetime.combine(clock.company_now(session).date(), time())
        for (other, value), (days, at) in zip(rewritten, EARLIER_EDITS):
            clock.set_time(session, today - timedelta(days=days) + timedelta(hours=at.hour, minutes=at.minute))
            services.write_cells(session, owner, workbook_id, [{"cell": other, "value": value}])
        clock.set_time(session, today - timedelta(days=7) + timedelta(hours=16, minutes=10))
        services.write_cells(session, owner, workbook_id, [{"cell": cell, "value": raw}])
        for (other, value), (days, at) in zip(edits, LATER_EDITS):
            clock.set_time(session, today - timedelta(days=days) + timedelta(hours=at.hour, minutes=at.minute))
            services.write_cells(session, owner, workbook_id, [{"cell": other, "value": value}])
    return run


@register
class FixBrokenTotal(TaskTemplate):
    id, apps, difficulty = "sheets.fix_broken_total", ("sheets",), 2
    split = "test"  # the Department Budgets workbook is of the test split, and so is its only editor (the CFO)
    summary = "Find the department whose budget total does not add up and fix its formula."

    def sample(self, session, rng, instance):
        book = workbook_titled(session, "Department Budgets")
        cells = values(session, sheet_named(session, book.id, "Budget").id)
        total = row_labelled(cells, "Total")
        row, (broken, _) = nth([(r, b) for b in BREAKS for r in range(1, total - 1)], instance)  # rows first
        raw = broken.format(r=row + 1, s=row + 2)
        spots = rng.sample([(r, c) for r in range(1, total) if r not in (row, row + 1) for c in (5, 6, 7)], 3)
        edits = [(a1("Budget", r, c), cells[(r, c)] + pick(rng, [500, 1000, 1500] + [-500] * (cells[(r, c)] > 500)))
                 for r, c in spots]  # other budget lines raised or cut after the mistake
        tidied = rng.sample([r for r in range(1, total) if r != row], min(len(EARLIER_EDITS), total - 2))
        rewritten = [(a1("Budget", r, 8), pick(rng, SAME_SUMS).format(r=r + 1)) for r in sorted(tidied)]
        actor = pick(rng, editors(session, book, self.split))
        return TaskInstance(
            self.id, instance, actor.id,
            f"One department's Total on the Budget sheet of \"{book.title}\" does not add up: a total must be "
            "its salary cost plus software, travel and other. Find it and fix its formula, and change nothing else.",
            [ToolCall("sheets_list_workbooks", {"query": "Department Budgets"}),
             ToolCall("sheets_read_range", {"workbook": book.id, "range": "Budget!A1:I20"}),
             ToolCall("sheets_write_cells", {"workbook": book.id, "cells": [
                {"cell": a1("Budget", row, 8), "value": f"=SUM(E{row + 1}:H{row + 1})"}]})],
            {"workbook": book.id, "row": row, "broken": raw},
            setup=_break_and_edit(book.id, a1("Budget", row, 8), raw, edits, rewritten))

    def declare(self, start, inst):
        p = inst.params
        total = row_labelled(values(start, sheet_named(start, p["workbook"], "Budget").id), "Total")
        return Declaration([Target("cell", a1("Budget", p["row"], 8),
                                   [a1("Budget", r, 8) for r in range(1, total) if r != p["row"]],
                                   {"workbook": p["workbook"]})], fix=True)

    def check(self, ctx, inst):
        p = inst.params
        budget = sheet_named(ctx.start, p["workbook"], "Budget")
        start, cells = values(ctx.start, budget.id), values(ctx.final, budget.id)
        row, dept = p["row"], start.get((p["row"], 0))
        parts = [start.get((row, c)) or 0 for c in (4, 5, 6, 7)]
        inputs = {a1("Budget", row, c): parts[c - 4] + step for c, step in ((4, 1), (5, 10), (6, 100), (7, 1000))}
        inputs[a1("Budget", row + 1, 7)] = (start.get((row + 1, 7)) or 0) + 5000  # the next department's Other
        target = self.declare(ctx.start, inst).targets[0].ref
        return [check(f"{dept}'s total adds up", close(cells.get((row, 8)), sum(parts)),
                      f"it reads {cells.get((row, 8))!r}", weight=2),
                formulas_follow(ctx.final, p["workbook"], [target], f"{dept}'s total", inputs, [sum(parts) + 1111]),
                *sheet_guards(ctx, p["workbook"], [target])]
