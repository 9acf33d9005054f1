"""Start files: a task instance's start state (its world plus the task's setup) as a SQLite file,
built once per instance and task code, then copied for every episode of that instance."""

from __future__ import annotations

import fcntl
import functools
import hashlib
import inspect
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from officegym import change_log
from officegym.clone import clone_file
from officegym.config import Settings
from officegym.db import make_sessionmaker, sqlite_engine, transaction

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
    modules (the setup's own and the helpers it calls), so that a start file built by older task
    code is never reused."""
    drawn = repr((inst.actor_id, inst.instruction, sorted(inst.params.items(), key=lambda kv: kv[0])))
    modules = sorted({inst.setup.__module__} | {m for m in sys.modules if m.startswith("officegym.tasks.")})
    return hashlib.sha256((drawn + "".join(_source_digest(m) for m in modules)).encode()).hexdigest()[:12]


def start_file(settings: Settings, world: "World", inst: "TaskInstance | None") -> Path:
    """The SQLite file an episode of `inst` starts from: the world's own file when the task has no
    setup, else the world with the setup applied (built under a lock, shared by processes)."""
    if inst is None or inst.setup is None:
        return world.path
    folder = settings.home / "starts" / world.key
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{inst.task_id}-{inst.instance}-{setup_fingerprint(inst)}.sqlite"
    with open(folder / f"{path.stem}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not path.exists():
            partial = path.with_suffix(".building")
            clone_file(world.path, partial)
            engine = sqlite_engine(str(partial))
            with transaction(make_sessionmaker(engine), "setup") as session:
                inst.apply_setup(session)
            with engine.begin() as conn:
                change_log.clear(conn)  # the setup is the start, not a change
            engine.dispose()
            partial.replace(path)
    return path
