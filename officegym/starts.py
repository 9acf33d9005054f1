"""Start files: a task instance's start state (its world plus the task's setup) as a SQLite file,
copied for every episode of that instance.

An instance's start is built once per task code by running its setup on a copy of the world, and
kept for good as a delta (start_delta.py: the setup's rows, kilobytes). The full start files are a
cache: at most `settings.start_files` per world, the least recently used removed once no process
has used them for `settings.start_idle` seconds, and made again from the world and the delta when
needed (a copy of the world and a few row writes, without running the setup)."""

from __future__ import annotations

import fcntl
import functools
import hashlib
import inspect
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from officegym import change_log
from officegym.clone import clone_file
from officegym.config import Settings
from officegym.db import make_sessionmaker, sqlite_engine, transaction
from officegym.start_delta import apply_delta, write_delta

if TYPE_CHECKING:  # pragma: no cover
    from officegym.tasks.base import TaskInstance
    from officegym.worlds import World


@functools.lru_cache(maxsize=None)
def _source_digest(module_name: str) -> str:
    """A digest of a loaded module's source (read once per process)."""
    module = sys.modules.get(module_name)
    return hashlib.sha256(inspect.getsource(module).encode()).hexdigest() if module else ""


def setup_fingerprint(inst: "TaskInstance") -> str:
    """A short digest of what a task's setup writes: the instance drawn and the source of the task
    modules (the setup's own and the helpers it calls) and of the code that keeps starts as deltas,
    so that a start file built by older code is never reused."""
    drawn = repr((inst.actor_id, inst.instruction, sorted(inst.params.items(), key=lambda kv: kv[0])))
    modules = sorted({inst.setup.__module__, "officegym.start_delta"}
                     | {m for m in sys.modules if m.startswith("officegym.tasks.")})
    return hashlib.sha256((drawn + "".join(_source_digest(m) for m in modules)).encode()).hexdigest()[:12]


def start_file(settings: Settings, world: "World", inst: "TaskInstance | None") -> Path:
    """The SQLite file an episode of `inst` starts from: the world's own file when the task has no
    setup, else the world with the setup applied (made under a lock shared by processes, from the
    instance's delta when it has one). Each call counts as a use of the file."""
    if inst is None or inst.setup is None:
        return world.path
    folder = settings.home / "starts" / world.key
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{inst.task_id}-{inst.instance}-{setup_fingerprint(inst)}.sqlite"
    made = False
    with open(folder / f"{path.stem}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if path.exists():
            os.utime(path)
        else:
            _make(world, inst, path)
            made = True
    if made:
        evict_starts(folder, settings.start_files, settings.start_idle)
    return path


def delta_path(path: Path) -> Path:
    """Where the delta of start file `path` is kept."""
    return path.with_suffix(".delta")


def _make(world: "World", inst: "TaskInstance", path: Path) -> None:
    """Make start file `path`: from the instance's delta when there is one, else by running the
    setup on a copy of the world (and writing the delta)."""
    partial = path.with_suffix(".building")
    try:
        _build(world, inst, path, partial)
    except BaseException:  # a full disk, say: no half-built start stays behind
        partial.unlink(missing_ok=True)
        raise
    partial.replace(path)


def _build(world: "World", inst: "TaskInstance", path: Path, partial: Path) -> None:
    """Build start file `path` in `partial`."""
    clone_file(world.path, partial)
    delta = delta_path(path)
    if delta.exists():
        apply_delta(delta, partial)
    else:
        engine = sqlite_engine(str(partial))
        with transaction(make_sessionmaker(engine), "setup") as session:
            inst.apply_setup(session)
        engine.dispose()
        building = delta.with_suffix(".delta-building")
        write_delta(partial, world.path, building)
        building.replace(delta)
        engine = sqlite_engine(str(partial))
        with engine.begin() as conn:
            change_log.clear(conn)  # the setup is the start, not a change
        engine.dispose()


def evict_starts(folder: Path, keep: int, idle: float) -> list[Path]:
    """Remove the least recently used full start files of one world beyond `keep`, among those no
    process has used for `idle` seconds; the files removed. Their deltas stay (a file made by older
    code, without one, is made again by its setup if it is ever needed)."""
    files = sorted(folder.glob("*.sqlite"), key=_last_use, reverse=True)
    removed = []
    for path in files[keep:]:
        with open(folder / f"{path.stem}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if path.exists() and time.time() - _last_use(path) >= idle:
                path.unlink()
                removed.append(path)
    return removed


def _last_use(path: Path) -> float:
    """When a start file was last used (0 once another process has removed it)."""
    try:
        return path.stat().st_mtime
    except FileNotFoundError:
        return 0.0
