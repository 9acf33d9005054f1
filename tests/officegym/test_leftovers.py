"""What a crashed process left behind is deleted by the next one to start, and nothing else: the
episodes of a process that no longer runs (or whose pid now belongs to another process) and old
episode files without a record, never those of a live process or of another machine."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from officegym.config import load_settings
from officegym.episodes import EpisodeStore
from officegym.leftovers import ORPHAN_AGE, alive, sweep, this_process


@pytest.fixture
def private_store(tmp_path):
    """A store on an episodes folder of its own."""
    made = EpisodeStore(load_settings(episodes_dir=tmp_path / "episodes"))
    yield made
    made.close()


def a_finished_pid() -> int:
    """The pid of a process that has ended."""
    probe = subprocess.Popen([sys.executable, "-c", "pass"])
    assert probe.wait() == 0
    return probe.pid


def owned_by(store, episode, owner: dict) -> None:
    """Rewrite an episode's record as if another process had made it; this store forgets it."""
    record = store.settings.episodes_dir / f"{episode.id}.json"
    meta = json.loads(record.read_text())
    record.write_text(json.dumps({**meta, "owner": owner}))
    store._episodes.pop(episode.id)
    episode.engine.dispose()


def test_the_episodes_of_a_process_that_ended_are_deleted_and_no_others(private_store):
    folder = private_store.settings.episodes_dir
    mine = private_store.create(scale="tiny")
    dead, reused, elsewhere = (private_store.create(scale="tiny") for _ in range(3))
    me = this_process()
    owned_by(private_store, dead, {**me, "pid": a_finished_pid()})
    owned_by(private_store, reused, {**me, "started": "1"})  # our pid, but a process started at another time
    owned_by(private_store, elsewhere, {**me, "host": "another-machine", "pid": a_finished_pid()})
    removed = sweep(private_store)
    assert sorted(removed) == sorted([dead.id, reused.id])
    for gone in (dead, reused):
        assert not (folder / f"{gone.id}.sqlite").exists() and not (folder / f"{gone.id}.json").exists()
    for kept in (mine, elsewhere):
        assert (folder / f"{kept.id}.sqlite").exists() and (folder / f"{kept.id}.json").exists()
    assert alive(me) and alive(None)


def test_an_old_episode_file_without_a_record_is_deleted_and_a_new_one_kept(private_store):
    folder = private_store.settings.episodes_dir
    old, new = folder / "OldOrphanFile1.sqlite", folder / "NewOrphanFile1.sqlite"
    for path in (old, new):
        path.write_bytes(b"")
    long_ago = time.time() - ORPHAN_AGE - 60
    os.utime(old, (long_ago, long_ago))
    assert sweep(private_store) == ["OldOrphanFile1"]
    assert not old.exists() and new.exists()
