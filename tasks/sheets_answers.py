"""Sheets answer tasks: read a figure off the department budgets, add up part of the forecast's
pipeline, count people in the headcount plan. Expected values are recomputed from the start state's
stored cells at grading time."""

from __future__ import annotations

from datetime import date, timedelta

from sqlalchemy import select

from officegym.apps.org.models import Person
from officegym.apps.sheets.models import Share
from officegym.graders.checks import answer_is_number, nothing_else_changed

from .base import TaskInstance, TaskTemplate, ToolCall
from .common import pick
from .registry import register
from .sheets import is_number, pipeline_rows, read_calls, row_labelled, sheet_named, values, workbook_titled

BUDGET_FIGURES = [("Salary cost", 4), ("Software", 5), ("Travel", 6), ("Other", 7), ("Total", 8),
                  ("Cost per head", 9)]


def readers(session, book) -> list:
    """Everyone who can read a workbook (owner, editors and viewers), by id."""
    ids = {book.owner_id} | set(session.scalars(select(Share.person_id).where(Share.workbook_id == book.id)))
    return list(session.scalars(select(Person).where(Person.id.in_(ids)).order_by(Person.id)))


@register
class BudgetFigure(TaskTemplate):
    id, apps, difficulty = "sheets.budget_figure", ("sheets",), 1
    summary = "Read one department's budget figure off the department budgets workbook."

    def sample(self, session, rng, instance):
        book = workbook_titled(session, "Department Budgets")
        sheet = sheet_named(session, book.id, "Budget")
        cells = values(session, sheet.id)
        row = pick(rng, list(range(1, row_labelled(cells, "Total"))))
        figure, col = pick(rng, BUDGET_FIGURES)
        actor = pick(rng, readers(session, book))
        return TaskInstance(
            self.id, instance, actor.id,
            f"What is the {cells[(row, 0)]} department's {figure} in \"{book.title}\"? Submit the number in dollars "
            "(rounded to the cent) with submit_answer.",
            [ToolCall("sheets_read_range", {"workbook": book.id, "range": f"Budget!A{row + 1}:J{row + 1}"}),
             ToolCall("submit_answer", {"answer": f"{cells[(row, col)]:.2f}"})],
            {"workbook": book.id, "row": row, "col": col}, is_answer_task=True)

    def check(self, ctx, inst):
        p = inst.params
        cells = values(ctx.start, sheet_named(ctx.start, p["workbook"], "Budget").id)
        return [answer_is_number(ctx.answer, round(cells[(p["row"], p["col"])], 2), 0.006, weight=2),
                nothing_else_changed(ctx.diff, [])]


@register
class PipelineSlice(TaskTemplate):
    id, apps, difficulty = "sheets.pipeline_slice", ("sheets",), 2
    summary = "Add up the forecast's pipeline for one owner, stage or quarter (amount or weighted)."

    def sample(self, session, rng, instance):
        book = workbook_titled(session, "FY")
        sheet, deals = pipeline_rows(session, book.id)
        quarters = values(session, sheet.id)
        by, index = pick(rng, [("owner", 2), ("stage", 3), ("quarter", 7)])
        if by == "quarter":
            options = sorted({quarters.get((r + 1, 8)) for r in range(len(deals))} - {None})
        else:
            options = sorted({d[index] for d in deals})
        choice, weighted = pick(rng, options), pick(rng, [False, True])
        what = {"owner": f"owned by {choice}", "stage": f"in {choice}", "quarter": f"expected to close in {choice}"}[by]
        actor = pick(rng, readers(session, book))
        return TaskInstance(
            self.id, instance, actor.id,
            f"According to \"{book.title}\", what is the total {'weighted amount' if weighted else 'amount'} of the "
            f"open deals {what}? Submit the number in dollars with submit_answer.",
            [*read_calls(book.id, "Pipeline", 9, len(deals) + 1),
             ToolCall("submit_answer", {"answer": f"{_slice(session, book.id, by, choice, weighted):.2f}"})],
            {"workbook": book.id, "by": by, "choice": choice, "weighted": weighted}, is_answer_task=True)

    def check(self, ctx, inst):
        p = inst.params
        expected = _slice(ctx.start, p["workbook"], p["by"], p["choice"], p["weighted"])
        return [answer_is_number(ctx.answer, round(expected, 2), 0.006, weight=2), nothing_else_changed(ctx.diff, [])]


def _slice(session, workbook_id: int, by: str, choice: str, weighted: bool) -> float:
    """The pipeline's amount (or weighted amount) over the deals of one owner, stage or quarter."""
    sheet, deals = pipeline_rows(session, workbook_id)
    cells = values(session, sheet.id)
    total = 0.0
    for r, deal in enumerate(deals, start=1):
        key = {"owner": deal[2], "stage": deal[3], "quarter": cells.get((r, 8))}[by]
        value = deal[6] if weighted else deal[4]
        total += value if key == choice and is_number(value) else 0
    return total


@register
class PeopleCount(TaskTemplate):
    id, apps, difficulty = "sheets.people_count", ("sheets",), 2
    summary = "Count people of a department in the headcount plan who started in a given year or work in a location."

    def sample(self, session, rng, instance):
        book = workbook_titled(session, "Headcount Plan")
        people = _people(session, book.id)
        dept = pick(rng, sorted({p[1] for p in people}))
        by = pick(rng, ["location", "year"])
        if by == "location":
            choice = pick(rng, sorted({p[3] for p in people}))
            what = f"based in {choice}"
        else:
            choice = pick(rng, sorted({p[6] for p in people}))
            what = f"who started in {choice}"
        actor = pick(rng, readers(session, book))
        count = _count(people, dept, by, choice)
        return TaskInstance(
            self.id, instance, actor.id,
            f"According to the People sheet of \"{book.title}\", how many people in {dept} are {what}? "
            "Submit the number with submit_answer.",
            [*read_calls(book.id, "People", 7, len(people) + 1), ToolCall("submit_answer", {"answer": str(count)})],
            {"workbook": book.id, "dept": dept, "by": by, "choice": choice}, is_answer_task=True)

    def check(self, ctx, inst):
        p = inst.params
        return [answer_is_number(ctx.answer, _count(_people(ctx.start, p["workbook"]), p["dept"], p["by"], p["choice"]),
                                 weight=2), nothing_else_changed(ctx.diff, [])]


def _people(session, workbook_id: int) -> list[tuple]:
    """Rows of the People sheet (name, department, title, location, team, manager, start year)."""
    cells = values(session, sheet_named(session, workbook_id, "People").id)
    last = max(r for r, _ in cells)
    rows = []
    for r in range(1, last + 1):
        row = [cells.get((r, c)) for c in range(7)]
        if is_number(row[6]):
            row[6] = (date(1899, 12, 30) + timedelta(days=int(row[6]))).year
        rows.append(tuple(row))
    return rows


def _count(people: list[tuple], dept: str, by: str, choice) -> int:
    return sum(1 for p in people if p[1] == dept and p[3 if by == "location" else 6] == choice)

