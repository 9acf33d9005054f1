"""An idle episode (its connections closed by the store, open_episodes.py) holds no engine and no
object of the store: its next use makes them again from the registry, and it answers, keeps its
trajectory and grades as before. What a call reads once per episode is read again only after a
write: a read-only call where nothing is due asks nothing of the colleagues' tables."""

from __future__ import annotations

import gc

import anyio
from sqlalchemy import event
from sqlalchemy.engine import Engine

from officegym.config import load_settings
from officegym.episodes import EpisodeStore
from officegym.mcp_wrappers.server import call_served

TASK = "chat.set_topic"


def _call(store: EpisodeStore, episode_id: str, name: str, args: dict) -> dict:
    """One tool call as a served one makes it: the episode looked up by id, then the call."""
    result = anyio.run(call_served, store.get(episode_id), name, args)
    assert not result.is_error, result.content
    return result.structured_content


def _engines_on(folder) -> list[Engine]:
    """The engines alive in this process whose database is in `folder`."""
    gc.collect()
    return [o for o in gc.get_objects() if isinstance(o, Engine) and str(folder) in str(o.url)]


def test_idle_episodes_hold_no_engine_and_no_object_of_the_store(tmp_path):
    store = EpisodeStore(load_settings(episodes_dir=tmp_path, open_episodes=2, pool_size=0))
    try:
        made = [store.create(scale="tiny").id for _ in range(12)]
        for episode_id in made:
            _call(store, episode_id, "org_get_me", {})
        assert len(_engines_on(tmp_path)) == 2  # only the two used most recently
        assert [store.opened_here(e) for e in made] == [False] * 10 + [True] * 2
        assert {e.id for e in store.live()} == set(made[-2:])
        assert {e.id for e in store.entries()} >= set(made)  # all still live, in the registry
    finally:
        store.close()
    assert _engines_on(tmp_path) == []


def test_an_idle_episode_reopened_answers_keeps_its_trajectory_and_grades_as_before(tmp_path):
    store = EpisodeStore(load_settings(episodes_dir=tmp_path, open_episodes=1, pool_size=0))
    try:
        task = store.create(TASK, 0, scale="tiny")
        task_id, actor_id, tools = task.id, task.actor_id, task.tools
        solution = store.task_instance(task.world, TASK, 0).solution
        del task
        for step in solution:
            _call(store, task_id, step.tool, step.args)
        me = _call(store, task_id, "org_get_me", {})
        first = store.get(task_id).grade()
        other = store.create(scale="tiny").id
        _call(store, other, "org_get_me", {})  # the task's episode is closed and let go of
        assert not store.opened_here(task_id)
        assert _call(store, task_id, "org_get_me", {}) == me  # opened again from the registry
        reopened = store.get(task_id)
        assert (reopened.actor_id, reopened.tools) == (actor_id, tools)
        assert len(reopened.trajectory) == len(solution) + 2
        assert reopened.grade().to_dict() == first.to_dict() and first.success
    finally:
        store.close()


def test_a_read_where_nothing_is_due_asks_nothing_of_the_colleagues_tables(tmp_path):
    store = EpisodeStore(load_settings(episodes_dir=tmp_path, pool_size=0))
    try:
        task = store.create(TASK, 0, scale="tiny")
        _call(store, task.id, "org_get_me", {})  # the first call reads what is due
        statements: list[str] = []
        listen = lambda *args: statements.append(args[2])  # noqa: E731 - (conn, cursor, statement, ...)
        event.listen(task.engine, "before_cursor_execute", listen)
        try:
            again = _call(store, task.id, "org_get_me", {})
        finally:
            event.remove(task.engine, "before_cursor_execute", listen)
        assert again["id"] == task.actor_id
        assert not [s for s in statements if "og_colleague_pending" in s or "og_event" in s], statements
        for step in store.task_instance(task.world, TASK, 0).solution:  # a write: read through again
            _call(store, task.id, step.tool, step.args)
        assert store.get(task.id).grade().success
    finally:
        store.close()
