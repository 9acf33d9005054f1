"""Sheet checks on real episodes: edits confined to named ranges (formulas included, rows inserted
followed as the app moves them) and formula ranges checked cell by cell by behaviour."""

from __future__ import annotations

from contextlib import contextmanager

import pytest
from sqlalchemy import select

from officegym.apps.org.models import Person
from officegym.apps.sheets import services as sheets
from officegym.apps.sheets.models import Cell, Sheet, Workbook
from officegym.db import make_sessionmaker, sqlite_engine, transaction
from officegym.graders.checks import GradeContext
from officegym.graders.sheets import cells_guard, formulas_follow


@pytest.fixture
def budget(store):
    """A free episode acting as the owner of the department budgets, and that workbook's id."""
    world = store.world("small", 0)
    engine = sqlite_engine(str(world.path), readonly=True)
    with transaction(make_sessionmaker(engine)) as session:
        book = session.scalars(select(Workbook).where(Workbook.title.startswith("Department Budgets"))).first()
        handle, book_id = session.get(Person, book.owner_id).handle, book.id
    engine.dispose()
    episode = store.create(scale="small", seed=0, actor=f"@{handle}")
    yield episode, book_id
    store.delete(episode.id)


@contextmanager
def context(episode):
    engine = sqlite_engine(str(episode.start_path), readonly=True)
    try:
        with transaction(make_sessionmaker(engine)) as start, episode.session() as final:
            yield GradeContext(start, final, episode.diff(), None, episode.actor_id)
    finally:
        engine.dispose()


def budget_cells(session, book_id):
    """The Budget sheet's stored cells by (row, col)."""
    sheet = session.scalar(select(Sheet).where(Sheet.workbook_id == book_id, Sheet.name == "Budget"))
    return {(c.row, c.col): c for c in session.scalars(select(Cell).where(Cell.sheet_id == sheet.id))}


def write(episode, book_id, cells: dict):
    with episode.session() as s:
        sheets.write_cells(s, episode.actor(s), book_id, [{"cell": k, "value": v} for k, v in cells.items()])


def test_a_change_inside_the_range_passes_and_its_recomputed_totals_are_no_change(budget):
    episode, book = budget
    write(episode, book, {"Budget!F2": 12345})
    with context(episode) as ctx:
        assert cells_guard(ctx, book, ["Budget!F2"]).passed
        recomputed = [u for u in ctx.diff.table("sheets_cell").updated if u.key[1:] != (1, 5)]
        assert recomputed and all(u.before["raw"] == u.after["raw"] for u in recomputed)  # the totals followed


def test_a_change_outside_the_range_fails_and_is_named(budget):
    episode, book = budget
    write(episode, book, {"Budget!F2": 12345, "Budget!F3": 1})
    with context(episode) as ctx:
        result = cells_guard(ctx, book, ["Budget!F2"])
    assert not result.passed and result.guard and "F3" in result.detail and "F2:" not in result.detail


def test_a_formula_replaced_by_its_value_fails(budget):
    episode, book = budget
    with episode.session() as s:
        total = budget_cells(s, book)[(2, 8)]
        assert total.raw.startswith("=")
        ref, value = f"Budget!I{total.row + 1}", total.number
    write(episode, book, {ref: value})
    with context(episode) as ctx:
        assert not cells_guard(ctx, book, ["Budget!F2"]).passed


def test_inserted_rows_are_followed_as_the_app_moves_the_cells(budget):
    episode, book = budget
    with episode.session() as s:
        sheets.insert_rows(s, episode.actor(s), book, "Budget", 3, 2)  # before row 3, two rows
    write(episode, book, {"Budget!A3": "New team", "Budget!F3": 500})
    with context(episode) as ctx:
        assert cells_guard(ctx, book, ["Budget!A3:H4"], inserted=("Budget", 2, 2)).passed
        assert not cells_guard(ctx, book, ["Budget!A3:H4"]).passed  # without the insert: everything moved
        assert not cells_guard(ctx, book, ["Budget!A3:H4"], inserted=("Budget", 5, 2)).passed


def test_a_formula_range_is_checked_cell_by_cell(budget):
    episode, book = budget
    write(episode, book, {"Budget!K2": "=F2*2", "Budget!K3": "=F3*2", "Budget!K4": "=F4*2"})
    with episode.session() as s:
        f2, f3, f4 = (budget_cells(s, book)[(r, 5)].number for r in (1, 2, 3))
    cells = ["Budget!K2", "Budget!K3", "Budget!K4"]
    inputs = {"Budget!F2": f2 + 1, "Budget!F3": f3 + 1, "Budget!F4": f4 + 1}
    expected = [2 * (f + 1) for f in (f2, f3, f4)]
    with episode.session() as s:
        assert formulas_follow(s, book, cells, "The doubled lines", inputs, expected).passed
    write(episode, book, {"Budget!K3": f3 * 2})  # the same value, typed
    with episode.session() as s:
        result = formulas_follow(s, book, cells, "The doubled lines", inputs, expected)
    assert not result.passed and "K3" in result.detail
