"""Warm pools: ready copies of start states, made ahead by a background thread, so that a reset
only hands one over (a rename) instead of copying a file or a database.

A pool keeps `size` copies of each of the `starts` start states used most recently (the world of
free episodes, or a task instance's start); a start pushed out of that list has its copies
removed. Copies live where episodes do (the episodes folder, or the PostgreSQL server), so the
processes of one server, and its next run, share them: a copy is claimed by an atomic rename, and
only one claimer wins it. `SqlitePool` and `postgres.PostgresPool` say how a copy is made,
listed, claimed and removed.
"""

from __future__ import annotations

import logging
import os
import secrets
import shutil
import threading
import time
from array import array
from collections import OrderedDict
from pathlib import Path

from officegym.clone import clone_file

log = logging.getLogger(__name__)
MAX_REFILLS_KEPT = 1000
SOURCE = "source.txt"  # in each SQLite pool folder: the start file its copies are of


class WarmPool:
    """The filling and handing over common to every backend's pool."""

    def __init__(self, size: int, starts: int):
        self.size, self.starts = max(0, size), max(1, starts)
        self._wanted: OrderedDict[str, object] = OrderedDict()  # key -> source, most recently used last
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._idle = threading.Event()
        self._idle.set()  # nothing asked for yet: nothing to fill
        self._stopping = False
        self._thread: threading.Thread | None = None
        # Seconds each copy took to make, newest last (bounded; raw doubles: a float object kept per
        # refill would outlive the objects made beside it and keep their memory from the system).
        self.refills = array("d")

    # -- what each backend provides -----------------------------------------------------------------

    def ready(self, key: str) -> list[str]:
        """The ready copies of a start."""
        raise NotImplementedError

    def make(self, key: str, source) -> None:
        """Make one ready copy of a start (published only when complete)."""
        raise NotImplementedError

    def claim(self, copy: str, target: str) -> bool:
        """Turn a ready copy into `target`; False when another claimer took it first."""
        raise NotImplementedError

    def remove(self, copy: str) -> None:
        """Delete a ready copy."""
        raise NotImplementedError

    # -- handing over -------------------------------------------------------------------------------

    def take(self, key: str, source, target: str) -> bool:
        """Make `target` from a ready copy of start `key` (copied from `source`) if there is one;
        False when the caller must copy it itself. Either way the pool refills in the background."""
        if self.size == 0:
            return False
        self._want(key, source)
        try:
            for copy in self.ready(key):
                if self.claim(copy, target):
                    return True
            return False
        finally:
            with self._lock:  # against the filler deciding it is idle in between
                self._idle.clear()
                self._wake.set()

    def _want(self, key: str, source) -> None:
        with self._lock:
            self._wanted[key] = source
            self._wanted.move_to_end(key)
            dropped = []
            while len(self._wanted) > self.starts:
                dropped.append(self._wanted.popitem(last=False)[0])
            if self._thread is None:
                self._thread = threading.Thread(target=self._fill, name="officegym-warm-pool", daemon=True)
                self._thread.start()
        for old in dropped:
            for copy in self.ready(old):
                self.remove(copy)

    def _fill(self) -> None:
        while not self._stopping:
            self._wake.wait()
            self._wake.clear()
            with self._lock:
                wanted = list(reversed(self._wanted.items()))  # the most recent start first
            for key, source in wanted:
                try:
                    while not self._stopping and key in self._wanted and len(self.ready(key)) < self.size:
                        started = time.perf_counter()
                        self.make(key, source)
                        self.refills.append(time.perf_counter() - started)
                        del self.refills[:-MAX_REFILLS_KEPT]
                except Exception as error:  # a copy that fails now is made on the next reset
                    log.warning("warm pool: could not make a copy of %s: %s", key, error)
            with self._lock:
                if not self._wake.is_set():
                    self._idle.set()

    def wait_full(self, timeout: float = 60) -> bool:
        """Wait until every wanted start has its copies (for benchmarks and tests); at once when
        nothing was asked for. False when the timeout passed first."""
        return self._idle.wait(timeout)

    def drain(self) -> int:
        """Remove the ready copies of every start this pool keeps warm; how many."""
        with self._lock:
            keys = list(self._wanted)
        copies = [copy for key in keys for copy in self.ready(key)]
        for copy in copies:
            self.remove(copy)
        return len(copies)

    def close(self) -> None:
        """Stop filling; the ready copies stay for the next process."""
        self._stopping = True
        self._wake.set()
        if self._thread is not None:
            self._thread.join(60)


class SqlitePool(WarmPool):
    """Ready copies of SQLite start files in `<episodes folder>/.pool/<start>/`, beside the file
    naming the start (SOURCE)."""

    def __init__(self, folder: Path, size: int, starts: int):
        super().__init__(size, starts)
        self.folder = folder / ".pool"

    def ready(self, key: str) -> list[str]:
        """Ready copies of start `key`."""
        try:
            return sorted(str(p) for p in (self.folder / key).glob("*.sqlite"))
        except OSError:
            return []

    def make(self, key: str, source) -> None:
        """Clone or copy the start file, then publish it under its final name."""
        folder = self.folder / key
        if not folder.exists():
            folder.mkdir(parents=True, exist_ok=True)
            (folder / SOURCE).write_text(str(source))  # for the sweep: a pool whose start is gone goes
        name = secrets.token_hex(8)
        partial = folder / f"{name}.partial"
        try:
            clone_file(Path(source), partial)
            partial.replace(folder / f"{name}.sqlite")
        except BaseException:  # a full disk, say: no half copy stays behind
            partial.unlink(missing_ok=True)
            raise

    def claim(self, copy: str, target: str) -> bool:
        """Rename the copy to the episode's file (atomic: one claimer wins)."""
        try:
            os.rename(copy, target)
        except FileNotFoundError:
            return False
        return True

    def remove(self, copy: str) -> None:
        """Delete a ready copy."""
        Path(copy).unlink(missing_ok=True)


def sweep_pools(folder: Path, older_than: float) -> None:
    """Remove the SQLite pools of start files that are gone, and copies a killed process left half
    made (older than `older_than` seconds). Files another process removes meanwhile are passed over."""
    for pool in (folder / ".pool").glob("*"):
        try:
            if not Path((pool / SOURCE).read_text()).exists():
                shutil.rmtree(pool, ignore_errors=True)
                continue
        except FileNotFoundError:
            pass  # a pool still being made, or removed meanwhile
        for partial in pool.glob("*.partial"):
            try:
                if time.time() - partial.stat().st_mtime > older_than:
                    partial.unlink(missing_ok=True)
            except FileNotFoundError:
                continue
