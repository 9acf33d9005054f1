"""Sheets task templates that ask for formulas: add an expense and keep the totals right, add a share
column to the budget, add a figure to the forecast summary, fix a broken budget total, summarise
expenses by category, and save a filter view of one owner's deals.

A formula is checked by value and by behaviour: `formula_check` changes its inputs in an in-memory
copy of the final workbook, so a typed number that happens to match never passes."""

from __future__ import annotations

import json
from datetime import date, timedelta

from sqlalchemy import select

from officegym.apps.sheets.models import Cell, FilterView, Sheet, Workbook
from officegym.apps.sheets.names import filtered_rows
from officegym.graders.checks import Allow, check, nothing_else_changed

from .base import TaskInstance, TaskTemplate, ToolCall
from .common import nth, pick
from .registry import register
from .sheets import (allow_edits, close, editors, formula_check, is_number, money, pipeline_rows, row_labelled,
                     sheet_named, value_of, values, workbook_titled)

NEW_EXPENSES = [("Travel", "Taxi to the airport", 38.5), ("Meals", "Lunch with a prospect", 64.2),
                ("Travel", "Train ticket to the client", 112.0), ("Meals", "Team coffee run", 23.75),
                ("Lodging", "Hotel, one night", 189.0), ("Software", "Diagramming tool, one month", 15.0),
                ("Supplies", "Notebooks and pens", 27.3), ("Travel", "Parking at the venue", 18.0)]


def personal_books(session) -> list[Workbook]:
    """The seeded personal workbooks (expense reports and small budgets), by id."""
    return [w for w in session.scalars(select(Workbook).order_by(Workbook.id)) if "—" in w.title]


def expense_layout(session, workbook_id: int) -> tuple[Sheet, dict, int, int, dict[str, int]]:
    """A personal workbook's sheet, values, last item row and Total row (0-based), and the row of each
    category in its category table."""
    sheet = session.scalars(select(Sheet).where(Sheet.workbook_id == workbook_id).order_by(Sheet.position)).first()
    cells = values(session, sheet.id)
    total = row_labelled(cells, "Total")
    last = max(r for (r, c), v in cells.items() if c == 3 and 0 < r < total and v is not None)
    categories = {v: r for (r, c), v in cells.items() if c == 5 and r > 0 and isinstance(v, str)}
    return sheet, cells, last, total, categories


