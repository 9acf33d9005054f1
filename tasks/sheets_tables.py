"""Sheets task templates about whole tables: sort the forecast's pipeline keeping each deal's row
(formulas included) together, summarise expenses by category on a new sheet with live formulas,
save a filter view of one owner's deals."""

from __future__ import annotations

import json

from sqlalchemy import select
from sqlalchemy.orm import Session

from officegym.apps.sheets.formula.a1 import quote_sheet
from officegym.apps.sheets.formula.shift import Edit, rewrite
from officegym.apps.sheets.models import Cell, FilterView, Sheet
from officegym.apps.sheets.names import filtered_rows
from officegym.graders.checks import Allow, check, guard, listed_once, nothing_else_changed
from officegym.graders.sheets import close, formulas_follow

from .base import Declaration, TaskInstance, TaskTemplate, Target, ToolCall
from .common import pick, spread
from .registry import register
from .sheets import (PIPELINE_COLUMNS, a1, editors, pipeline_rows, sheet_guards, sheet_named, sort_key, values,
                     workbook_titled)
from .sheets_formulas import expense_layout, personal_books

SORTS = [("Amount", "E", True, "largest first"), ("Expected close", "G", False, "earliest first"),
         ("Weighted", "H", True, "largest first"), ("Account", "A", False, "A to Z"), ("Owner", "C", False, "A to Z"),
         ("Amount", "E", False, "smallest first"), ("Expected close", "G", True, "latest first"),
         ("Stage", "D", False, "A to Z"), ("Deal", "B", False, "A to Z")]


def keys_of(deals: list[tuple], keys: list[dict]) -> list[tuple]:
    """Each deal's values of the sort's key columns, in the deals' order."""
    picks = [PIPELINE_COLUMNS.index(k["column"]) for k in keys]
    return [tuple(d[i] for i in picks) for d in deals]


def ordered(deals: list[tuple], keys: list[dict]) -> list[tuple]:
    """The deals' sort keys in the order the sort asks for (stable: last key first)."""
    order = list(deals)
    for key in reversed(keys):
        index = PIPELINE_COLUMNS.index(key["column"])
        order.sort(key=lambda d: sort_key(d[index]), reverse=key["descending"])
    return keys_of(order, keys)


def _table_rows(session: Session, sheet_id: int) -> dict[int, dict[int, tuple[str, str]]]:
    """A sheet's rows below the header: row -> {col: (input, number format)}."""
    rows: dict[int, dict[int, tuple[str, str]]] = {}
    for row, col, raw, fmt in session.execute(select(Cell.row, Cell.col, Cell.raw, Cell.number_format)
                                              .where(Cell.sheet_id == sheet_id, Cell.row > 0)):
        rows.setdefault(row, {})[col] = (raw, fmt)
    return rows


def _moved(row: dict, sheet: str, by: int) -> dict:
    """A row's cells as moving the row `by` rows rewrites them (its formulas keep reading their row)."""
    return {c: ("=" + rewrite(raw[1:], sheet, Edit("move", rows=by)) if raw.startswith("=") else raw, fmt)
            for c, (raw, fmt) in row.items()}


def rows_not_moved_whole(ctx, sheet: Sheet) -> list[str]:
    """Rows of a sorted table that are not a start row moved whole (its typed inputs, its formats and
    its formulas as the move rewrites them), and start rows gone."""
    start, final = _table_rows(ctx.start, sheet.id), _table_rows(ctx.final, sheet.id)
    typed_part = lambda row: tuple(sorted((c, v) for c, v in row.items() if not v[0].startswith("=")))  # noqa: E731
    unused: dict[tuple, list[int]] = {}
    for r, row in sorted(start.items()):
        unused.setdefault(typed_part(row), []).append(r)
    broken = []
    for r, row in sorted(final.items()):
        origin = (unused.get(typed_part(row)) or [None]).pop(0)
        if origin is None or _moved(start[origin], sheet.name, r - origin) != row:
            broken.append(f"row {r + 1}")
    return broken + [f"row {rows[0] + 1} of the start is gone" for rows in unused.values() if rows]


