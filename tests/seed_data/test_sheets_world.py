"""The sheets part of a world: workbooks whose numbers agree with the other apps — the forecast with
the CRM, the budget and the headcount plan with the directory, the on-call rota with the tickets
app's groups — formulas that compute, shares that decide who sees what, and bytes that repeat.

Cells are read as the workbook's owner through the sheets services (`read_range`), the way an agent
or a grader would, never from the seed's own drafts."""

from __future__ import annotations

import sqlite3
from collections import Counter
from contextlib import closing
from datetime import date, timedelta

import pytest
from sqlalchemy import func, select

from officegym.apps.crm.models import OPEN_STAGES, STAGE_PROBABILITY, Account, Opportunity
from officegym.apps.org.models import Department, Person, Team
from officegym.apps.sheets import services
from officegym.apps.sheets.book import load_book
from officegym.apps.sheets.cells import MAX_READ, used_extent
from officegym.apps.sheets.formula.a1 import col_name
from officegym.apps.sheets.formula.values import CellError, date_of
from officegym.apps.sheets.lookups import resolve_sheet
from officegym.apps.sheets.models import Cell, NamedRange, Share, Sheet, Workbook
from officegym.apps.tickets.models import Component, Group, GroupMember, Ticket, TicketComponent
from officegym.clock import now as company_now
from officegym.config import load_settings
from officegym.errors import Forbidden, NotFound
from officegym.worlds import ensure_world

from test_tickets_world import world  # noqa: F401  (world is a fixture: tiny and small, read-only)

ERRORS = ("#REF!", "#NAME?", "#VALUE!", "#DIV/0!", "#N/A", "#NUM!", "#ERROR!")


def _book(session, title: str) -> Workbook:
    found = session.scalar(select(Workbook).where(Workbook.title == title))
    assert found is not None, f"no workbook {title!r}"
    return found


def _books(session) -> dict[str, Workbook]:
    """The shared workbooks by kind: forecast, budget, headcount, rota."""
    year = company_now(session).year
    titles = {"forecast": f"FY{year} Sales Forecast", "budget": f"Department Budgets {year}",
              "headcount": f"Headcount Plan {year}", "rota": "On-call Rota"}
    return {kind: _book(session, title) for kind, title in titles.items()}


