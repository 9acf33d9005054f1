"""Sheets tasks solved through the browser alone, in real Chromium, then graded: each must score 1.0.
Each script reads the instruction, opens the workbook from the app switcher, finds its cells by the
labels the grid shows (every cell is a link named by its reference and what it shows, "G1 Travel"),
selects a cell by clicking it and types through the formula bar, the toolbar's forms or the share
page; it never touches the database or the MCP tools."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect
from test_crm_tasks_in_browser import _assert_perfect, _start

pytestmark = pytest.mark.e2e

# What a metric's label asks for, as a formula over the Pipeline's amounts (its named range, or its
# column) and stages (its column).
METRIC_FORMULAS = [(r"Average open deal", "=AVERAGE({amounts})"), (r"Smallest open deal", "=MIN({amounts})"),
                   (r"Median open deal", "=MEDIAN({amounts})"),
                   (r"Deals over \$(?P<x>[\d,]+)", '=COUNTIF({amounts},">{x}")'),
                   (r"Deals under \$(?P<x>[\d,]+)", '=COUNTIF({amounts},"<{x}")'),
                   (r"Pipeline over \$(?P<x>[\d,]+)", '=SUMIF({amounts},">{x}")'),
                   (r"(?P<stage>\w+) amount", '=SUMIF({stages},"{stage}",{amount_column})'),
                   (r"(?P<stage>\w+) deals", '=COUNTIF({stages},"{stage}")'),
                   (r"Largest (?P<stage>\w+) deal", '=MAXIFS({amount_column},{stages},"{stage}")')]


def _metric_formula(label: str, **ranges: str) -> str:
    """The formula a metric's label asks for, over `ranges` (amounts, amount_column, stages)."""
    for pattern, formula in METRIC_FORMULAS:
        if found := re.fullmatch(pattern, label):
            return formula.format(**ranges, **{k: v.replace(",", "") for k, v in found.groupdict().items()})
    raise AssertionError(f"no formula known for {label!r}")


def _open_workbook(page, title: str) -> None:
    """From the app switcher: Sheets, search workbooks by title, open the result."""
    page.get_by_test_id("app-sheets").click()
    page.get_by_label("Search workbooks").fill(title)
    page.get_by_test_id("sheets-search-submit").click()
    page.get_by_test_id("workbook-list").get_by_role("link", name=title, exact=True).click()
    assert page.get_by_test_id("workbook-title").inner_text() == title


def _open_sheet(page, name: str, workbook: str | None = None) -> None:
    """Click a sheet's tab, after opening `workbook` from the app switcher when one is named."""
    if workbook:
        _open_workbook(page, workbook)
    page.get_by_test_id("sheet-tabs").get_by_role("link", name=name, exact=True).click()
    expect(page.get_by_test_id("grid")).to_have_attribute("data-sheet", name)


def _find(page, pattern: str) -> re.Match:
    """The one cell link in view whose name ("<ref> <what it shows>") matches `pattern`."""
    link = page.get_by_test_id("grid").get_by_role("link", name=re.compile(pattern))
    return re.match(pattern, " ".join(link.text_content().split()))


def _column(page, header: str) -> str:
    """The letter of the column whose row-1 header reads `header`."""
    return _find(page, rf"^([A-Z]+)1 {re.escape(header)}$").group(1)


def _cell_at(page, label: str, header: str) -> str:
    """The cell where the row whose column-A label reads `label` meets the column headed `header`."""
    return _column(page, header) + _find(page, rf"^A(\d+) {re.escape(label)}$").group(1)


def _shown(page, column: str) -> list[str]:
    """What the cells of `column` below the header show, top to bottom."""
    links = page.get_by_test_id("grid").get_by_role("link", name=re.compile(rf"^{column}\d+ \S"))
    return [text.split(" ", 1)[1] for text in links.all_text_contents()[1:]]


def _select(page, ref: str) -> str:
    """Click a cell to select it; returns the input the formula bar shows for it."""
    page.get_by_test_id("grid").get_by_role("link", name=re.compile(rf"^{ref}(?: |$)")).click()
    expect(page.get_by_label("Cell", exact=True)).to_have_value(ref)
    return page.get_by_label("Formula or value").input_value()


def _type_into(page, ref: str, value: str, shows: str | None = None) -> None:
    """Select a cell and save `value` (a number, text or formula) through the formula bar; then the
    cell must show `shows`, when given."""
    _select(page, ref)
    page.get_by_label("Formula or value").fill(value)
    page.get_by_test_id("formula-save").click()
    expect(page.get_by_test_id("flash-info")).to_contain_text(f"Saved {ref}")
    expect(page.get_by_test_id("selected-error")).to_have_count(0)
    if shows is not None:
        expect(page.get_by_test_id("selected-display")).to_have_text(f"{ref} shows “{shows}”")


@pytest.mark.parametrize("instance", [0, 2])
def test_set_a_budget_line_through_the_ui(page, small_task_run, instance):
    run = small_task_run("sheets.set_budget_line", instance)
    title, dept, line, amount = re.search(r'workbook "(.+?)", set the (.+?) department\'s (\w+) budget to (\$[\d,]+)\.',
                                          _start(page, run)).groups()
    _open_sheet(page, "Budget", title)
    _type_into(page, _cell_at(page, dept, line), amount.strip("$").replace(",", ""), shows=amount)
    _assert_perfect(run)