@register
class SortPipeline(TaskTemplate):
    id, apps, difficulty = "sheets.sort_pipeline", ("sheets",), 1
    summary = "Sort the forecast's pipeline by a column, keeping each deal's row together."

    def sample(self, session, rng, instance):
        book = workbook_titled(session, "FY")
        _, rows = pipeline_rows(session, book.id)
        keys, label, words, then = None, "", "", None
        while keys is None or keys_of(rows, keys) == ordered(rows, keys):  # never sorted already
            label, letter, descending, words = pick(rng, SORTS)
            # two keys the other sheets leave empty (G, H) would not tell a sort of the wrong sheet apart
            then = pick(rng, [o for o in SORTS if o[1] != letter and {o[1], letter} != {"G", "H"}])
            keys = [{"column": letter, "descending": descending}, {"column": then[1], "descending": then[2]}]
        actor = pick(rng, editors(session, book, self.split))
        return TaskInstance(
            self.id, instance, actor.id,
            f"Sort the deals on the Pipeline sheet of \"{book.title}\" by {label} ({words}), then by {then[0]} "
            f"({then[3]}) where they tie. Keep the header row on top and each deal's row together, formulas "
            "included, and change nothing else.",
            [ToolCall("sheets_read_range", {"workbook": book.title, "range": "Pipeline!A1:I60"}),
             ToolCall("sheets_sort_range", {"workbook": book.id, "range": f"Pipeline!A1:I{len(rows) + 1}",
                                            "keys": keys, "has_header": True})],
            {"workbook": book.id, "keys": keys})

    def declare(self, start, inst):
        """The table's range, and the same range on the workbook's other sheets."""
        p = inst.params
        _, rows = pipeline_rows(start, p["workbook"])
        span = f"A1:I{len(rows) + 1}"
        others = [f"{quote_sheet(s.name)}!{span}" for s in start.scalars(select(Sheet).where(
            Sheet.workbook_id == p["workbook"], Sheet.name != "Pipeline").order_by(Sheet.position))]
        return Declaration([Target("cell", f"Pipeline!{span}", others, {"workbook": p["workbook"]})])

    def check(self, ctx, inst):
        p = inst.params
        sheet, before = pipeline_rows(ctx.start, p["workbook"])
        _, after = pipeline_rows(ctx.final, p["workbook"], sheet)
        broken = rows_not_moved_whole(ctx, sheet)
        return [check("The deals are in the asked order", keys_of(after, p["keys"]) == ordered(before, p["keys"]),
                      "the rows are in another order", weight=2),
                guard("Every deal is still listed once, with its own values and formulas", not broken,
                      f"not a start row moved whole: {', '.join(broken[:6])}"),
                *sheet_guards(ctx, p["workbook"], [f"Pipeline!A2:I{len(before) + 1}"])]


AGGREGATES = [("sum", "total amount"), ("count", "number of expenses"), ("average", "average amount"),
              ("max", "largest amount")]
TABS = ["By category", "Summary", "Category totals", "Breakdown"]
FOLDS = {"sum": sum, "count": len, "average": lambda v: sum(v) / len(v), "max": max}


def _summary_inputs(sheet: str, items: list[tuple[str, float]], aggregate: str) -> tuple[dict, list[tuple]]:
    """Inputs that move every category's figure, and the expenses after them: each category's last
    expense raised above the category's largest amount or, for a count, moved to the last category
    listed (other than the category of the last expense)."""
    categories = sorted({c for c, _ in items})
    changed, inputs = list(items), {}
    if aggregate == "count":
        sink = next(c for c in reversed(categories) if c != items[-1][0])
        for name in categories:
            if name != sink:
                k = max(i for i, (c, _) in enumerate(items) if c == name)
                changed[k], inputs[a1(sheet, k + 1, 1)] = (sink, items[k][1]), sink
        return inputs, changed
    for name in categories:
        k = max(i for i, (c, _) in enumerate(items) if c == name)
        raised = max(v for c, v in items if c == name) + 1000
        changed[k], inputs[a1(sheet, k + 1, 3)] = (name, raised), raised
    return inputs, changed


