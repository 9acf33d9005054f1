"""Sheets graders check the real requirement: a typed number where a formula is asked for fails, so do
rows added outside the total, the wrong person, a column sorted apart from its rows; the right work
passes."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from officegym.apps.org.models import Person
from officegym.apps.sheets import services as sheets
from officegym.apps.tickets import services as tickets
from officegym.apps.tickets.models import Group, Ticket
from officegym.runner import AGENTS
from officegym.tasks.sheets import sheet_named, values
from officegym.tasks.x_sheets import on_call_this_week


def failed(result) -> list[str]:
    return [c.requirement for c in result.checks if not c.passed]


def write(episode, cells: list[dict]) -> None:
    with episode.session() as s:
        sheets.write_cells(s, episode.actor(s), episode.task.params["workbook"], cells)


def test_typing_the_metric_as_a_number_fails_the_formula_check(task_episode):
    episode = task_episode("sheets.add_forecast_metric", 2)
    AGENTS["oracle"](episode)
    assert episode.grade().success is True
    with episode.session() as s:
        summary = sheet_named(s, episode.task.params["workbook"], "Summary")
        row = max(r for r, _ in values(s, summary.id))
        number = values(s, summary.id)[(row, 1)]
    write(episode, [{"cell": f"Summary!B{row + 1}", "value": number}])
    result = episode.grade()
    assert result.success is False
    assert failed(result) == [f"Summary!B{row + 1} ({episode.task.params['label']}) is a formula that follows its inputs"]


@pytest.mark.parametrize("fix, passes", [("={total}", False), ("=E{r}+F{r}+G{r}+H{r}", True)])
def test_a_broken_total_is_fixed_only_by_a_formula(task_episode, fix, passes):
    episode = task_episode("sheets.fix_broken_total", 3)
    r = episode.task.params["row"] + 1
    with episode.session() as s:
        cells = values(s, sheet_named(s, episode.task.params["workbook"], "Budget").id)
        total = sum(cells.get((r - 1, c)) or 0 for c in (4, 5, 6, 7))
    write(episode, [{"cell": f"Budget!I{r}", "value": fix.format(r=r, total=total)}])
    assert episode.grade().success is passes


def test_setting_another_departments_line_fails(task_episode):
    episode = task_episode("sheets.set_budget_line", 4)
    p = episode.task.params
    other = 2 if p["row"] != 2 else 3
    write(episode, [{"cell": f"Budget!{'ABCDEFGH'[p['col']]}{other + 1}", "value": p["amount"]}])
    result = episode.grade()
    assert result.success is False and "Nothing else in the workspace was changed" in failed(result)


def test_sorting_one_column_apart_from_its_rows_fails(task_episode):
    episode = task_episode("sheets.sort_pipeline", 0)
    key = episode.task.params["keys"][0]
    with episode.session() as s:
        last = max(r for r, _ in values(s, sheet_named(s, episode.task.params["workbook"], "Pipeline").id)) + 1
        sheets.sort_range(s, episode.actor(s), episode.task.params["workbook"],
                          f"Pipeline!{key['column']}2:{key['column']}{last}", [key])
    result = episode.grade()
    assert result.success is False
    assert "Every deal is still listed once, with its own values" in failed(result)


def test_won_deals_added_below_the_total_do_not_count(task_episode):
    episode = task_episode("x.forecast_closed_won", 1)
    rows = episode.task.solution[1].args["rows"]
    with episode.session() as s:
        closed = sheet_named(s, episode.task.params["workbook"], "Closed Won")
        below = max(r for r, _ in values(s, closed.id)) + 3
    with episode.session() as s:
        sheets.write_range(s, episode.actor(s), episode.task.params["workbook"], f"'Closed Won'!A{below}", rows)
    result = episode.grade()
    assert result.success is False
    assert [r for r in failed(result) if r.endswith("is listed with its account, owner and amount")]


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