@register
class AddExpenseRow(TaskTemplate):
    id, apps, difficulty = "sheets.add_expense_row", ("sheets",), 3
    summary = "Add an expense right below the last one and keep the total and the category totals right."

    def sample(self, session, rng, instance):
        book = pick(rng, personal_books(session))
        sheet, cells, last, total, categories = expense_layout(session, book.id)
        category, text, amount = pick(rng, [e for e in NEW_EXPENSES if e[0] in categories] or NEW_EXPENSES)
        amount = round(amount * pick(rng, [1, 1.1, 1.25, 0.9, 1.4]), 2)
        day = date(1899, 12, 30) + timedelta(days=int(cells[(last, 0)]) + pick(rng, [0, 1, 2, 3, 6]))
        new = last + 2  # 1-based row of the new item
        item_range = f"$B$2:$B${new}"
        fixes = [{"cell": f"A{new}", "value": day.isoformat()}, {"cell": f"B{new}", "value": category},
                 {"cell": f"C{new}", "value": text}, {"cell": f"D{new}", "value": amount}]
        solution = [ToolCall("sheets_insert_rows", {"workbook": book.id, "sheet": sheet.name, "before": new}),
                    ToolCall("sheets_write_cells", {"workbook": book.id, "cells": fixes + [
                        {"cell": f"D{total + 2}", "value": f"=SUM(D2:D{new})"}] + [
                        {"cell": f"G{r + 1}", "value": f"=SUMIF({item_range},F{r + 1},$D$2:$D${new})"}
                        for r in sorted(categories.values())]})]
        return TaskInstance(
            self.id, instance, book.owner_id,
            f"Add this expense to your workbook \"{book.title}\" as a new row right below the last one: "
            f"{day.isoformat()}, {category}, \"{text}\", {money(amount)}. Make sure the Total and the "
            "per-category totals include it.",
            solution, {"workbook": book.id, "row": last + 1, "day": day.isoformat(), "category": category,
                       "text": text, "amount": amount})

    def check(self, ctx, inst):
        p = inst.params
        sheet, before, last, total, categories = expense_layout(ctx.start, p["workbook"])
        _, after, _, new_total, new_categories = expense_layout(ctx.final, p["workbook"])
        row = p["row"]
        serial = (date.fromisoformat(p["day"]) - date(1899, 12, 30)).days
        placed = (after.get((row, 0)) == serial and after.get((row, 1)) == p["category"]
                  and after.get((row, 2)) == p["text"] and close(after.get((row, 3)), p["amount"]))
        kept = all(after.get((r, c)) == before.get((r, c)) for r in range(1, last + 1) for c in range(4))
        results = [check(f"Row {row + 1} holds the new expense", placed,
                         f"it reads {[after.get((row, c)) for c in range(4)]}", weight=2),
                   check("The earlier expenses are unchanged", kept, "an earlier expense changed")]
        allowed = allow_edits(ctx.start, p["workbook"], {sheet.id})
        if new_total is None:
            return results + [check("A Total row remains", False, "no row is labelled Total"),
                              nothing_else_changed(ctx.diff, allowed)]
        amount_ref = f"'{sheet.name}'!D{row + 1}"
        results.append(formula_check(ctx.final, p["workbook"], sheet, new_total, 3, "the Total",
                                     {amount_ref: p["amount"] + 100}, before[(total, 3)] + p["amount"] + 100, 2))
        cat_row = new_categories.get(p["category"])
        if cat_row is not None:
            was = before.get((categories[p["category"]], 6)) if p["category"] in categories else 0
            results.append(formula_check(ctx.final, p["workbook"], sheet, cat_row, 6, f"{p['category']}'s total",
                                         {amount_ref: p["amount"] + 100}, (was or 0) + p["amount"] + 100))
        else:
            results.append(check(f"The category table lists {p['category']}", False, "it does not"))
        return results + [nothing_else_changed(ctx.diff, allowed)]


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
    summary = "Add a column of formulas giving each department's share of a budget total, as a percentage."

    def sample(self, session, rng, instance):
        book = workbook_titled(session, "Department Budgets")
        budget = sheet_named(session, book.id, "Budget")
        total = row_labelled(values(session, budget.id), "Total")
        (header, source, words), column, decimals = nth([(s, c, d) for s in SHARES for c in "KLM"
                                                            for d in (0, 1, 2)], instance)
        pattern = "0%" if not decimals else "0." + "0" * decimals + "%"
        actor = pick(rng, editors(session, book))
        formulas = [[f"={source}{r}/{source}${total + 1}"] for r in range(2, total + 1)]
        return TaskInstance(
            self.id, instance, actor.id,
            f"In \"{book.title}\", add a column \"{header}\" in column {column} of the Budget sheet (header in row 1) "
            f"with a formula giving each department's share of the company's {words}, shown as a percentage with "
            f"{decimals} decimal{'s' * (decimals != 1)}.",
            [ToolCall("sheets_write_range", {"workbook": book.id, "start": f"Budget!{column}1",
                                             "rows": [[header]] + formulas}),
             ToolCall("sheets_set_number_format", {"workbook": book.id, "range": f"Budget!{column}2:{column}{total}",
                                                   "number_format": pattern})],
            {"workbook": book.id, "column": column, "header": header, "source": source, "decimals": decimals})

    def check(self, ctx, inst):
        p = inst.params
        budget = sheet_named(ctx.final, p["workbook"], "Budget")
        cells = values(ctx.final, budget.id)
        total = row_labelled(cells, "Total")
        col, src = "ABCDEFGHIJKLM".index(p["column"]), "ABCDEFGHI".index(p["source"])
        rows = list(range(1, total))
        right = all(close(cells.get((r, col)), cells[(r, src)] / cells[(total, src)], 1e-6) for r in rows)
        formats = [ctx.final.get(Cell, (budget.id, r, col)) for r in rows]
        # Raising the first department's headcount moves every share of every column asked for.
        size, average = cells[(1, 2)] + 5, cells[(1, 3)]
        load = value_of(ctx.final.get(Cell, (sheet_named(ctx.final, p["workbook"], "Assumptions").id, 1, 1)))
        salary = size * average * (1 + load)
        new_source = {"C": size, "E": salary, "I": salary + sum(cells[(1, c)] for c in (5, 6, 7))}[p["source"]]
        new_total = cells[(total, src)] - cells[(1, src)] + new_source
        return [check(f"{p['column']}1 reads {p['header']}", (cells.get((0, col)) or "").strip().casefold() ==
                      p["header"].casefold(), f"it reads {cells.get((0, col))!r}"),
                check("Each department's share is right", right, "a share is missing or wrong", weight=2),
                check(f"The shares are shown as percentages with {p['decimals']} decimals",
                      all(f and _percent_decimals(f.number_format) == p["decimals"] for f in formats),
                      "a share is not formatted so"),
                formula_check(ctx.final, p["workbook"], budget, 1, col, "the first department's share",
                              {"Budget!C2": size}, new_source / new_total, 2),
                nothing_else_changed(ctx.diff, allow_edits(ctx.start, p["workbook"], {budget.id},
                                                           lambda row: row["col"] == col))]