@register
class SummariseExpenses(TaskTemplate):
    id, apps, difficulty = "sheets.summarise_expenses", ("sheets",), 2
    summary = "Build a summary table of expenses per category on a new sheet, with live formulas."

    def sample(self, session, rng, instance):
        books = [b for b in personal_books(session, self.split) if len(set(dict(_expenses(session, b.id)))) >= 2]
        # Every instance its own workbook, figure and tab while they last: a split has few personal workbooks.
        book, (aggregate, words), tab = spread([(b, a, t) for b in books for a in AGGREGATES for t in TABS], instance)
        sheet, _, last, _, _ = expense_layout(session, book.id)
        return TaskInstance(
            self.id, instance, book.owner_id,
            f"In your workbook \"{book.title}\", add a sheet \"{tab}\" with a table from A1: a header row, one row "
            f"per category of your expenses with its {words} in column B, then a Total row with the {words} over "
            "all your expenses. Keep every figure up to date with formulas, and change nothing else.",
            [ToolCall("sheets_read_range", {"workbook": book.title, "range": f"'{sheet.name}'!A1:D40"}),
             ToolCall("sheets_create_summary_table", {
                "workbook": book.id, "source": f"{quote_sheet(sheet.name)}!A1:D{last + 1}", "group_by": "B",
                "value_column": "D", "aggregate": aggregate, "target": f"{quote_sheet(tab)}!A1"})],
            {"workbook": book.id, "aggregate": aggregate, "tab": tab})

    def declare(self, start, inst):
        """The expenses summarised, then the new table's corner (a table on another new sheet is the
        look-alike)."""
        p = inst.params
        sheet, _, last, _, _ = expense_layout(start, p["workbook"])
        where = {"workbook": p["workbook"]}
        return Declaration([Target("cell", f"{quote_sheet(sheet.name)}!A1:D{last + 1}", [], where),
                            Target("cell", f"{quote_sheet(p['tab'])}!A1",
                                   [f"{quote_sheet(t)}!A1" for t in TABS if t != p["tab"]], where)])

    def check(self, ctx, inst):
        p = inst.params
        sheet, _, _, _, _ = expense_layout(ctx.start, p["workbook"])
        items = _expenses(ctx.start, p["workbook"])
        categories = sorted({c for c, _ in items})
        tab = sheet_named(ctx.final, p["workbook"], p["tab"])
        guards = sheet_guards(ctx, p["workbook"], [f"{quote_sheet(p['tab'])}!A1:B{len(categories) + 2}"], more=[
            Allow("sheets_sheet", ("added",), lambda r: r["workbook_id"] == p["workbook"] and r["name"] == p["tab"])])
        if tab is None:
            return [check(f"The workbook has a sheet {p['tab']}", False, "it has none", weight=5), *guards]
        fold = FOLDS[p["aggregate"]]
        shown = values(ctx.final, tab.id)
        listed = [shown.get((r, 0)) for r in range(1, len(categories) + 1)]
        found = {name: r for r, name in enumerate(listed, start=1)}
        right = sorted(map(str, listed)) == categories and all(
            close(shown.get((found[c], 1)), fold([v for k, v in items if k == c])) for c in categories)
        inputs, changed = _summary_inputs(sheet.name, items, p["aggregate"])
        cells = [a1(p["tab"], found.get(c, 1), 1) for c in categories] + [a1(p["tab"], len(categories) + 1, 1)]
        expected = [fold([v for k, v in changed if k == c]) for c in categories] + [fold([v for _, v in changed])]
        total = shown.get((len(categories) + 1, 0))
        return [check(f"The workbook has a sheet {p['tab']}", True),
                check("Each category is listed once, with its figure", right, f"it lists {listed}", weight=2),
                check("A Total row follows the categories", isinstance(total, str) and total.strip().casefold()
                      == "total", f"the row after them reads {total!r}"),
                formulas_follow(ctx.final, p["workbook"], cells, "Every figure and the Total", inputs, expected),
                listed_once(listed, "category"), *guards]


def _expenses(session, workbook_id: int) -> list[tuple[str, float]]:
    """A personal workbook's expenses as (category, amount), top to bottom."""
    _, cells, last, _, _ = expense_layout(session, workbook_id)
    return [(cells[(r, 1)], cells[(r, 3)]) for r in range(1, last + 1)]


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
        actor = pick(rng, editors(session, book, self.split))
        criteria = [{"column": "C", "op": "=", "value": owner}] + (
            [{"column": "D", "op": "=", "value": stage}] if stage else [])
        what = f"{owner}'s deals" + (f" in {stage}" if stage else "")
        return TaskInstance(
            self.id, instance, actor.id,
            f"On the Pipeline sheet of \"{book.title}\", save a filter view named \"{name}\" over the whole table "
            f"that shows only {what}, largest amount first. Save only that view and change nothing else.",
            [ToolCall("sheets_read_range", {"workbook": book.title, "range": "Pipeline!A1:I60"}),
             ToolCall("sheets_create_filter_view", {"workbook": book.id, "name": name,
                                                    "range": f"Pipeline!A1:I{len(deals) + 1}", "criteria": criteria,
                                                    "sort_column": "E", "sort_descending": True})],
            {"workbook": book.id, "name": name, "owner": owner, "stage": stage})

    def declare(self, start, inst):
        """The table (whose cells must stay as they are), then the view by name; the other owners'
        views, named alike, are the look-alikes."""
        p = inst.params
        _, deals = pipeline_rows(start, p["workbook"])
        first = p["owner"].split()[0]
        others = [p["name"].replace(p["owner"], o).replace(f"{first}'s", f"{o.split()[0]}'s")
                  for o in sorted({d[2] for d in deals}) if o != p["owner"]]
        return Declaration([Target("cell", f"Pipeline!A1:I{len(deals) + 1}", [], {"workbook": p["workbook"]}),
                            Target("filter_view", p["name"], [o for o in others if o != p["name"]])])

    def check(self, ctx, inst):
        p = inst.params
        sheet, deals = pipeline_rows(ctx.start, p["workbook"])
        wanted = sorted((r + 2 for r, d in enumerate(deals) if d[2] == p["owner"] and p["stage"] in (None, d[3])),
                        key=lambda r: -deals[r - 2][4])
        view = ctx.final.scalar(select(FilterView).where(FilterView.sheet_id == sheet.id,
                                                         FilterView.name.ilike(p["name"])))
        allowed = nothing_else_changed(ctx.diff, [Allow("sheets_filter_view", ("added",),
                                                        lambda r: r["sheet_id"] == sheet.id)])
        if view is None:
            return [check(f"A filter view named {p['name']} exists", False, "there is none", weight=3), allowed]
        shown = filtered_rows(ctx.final, sheet, view.ref, json.loads(view.criteria), view.sort_column,
                              view.sort_descending)
        return [check(f"A filter view named {p['name']} exists", True),
                check("It shows exactly those deals, largest first, under the header", shown == [1] + wanted,
                      f"it shows rows {shown[:12]}", weight=2), allowed]
