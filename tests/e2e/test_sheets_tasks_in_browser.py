"""Sheets tasks solved through the browser alone, in real Chromium, then graded: each must score 1.0.
Each script reads the instruction, opens the workbook from the app switcher, finds its cells by what
the grid shows (each cell is named by what it shows, under its column letter and beside its row number),
clicks a cell and types into it, or opens a tool from the menus, or uses the share page; it never
touches the database or the MCP tools."""

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


GRID = """grid => { const letters = [...grid.querySelectorAll('[role=columnheader], th[scope=col]')]
      .map(th => th.textContent.trim());
    return [...grid.querySelectorAll('tr')].filter(tr => tr.querySelector('th[scope=row]')).flatMap(tr => {
      const row = tr.querySelector('th[scope=row]').textContent.trim();
      return [...tr.querySelectorAll('td')].map((td, i) => [letters[i] + row, td.getAttribute('aria-label') || '']);
    }); }"""


def _cells(page) -> dict[str, str]:
    """What each grid cell in view shows (its accessible name), by the column letter above it and
    the row number beside it."""
    page.wait_for_load_state()  # a page a click led to, whole
    return dict(page.get_by_role("grid").evaluate(GRID))


def _find(page, pattern: str) -> re.Match:
    """The one cell in view whose "<ref> <what it shows>" matches `pattern`."""
    found = [m for ref, shown in _cells(page).items() if (m := re.match(pattern, f"{ref} {shown}"))]
    assert len(found) == 1, (pattern, [m.group(0) for m in found])
    return found[0]


def _column(page, header: str) -> str:
    """The letter of the column whose row-1 header reads `header`."""
    return _find(page, rf"^([A-Z]+)1 {re.escape(header)}$").group(1)


def _cell_at(page, label: str, header: str) -> str:
    """The cell where the row whose column-A label reads `label` meets the column headed `header`."""
    return _column(page, header) + _find(page, rf"^A(\d+) {re.escape(label)}$").group(1)


def _shown(page, column: str) -> list[str]:
    """What the filled cells of `column` below the header show, top to bottom."""
    cells = _cells(page)
    return [shown for ref, shown in cells.items() if re.fullmatch(rf"{column}\d+", ref) and shown][1:]


def _gridcell(page, ref: str):
    """The grid cell at a reference: in the row named by its number, at its column's position."""
    letter, row = re.fullmatch(r"([A-Z]+)(\d+)", ref).groups()
    letters = page.get_by_role("columnheader").all_inner_texts()
    return page.get_by_role("row", name=row, exact=True).get_by_role("gridcell").nth(letters.index(letter))


def _select(page, ref: str) -> str:
    """Click a cell to select it; returns the input the formula bar shows for it."""
    _gridcell(page, ref).click()
    expect(page.get_by_label("Cell", exact=True)).to_have_value(ref)
    return page.get_by_label("Formula or value").input_value()


def _type_into(page, ref: str, value: str, shows: str | None = None) -> None:
    """Select a cell, type `value` (a number, text or formula) into it and press Enter; then the
    cell must show `shows`, when given (and no error)."""
    _select(page, ref)
    page.keyboard.type(value)
    page.keyboard.press("Enter")
    expect(page.get_by_role("grid")).not_to_have_attribute("aria-busy", "true")
    expect(page.get_by_test_id("grid-message")).to_contain_text(f"Saved {ref}")
    expect(_gridcell(page, ref)).not_to_have_class(re.compile(r"\berr\b"))
    if shows is not None:
        expect(_gridcell(page, ref)).to_have_attribute("aria-label", shows)


@pytest.mark.parametrize("instance", [2])
def test_set_a_budget_line_through_the_ui(page, small_task_run, instance):
    run = small_task_run("sheets.set_budget_line", instance)
    title, dept, line, amount = re.search(r'workbook "(.+?)", set the (.+?) department\'s (\w+) budget to (\$[\d,]+)\.',
                                          _start(page, run)).groups()
    _open_sheet(page, "Budget", title)
    _type_into(page, _cell_at(page, dept, line), amount.strip("$").replace(",", ""), shows=amount)
    _assert_perfect(run)


