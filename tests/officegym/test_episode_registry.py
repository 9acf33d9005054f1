"""The episode registry, on files and on PostgreSQL: any store reading the same registry serves,
grades and deletes an episode another store created, sees its trajectory, and lets go of it once
it is deleted; a store deletes only its own server's episodes when it closes; stores of different
fleets on one registry never see or touch each other's episodes."""

from __future__ import annotations

import json

import anyio
import pytest
from sqlalchemy import text

from officegym import episode_registry, postgres_registry
from officegym.config import load_settings
from officegym.episodes import EpisodeStore
from officegym.errors import NotFound
from officegym.leftovers import sweep, this_process


@pytest.fixture(params=["sqlite", "postgresql"])
def two_stores(request, tmp_path, postgres_url):
    """Two stores (as two processes would have) on one registry: files or PostgreSQL tables."""
    url = postgres_url if request.param == "postgresql" else "sqlite"
    settings = load_settings(episodes_dir=tmp_path / "episodes", database_url=url)
    first, second = EpisodeStore(settings), EpisodeStore(settings)
    yield first, second
    first.close()
    second.close()


def test_an_episode_made_by_one_store_is_served_graded_and_deleted_by_another(two_stores):
    first, second = two_stores
    made = first.create("chat.set_topic", 0, scale="tiny")
    call = made.task.solution[0]
    made.trajectory.record("mcp", "org_get_me", {}, None, 10, 0.001)
    served = second.get(made.id)
    assert served is not made and served.task_id == "chat.set_topic" and served.actor_id == made.actor_id
    assert served.tools == made.tools and served.created == pytest.approx(made.created)
    assert served.grade().success is False
    result = anyio.run(lambda: served.mcp_server().call_tool(call.tool, call.args))
    assert not getattr(result, "is_error", False)
    assert first.get(made.id).grade().success is True  # the first store sees the second's work
    steps = first.get(made.id).trajectory.steps()
    assert [s["name"] for s in steps] == ["org_get_me", call.tool] and [s["seq"] for s in steps] == [1, 2]
    assert made.id in {e.id for e in second.entries()}
    second.delete(made.id)
    with pytest.raises(NotFound):
        first.get(made.id)
    with pytest.raises(NotFound):
        first.delete(made.id)
    assert first.live() == [] and made.id not in {e.id for e in second.entries()}


def test_closing_a_store_deletes_its_own_episodes_and_releases_the_others(two_stores):
    first, second = two_stores
    mine, theirs = first.create(scale="tiny"), second.create(scale="tiny")
    first.get(theirs.id)
    first.close()
    registered = {e.id for e in second.entries()}
    assert theirs.id in registered and mine.id not in registered
    assert second.get(theirs.id).id == theirs.id
    with pytest.raises(NotFound):
        second.get(mine.id)


def test_an_idle_episode_expires_in_every_store_and_a_kept_alive_one_stays(two_stores):
    first, second = two_stores
    idle, kept, used = (first.create(scale="tiny", keep_alive=k) for k in (False, True, False))
    second.get(idle.id)
    for episode in (idle, kept):
        first.registry.set_last_used(episode.id, episode.created - 7200)
    assert idle.id in second.expire(3600)
    registered = {e.id for e in first.entries()}
    assert {kept.id, used.id} <= registered and idle.id not in registered
    first.expire(3600)  # lets go of the episode the other store deleted
    assert {e.id for e in first.live()} == {kept.id, used.id}


def test_opening_another_stores_episode_counts_as_a_use(two_stores):
    first, second = two_stores
    made = first.create(scale="tiny")
    first.registry.set_last_used(made.id, made.created - 7200)
    second.get(made.id)  # its first request in this process
    assert made.id not in first.expire(3600)
    assert made.id in {e.id for e in first.entries()}