# (label, formula, how to compute it from the Pipeline's deal rows (see pipeline_rows))
def _amounts(deals) -> list[float]:
    return [d[4] for d in deals if is_number(d[4])]


def _median(values: list[float]) -> float:
    ordered, half = sorted(values), len(values) // 2
    return ordered[half] if len(values) % 2 else (ordered[half - 1] + ordered[half]) / 2


METRICS = [("Average open deal", "=AVERAGE(PipelineAmount)", lambda d: sum(_amounts(d)) / len(_amounts(d))),
           ("Smallest open deal", "=MIN(PipelineAmount)", lambda d: min(_amounts(d))),
           ("Median open deal", "=MEDIAN(PipelineAmount)", lambda d: _median(_amounts(d)))]
METRICS += [(f"Deals over {money(x)}", f'=COUNTIF(PipelineAmount,">{x}")',
             lambda d, x=x: sum(v > x for v in _amounts(d))) for x in (25_000, 50_000, 100_000, 150_000, 250_000)]
METRICS += [(f"Deals under {money(x)}", f'=COUNTIF(PipelineAmount,"<{x}")',
             lambda d, x=x: sum(v < x for v in _amounts(d))) for x in (50_000, 100_000, 200_000)]
METRICS += [(f"Pipeline over {money(x)}", f'=SUMIF(PipelineAmount,">{x}")',
             lambda d, x=x: sum(v for v in _amounts(d) if v > x)) for x in (100_000, 200_000, 300_000)]
METRICS += [(f"{stage} amount", f'=SUMIF(Pipeline!$D$2:$D$500,"{stage}",Pipeline!$E$2:$E$500)',
             lambda d, s=stage: sum(r[4] for r in d if r[3] == s and is_number(r[4])))
            for stage in ("Prospecting", "Qualification", "Proposal", "Negotiation")]
METRICS += [(f"{stage} deals", f'=COUNTIF(Pipeline!$D$2:$D$500,"{stage}")',
             lambda d, s=stage: sum(1 for r in d if r[3] == s))
            for stage in ("Prospecting", "Qualification", "Proposal", "Negotiation")]
METRICS += [(f"Largest {stage} deal", f'=MAXIFS(Pipeline!$E$2:$E$500,Pipeline!$D$2:$D$500,"{stage}")',
             lambda d, s=stage: max([r[4] for r in d if r[3] == s and is_number(r[4])] or [0]))
            for stage in ("Qualification", "Proposal", "Negotiation")]


