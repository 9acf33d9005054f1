"""Read-only connections to start files, kept open between grades.

Grading reads the start state's rows for the keys an episode changed. Opening a SQLite file costs
more than those reads: SQLite parses the whole schema (every table, index and trigger) before the
first statement. Rollouts of one task instance share one start file, so the process keeps a
connection to each of the few start files graded most recently (KEPT) and reads through it, one
grade at a time per file. A start file made again at the same path (start files are a cache,
officegym/starts.py) is a new file and gets a new connection.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections import OrderedDict
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

KEPT = 8  # start files with an open connection, per process (each holds one file descriptor)

_kept: OrderedDict[tuple, tuple[sqlite3.Connection, threading.Lock]] = OrderedDict()
_guard = threading.Lock()


def _identity(path: Path) -> tuple:
    """The file at `path` now: a file made again has another inode or time of change."""
    found = os.stat(path)
    return str(path), found.st_dev, found.st_ino, found.st_mtime_ns, found.st_size


@contextmanager
def start_connection(path: Path) -> Iterator[sqlite3.Connection]:
    """A read-only connection to the start file at `path`, for this thread alone until the block ends."""
    key = _identity(path)
    with _guard:
        entry = _kept.get(key)
        if entry is None:
            for stale in [k for k in _kept if k[0] == key[0]]:  # the file made again: let the old one go
                _close_when_free(*_kept.pop(stale))
            entry = _kept[key] = (sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False),
                                  threading.Lock())
            while len(_kept) > KEPT:
                _, (oldest, lock) = _kept.popitem(last=False)
                _close_when_free(oldest, lock)
        _kept.move_to_end(key)
    connection, lock = entry
    with lock:
        yield connection


def _close_when_free(connection: sqlite3.Connection, lock: threading.Lock) -> None:
    """Close a connection dropped from the kept ones, once no grade reads through it."""
    with lock:
        connection.close()
