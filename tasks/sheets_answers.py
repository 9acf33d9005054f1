"""Sheets answer tasks: read a figure off the department budgets, add up part of the forecast's
pipeline, count people in the headcount plan; and the pipeline figures the forecast tasks compute.
Expected values are recomputed from the start state's stored cells at grading time; an answer is
one number (graders.answers), and each task declares the look-alike figures an answer could give."""

from __future__ import annotations

from datetime import date, timedelta

from officegym.graders.answers import answer_is_number
from officegym.graders.checks import nothing_else_changed
from officegym.graders.statements import Candidate

from .base import Claim, Declaration, TaskInstance, TaskTemplate, Target, ToolCall
from .common import pick, spread
from .registry import register
from .sheets import editors, is_number, money, pipeline_rows, read_calls, row_labelled, sheet_named, values, \
    workbook_titled

BUDGET_FIGURES = [("Salary cost", 4), ("Software", 5), ("Travel", 6), ("Other", 7), ("Total", 8),
                  ("Cost per head", 9)]


def _amounts(deals) -> list[float]:
    return [d[4] for d in deals if is_number(d[4])]


def _median(numbers: list[float]) -> float:
    ordered, half = sorted(numbers), len(numbers) // 2
    return ordered[half] if len(numbers) % 2 else (ordered[half - 1] + ordered[half]) / 2


# Figures of the forecast's pipeline: (label, formula, how to compute it from pipeline_rows' deals).
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


def perturbed(deals: list[tuple], compute) -> tuple[dict, list[tuple]]:
    """A change of the last deal that moves a figure — its amount doubled or cut to a hundredth, else
    its stage changed — as the cell to type ({ref: value}) and the changed deal rows (the last one, so
    a formula over only part of the pipeline does not follow)."""
    for k in reversed(range(len(deals))):
        deal = deals[k]
        options = [(4, round(deal[4] * f, 2)) for f in (2, 0.01) if is_number(deal[4])]
        options += [(3, stage) for stage in ("Prospecting", "Negotiation") if stage != deal[3]]
        for index, value in options:
            changed = deals[:k] + [deal[:index] + (value,) + deal[index + 1:]] + deals[k + 1:]
            if abs(compute(changed) - compute(deals)) > 0.01:
                return {f"Pipeline!{'ABCDE'[index]}{k + 2}": value}, changed
    raise RuntimeError("no change of one deal moves this figure")


def _money_pool(amounts, right: float) -> list[Candidate]:
    """Other amounts an answer could give, as candidates (never the right one)."""
    cents = {round(a * 100) for a in amounts if is_number(a)} - {round(right * 100)}
    return [Candidate.money(c) for c in sorted(cents)]


@register
class BudgetFigure(TaskTemplate):
    id, apps, difficulty = "sheets.budget_figure", ("sheets",), 1
    split = "test"  # the Department Budgets workbook is of the test split
    summary = "Read one department's budget figure off the department budgets workbook."
    answered = True

    def sample(self, session, rng, instance):
        book = workbook_titled(session, "Department Budgets")
        cells = values(session, sheet_named(session, book.id, "Budget").id)
        row, (figure, col) = spread([(r, f) for r in range(1, row_labelled(cells, "Total")) for f in BUDGET_FIGURES],
                                    instance)
        actor = pick(rng, editors(session, book, self.split))
        return TaskInstance(
            self.id, instance, actor.id,
            f"What is the {cells[(row, 0)]} department's {figure} in \"{book.title}\"? Submit the number in dollars "
            "(rounded to the cent) with submit_answer.",
            [ToolCall("sheets_read_range", {"workbook": book.id, "range": f"Budget!A{row + 1}:J{row + 1}"}),
             ToolCall("submit_answer", {"answer": f"{cells[(row, col)]:.2f}"})],
            {"workbook": book.id, "row": row, "col": col})

    def declare(self, start, inst):
        """The department's row; the pool is every other dollar figure of its row and of its column."""
        p = inst.params
        cells = values(start, sheet_named(start, p["workbook"], "Budget").id)
        right = cells[(p["row"], p["col"])]
        nearby = [v for (r, c), v in cells.items() if r > 0 and (r == p["row"] or c == p["col"]) and c >= 3]
        return Declaration([Target("cell", f"Budget!A{p['row'] + 1}:J{p['row'] + 1}", [],
                                   {"workbook": p["workbook"]})],
                           [Claim(Candidate.money(round(right * 100)), _money_pool(nearby, right), "answer", "amount")])

    def check(self, ctx, inst):
        p = inst.params
        cells = values(ctx.start, sheet_named(ctx.start, p["workbook"], "Budget").id)
        return [answer_is_number(ctx.answer, round(cells[(p["row"], p["col"])], 2), 0.006, weight=2),
                nothing_else_changed(ctx.diff, [])]


