"""What a crashed or killed process left behind: episodes whose record names a process of this
machine that no longer runs. Every episode's record in the episode registry names the server
process that made it: host, pid and, where /proc tells it, the process's start time, so that a
pid the system has since given to another process does not count as alive.

`sweep()` deletes those episodes of its fleet (their files, or their PostgreSQL databases), the
episode files no record names, the episode databases of its fleet that no record names and whose
maker no longer runs (a database's comment names its fleet and maker), and the warm pools of start
files that are gone. Records of other machines, of live processes and of other fleets are never
touched."""

from __future__ import annotations

import os
import re
import socket
import time
from pathlib import Path

from sqlalchemy import text

from officegym.errors import NotFound
from officegym.warm_pool import sweep_pools

ORPHAN_AGE = 600  # seconds: an episode file without a record is older than any creation in progress
MAKER_NOTE = re.compile(r"^og-episode fleet=([A-Za-z0-9_.-]{1,64}) host=([A-Za-z0-9_.-]{1,100}) "
                        r"pid=(\d{1,10}) started=(\d{0,20})$")


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


def _host_in_note() -> str:
    """This machine's name as a database's comment carries it."""
    return re.sub(r"[^A-Za-z0-9_.-]", "-", socket.gethostname())[:100] or "-"


def maker_note(fleet: str) -> str:
    """What an episode database's comment says of its fleet and the process making it, in
    characters a SQL literal holds as they are (MAKER_NOTE reads it back)."""
    me = this_process()
    note = f"og-episode fleet={fleet} host={_host_in_note()} pid={me['pid']} started={me['started'] or ''}"
    if not MAKER_NOTE.match(note):
        raise ValueError(f"unexpected episode database note {note!r}")
    return note


def _maker(note: str | None) -> tuple[str, dict] | None:
    """(fleet, owner as `alive` takes it) from an episode database's comment, or None."""
    found = MAKER_NOTE.match(note or "")
    if found is None:
        return None
    fleet, host, pid, started = found.groups()
    return fleet, {"host": host, "pid": int(pid), "started": started or None}


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
    if store.backend.name == "postgresql":
        return removed + _orphan_databases(store, set(removed))
    if store.backend.name != "sqlite":
        return removed
    folder = store.settings.episodes_dir
    sweep_pools(folder, ORPHAN_AGE)
    for path in sorted([*folder.glob("*.sqlite"), *folder.glob("*.steps"), *folder.glob("*.json.partial")]):
        stem = path.name.split(".")[0]
        try:
            if (folder / f"{stem}.json").exists() or time.time() - path.stat().st_mtime <= ORPHAN_AGE:
                continue
        except FileNotFoundError:  # deleted meanwhile by its own process
            continue
        path.unlink(missing_ok=True)
        if path.suffix == ".sqlite":
            store.backend.discard(stem)  # its journal and write-ahead log too
            removed.append(stem)
    return removed


def _orphan_databases(store, dropping: set[str]) -> list[str]:
    """Drop the episode databases of this fleet that no record names and whose maker (named in
    the database's comment) no longer runs: a process killed between creating one and registering
    it, or before its drop ran; the ids. Databases of other fleets, of other machines, of live
    processes and without a note are left alone."""
    registered = store.registry.every_fleets_ids() | dropping
    orphans = []
    with store.backend.admin.connect() as conn:
        notes = conn.execute(text("SELECT datname, shobj_description(oid, 'pg_database') FROM pg_database "
                                  "WHERE starts_with(datname, 'og_e_') ORDER BY datname")).all()
    for name, note in notes:
        maker = _maker(note)
        episode_id = name[len("og_e_"):]
        if episode_id in registered or maker is None or maker[0] != store.settings.fleet:
            continue
        if maker[1]["host"] == _host_in_note() and not alive({**maker[1], "host": socket.gethostname()}):
            store.backend.discard(episode_id)
            orphans.append(episode_id)
    return orphans