def _rows(session, book: Workbook, sheet: str) -> list[list]:
    """The values of a sheet's used area, row by row, read by the owner through the service (in blocks
    of rows, as a read takes at most MAX_READ cells)."""
    owner = session.get(Person, book.owner_id)
    last_row, last_col = used_extent(session, resolve_sheet(session, book, sheet))
    step, rows = max(1, MAX_READ // (last_col + 1)), []
    for top in range(1, last_row + 2, step):
        ref = f"'{sheet}'!A{top}:{col_name(last_col)}{min(last_row + 1, top + step - 1)}"
        rows += [[cell.value for cell in line] for line in services.read_range(session, owner, book.id, ref).rows]
    return rows


def _records(rows: list[list]) -> list[dict]:
    """The data rows under the header row, up to a blank row or a Total row, as dicts by header."""
    header, found = rows[0], []
    for line in rows[1:]:
        if all(v is None for v in line) or line[0] == "Total":
            break
        found.append(dict(zip(header, line)))
    return found


def _labelled(rows: list[list]) -> dict[str, list]:
    """Rows keyed by the text in column A (the last such row wins)."""
    return {line[0]: line[1:] for line in rows if isinstance(line[0], str)}


def _cents(value: float) -> int:
    return round(value * 100)


def _day(value: float) -> date:
    day = date_of(value)
    assert not isinstance(day, CellError), value
    return day


def _dept_sizes(session) -> Counter:
    return Counter(session.scalars(select(Department.name).join(Person, Person.department_id == Department.id)))


def test_the_company_keeps_its_workbooks(world):
    scale, session = world
    books = _books(session)
    heads = {d.name: d.head_id for d in session.scalars(select(Department))}
    ceo = session.scalar(select(Person.id).where(Person.role == "owner"))
    assert books["forecast"].owner_id == heads["Sales"]
    assert books["budget"].owner_id == heads.get("Finance", ceo)
    assert books["headcount"].owner_id == heads.get("People", ceo)
    tabs = {kind: [s.name for s in session.scalars(select(Sheet).where(Sheet.workbook_id == b.id)
                                                    .order_by(Sheet.position))] for kind, b in books.items()}
    assert tabs == {"forecast": ["Pipeline", "Summary", "Closed Won", "Stages"],
                    "budget": ["Budget", "By quarter", "Assumptions"], "headcount": ["People", "Plan"],
                    "rota": ["Rota", "Members"]}
    personal = [b for b in session.scalars(select(Workbook)) if b.id not in {w.id for w in books.values()}]
    assert len(personal) >= 2 and all(session.get(Person, b.owner_id).name in b.title for b in personal)
    now = company_now(session)
    for book in session.scalars(select(Workbook)):
        assert book.created_at <= book.updated_at < now and book.description, book
    for kind in ("forecast", "budget", "headcount"):  # the descriptions speak of the books' own year
        assert str(now.year) in books[kind].description, books[kind].description


def test_forecast_pipeline_is_the_crm_open_pipeline(world):
    _scale, session = world
    book = _books(session)["forecast"]
    deals = list(session.scalars(select(Opportunity).where(Opportunity.stage.in_(OPEN_STAGES))))
    accounts = {a.id: a.name for a in session.scalars(select(Account))}
    owners = {p.id: p.name for p in session.scalars(select(Person))}
    pipeline = _records(_rows(session, book, "Pipeline"))
    listed = Counter((r["Account"], r["Deal"], r["Owner"], _cents(r["Amount"]), r["Stage"], _day(r["Expected close"]))
                     for r in pipeline)
    assert listed == Counter((accounts[d.account_id], d.name, owners[d.owner_id], d.amount_cents, d.stage, d.close_date)
                             for d in deals)
    for r in pipeline:  # probability from the Stages tab, weighted amount and quarter computed per row
        assert r["Probability"] == pytest.approx(STAGE_PROBABILITY[r["Stage"]] / 100)
        assert r["Weighted"] == pytest.approx(r["Amount"] * r["Probability"])
        close = _day(r["Expected close"])
        assert r["Quarter"] == f"Q{(close.month - 1) // 3 + 1} {close.year}"
    crm_total = sum(d.amount_cents for d in deals)
    crm_weighted = sum(d.amount_cents * STAGE_PROBABILITY[d.stage] for d in deals) / 10000
    summary = _rows(session, book, "Summary")
    figures = _labelled(summary)
    assert _cents(figures["Open pipeline"][0]) == crm_total
    assert figures["Weighted pipeline"][0] == pytest.approx(crm_weighted)
    assert figures["Open deals"][0] == len(deals)
    today = company_now(session).date()
    assert figures["Past their expected close"][0] == sum(d.close_date < today for d in deals)
    biggest = max(deals, key=lambda d: d.amount_cents)
    assert _cents(figures["Largest open deal"][0]) == biggest.amount_cents
    assert figures["Largest open deal's account"][0] == accounts[biggest.account_id]
    totals = [line for line in summary if line[0] == "Total"]  # by quarter, then by stage
    assert [_cents(totals[0][2]), _cents(totals[1][3])] == [crm_total, crm_total]
    assert totals[0][1] == totals[1][2] == len(deals)
    stages = {line[0]: line for line in summary if line[0] in OPEN_STAGES}
    for stage in OPEN_STAGES:
        assert stages[stage][2] == sum(d.stage == stage for d in deals)
        assert _cents(stages[stage][3]) == sum(d.amount_cents for d in deals if d.stage == stage)
    names = {n.name: n.ref for n in session.scalars(select(NamedRange).where(NamedRange.workbook_id == book.id))}
    assert names == {"PipelineAmount": f"$E$2:$E${len(deals) + 1}", "PipelineWeighted": f"$H$2:$H${len(deals) + 1}"}


def test_closed_won_lists_this_years_wins_and_adds_them_up(world):
    _scale, session = world
    book = _books(session)["forecast"]
    year = company_now(session).year
    won = [d for d in session.scalars(select(Opportunity).where(Opportunity.stage == "Closed Won"))
           if d.close_date.year == year]
    assert won
    accounts = {a.id: a.name for a in session.scalars(select(Account))}
    rows = _rows(session, book, "Closed Won")
    listed = _records(rows)
    assert Counter((r["Account"], r["Deal"], _cents(r["Amount"]), _day(r["Closed on"])) for r in listed) == \
        Counter((accounts[d.account_id], d.name, d.amount_cents, d.close_date) for d in won)
    total = _labelled(rows)["Total"]
    assert total[0] == len(won) and _cents(total[2]) == sum(d.amount_cents for d in won)
    assert _cents(_labelled(_rows(session, book, "Summary"))[f"Won in {year}"][0]) == sum(d.amount_cents for d in won)


def test_budget_headcount_is_the_directory(world):
    _scale, session = world
    book = _books(session)["budget"]
    rows = _rows(session, book, "Budget")
    sizes = _dept_sizes(session)
    heads = {d.name: session.get(Person, d.head_id).name for d in session.scalars(select(Department))}
    budget = _records(rows)
    assert {r["Department"]: r["Headcount"] for r in budget} == dict(sizes)
    assert {r["Department"]: r["Head"] for r in budget} == heads
    for r in budget:
        assert r["Total"] == pytest.approx(r["Salary cost"] + r["Software"] + r["Travel"] + r["Other"])
        assert r["Cost per head"] == pytest.approx(r["Total"] / r["Headcount"])
    total = _labelled(rows)["Total"]
    assert total[1] == sum(sizes.values()) == session.scalar(select(func.count()).select_from(Person))
    assert total[7] == pytest.approx(sum(r["Total"] for r in budget))
    quarters = _records(_rows(session, book, "By quarter"))  # four quarters add up to the year exactly
    assert [q["Department"] for q in quarters] == [r["Department"] for r in budget]
    for q, r in zip(quarters, budget):
        assert q["Q1"] + q["Q2"] + q["Q3"] + q["Q4"] == q["Year"] == pytest.approx(r["Total"])


def test_headcount_plan_lists_everyone_once_and_counts_them(world):
    _scale, session = world
    book = _books(session)["headcount"]
    people = list(session.scalars(select(Person)))
    names = {p.id: p.name for p in people}
    teams = {t.id: t.name for t in session.scalars(select(Team))}
    depts = {d.id: d.name for d in session.scalars(select(Department))}
    listed = _records(_rows(session, book, "People"))
    assert len(listed) == len(people)
    assert Counter((r["Name"], r["Department"], r["Title"], r["Location"], r["Team"], r["Manager"]) for r in listed) \
        == Counter((p.name, depts[p.department_id], p.title, p.location, teams.get(p.team_id),
                    names.get(p.manager_id)) for p in people)
    assert all(_day(r["Start date"]) < company_now(session).date() for r in listed)
    plan = _records(_rows(session, book, "Plan"))
    assert {r["Department"]: r["Today"] for r in plan} == dict(_dept_sizes(session))
    for r in plan:
        hires = r["Q1 hires"] + r["Q2 hires"] + r["Q3 hires"] + r["Q4 hires"]
        assert r["End of year"] == r["Today"] + hires and r["Growth"] == pytest.approx(hires / r["Today"])


def _rota(session) -> tuple[list[str], list[dict], dict[str, list]]:
    book = _books(session)["rota"]
    rows = _rows(session, book, "Rota")
    return rows[0][1:], _records(rows), _labelled(rows)


def test_rota_names_only_members_of_the_groups(world):
    _scale, session = world
    groups, weeks, _labels = _rota(session)
    by_name = {g.name: g for g in session.scalars(select(Group))}
    assert set(groups) == {g.name for g in by_name.values() if g.on_call} | {"IT Support"}
    members = {name: {(p.name, p.email) for p in session.scalars(
        select(Person).join(GroupMember, GroupMember.person_id == Person.id).where(GroupMember.group_id == g.id))}
        for name, g in by_name.items()}
    for week in weeks:
        for group in groups:
            assert week[group] in {name for name, _email in members[group]}, (week["Week of"], group)
    mondays = [_day(w["Week of"]) for w in weeks]
    assert all(day.weekday() == 0 for day in mondays) and all(b - a == timedelta(weeks=1) for a, b in
                                                                zip(mondays, mondays[1:]))
    listed = _records(_rows(session, _books(session)["rota"], "Members"))
    assert {(r["Group"], r["Name"], r["Email"]) for r in listed} == \
        {(group, name, email) for group in groups for name, email in members[group]}
    for r in listed:
        assert r["Weeks on call"] == sum(w[r["Group"]] == r["Name"] for w in weeks)


def test_who_is_on_call_this_week_is_computable(world):
    """This week's on-call person of a group: in the Rota tab (row 1 names the groups, column A holds
    each week's Monday in ascending order), take the row of the last Monday on or before today, that
    is today - today.weekday(), and read the group's column. The 'On call this week' row computes the
    same with =INDEX(<column>,MATCH(TODAY(),$A$2:$A$n,1)), and 'On call next week' with TODAY()+7."""
    _scale, session = world
    groups, weeks, labels = _rota(session)
    today = company_now(session).date()
    by_monday = {_day(w["Week of"]): w for w in weeks}
    this_week, next_week = by_monday[today - timedelta(days=today.weekday())], by_monday[
        today - timedelta(days=today.weekday() - 7)]
    assert labels["On call this week"] == [this_week[g] for g in groups]
    assert labels["On call next week"] == [next_week[g] for g in groups]
    assert min(by_monday) < today < max(by_monday)  # past weeks to look back on, and weeks ahead


def test_rota_agrees_with_the_production_incidents(world):
    """In a week when an on-call group worked a production incident, the rota names its assignee."""
    _scale, session = world
    _groups, weeks, _labels = _rota(session)
    by_monday = {_day(w["Week of"]): w for w in weeks}
    names = {p.id: p.name for p in session.scalars(select(Person))}
    production = select(TicketComponent.ticket_id).join(Component, Component.id == TicketComponent.component_id) \
        .where(Component.name == "Production")
    incidents = session.scalars(select(Ticket).where(Ticket.type == "Incident", Ticket.id.in_(production),
                                                     Ticket.assignee_id.is_not(None)).order_by(Ticket.created_at))
    seen, checked = set(), 0
    for ticket in incidents:
        group = session.get(Group, ticket.group_id)
        monday = ticket.created_at.date() - timedelta(days=ticket.created_at.weekday())
        if not group.on_call or monday not in by_monday or (group.id, monday) in seen:
            continue
        seen.add((group.id, monday))  # the first incident of the week decides it
        assert by_monday[monday][group.name] == names[ticket.assignee_id], ticket.key
        checked += 1
    assert checked >= 1


def test_every_formula_computes_without_an_error(world):
    """No seeded cell holds an error value: none is intended (no #N/A placeholder, no #DIV/0! on an
    empty department), and the stored values are what the engine computes afresh."""
    _scale, session = world
    cells = list(session.scalars(select(Cell)))
    formulas = [c for c in cells if c.is_formula]
    assert len(formulas) >= 100
    assert [(c.sheet_id, c.row, c.col, c.raw, c.text) for c in cells if c.kind == "e"] == []
    assert not [c for c in cells if c.kind == "s" and c.text in ERRORS]
    assert all(c.kind for c in formulas)  # every formula has a value, none blank
    assert not [c.raw for c in cells if c.kind == "n" and c.raw.endswith(".0")]  # typed as a person would
    for book in session.scalars(select(Workbook)):  # the stored values are what a fresh recalculation gives
        engine = load_book(session, book)
        assert engine.recalculate(engine.formula_keys()) == set(), book.title


def test_owners_and_shares_see_their_workbooks_and_strangers_do_not(world):
    _scale, session = world
    people = list(session.scalars(select(Person).order_by(Person.id)))
    now, shares = company_now(session), Counter()
    for book in session.scalars(select(Workbook)):
        rows = list(session.scalars(select(Share).where(Share.workbook_id == book.id)))
        roles = {s.person_id: s.role for s in rows}
        shares[len(roles) > 0] += 1
        assert book.owner_id not in roles
        assert all(s.shared_by_id == book.owner_id and book.created_at <= s.shared_at < now for s in rows), book
        for person in people:
            seen = {w.id for w in services.list_workbooks(session, person, limit=100).items}
            role = "owner" if person.id == book.owner_id else roles.get(person.id)
            assert (book.id in seen) == (role is not None), (book.title, person.name)
            if role is None:
                with pytest.raises(NotFound):
                    services.get_workbook(session, person, book.id)
                with pytest.raises(NotFound):
                    services.read_range(session, person, book.id, "A1:B2")
                continue
            assert services.my_role(session, person, book) == role
            if role == "viewer":
                with pytest.raises(Forbidden):
                    services.write_cells(session, person, book.id, [{"cell": "A1", "value": "x"}])
    assert shares[True] == 4 and shares[False] >= 2  # the shared four, and private personal ones


def _sheets_tables(path) -> bytes:
    """Every row of every sheets_* table as text (floats exactly, in canonical order)."""
    with closing(sqlite3.connect(path)) as conn:
        tables = [t for (t,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                             "AND name LIKE 'sheets_%' ORDER BY name")]
        out = []
        for table in tables:
            out.append(f"-- {table}")
            out += sorted(repr(row) for row in conn.execute(f'SELECT * FROM "{table}"'))
    return "\n".join(out).encode()


def test_same_seed_gives_byte_identical_sheets(tmp_path):
    """Two builds of the small world with one seed store the same workbooks to the byte; another
    seed stores others. (tests/seed_data/test_world.py checks whole files, at the tiny scale.)"""
    first, second = (ensure_world("small", 0, load_settings(home=tmp_path / name)) for name in ("a", "b"))
    dumped = _sheets_tables(first.path)
    assert dumped == _sheets_tables(second.path)
    assert dumped.count(b"\n(") > 1000  # the cells are there
    other = ensure_world("small", 1, load_settings(home=tmp_path / "c"))
    assert _sheets_tables(other.path) != dumped