@pytest.mark.parametrize("instance", [1, 3])
def test_plan_more_hires_through_the_ui(page, task_run, instance):
    run = task_run("sheets.plan_more_hires", instance)
    dept, more, quarter, title = re.search(r'^(.+?) got approval for (\d+) more hires? in (Q\d)\. Update "(.+)"',
                                           _start(page, run)).groups()
    _open_sheet(page, "Plan", title)
    ref = _cell_at(page, dept, f"{quarter} hires")
    hires = str(int(_select(page, ref) or 0) + int(more))
    _type_into(page, ref, hires, shows=hires)
    _assert_perfect(run)


@pytest.mark.parametrize("instance", [0, 1, 2, 5])
def test_add_a_forecast_metric_through_the_ui(page, task_run, instance):
    run = task_run("sheets.add_forecast_metric", instance)
    title, label = re.search(r'Summary sheet of "(.+?)", add a row below the key figures labelled "(.+?)"',
                             _start(page, run)).groups()
    _open_sheet(page, "Pipeline", title)
    amounts, stages = _column(page, "Amount"), _column(page, "Stage")
    page.get_by_test_id("sheets-nav-names").click()  # the named range over the Pipeline's amounts
    name = page.get_by_test_id("named-row").filter(has_text=f"Pipeline!${amounts}$").get_attribute("data-name")
    formula = _metric_formula(label, amounts=name, amount_column=f"Pipeline!{amounts}:{amounts}",
                              stages=f"Pipeline!{stages}:{stages}")
    page.get_by_test_id("sheets-nav-grid").click()
    _open_sheet(page, "Summary")
    last = int(re.search(r"data in A1:[A-Z]+(\d+)", page.get_by_test_id("window-status").inner_text()).group(1))
    _type_into(page, f"A{last + 1}", label)
    _type_into(page, f"B{last + 1}", formula)
    expect(page.get_by_label("Formula or value")).to_have_value(formula)
    _assert_perfect(run)


@pytest.mark.parametrize("instance", [0, 1])
def test_share_a_workbook_through_the_ui(page, task_run, instance):
    run = task_run("sheets.share_workbook", instance)
    title, person, verb = re.search(r'^Share your workbook "(.+)" with (.+) so that they can (view|edit) it, and '
                                    r'change nothing else\.$', _start(page, run)).groups()
    person = re.sub(r"^.* \((@[^)]+)\)$", r"\1", person)  # a namesake is named with their @handle
    role = {"view": "viewer", "edit": "editor"}[verb]
    _open_workbook(page, title)
    page.get_by_test_id("sheets-nav-share").click()
    page.get_by_label("Person (@handle, email or full name)").fill(person)
    page.get_by_label("Role").select_option(role)
    page.get_by_test_id("share-submit").click()
    expect(page.get_by_test_id("flash-info")).to_have_text(f"Shared with {person} as {role}.")
    assert page.get_by_test_id("share-row").filter(has_text=person).get_by_test_id("share-role").inner_text() == role
    _assert_perfect(run)


@pytest.mark.parametrize("instance", [1, 5])  # instance 0's owner has no deal in the stage asked for
def test_save_an_owner_filter_view_through_the_ui(page, task_run, instance):
    run = task_run("sheets.owner_filter_view", instance)
    title, name, owner, stage = re.search(r'Pipeline sheet of "(.+?)", save a filter view named "(.+?)" over the whole '
                                          r"table that shows only (.+?)'s deals(?: in (\w+))?, largest amount first",
                                          _start(page, run)).groups()
    _open_sheet(page, "Pipeline", title)
    used = re.search(r"data in (A1:[A-Z]+\d+)", page.get_by_test_id("window-status").inner_text()).group(1)
    conditions = [(_column(page, "Owner"), owner)] + ([(_column(page, "Stage"), stage)] if stage else [])
    sort_column = _column(page, "Amount")
    page.get_by_text("Sort, filter views").click()
    form = page.get_by_test_id("filter-form")
    form.get_by_label("Name", exact=True).fill(name)
    expect(form.get_by_label("Range", exact=True)).to_have_value(used)  # the whole table
    for n, (column, value) in enumerate(conditions, start=1):
        form.get_by_label(f"Condition {n} column").fill(column)
        form.get_by_label(f"Condition {n} is").select_option("=")
        form.get_by_label(f"Condition {n} value").fill(value)
    form.get_by_label("Sort by column").fill(sort_column)
    form.get_by_label("Order", exact=True).select_option("desc")
    form.get_by_test_id("filter-submit").click()
    expect(page.get_by_test_id("view-banner")).to_contain_text(name)
    owners = _shown(page, conditions[0][0])
    amounts = [float(re.sub(r"[$,]", "", shown)) for shown in _shown(page, sort_column)]
    assert amounts and set(owners) == {owner} and amounts == sorted(amounts, reverse=True), (owners, amounts)
    _assert_perfect(run)
