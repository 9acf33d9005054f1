"""What a crashed or killed process left behind: episodes whose record names a process of this
machine that no longer runs. Every episode's record in the episode registry names the server
process that made it: host, pid and, where /proc tells it, the process's start time, so that a
pid the system has since given to another process does not count as alive.

`sweep()` deletes those episodes (their files, or their PostgreSQL databases), the episode files
no record names and the warm pools of start files that are gone. Records of other machines and
of live processes are never touched."""

from __future__ import annotations

import os
import socket
import time
from pathlib import Path

from officegym.errors import NotFound
from officegym.warm_pool import sweep_pools

ORPHAN_AGE = 600  # seconds: an episode file without a record is older than any creation in progress


def _started(pid: int) -> str | None:
    """The process's start time in clock ticks since boot (None where /proc does not say)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()[19]  # field 22; the name before ")" may hold spaces


def this_process() -> dict:
    """The identity recorded with each episode this process makes."""
    return {"host": socket.gethostname(), "pid": os.getpid(), "started": _started(os.getpid())}


def alive(owner: dict | None) -> bool:
    """Whether the process that made an episode may still use it (an unknown owner, or one on
    another machine, counts as alive)."""
    if not owner or owner.get("host") != socket.gethostname() or not isinstance(owner.get("pid"), int):
        return True
    try:
        os.kill(owner["pid"], 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # someone else's process: it exists
    started = _started(owner["pid"])
    return owner.get("started") is None or started is None or started == owner["started"]


def sweep(store) -> list[str]:
    """Delete the episodes of processes that no longer run, and episode files no record names;
    the ids removed."""
    removed = []
    for entry in store.entries():
        if alive(entry.record.get("owner")):
            continue
        try:
            store.delete(entry.id)
        except NotFound:  # deleted meanwhile by another process
            continue
        removed.append(entry.id)
    if store.backend.name != "sqlite":
        return removed
    folder = store.settings.episodes_dir
    sweep_pools(folder, ORPHAN_AGE)
    for path in sorted([*folder.glob("*.sqlite"), *folder.glob("*.steps"), *folder.glob("*.json.partial")]):
        stem = path.name.split(".")[0]
        if (folder / f"{stem}.json").exists() or time.time() - path.stat().st_mtime <= ORPHAN_AGE:
            continue
        path.unlink(missing_ok=True)
        if path.suffix == ".sqlite":
            store.backend.discard(stem)  # its journal and write-ahead log too
            removed.append(stem)
    return removed
