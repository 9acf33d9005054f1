"""Start states kept as deltas: a start file made from the world and an instance's delta holds
exactly what running the setup made, for every template with a setup; the delta is small (at
the large scale, kilobytes instead of a 207 MB copy per instance); full
start files beyond the configured number are removed and made again when an episode needs one."""

from __future__ import annotations

import filecmp
import sqlite3

import pytest

from officegym.config import load_settings
from officegym.episodes import EpisodeStore
from officegym.runner import AGENTS
from officegym.starts import delta_path, start_file
from officegym.tasks.registry import all_tasks

SETUP_TASKS = "chat.archive_project"  # a template with a setup, drawn at tiny
TEMPLATES = all_tasks()


def private_starts(tmp_path, **options):
    """A store whose start files are its own (the worlds are the shared cache's, read only)."""
    shared = load_settings()
    home = tmp_path / "home"
    home.mkdir()
    (home / "worlds").symlink_to(shared.worlds_dir, target_is_directory=True)
    return EpisodeStore(load_settings(home=home, episodes_dir=tmp_path / "episodes", pool_size=0, **options))


def _differences(path, other, first: bool = False) -> list[str]:
    """The tables whose rows differ between two SQLite files (compared by SQLite itself: every row of
    one is in the other, and as many), and tables only one of them has; with `first`, as soon as one
    is found. Files alike byte for byte have none."""
    if filecmp.cmp(path, other, shallow=False):
        return []
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        conn.execute("ATTACH DATABASE ? AS other", (f"file:{other}?mode=ro",))
        tables = {db: {name for (name,) in conn.execute(f"SELECT name FROM {db}.sqlite_master WHERE type = 'table'")}
                  for db in ("main", "other")}
        differ = sorted(tables["main"] ^ tables["other"])
        shared = ['"' + name.replace('"', '""') + '"' for name in sorted(tables["main"] & tables["other"])]
        for name, quoted in zip(sorted(tables["main"] & tables["other"]), shared):  # counts first: cheap
            counts = [conn.execute(f"SELECT count(*) FROM {db}.{quoted}").fetchone()[0] for db in ("main", "other")]
            differ += [name] if counts[0] != counts[1] else []
        for name, quoted in zip(sorted(tables["main"] & tables["other"]), shared):
            if (first and differ) or name in differ:
                continue
            missing = conn.execute(f"SELECT count(*) FROM (SELECT * FROM main.{quoted} EXCEPT "
                                   f"SELECT * FROM other.{quoted})").fetchone()[0]
            differ += [name] if missing else []
        return sorted(differ)
    finally:
        conn.close()


def _built(store, template):
    """Instance 0 of `template`, its world and its start file built by the setup: on the tiny world, or
    on its own scale's when tiny cannot draw it or its setup cannot run there."""
    try:
        world = store.world("tiny")
        inst = store.task_instance(world, template.id, 0)
        return world, inst, (start_file(store.settings, world, inst) if inst.setup else None)
    except Exception:  # noqa: BLE001 - the tiny world lacks what some templates need
        world = store.world(template.scale)
        inst = store.task_instance(world, template.id, 0)
        return world, inst, (start_file(store.settings, world, inst) if inst.setup else None)


@pytest.mark.parametrize("template", TEMPLATES, ids=[t.id for t in TEMPLATES])
def test_every_setup_made_again_from_its_delta_gives_the_same_start(tmp_path, template):
    store = private_starts(tmp_path)
    try:
        world, inst, built = _built(store, template)  # the setup ran and wrote the delta
        if inst.setup is None:
            pytest.skip("no setup: its start is the world itself")
        kept = built.with_name("made-by-the-setup.sqlite")
        built.replace(kept)
        delta = delta_path(built)
        assert delta.stat().st_size < 256 * 1024  # a page or two per table touched
        again = start_file(store.settings, world, inst)  # made from the world and the delta
        assert again == built and _differences(kept, again) == []
        assert _differences(world.path, again, first=True), "the setup changed something the start holds"
    finally:
        store.close()


def test_full_start_files_beyond_the_limit_go_and_come_back_when_needed(tmp_path):
    store = private_starts(tmp_path, start_files=1, start_idle=0)
    try:
        episodes = [store.create(SETUP_TASKS, k, scale="tiny") for k in range(3)]
        folder = store.settings.home / "starts" / episodes[0].world.key
        assert len(list(folder.glob("*.sqlite"))) == 1 and len(list(folder.glob("*.delta"))) == 3
        first = episodes[0]
        assert not any(p.name.startswith(f"{SETUP_TASKS}-0-") for p in folder.glob("*.sqlite"))
        assert first.grade().success is False  # its start file is made again from the world and its delta
        AGENTS["oracle"](first)
        assert first.grade().success is True
        assert [p.name.startswith(f"{SETUP_TASKS}-0-") for p in folder.glob("*.sqlite")] == [True]
        store.create(SETUP_TASKS, 1, scale="tiny")  # made again: the least recently used one goes
        assert [p.name.startswith(f"{SETUP_TASKS}-1-") for p in folder.glob("*.sqlite")] == [True]
    finally:
        store.close()