@pytest.mark.parametrize("kind", ["file", "postgresql"])
def test_a_trajectory_keeps_its_first_steps_and_counts_the_rest(kind, tmp_path, postgres_url, monkeypatch):
    monkeypatch.setattr(episode_registry, "MAX_STEPS", 3)
    monkeypatch.setattr(postgres_registry, "MAX_STEPS", 3)
    if kind == "file":
        registry = episode_registry.FileRegistry(tmp_path, "steps-test")
    else:
        from sqlalchemy.engine import make_url

        registry = postgres_registry.PostgresRegistry(make_url(postgres_url).set(drivername="postgresql+psycopg"),
                                                      "steps-test")
    episode_id = f"steps-test-{kind}-{tmp_path.name}"[:60]
    registry.add(episode_id, {"owner": this_process()})
    try:
        for k in range(5):
            registry.append_step(episode_id, {"name": f"call{k}"})
        steps = registry.steps(episode_id)
        assert [s.get("name") for s in steps[:3]] == ["call0", "call1", "call2"]
        assert steps[3] == {"type": "dropped", "steps": 2} and registry.step_count(episode_id) == 5
    finally:
        assert registry.remove(episode_id) is True
        assert registry.remove(episode_id) is False  # only one caller removes an episode
        registry.close()
    assert registry.steps(episode_id) == []


def test_a_dead_servers_postgresql_episode_is_swept_and_its_database_dropped(tmp_path, postgres_url):
    store = EpisodeStore(load_settings(episodes_dir=tmp_path / "episodes", database_url=postgres_url))
    try:
        left = store.create(scale="tiny")
        kept = store.create(scale="tiny")
        name = left.database.name
        store._forget(left.id)
        dead = {**store.owner, "pid": 2**22 + 1}  # above Linux's largest pid: no process has it
        with store.registry.engine.begin() as conn:
            conn.execute(text("UPDATE og_episode SET record = jsonb_set(record, '{owner}', CAST(:o AS jsonb)) "
                              "WHERE id = :id"), {"o": json.dumps(dead), "id": left.id})
        swept = sweep(store)  # a server another test killed may have left episodes too: they go as well
        assert left.id in swept and kept.id not in swept
        store.backend.settle()
        assert name not in store.backend.databases("og_e_") and kept.database.name in store.backend.databases("og_e_")
    finally:
        store.close()


@pytest.fixture(params=["sqlite", "postgresql"])
def two_fleets(request, tmp_path, postgres_url):
    """Stores of two fleets on one registry (one episodes folder, or one PostgreSQL database)."""
    url = postgres_url if request.param == "postgresql" else "sqlite"
    ours, theirs = (EpisodeStore(load_settings(episodes_dir=tmp_path / "episodes", database_url=url, fleet=name))
                    for name in ("fleet-ours", "fleet-theirs"))
    yield ours, theirs
    ours.close()
    theirs.close()


def test_servers_of_two_fleets_on_one_database_never_see_or_touch_each_others_episodes(two_fleets):
    ours, theirs = two_fleets
    mine, other = ours.create("chat.set_topic", 0, scale="tiny"), theirs.create(scale="tiny")
    assert [e.id for e in ours.entries()] == [mine.id] and [e.id for e in theirs.entries()] == [other.id]
    for episode_id in (mine.id, "a-made-up-episode-id"):
        with pytest.raises(NotFound):
            theirs.get(episode_id)
        with pytest.raises(NotFound):
            theirs.delete(episode_id)
    ours.registry.set_last_used(mine.id, mine.created - 7200)
    assert theirs.expire(3600) == []  # idle, but another fleet's
    dead = {**ours.owner, "pid": 2**22 + 1}  # above Linux's largest pid: no process has it
    if ours.backend.name == "postgresql":
        with ours.registry.engine.begin() as conn:
            conn.execute(text("UPDATE og_episode SET record = jsonb_set(record, '{owner}', CAST(:o AS jsonb)) "
                              "WHERE id = :id"), {"o": json.dumps(dead), "id": mine.id})
    else:
        record = ours.settings.episodes_dir / f"{mine.id}.json"
        record.write_text(json.dumps({**json.loads(record.read_text()), "owner": dead}))
    assert mine.id not in sweep(theirs)  # a dead owner's episode, but another fleet's: left for its own sweep
    assert ours.get(mine.id).grade().status == "failed"  # its own fleet serves and grades it
    ours.registry.set_last_used(mine.id, mine.created - 7200)
    assert ours.expire(3600) == [mine.id]
    assert theirs.get(other.id).id == other.id
