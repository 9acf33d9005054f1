"""The registry of live episodes, shared by every process that serves them.

Each episode has a record (world, task instance, actor, tool set, the server that made it), a time
of creation and of last use, and its trajectory. Any process reading the same registry can serve,
grade and delete any episode in it, so a server's workers and several servers behind a load
balancer need no affinity:

- `FileRegistry`: files in the episodes folder, beside the SQLite episode files: `<id>.json` (the
  record; its modification time is the last use) and `<id>.steps` (the trajectory, JSON lines).
- `PostgresRegistry` (postgres_registry.py): two tables in the database the URL names, so
  machines sharing one PostgreSQL server share the registry.

Each record names its fleet (config.py): a registry lists, serves and removes only its own
fleet's episodes, so servers of different fleets sharing a registry never touch each other's.
"""

from __future__ import annotations

import fcntl
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

MAX_STEPS = 10_000  # per episode; later steps are counted, not kept
TOUCH_EVERY = 1.0  # seconds: a record's time of last use is written at most this often


@dataclass
class Entry:
    """One registered episode."""

    id: str
    record: dict
    created: float
    last_used: float


def numbered(steps: list[dict], dropped: int) -> list[dict]:
    """Trajectory steps as the API shows them: numbered in the order they finished, followed by a
    note of the steps dropped past MAX_STEPS."""
    shown = [{"type": "step", "seq": seq, **step} for seq, step in enumerate(steps, 1)]
    return shown + ([{"type": "dropped", "steps": dropped}] if dropped else [])


class FileRegistry:
    """Episode records as files in one folder (one machine; any number of processes)."""

    name = "file"

    def __init__(self, folder: Path, fleet: str):
        self.folder = folder
        self.fleet = fleet
        self.where = f"the episodes folder {folder} (SQLite episodes, fleet {fleet})"
        self._counted: dict[str, tuple[int, int]] = {}  # id -> (bytes of steps read, lines in them)

    def _record(self, episode_id: str) -> Path:
        return self.folder / f"{episode_id}.json"

    def _steps(self, episode_id: str) -> Path:
        return self.folder / f"{episode_id}.steps"

    def add(self, episode_id: str, record: dict) -> None:
        """Register a new episode (written whole, then renamed into place)."""
        partial = self.folder / f"{episode_id}.json.partial"
        try:
            partial.write_text(json.dumps({**record, "fleet": self.fleet}))
            partial.replace(self._record(episode_id))
        except BaseException:  # a full disk, say: no half-written record stays
            partial.unlink(missing_ok=True)
            raise

    def get(self, episode_id: str) -> Entry | None:
        """An episode's entry, or None when it is not registered (any more) in this fleet."""
        path = self._record(episode_id)
        try:
            record = json.loads(path.read_text())
            used = path.stat().st_mtime
        except (OSError, ValueError):
            return None
        if record.get("fleet") != self.fleet:
            return None
        return Entry(episode_id, record, record.get("created", used), used)

    def touch(self, episode_id: str) -> bool:
        """Mark a use; False when the episode is not registered. A record marked less than
        TOUCH_EVERY seconds ago is only checked: writing its time again costs the filesystem an
        inode update per call, for a time that idle expiry reads in minutes."""
        path = str(self._record(episode_id))
        try:
            if now() - os.stat(path).st_mtime >= TOUCH_EVERY:
                os.utime(path)
        except FileNotFoundError:
            return False
        return True

    def set_last_used(self, episode_id: str, when: float) -> None:
        """Set the time of last use (for tests and tools that replay time)."""
        os.utime(self._record(episode_id), (when, when))

    def remove(self, episode_id: str) -> bool:
        """Unregister an episode of this fleet; True for the one caller that removed it."""
        if self.get(episode_id) is None:
            return False
        self._steps(episode_id).unlink(missing_ok=True)
        self._counted.pop(episode_id, None)
        try:
            self._record(episode_id).unlink()
        except FileNotFoundError:
            return False
        return True

    def entries(self) -> list[Entry]:
        """Every registered episode of this fleet, oldest first."""
        found = (self.get(path.stem) for path in self.folder.glob("*.json"))
        return sorted((e for e in found if e is not None), key=lambda e: (e.created, e.id))

    def every_fleets_ids(self) -> set[str]:
        """The ids of the episodes registered in any fleet."""
        return {path.stem for path in self.folder.glob("*.json")}

    def append_step(self, episode_id: str, step: dict) -> None:
        """Add a step to an episode's trajectory (kept up to MAX_STEPS, counted past them): one
        locked append, reading only what other processes added since this one last counted."""
        line = json.dumps(step).encode() + b"\n"
        fd = os.open(self._steps(episode_id), os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)  # released by the close
            offset, lines = self._counted.get(episode_id, (0, 0))
            end = os.fstat(fd).st_size
            if end != offset:
                if end < offset:  # the file was removed and made again
                    offset, lines = 0, 0
                lines += os.pread(fd, end - offset, offset).count(b"\n")
            if lines >= MAX_STEPS:
                line = b"{}\n"  # a dropped step: counted, not kept
            os.write(fd, line)
            self._counted[episode_id] = (end + len(line), lines + 1)
        finally:
            os.close(fd)

    def steps(self, episode_id: str) -> list[dict]:
        """The trajectory: kept steps, numbered, and a note of those dropped."""
        try:
            lines = self._steps(episode_id).read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            return []
        kept = [json.loads(line) for line in lines if line != "{}"]
        return numbered(kept, len(lines) - len(kept))

    def step_count(self, episode_id: str) -> int:
        """Steps taken, kept or dropped."""
        try:
            with open(self._steps(episode_id), "rb") as handle:
                return sum(chunk.count(b"\n") for chunk in iter(lambda: handle.read(1 << 16), b""))
        except FileNotFoundError:
            return 0

    def close(self) -> None:
        """Nothing to release."""


def now() -> float:
    """The registry's clock (seconds since the epoch): times of creation and last use only."""
    return time.time()