@pytest.mark.parametrize("instance", [3])
def test_plan_more_hires_through_the_ui(page, task_run, instance):
    run = task_run("sheets.plan_more_hires", instance)
    dept, more, quarter, title = re.search(r'^(.+?) got approval for (\d+) more hires? in (Q\d)\. Update "(.+)"',
                                           _start(page, run)).groups()
    _open_sheet(page, "Plan", title)
    ref = _cell_at(page, dept, f"{quarter} hires")
    hires = str(int(_select(page, ref) or 0) + int(more))
    _type_into(page, ref, hires, shows=hires)
    _assert_perfect(run)


@pytest.mark.parametrize("instance", [2, 5])  # a median, a count over a threshold
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
    assert _select(page, f"B{last + 1}") == formula
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


@pytest.mark.parametrize("instance", [5])  # instance 0's owner has no deal in the stage asked for
def test_save_an_owner_filter_view_through_the_ui(page, task_run, instance):
    run = task_run("sheets.owner_filter_view", instance)
    title, name, owner, stage = re.search(r'Pipeline sheet of "(.+?)", save a filter view named "(.+?)" over the whole '
                                          r"table that shows only (.+?)'s deals(?: in (\w+))?, largest amount first",
                                          _start(page, run)).groups()
    _open_sheet(page, "Pipeline", title)
    used = re.search(r"data in (A1:[A-Z]+\d+)", page.get_by_test_id("window-status").inner_text()).group(1)
    conditions = [(_column(page, "Owner"), owner)] + ([(_column(page, "Stage"), stage)] if stage else [])
    sort_column = _column(page, "Amount")
    page.get_by_role("menuitem", name="Data").click()
    page.get_by_role("menuitem", name="New filter view…").click()
    form = page.get_by_role("dialog", name="New filter view")
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


@pytest.mark.parametrize("instance", [1])
def test_add_an_expense_row_by_typing_into_the_grid(page, task_run, instance):
    run = task_run("sheets.add_expense_row", instance)
    title, day, category, text, amount = re.search(
        r'workbook "(.+?)": insert a new row right below the last expense and fill it with (\S+), (.+?), "(.+?)", '
        r"\$([\d,.]+)\.", _start(page, run)).groups()
    _open_workbook(page, title)
    amounts, totals = _column(page, "Amount"), _column(page, "Total")
    total_row = int(_find(page, r"^A(\d+) Total$").group(1))
    last = max(int(ref[len(amounts):]) for ref, shown in _cells(page).items()
               if re.fullmatch(rf"{amounts}\d+", ref) and shown and 1 < int(ref[len(amounts):]) < total_row)
    # the row's context menu inserts a row below the last expense (its tool opens in a dialog to confirm)
    page.get_by_role("rowheader", name=str(last), exact=True).click(button="right")
    page.get_by_role("menu", name="Cell actions").get_by_role("menuitem", name="Insert rows below…").click()
    dialog = page.get_by_role("dialog", name="Insert rows below")
    expect(dialog.get_by_label("Row number")).to_have_value(str(last + 1))
    expect(dialog.get_by_label("How many")).to_have_value("1")
    dialog.get_by_role("button", name="Insert rows above").click()
    expect(page.get_by_test_id("flash-info")).to_have_text(f"Inserted 1 row(s) at row {last + 1}.")
    # type the expense across the new row: Tab moves right, Enter ends the row
    _select(page, f"A{last + 1}")
    for value, key in [(day, "Tab"), (category, "Tab"), (text, "Tab"), (amount.replace(",", ""), "Enter")]:
        page.keyboard.type(value)
        page.keyboard.press(key)
    expect(page.get_by_role("grid")).not_to_have_attribute("aria-busy", "true")
    assert _cells(page)[f"C{last + 1}"] == text and _cells(page)[f"B{last + 1}"] == category
    # every total whose range ends at the old last expense now ends at the new one
    cells = _cells(page)
    formulas = [f"{amounts}{total_row + 1}"] + [f"{totals}{ref[1:]}" for ref, shown in cells.items()
                                                if ref[0] == chr(ord(totals) - 1) and ref != f"{ref[0]}1" and shown]
    for ref in formulas:
        formula = _select(page, ref)
        widened = re.sub(rf"(:\$?[A-Z]+\$?){last}\b", rf"\g<1>{last + 1}", formula)
        assert widened != formula, (ref, formula)
        _type_into(page, ref, widened)
    _assert_perfect(run)
