"""The warm pool by default: `serve` keeps ready copies of the world it serves with no flag (a few,
bounded by OFFICEGYM_POOL_SIZE), and waiting for a pool nobody asked anything of returns at once."""

from __future__ import annotations

import time

from serving import Serving

from officegym.config import Settings
from officegym.warm_pool import SqlitePool


def test_waiting_for_a_pool_nothing_was_asked_of_returns_at_once(tmp_path):
    assert SqlitePool(tmp_path, 2, 8).wait_full(timeout=0) is True
    off = SqlitePool(tmp_path, 0, 8)
    assert off.take("start", tmp_path / "none.sqlite", str(tmp_path / "episode.sqlite")) is False
    assert off.wait_full(timeout=0) is True and not (tmp_path / ".pool").exists()


def test_a_pool_asked_for_a_start_is_not_full_until_its_copies_are_made(tmp_path):
    source = tmp_path / "start.sqlite"
    source.write_bytes(b"a start file")
    pool = SqlitePool(tmp_path, 2, 8)
    try:
        assert pool.take("start", source, str(tmp_path / "episode.sqlite")) is False  # none ready yet
        assert pool.wait_full(timeout=60) is True
        assert len(pool.ready("start")) == 2
    finally:
        pool.close()


def test_the_default_settings_keep_a_small_pool(monkeypatch):
    monkeypatch.delenv("OFFICEGYM_POOL_SIZE", raising=False)
    monkeypatch.delenv("OFFICEGYM_POOL_STARTS", raising=False)
    assert (Settings().pool_size, Settings().pool_starts) == (2, 8)


def test_serve_keeps_ready_copies_of_its_world_with_no_flag(tmp_path, settings, monkeypatch):
    monkeypatch.delenv("OFFICEGYM_POOL_SIZE", raising=False)  # the tests' own setting: no pool
    server = Serving(tmp_path, settings)
    try:
        server.answering()
        deadline, ready = time.monotonic() + 120, []
        while time.monotonic() < deadline and len(ready) < 2:
            ready = list((server.episodes / ".pool").glob("*/*.sqlite"))
            time.sleep(0.1)
        assert len(ready) == 2, ready
        assert len({path.parent for path in ready}) == 1  # the copies of one start: the tiny world
        world = settings.worlds_dir / f"{ready[0].parent.name.removeprefix('worlds-')}.sqlite"
        assert ready[0].read_bytes() == world.read_bytes()
    finally:
        assert server.stop() == 0
