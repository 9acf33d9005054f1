"""Parallel episodes, on SQLite and on PostgreSQL: side by side without seeing each other, ids that
cannot be guessed or reused, a server holding a hundred live episodes, the runner's --parallel, and
two agents writing one sheet at once, and a grade beside a write under way."""

from __future__ import annotations

import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import anyio
import httpx
import pytest
from mcp.client import Client
from sqlalchemy import func, select

from officegym.apps.chat import services as chat
from officegym.apps.chat.models import Message
from officegym.apps.org.models import Person
from officegym.apps.sheets import services as sheets
from officegym.apps.sheets.book import cell_value, read_book
from officegym.apps.sheets.models import Cell, Sheet, Workbook
from officegym.errors import NotFound
from officegym.runner import run
from officegym.worlds import content_hash


async def post_many(episode, marker: str, count: int) -> None:
    async with Client(episode.mcp_server()) as client:
        for k in range(count):
            result = await client.call_tool("chat_post_message", {"channel": "general", "text": f"{marker} {k}"})
            assert not result.is_error, result
        result = await client.call_tool("chat_update_channel", {"channel": "general", "topic": marker})
        assert not result.is_error, result


def texts_like(episode, marker: str) -> int:
    with episode.session() as session:
        return session.scalar(select(func.count()).select_from(Message).where(Message.text.startswith(marker)))


def test_two_episodes_side_by_side_do_not_see_each_other(store):
    first, second = store.create(scale="tiny"), store.create(scale="tiny")
    try:
        start = content_hash(first.engine)
        assert content_hash(second.engine) == start
        barrier = threading.Barrier(2)

        def work(episode, marker):
            barrier.wait()  # both write at the same moment
            anyio.run(post_many, episode, marker, 15)

        with ThreadPoolExecutor(2) as pool:
            list(pool.map(work, (first, second), ("alpha-writes", "beta-writes")))
        assert (texts_like(first, "alpha-writes"), texts_like(first, "beta-writes")) == (15, 0)
        assert (texts_like(second, "beta-writes"), texts_like(second, "alpha-writes")) == (15, 0)
        for episode, marker in ((first, "alpha-writes"), (second, "beta-writes")):
            diff = episode.diff()
            assert sorted(r["text"] for r in diff.table("chat_message").added) == sorted(
                f"{marker} {k}" for k in range(15))
            assert [u.after["topic"] for u in diff.table("chat_channel").updated] == [marker]
        # a third episode made now starts from the untouched world
        third = store.create(scale="tiny")
        assert content_hash(third.engine) == start
        store.delete(third.id)
    finally:
        store.delete(first.id)
        store.delete(second.id)


def test_episode_ids_cannot_be_guessed_or_reused(store):
    made = [store.create(scale="tiny") for _ in range(6)]
    ids = [e.id for e in made]
    assert len(set(ids)) == len(ids)
    assert all(re.fullmatch(r"[A-Za-z0-9_-]{22,}", i) for i in ids)  # 128 random bits each
    gone = made.pop()
    name = gone.database.name
    store.delete(gone.id)
    with pytest.raises(NotFound):
        store.get(gone.id)
    with pytest.raises(NotFound):
        store.open(gone.id)  # not even from the record another process would read
    with pytest.raises(NotFound):
        store.delete(gone.id)
    if store.backend.name == "postgresql":
        store.backend.settle()  # databases are dropped in the background
        assert name not in store.backend.databases()
    else:
        assert not gone.path.exists()
    later = [store.create(scale="tiny") for _ in range(3)]
    assert gone.id not in {e.id for e in later}
    assert gone.id in store._retired  # the store refuses to hand it out again
    for episode in made + later:
        store.delete(episode.id)


def test_server_holds_a_hundred_live_episodes(live_server):
    base, admin = live_server.base_url, live_server.admin
    before = len(live_server.store.entries())

    def create(k):
        response = httpx.post(f"{base}/api/episodes", json={"task": "chat.set_topic", "instance": k % 20},
                              headers=admin, timeout=60)
        assert response.status_code == 201, response.text
        return response.json()

    with ThreadPoolExecutor(8) as pool:
        episodes = list(pool.map(create, range(100)))
    assert len({e["id"] for e in episodes}) == 100
    assert len(live_server.store.entries()) == before + 100
    health = httpx.get(f"{base}/healthz").json()
    assert health["episodes"] == before + 100

    async def solve_some():
        for episode in episodes[::10]:  # MCP over HTTP on a sample, with every other episode still live
            call = live_server.store.get(episode["id"]).task.solution[0]
            async with Client(episode["mcp_url"]) as client:
                assert not (await client.call_tool(call.tool, call.args)).is_error

    anyio.run(solve_some)
    solved = {e["id"] for e in episodes[::10]}

    def grade_and_delete(episode):
        page = httpx.get(episode["ui_url"] + "chat/c/general", follow_redirects=True)
        assert page.status_code == 200
        grade = httpx.post(f"{base}/api/episodes/{episode['id']}/grade", headers=admin, timeout=60).json()
        assert grade["success"] is (episode["id"] in solved), grade
        assert httpx.delete(f"{base}/api/episodes/{episode['id']}", headers=admin).status_code == 200

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(grade_and_delete, episodes))
    assert len(live_server.store.entries()) == before