def _perturbed(deals: list[tuple], compute) -> tuple[dict, list[tuple]]:
    """The first change of one deal that moves the metric — its amount doubled or cut to a hundredth,
    else its stage changed — as the cell to type ({ref: value}) and the changed deal rows."""
    for k, deal in enumerate(deals):
        options = [(4, round(deal[4] * f, 2)) for f in (2, 0.01) if is_number(deal[4])]
        options += [(3, stage) for stage in ("Prospecting", "Negotiation") if stage != deal[3]]
        for index, value in options:
            changed = deals[:k] + [deal[:index] + (value,) + deal[index + 1:]] + deals[k + 1:]
            if abs(compute(changed) - compute(deals)) > 0.01:
                return {f"Pipeline!{'ABCDE'[index]}{k + 2}": value}, changed
    raise RuntimeError("no change of one deal moves this metric")


@register
class AddForecastMetric(TaskTemplate):
    id, apps, difficulty = "sheets.add_forecast_metric", ("sheets",), 2
    summary = "Add a labelled figure computed by a formula over the pipeline to the forecast's summary."

    def sample(self, session, rng, instance):
        book = workbook_titled(session, "FY")
        summary = sheet_named(session, book.id, "Summary")
        last = max(r for r, _ in values(session, summary.id))
        label, formula, _ = nth(METRICS, instance)
        actor = pick(rng, editors(session, book))
        return TaskInstance(
            self.id, instance, actor.id,
            f"On the Summary sheet of \"{book.title}\", add a row below the key figures labelled \"{label}\" "
            "with a formula in column B that computes it from the Pipeline's amounts, so that it stays right "
            "when deals change.",
            [ToolCall("sheets_write_range", {"workbook": book.id, "start": f"Summary!A{last + 2}",
                                             "rows": [[label, formula]]})],
            {"workbook": book.id, "label": label})

    def check(self, ctx, inst):
        p = inst.params
        compute = next(m[2] for m in METRICS if m[0] == p["label"])
        summary = sheet_named(ctx.final, p["workbook"], "Summary")
        _, deals = pipeline_rows(ctx.final, p["workbook"])
        start_last = max(r for r, _ in values(ctx.start, summary.id))
        row = row_labelled(values(ctx.final, summary.id), p["label"])
        allowed = allow_edits(ctx.start, p["workbook"], {summary.id}, lambda r: r["row"] > start_last)
        if row is None or row <= start_last:
            return [check(f"A new row below the key figures reads {p['label']}", False, "there is none", weight=2),
                    nothing_else_changed(ctx.diff, allowed)]
        typed_in, changed = _perturbed(deals, compute)
        got = value_of(ctx.final.get(Cell, (summary.id, row, 1)))
        return [check(f"A new row below the key figures reads {p['label']}", True, weight=2),
                check("Its value is right", close(got, compute(deals)), f"it reads {got!r}"),
                formula_check(ctx.final, p["workbook"], summary, row, 1, p["label"],
                              typed_in, compute(changed), 2),
                nothing_else_changed(ctx.diff, allowed)]


BREAKS = [("=SUM(E{r}:G{r})", "leaves out Other"), ("=SUM(F{r}:H{r})", "leaves out the salary cost"),
          ("=E{r}+F{r}+G{r}", "leaves out Other"), ("=SUM(E{r}:H{s})", "adds the next department's costs")]


