"""Sheets graders check the real requirement: a typed number where a formula is asked for fails, so
do one formula above typed numbers, rows added outside the total or twice, cells changed beside the
asked ones, a sort that types its formulas as values, the wrong person, a message naming every
workbook, a hedged answer; the right work passes."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select

from officegym import clock
from officegym.answers import submit_answer
from officegym.apps.crm.models import Opportunity
from officegym.apps.org.models import Person
from officegym.apps.sheets import services as sheets
from officegym.apps.sheets.formula.a1 import quote_sheet
from officegym.apps.sheets.models import Cell, Revision, Workbook
from officegym.apps.tickets import services as tickets
from officegym.apps.tickets.models import Group, Ticket
from officegym.runner import AGENTS
from officegym.tasks.sheets import first_sheet, sheet_named, values
from officegym.tasks.x_sheets_people import on_call_this_week


def failed(result) -> list[str]:
    return [c.requirement for c in result.checks if not c.passed]


def write(episode, cells: list[dict]) -> None:
    with episode.session() as s:
        sheets.write_cells(s, episode.actor(s), episode.task.params["workbook"], cells)


def solved(task_episode, task_id: str, instance: int):
    episode = task_episode(task_id, instance)
    AGENTS["oracle"](episode)
    assert episode.grade().success is True
    return episode


def test_typing_the_metric_as_a_number_fails_the_formula_check(task_episode):
    episode = solved(task_episode, "sheets.add_forecast_metric", 2)
    p = episode.task.params
    with episode.session() as s:
        number = values(s, sheet_named(s, p["workbook"], "Summary").id)[(p["row"], 1)]
    write(episode, [{"cell": f"Summary!B{p['row'] + 1}", "value": number}])
    result = episode.grade()
    assert result.success is False
    assert failed(result) == [f"Summary!B{p['row'] + 1} ({p['label']}) is a formula that follows its inputs"]


@pytest.mark.parametrize("fix, passes", [("={total}", False), ("=E{r}+F{r}+G{r}+H{r}", True)])
def test_a_broken_total_is_fixed_only_by_a_formula(task_episode, fix, passes):
    episode = task_episode("sheets.fix_broken_total", 3)
    r = episode.task.params["row"] + 1
    with episode.session() as s:
        cells = values(s, sheet_named(s, episode.task.params["workbook"], "Budget").id)
        total = sum(cells.get((r - 1, c)) or 0 for c in (4, 5, 6, 7))
    write(episode, [{"cell": f"Budget!I{r}", "value": fix.format(r=r, total=total)}])
    assert episode.grade().success is passes


def test_the_broken_total_is_an_owners_edit_of_last_week_and_not_the_newest(task_episode):
    episode = task_episode("sheets.fix_broken_total", 1)
    p = episode.task.params
    with episode.session() as s:
        book = s.get(Workbook, p["workbook"])
        history = list(s.scalars(select(Revision).where(Revision.workbook_id == book.id).order_by(Revision.id.desc())))
        broken = next(r for r in history if r.cell == f"I{p['row'] + 1}")
        assert broken.new_raw == p["broken"] and broken.changed_by_id == book.owner_id
        assert history[0] is not broken and len(history) >= 3
        assert clock.company_now(s) - broken.changed_at >= timedelta(days=6)
    AGENTS["revert"](episode)  # putting back the newest change leaves the total broken
    assert episode.grade().score == 0


def test_setting_another_departments_line_fails(task_episode):
    episode = task_episode("sheets.set_budget_line", 4)
    p = episode.task.params
    other = 2 if p["row"] != 2 else 3
    write(episode, [{"cell": f"Budget!{'ABCDEFGH'[p['col']]}{other + 1}", "value": p["amount"]}])
    result = episode.grade()
    assert result.success is False and any(r.startswith("No cell outside Budget!") for r in failed(result))


@pytest.mark.parametrize("cell, value", [("Budget!F12", 0), ("Budget!K5", "checked"), ("Budget!A1", "Dept")])
def test_a_change_beside_the_budget_line_fails(task_episode, cell, value):
    episode = solved(task_episode, "sheets.set_budget_line", 0)
    write(episode, [{"cell": cell, "value": value}])
    result = episode.grade()
    assert result.score == 0 and any(r.startswith("No cell outside") for r in failed(result))


def test_sorting_one_column_apart_from_its_rows_fails(task_episode):
    episode = task_episode("sheets.sort_pipeline", 0)
    key = episode.task.params["keys"][0]
    with episode.session() as s:
        last = max(r for r, _ in values(s, sheet_named(s, episode.task.params["workbook"], "Pipeline").id)) + 1
        sheets.sort_range(s, episode.actor(s), episode.task.params["workbook"],
                          f"Pipeline!{key['column']}2:{key['column']}{last}", [key])
    result = episode.grade()
    assert result.success is False
    assert "Every deal is still listed once, with its own values and formulas" in failed(result)


def test_a_sort_that_types_its_formulas_as_values_fails(task_episode):
    episode = solved(task_episode, "sheets.sort_pipeline", 1)
    with episode.session() as s:
        shown = values(s, sheet_named(s, episode.task.params["workbook"], "Pipeline").id)
    write(episode, [{"cell": f"Pipeline!{c}{r + 1}", "value": shown[(r, ord(c) - 65)]}
                    for r in range(1, max(r for r, _ in shown) + 1) for c in "FH"])
    result = episode.grade()
    assert result.score == 0
    assert failed(result) == ["Every deal is still listed once, with its own values and formulas"]


def test_won_deals_added_below_the_total_do_not_count(task_episode):
    episode = task_episode("x.forecast_closed_won", 1)
    rows = episode.task.solution[-1].args["rows"]
    with episode.session() as s:
        below = max(r for r, _ in values(s, sheet_named(s, episode.task.params["workbook"], "Closed Won").id)) + 3
        sheets.write_range(s, episode.actor(s), episode.task.params["workbook"], f"'Closed Won'!A{below}", rows)
    result = episode.grade()
    assert result.success is False
    assert [r for r in failed(result) if r.endswith("is listed in a new row with its account, owner and amount")]


def test_adding_every_deal_won_this_year_lists_some_twice_and_fails(task_episode):
    episode = task_episode("x.forecast_closed_won", 0)
    p = episode.task.params
    with episode.session() as s:
        year = clock.now(s).year
        won = [d for d in s.scalars(select(Opportunity).where(Opportunity.stage == "Closed Won")
                                    .order_by(Opportunity.id)) if d.closed_at and d.closed_at.year == year]
        rows = [[d.account.name, d.name, s.get(Person, d.owner_id).name, d.amount_cents / 100,
                 d.closed_at.date().isoformat()] for d in won]
        at = episode.task.solution[-2].args["before"]
        sheets.insert_rows(s, episode.actor(s), p["workbook"], "Closed Won", at, len(rows))
        sheets.write_range(s, episode.actor(s), p["workbook"], f"'Closed Won'!A{at}", rows)
    result = episode.grade()
    assert result.score == 0 and "No deal is listed twice" in failed(result)


def test_assigning_next_weeks_on_call_person_fails(task_episode):
    episode = task_episode("x.assign_on_call", 2)
    p = episode.task.params
    with episode.session() as s:
        right = on_call_this_week(s, p["group"])
        group = s.scalar(select(Group).where(Group.name == p["group"]))
        wrong = next(m for m in tickets.group_members(s, episode.actor(s), group.name) if m.id != right.id)
        tickets.assign_ticket(s, episode.actor(s), s.get(Ticket, p["ticket"]).key, wrong.handle)
    result = episode.grade()
    assert result.success is False and failed(result)[0].endswith(f"on call for {p['group']}")


def test_sharing_with_the_other_new_hire_fails(task_episode):
    episode = task_episode("x.share_budget_new_hire", 0)
    p = episode.task.params
    with episode.session() as s:
        decoy = s.scalar(select(Person).where(Person.name == p["decoy"]))
        sheets.share_workbook(s, episode.actor(s), p["workbook"], decoy.handle, p["role"])
    result = episode.grade()
    assert result.success is False
    assert f"{p['hire']} has the workbook as {p['role']}" in failed(result)


def test_a_direct_message_naming_every_workbook_fails(task_episode):
    episode = task_episode("x.share_budget_new_hire", 1)
    p = episode.task.params
    with episode.session() as s:
        hire = s.scalar(select(Person).where(Person.name == p["hire"]))
        titles = ", ".join(s.scalars(select(Workbook.title).order_by(Workbook.id)))
        sheets.share_workbook(s, episode.actor(s), p["workbook"], hire.handle, p["role"])
    from officegym.apps.chat import services as chat
    with episode.session() as s:
        dm = chat.open_conversation(s, episode.actor(s), [f"@{hire.handle}"])
        chat.post_message(s, episode.actor(s), dm.id, f"I shared these with you: {titles}")
    result = episode.grade()
    assert result.score == 0 and any(r.startswith("Nothing else is stated") for r in failed(result))


def test_one_share_formula_above_typed_numbers_fails(task_episode):
    episode = solved(task_episode, "sheets.add_share_column", 4)
    column = episode.task.params["column"]
    with episode.session() as s:
        shown = values(s, sheet_named(s, episode.task.params["workbook"], "Budget").id)
    col = ord(column) - 65
    write(episode, [{"cell": f"Budget!{column}{r + 1}", "value": shown[(r, col)]} for r in range(2, 11)])
    result = episode.grade()
    assert failed(result) == ["The departments' shares are formulas that follow their inputs"]


def test_an_expense_written_into_the_blank_row_without_inserting_one_fails(task_episode):
    episode = task_episode("sheets.add_expense_row", 1)
    steps = episode.task.solution[-1].args["cells"]
    write(episode, [step for step in steps if step["cell"][-1].isdigit()][:4])  # the new row's four cells only
    result = episode.grade()
    assert result.score == 0 and any(r.startswith("No cell outside") for r in failed(result))


def test_typed_category_figures_fail(task_episode):
    episode = solved(task_episode, "sheets.summarise_expenses", 0)
    tab = episode.task.params["tab"]
    with episode.session() as s:
        shown = values(s, sheet_named(s, episode.task.params["workbook"], tab).id)
    write(episode, [{"cell": f"'{tab}'!B{r + 1}", "value": v} for (r, c), v in shown.items() if c == 1 and r > 0])
    result = episode.grade()
    assert failed(result) == ["Every figure and the Total are formulas that follow their inputs"]


def test_a_total_row_in_the_incident_table_fails(task_episode):
    episode = solved(task_episode, "x.open_incidents_table", 0)
    with episode.session() as s:
        book = s.scalar(select(Workbook).where(Workbook.title == episode.task.params["title"]))
        count = len(values(s, sheet_named(s, book.id, "Incidents").id)) // 2
        sheets.write_cells(s, episode.actor(s), book.id, [{"cell": f"A{count + 1}", "value": "Total"},
                                                          {"cell": f"B{count + 1}", "value": f"=SUM(B2:B{count})"}])
    assert episode.grade().score == 0


@pytest.mark.parametrize("answer", ["about {v}", "{v} or {w}", "not {v}", "{v}%"])
def test_a_hedged_or_double_answer_fails(task_episode, answer):
    episode = task_episode("sheets.budget_figure", 0)
    right = float(episode.task.solution[-1].args["answer"])
    with episode.session() as s:
        submit_answer(s, episode.actor(s), answer.format(v=f"{right:.2f}", w=f"{right + 1000:.2f}"))
    assert episode.grade().score == 0


@pytest.mark.parametrize("instance", [0, 1, 2])
def test_rewriting_every_department_total_without_finding_the_broken_one_fails(task_episode, instance):
    episode = task_episode("sheets.fix_broken_total", instance)
    with episode.session() as s:
        total = next(r for (r, c), v in values(s, sheet_named(s, episode.task.params["workbook"], "Budget").id).items()
                     if c == 0 and v == "Total")
    write(episode, [{"cell": f"Budget!I{r + 1}", "value": f"=SUM(E{r + 1}:H{r + 1})"} for r in range(1, total)])
    result = episode.grade()
    assert result.score == 0 and any(r.startswith("No cell outside") for r in failed(result))


@pytest.mark.parametrize("instance", [0, 1, 2])
def test_the_other_totals_are_written_in_several_forms_of_the_same_sum(task_episode, instance):
    episode = task_episode("sheets.fix_broken_total", instance)
    p = episode.task.params
    with episode.session() as s:
        sheet = sheet_named(s, p["workbook"], "Budget")
        raws = {c.row: c.raw for c in s.scalars(select(Cell).where(Cell.sheet_id == sheet.id, Cell.col == 8))}
    others = {raw.replace(str(r + 1), "{r}") for r, raw in raws.items() if 0 < r != p["row"] and raw.startswith("=")}
    assert len(others) >= 2 and raws[p["row"]] == p["broken"]


def test_a_category_total_typed_as_a_constant_fails(task_episode):
    episode = solved(task_episode, "sheets.add_expense_row", 0)
    p = episode.task.params
    with episode.session() as s:
        sheet = first_sheet(s, p["workbook"])
        shown = values(s, sheet.id)
        untouched = next(r for (r, c), v in sorted(shown.items()) if c == 5 and r > 0 and isinstance(v, str)
                         and v != p["category"])
        cell = f"{quote_sheet(sheet.name)}!G{untouched + 1}"
    write(episode, [{"cell": cell, "value": f"={shown[(untouched, 6)]}"}])
    result = episode.grade()
    assert failed(result) == ["The Total and every category total are formulas that follow their inputs"]
