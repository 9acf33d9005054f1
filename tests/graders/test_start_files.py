"""Grades read start files through kept connections: a file made again at the same path is read
afresh, and no more than KEPT files stay open."""

from __future__ import annotations

import os
import sqlite3

from officegym.graders import start_files
from officegym.graders.start_files import start_connection


def _make(path, value: int) -> None:
    path.unlink(missing_ok=True)
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE t (v INTEGER)")
        conn.execute("INSERT INTO t VALUES (?)", (value,))
    conn.close()


def _value(path) -> int:
    with start_connection(path) as conn:
        return conn.execute("SELECT v FROM t").fetchone()[0]


def test_a_start_file_made_again_is_read_afresh(tmp_path):
    path = tmp_path / "start.sqlite"
    _make(path, 1)
    assert _value(path) == 1
    assert _value(path) == 1  # the kept connection
    _make(path, 2)
    assert _value(path) == 2
    assert sum(key[0] == str(path) for key in start_files._kept) == 1  # the old connection let go


def test_only_the_most_recent_start_files_stay_open(tmp_path):
    def open_here() -> int:
        return sum(os.readlink(f"/proc/self/fd/{fd}").startswith(str(tmp_path))
                   for fd in os.listdir("/proc/self/fd") if os.path.exists(f"/proc/self/fd/{fd}"))

    paths = [tmp_path / f"s{k}.sqlite" for k in range(start_files.KEPT + 4)]
    for k, path in enumerate(paths):
        _make(path, k)
        assert _value(path) == k
    assert open_here() == start_files.KEPT