@register
class FixBrokenTotal(TaskTemplate):
    id, apps, difficulty = "sheets.fix_broken_total", ("sheets",), 3
    summary = "Find the department whose budget total does not add up and fix its formula."

    def sample(self, session, rng, instance):
        book = workbook_titled(session, "Department Budgets")
        budget = sheet_named(session, book.id, "Budget")
        total = row_labelled(values(session, budget.id), "Total")
        row, (broken, _) = nth([(r, b) for r in range(1, total - 1) for b in BREAKS], instance)
        raw = broken.format(r=row + 1, s=row + 2)
        actor = pick(rng, editors(session, book))

        def setup(s):
            from officegym.apps.sheets import services
            from officegym.apps.org.models import Person

            services.write_cells(s, s.get(Person, book.owner_id), book.id, [{"cell": f"Budget!I{row + 1}", "value": raw}])

        return TaskInstance(
            self.id, instance, actor.id,
            f"One department's Total on the Budget sheet of \"{book.title}\" does not add up: a total must be "
            "its salary cost plus software, travel and other. Find it and fix its formula.",
            [ToolCall("sheets_write_cells", {"workbook": book.id, "cells": [
                {"cell": f"Budget!I{row + 1}", "value": f"=SUM(E{row + 1}:H{row + 1})"}]})],
            {"workbook": book.id, "row": row, "broken": raw}, setup=setup)

    def check(self, ctx, inst):
        p = inst.params
        budget = sheet_named(ctx.final, p["workbook"], "Budget")
        cells = values(ctx.final, budget.id)
        row, dept = p["row"], cells.get((p["row"], 0))
        parts = [cells.get((row, c)) or 0 for c in (4, 5, 6, 7)]
        return [check(f"{dept}'s total adds up", close(cells.get((row, 8)), sum(parts)), f"it reads {cells.get((row, 8))!r}",
                      weight=2),
                formula_check(ctx.final, p["workbook"], budget, row, 8, f"{dept}'s total",
                              {f"Budget!H{row + 1}": parts[3] + 1000, f"Budget!F{row + 1}": parts[1] + 10},
                              sum(parts) + 1010, 2),
                nothing_else_changed(ctx.diff, allow_edits(ctx.start, p["workbook"], {budget.id},
                                                           lambda r: (r["row"], r["col"]) == (row, 8)))]


AGGREGATES = [("sum", "total amount"), ("count", "number of expenses"), ("average", "average amount"),
              ("max", "largest amount")]


@register
class SummariseExpenses(TaskTemplate):
    id, apps, difficulty = "sheets.summarise_expenses", ("sheets",), 2
    summary = "Build a summary table of expenses per category on a new sheet, with live formulas."

    def sample(self, session, rng, instance):
        book = pick(rng, personal_books(session))
        sheet, _, last, _, _ = expense_layout(session, book.id)
        aggregate, words = pick(rng, AGGREGATES)
        tab = pick(rng, ["By category", "Summary", "Category totals", "Breakdown"])
        return TaskInstance(
            self.id, instance, book.owner_id,
            f"In your workbook \"{book.title}\", add a sheet \"{tab}\" with a table (from A1, header row first) of "
            f"the {words} per category of your expenses, kept up to date by formulas.",
            [ToolCall("sheets_create_summary_table", {
                "workbook": book.id, "source": f"'{sheet.name}'!A1:D{last + 1}", "group_by": "B", "value_column": "D",
                "aggregate": aggregate, "target": f"'{tab}'!A1"})],
            {"workbook": book.id, "aggregate": aggregate, "tab": tab})

    def check(self, ctx, inst):
        p = inst.params
        sheet, before, last, _, _ = expense_layout(ctx.start, p["workbook"])
        tab = sheet_named(ctx.final, p["workbook"], p["tab"])
        tab_id = tab.id if tab else -1
        allowed = allow_edits(ctx.start, p["workbook"], set()) + [
            Allow("sheets_sheet", ("added",), lambda r: r["workbook_id"] == p["workbook"]),
            Allow("sheets_cell", ("added",), lambda r: r["sheet_id"] == tab_id)]
        if tab is None:
            return [check(f"The workbook has a sheet {p['tab']}", False, "it has none", weight=3),
                    nothing_else_changed(ctx.diff, allowed)]
        items = [(before[(r, 1)], before[(r, 3)]) for r in range(1, last + 1)]
        changed = items[:1] and [(items[0][0], items[0][1] + 500)] + items[1:]
        fold = {"sum": sum, "count": len, "average": lambda v: sum(v) / len(v), "max": max}[p["aggregate"]]
        expect = lambda rows, c: fold([v for k, v in rows if k == c])  # noqa: E731
        shown = values(ctx.final, tab.id)
        found = {shown.get((r, 0)): r for (r, c) in shown if c == 0 and r > 0}
        categories = sorted({c for c, _ in items})
        right = all(c in found and close(shown.get((found[c], 1)), expect(items, c)) for c in categories)
        first = items[0][0]
        if p["aggregate"] == "count":  # a new amount leaves a count alone: move the first expense elsewhere
            inputs, changed = {f"'{sheet.name}'!B2": "Elsewhere"}, [("Elsewhere", items[0][1])] + items[1:]
        else:
            inputs = {f"'{sheet.name}'!D2": items[0][1] + 500}
        return [check(f"The workbook has a sheet {p['tab']}", True, weight=1),
                check("Every category is listed with its figure", right, "a category is missing or wrong", weight=2),
                formula_check(ctx.final, p["workbook"], tab, found.get(first, 1), 1, f"{first}'s figure",
                              inputs, expect(changed, first), 2)
                if first in found else check(f"{first} is listed", False, "it is not"),
                nothing_else_changed(ctx.diff, allowed)]