@register
class PipelineSlice(TaskTemplate):
    id, apps, difficulty = "sheets.pipeline_slice", ("sheets",), 2
    summary = "Add up the forecast's pipeline for one owner, stage or quarter (amount or weighted)."
    answered = True

    def sample(self, session, rng, instance):
        book = workbook_titled(session, "FY")
        _, deals = pipeline_rows(session, book.id)
        by, choice, weighted = spread([(b, c, w) for b in ("owner", "stage", "quarter")
                                       for c in _choices(session, book.id, b) for w in (False, True)], instance)
        what = {"owner": f"owned by {choice}", "stage": f"in {choice}", "quarter": f"expected to close in {choice}"}[by]
        actor = pick(rng, editors(session, book, self.split))
        return TaskInstance(
            self.id, instance, actor.id,
            f"According to \"{book.title}\", what is the total {'weighted amount' if weighted else 'amount'} of the "
            f"open deals {what}? Submit the number in dollars (to the cent) with submit_answer.",
            [*read_calls(book.id, "Pipeline", 9, len(deals) + 1),
             ToolCall("submit_answer", {"answer": f"{_slice(session, book.id, by, choice, weighted):.2f}"})],
            {"workbook": book.id, "by": by, "choice": choice, "weighted": weighted})

    def declare(self, start, inst):
        """The pipeline read; the pool is the same sum over the other owners, stages or quarters, and
        the other kind of amount."""
        p = inst.params
        right = _slice(start, p["workbook"], p["by"], p["choice"], p["weighted"])
        others = [_slice(start, p["workbook"], p["by"], c, w) for c in _choices(start, p["workbook"], p["by"])
                  for w in (False, True)]
        first = read_calls(p["workbook"], "Pipeline", 9, len(pipeline_rows(start, p["workbook"])[1]) + 1)[0]
        return Declaration([Target("cell", first.args["range"], [], {"workbook": p["workbook"]})],
                           [Claim(Candidate.money(round(right * 100)), _money_pool(others, right), "answer", "amount")])

    def check(self, ctx, inst):
        p = inst.params
        expected = _slice(ctx.start, p["workbook"], p["by"], p["choice"], p["weighted"])
        return [answer_is_number(ctx.answer, round(expected, 2), 0.006, weight=2), nothing_else_changed(ctx.diff, [])]


def _choices(session, workbook_id: int, by: str) -> list[str]:
    """The owners, stages or quarters of the pipeline's deals."""
    sheet, deals = pipeline_rows(session, workbook_id)
    if by == "quarter":
        quarters = values(session, sheet.id)
        return sorted({quarters.get((r + 1, 8)) for r in range(len(deals))} - {None})
    return sorted({d[2 if by == "owner" else 3] for d in deals})


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


PEOPLE_FILTERS = {"location": lambda choice: f"are based in {choice}", "year": lambda choice: f"started in {choice}",
                  "since": lambda choice: f"started in {choice} or later"}


def people_questions(people: list[tuple]) -> dict[int, list[tuple]]:
    """Every question about the People sheet whose count is at least 1, by its count: (department or
    None for the whole company, filter, choice)."""
    departments = [None] + sorted({p[1] for p in people})
    choices = {"location": sorted({p[3] for p in people}), "year": sorted({p[6] for p in people})}
    choices["since"] = choices["year"][1:]
    found: dict[int, list[tuple]] = {}
    for dept in departments:
        for by, options in choices.items():
            for choice in options:
                count = _count(people, dept, by, choice)
                if count >= 1:
                    found.setdefault(count, []).append((dept, by, choice))
    return found


@register
class PeopleCount(TaskTemplate):
    id, apps, difficulty = "sheets.people_count", ("sheets",), 2
    summary = "Count people (of a department or the company) in the headcount plan by location or start year."
    answered = True

    def sample(self, session, rng, instance):
        book = workbook_titled(session, "Headcount Plan")
        people = _people(session, book.id)
        questions = people_questions(people)
        count = spread(sorted(questions), instance)  # each count as likely as any other
        dept, by, choice = pick(rng, questions[count])
        who = f"people in {dept}" if dept else "people in the whole company"
        actor = pick(rng, editors(session, book, self.split))
        return TaskInstance(
            self.id, instance, actor.id,
            f"According to the People sheet of \"{book.title}\", how many {who} {PEOPLE_FILTERS[by](choice)}? "
            "Submit the number with submit_answer.",
            [*read_calls(book.id, "People", 7, len(people) + 1), ToolCall("submit_answer", {"answer": str(count)})],
            {"workbook": book.id, "dept": dept, "by": by, "choice": choice})

    def declare(self, start, inst):
        """The People sheet read; the pool is the other counts near the right one."""
        p = inst.params
        people = _people(start, p["workbook"])
        count = _count(people, p["dept"], p["by"], p["choice"])
        first = read_calls(p["workbook"], "People", 7, len(people) + 1)[0]
        return Declaration([Target("cell", first.args["range"], [], {"workbook": p["workbook"]})],
                           [Claim(Candidate.text(str(count)), [Candidate.text(str(n)) for n in range(
                               max(0, count - 12), count + 13) if n != count], "answer", "count")])

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


def _count(people: list[tuple], dept: str | None, by: str, choice) -> int:
    """How many people of a department (or of everyone, for None) match a filter of PEOPLE_FILTERS."""
    matches = {"location": lambda p: p[3] == choice, "year": lambda p: p[6] == choice,
               "since": lambda p: is_number(p[6]) and p[6] >= choice}[by]
    return sum(1 for p in people if dept in (None, p[1]) and matches(p))