def test_runner_in_parallel_gives_the_same_grades_as_one_at_a_time(store):
    pattern = "crm.*"
    serial = sorted((r["task_id"], r["instance"], r["score"]) for r in run(store, "oracle", pattern, 2, "small"))
    parallel = sorted((r["task_id"], r["instance"], r["score"])
                      for r in run(store, "oracle", pattern, 2, "small", parallel=4))
    assert serial == parallel
    assert len(serial) >= 16 and all(score == 1.0 for _, _, score in serial)


def _write_column(episode, owner: int, workbook: int, column: str, barrier: threading.Barrier) -> None:
    """One agent fills column{1..50} with 1..50, twenty-five cells a call, each call its own transaction."""
    barrier.wait()
    for first in range(1, 51, 25):
        with episode.session("mcp") as session:
            sheets.write_cells(session, session.get(Person, owner), workbook,
                               [{"cell": f"{column}{row}", "value": row} for row in range(first, first + 25)])


def _formulas_agree_with_a_fresh_recalculation(episode, workbook: int) -> dict[str, object]:
    """Every formula's stored value equals what recalculating the stored inputs gives; the values by cell."""
    with episode.session() as session:
        found = session.get(Workbook, workbook)
        fresh = read_book(session, found)
        fresh.recalculate(fresh.formula_keys())
        stored = {(c.sheet_id, c.row, c.col): c for c in session.scalars(
            select(Cell).join(Sheet).where(Sheet.workbook_id == workbook, Cell.raw.startswith("=")))}
        for key, cell in stored.items():
            assert cell_value(cell.kind, cell.number, cell.text) == fresh.value(key), cell.raw
        return {cell.raw: cell_value(cell.kind, cell.number, cell.text) for cell in stored.values()}


def test_two_agents_writing_one_sheet_at_once_leave_every_formula_right(store):
    """Two writers fill B1:B50 and C1:C50 of one sheet at the same moment, twenty times: each sum sees
    both columns, every formula equals a fresh recalculation, and the grade's diff reads both."""
    episode = store.create(scale="tiny")
    try:
        with episode.session() as session:
            owner = session.scalar(select(Person.id).where(Person.role == "owner"))
        for run_number in range(20):
            with episode.session() as session:
                actor = session.get(Person, owner)
                workbook = sheets.create_workbook(session, actor, f"Race {run_number}").id
                sheets.write_cells(session, actor, workbook, [
                    {"cell": "Z1", "value": "=SUM(B1:C100)"}, {"cell": "Z2", "value": "=SUM(B1:B50)-SUM(C1:C50)"},
                    {"cell": "Z3", "value": "=COUNT(B:C)"}, {"cell": "Z4", "value": "=Z1/Z3"}])
            barrier = threading.Barrier(2)
            with ThreadPoolExecutor(2) as pool:
                list(pool.map(_write_column, (episode, episode), (owner, owner), (workbook, workbook), "BC",
                              (barrier, barrier)))
            values = _formulas_agree_with_a_fresh_recalculation(episode, workbook)
            assert values == {"=SUM(B1:C100)": 2550.0, "=SUM(B1:B50)-SUM(C1:C50)": 0.0, "=COUNT(B:C)": 100.0,
                              "=Z1/Z3": 25.5}, f"run {run_number}"
        added = episode.diff().table("sheets_cell").added
        assert sum(1 for row in added if row["raw"] == "=SUM(B1:C100)" and row["number"] == 2550.0) == 20
    finally:
        store.delete(episode.id)


def test_a_grade_waits_for_a_write_under_way_and_reads_all_of_it(store):
    """A grade that starts while a write's transaction is open reads the state after that write,
    never half of it: the write commits first, then the grade reads."""
    episode = store.create("chat.set_topic", 0, scale="tiny")
    try:
        asked = episode.task.solution[0].args
        written, release = threading.Event(), threading.Event()

        def write():
            with episode.session("mcp") as session:
                chat.update_channel(session, episode.actor(session), asked["channel"], topic=asked["topic"])
                session.flush()  # the write and its journal entry are in the database, not committed
                written.set()
                release.wait(10)

        with ThreadPoolExecutor(2) as pool:
            writer = pool.submit(write)
            assert written.wait(10)
            grading = pool.submit(episode.grade)
            time.sleep(0.3)
            assert not grading.done()  # the grade waits for the write under way
            release.set()
            writer.result(10)
            grade = grading.result(30)
        assert grade.status == "passed" and grade.success is True, [(c.requirement, c.detail) for c in grade.checks if not c.passed]
    finally:
        store.delete(episode.id)
