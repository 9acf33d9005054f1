"""Warm pools: a reset hands over a copy made ahead of time (on SQLite a file, on PostgreSQL a
database), never the same copy to two episodes, refilled in the background, for the starts used
most recently; copies of starts that are gone are swept."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

from sqlalchemy import text

from officegym.config import load_settings
from officegym.episodes import EpisodeStore
from officegym.postgres_pool import pool_prefix
from officegym.postgres_prune import prune
from officegym.warm_pool import SOURCE, sweep_pools


def pooled_store(tmp_path, size: int = 2, starts: int = 8, url: str = "sqlite") -> EpisodeStore:
    return EpisodeStore(load_settings(episodes_dir=tmp_path / "episodes", database_url=url, pool_size=size,
                                      pool_starts=starts))


def pool_folder(store, episode):
    """The SQLite pool folder of an episode's start."""
    return store.settings.episodes_dir / ".pool" / f"{episode.start_path.parent.name}-{episode.start_path.stem}"


def test_a_sqlite_reset_takes_a_ready_copy_and_the_pool_refills(tmp_path):
    store = pooled_store(tmp_path)
    try:
        first = store.create("chat.set_topic", 0, scale="tiny")  # the pool starts filling
        assert store.backend.pool.wait_full()
        folder = pool_folder(store, first)
        ready = {os.stat(p).st_ino for p in folder.glob("*.sqlite")}
        assert len(ready) == 2 and (folder / SOURCE).read_text() == str(first.start_path)
        second = store.create("chat.set_topic", 0, scale="tiny")
        assert os.stat(second.path).st_ino in ready  # handed over, not copied
        assert second.diff().changed_tables == set() and second.grade().success is False
        assert store.backend.pool.wait_full() and len(list(folder.glob("*.sqlite"))) == 2
    finally:
        store.close()


def test_concurrent_resets_in_two_stores_never_share_a_copy(tmp_path):
    stores = [pooled_store(tmp_path, size=3) for _ in range(2)]
    try:
        stores[0].create(scale="tiny")
        stores[0].backend.pool.wait_full()
        with ThreadPoolExecutor(6) as pool:
            made = list(pool.map(lambda k: stores[k % 2].create(scale="tiny"), range(12)))
        assert len({os.stat(e.path).st_ino for e in made}) == 12
        for episode in made:
            with episode.session() as session:
                assert episode.actor(session).id == episode.actor_id
    finally:
        for store in stores:
            store.close()


def test_only_the_most_recent_starts_are_kept_warm(tmp_path):
    store = pooled_store(tmp_path, size=1, starts=1)
    try:
        old = store.create("chat.reply_with_fact", 0, scale="small")  # a task with a setup: a start of its own
        store.backend.pool.wait_full()
        old_pool = pool_folder(store, old)
        assert len(list(old_pool.glob("*.sqlite"))) == 1
        store.create("chat.reply_with_fact", 1, scale="small")
        store.backend.pool.wait_full()
        assert list(old_pool.glob("*.sqlite")) == []
    finally:
        store.close()


def test_the_sweep_removes_the_pool_of_a_start_that_is_gone(tmp_path):
    gone, kept = tmp_path / ".pool" / "gone", tmp_path / ".pool" / "kept"
    for folder, source in ((gone, tmp_path / "missing.sqlite"), (kept, tmp_path / "start.sqlite")):
        folder.mkdir(parents=True)
        (folder / SOURCE).write_text(str(source))
        (folder / "copy.sqlite").write_bytes(b"")
    (tmp_path / "start.sqlite").write_bytes(b"")
    sweep_pools(tmp_path, older_than=600)
    assert not gone.exists() and (kept / "copy.sqlite").exists()


def test_a_postgresql_reset_renames_a_ready_database(tmp_path, postgres_url):
    store = pooled_store(tmp_path, url=postgres_url)
    backend = store.backend
    try:
        first = store.create("chat.set_topic", 0, scale="tiny")  # the pool starts filling
        template = backend.start_template(first.world, first.task, first.start_path)
        assert backend.pool.wait_full(120)
        with backend.admin.connect() as conn:
            oids = dict(conn.execute(text("SELECT datname, oid FROM pg_database WHERE starts_with(datname, :p)"),
                                     {"p": pool_prefix(template)}).all())
        assert len(oids) == 2
        episode = store.create("chat.set_topic", 0, scale="tiny")
        with backend.admin.connect() as conn:
            oid = conn.scalar(text("SELECT oid FROM pg_database WHERE datname = :n"), {"n": episode.database.name})
        assert oid in oids.values()
        assert episode.diff().changed_tables == set() and episode.grade().success is False
    finally:
        backend.pool.close()
        backend.pool.drain()
        store.close()
    assert backend.databases(pool_prefix(template)) == []


def test_prune_drops_the_ready_copies_of_a_template_that_is_gone(pg_store):
    backend = pg_store.backend
    world = f"og_w_{pg_store.world('tiny').key}"
    stray, kept = pool_prefix("og_s_no_such_template") + "0123456789abcdef", pool_prefix(world) + "0123456789abcdef"
    for name in (stray, kept):
        backend.copy_database(world, name)
    try:
        keep = {name[5:] for name in backend.databases("og_e_")}
        dropped = prune(backend, keep)
        assert stray in dropped and kept not in dropped and kept in backend.databases("og_p_")
    finally:
        with backend.admin.connect() as conn:
            for name in (stray, kept):
                backend.drop(name, conn)


def test_no_pool_when_its_size_is_zero(tmp_path):
    store = pooled_store(tmp_path, size=0)
    try:
        store.create(scale="tiny")
        assert not (store.settings.episodes_dir / ".pool").exists()
    finally:
        store.close()