@register
class OwnerFilterView(TaskTemplate):
    id, apps, difficulty = "sheets.owner_filter_view", ("sheets",), 2
    summary = "Save a filter view of the forecast pipeline showing one owner's deals, largest first."

    def sample(self, session, rng, instance):
        book = workbook_titled(session, "FY")
        _, deals = pipeline_rows(session, book.id)
        owner = pick(rng, sorted({d[2] for d in deals}))
        stage = pick(rng, [None] + sorted({d[3] for d in deals if d[2] == owner}))  # never an empty view
        name = pick(rng, [f"{owner.split()[0]}'s deals", f"{owner} pipeline", f"Deals of {owner}"])
        actor = pick(rng, editors(session, book))
        criteria = [{"column": "C", "op": "=", "value": owner}] + (
            [{"column": "D", "op": "=", "value": stage}] if stage else [])
        what = f"{owner}'s deals" + (f" in {stage}" if stage else "")
        return TaskInstance(
            self.id, instance, actor.id,
            f"On the Pipeline sheet of \"{book.title}\", save a filter view named \"{name}\" over the whole table "
            f"that shows only {what}, largest amount first. Do not change the cells.",
            [ToolCall("sheets_create_filter_view", {"workbook": book.id, "name": name,
                                                    "range": f"Pipeline!A1:I{len(deals) + 1}", "criteria": criteria,
                                                    "sort_column": "E", "sort_descending": True})],
            {"workbook": book.id, "name": name, "owner": owner, "stage": stage})

    def check(self, ctx, inst):
        p = inst.params
        sheet, deals = pipeline_rows(ctx.start, p["workbook"])
        wanted = sorted((r + 2 for r, d in enumerate(deals) if d[2] == p["owner"] and p["stage"] in (None, d[3])),
                        key=lambda r: -deals[r - 2][4])
        view = ctx.final.scalar(select(FilterView).where(FilterView.sheet_id == sheet.id,
                                                         FilterView.name.ilike(p["name"])))
        allowed = [Allow("sheets_filter_view", ("added",), lambda r: r["sheet_id"] == sheet.id)]
        if view is None:
            return [check(f"A filter view named {p['name']} exists", False, "there is none", weight=3),
                    nothing_else_changed(ctx.diff, allowed)]
        shown = filtered_rows(ctx.final, sheet, view.ref, json.loads(view.criteria), view.sort_column,
                              view.sort_descending)
        return [check(f"A filter view named {p['name']} exists", True),
                check("It shows exactly those deals, largest first, under the header", shown == [1] + wanted,
                      f"it shows rows {shown[:12]}", weight=2),
                nothing_else_changed(ctx.diff, allowed)]
