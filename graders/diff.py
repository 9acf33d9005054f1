"""The diff API: what an episode changed, table by table, between its start and final state.

Rows are matched by primary key; bookkeeping (the journal, the clock, answers, and columns marked
`info={"bookkeeping": True}` such as read markers) never counts as a change. On SQLite the
comparison runs inside the database engine against the attached start file, over the rows the
episode's change log names (`officegym.change_log`), or with `EXCEPT` over whole tables in a file
without a log; on PostgreSQL the rows its own change log names are compared with the start file.
Rows that only colleagues' replies changed (see `officegym.colleagues`) are left out: they never
count against the agent. What a colleague did because of the agent's message (a decision) is the
agent's doing and stays in.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import Table, select, text, tuple_
from sqlalchemy.dialects.sqlite import dialect as sqlite_dialect
from sqlalchemy.engine import Engine

from officegym.change_log import IGNORED_TABLES, LOG_TABLE
from officegym.colleagues.models import ColleagueWrite
from officegym.db import Base
from officegym.registry import import_models

from .start_files import start_connection

_SQLITE = sqlite_dialect()
WRITES_TABLE = ColleagueWrite.__tablename__


@dataclass
class RowUpdate:
    """A row present before and after, with the fields that changed."""

    key: tuple
    before: dict
    after: dict

    @property
    def fields(self) -> list[str]:
        """Names of the columns whose value changed."""
        return [name for name in self.after if self.before.get(name) != self.after[name]]


@dataclass
class TableDiff:
    """Rows added, removed and updated in one table."""

    added: list[dict] = field(default_factory=list)
    removed: list[dict] = field(default_factory=list)
    updated: list[RowUpdate] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.added or self.removed or self.updated)


@dataclass
class Diff:
    """Changes per table; tables without changes are absent."""

    tables: dict[str, TableDiff]

    def table(self, name: str) -> TableDiff:
        """The changes of one table (empty if none)."""
        return self.tables.get(name, TableDiff())

    @property
    def changed_tables(self) -> set[str]:
        """Names of the tables with any change."""
        return set(self.tables)

    def describe(self, limit: int = 8) -> list[str]:
        """Short human-readable lines, one per changed row, for check details."""
        lines: list[str] = []
        for name in sorted(self.tables):
            t = self.tables[name]
            lines += [f"{name}: added {_short(r)}" for r in t.added]
            lines += [f"{name}: removed {_short(r)}" for r in t.removed]
            lines += [f"{name}: updated {u.key} fields {u.fields}" for u in t.updated]
        return lines[:limit] + ([f"... and {len(lines) - limit} more"] if len(lines) > limit else [])


def _short(row: dict) -> str:
    text = ", ".join(f"{k}={v!r}" for k, v in list(row.items())[:4])
    return "{" + (text if len(text) < 160 else text[:157] + "...") + "}"


def compared_columns(table: Table) -> list[str]:
    """The columns a diff compares: all but bookkeeping ones."""
    return [c.name for c in table.columns if not c.info.get("bookkeeping")]


def diff_sqlite(start_path: Path, final_path: Path, final: sqlite3.Connection | None = None) -> Diff:
    """Compare two SQLite files of the same schema: the rows the final file's change log names or,
    in a file without one, every row of every table. `final`, an open connection to the final file
    (the episode's own), spares opening one; the start file's rows are read through a connection
    kept per start file (start_files.py), so neither schema is parsed again."""
    import_models()
    conn = final or sqlite3.connect(f"file:{final_path}?mode=ro", uri=True)
    try:
        logged = _logged_keys(conn)
        if logged is None:
            return _diff_whole(start_path, final_path)
        tables: dict[str, TableDiff] = {}
        with start_connection(start_path) as start:
            for table in Base.metadata.sorted_tables:
                if table.name in logged and table.name not in IGNORED_TABLES:
                    columns, keys = compared_columns(table), sorted(logged[table.name], key=repr)
                    found = _table_diff(*_without_unchanged(_rows_by_key(conn, table, columns, keys),
                                                            _rows_by_key(start, table, columns, keys)))
                    if found:
                        tables[table.name] = found
        return Diff(tables)
    finally:
        if final is None:
            conn.close()


def _diff_whole(start_path: Path, final_path: Path) -> Diff:
    """Every table of a file without a change log, compared whole with the attached start file."""
    conn = sqlite3.connect(f"file:{final_path}?mode=ro", uri=True)
    try:
        conn.execute("ATTACH DATABASE ? AS start", (f"file:{start_path}?mode=ro",))
        tables = {t.name: _diff_table(conn, t) for t in Base.metadata.sorted_tables if t.name not in IGNORED_TABLES}
        return Diff({name: found for name, found in tables.items() if found})
    finally:
        conn.close()


def _logged_keys(conn: sqlite3.Connection) -> dict[str, set[tuple]] | None:
    """The keys of the rows the change log names, per table; None when the file has no log."""
    if not conn.execute("SELECT 1 FROM main.sqlite_master WHERE type = 'table' AND name = ?", (LOG_TABLE,)).fetchone():
        return None
    windows = []
    if conn.execute("SELECT 1 FROM main.sqlite_master WHERE type = 'table' AND name = ?", (WRITES_TABLE,)).fetchone():
        windows = conn.execute(f"SELECT first_seq, last_seq FROM main.{WRITES_TABLE}").fetchall()
    rows = conn.execute(f"SELECT seq, tbl, pk FROM main.{LOG_TABLE}")
    return agents_keys(((seq, name, tuple(json.loads(key))) for seq, name, key in rows), windows)


def agents_keys(entries, windows: list[tuple[int, int]]) -> dict[str, set[tuple]]:
    """The keys of the rows the change log names, per table, without the rows that only colleagues'
    replies changed: `entries` are (seq, table, key), `windows` the (first, last) seqs of those replies."""
    def colleagues(seq: int) -> bool:
        return any(first <= seq <= last for first, last in windows)

    logged: dict[str, set[tuple]] = {}
    theirs: dict[str, set[tuple]] = {}
    for seq, name, key in entries:
        (theirs if colleagues(seq) else logged).setdefault(name, set()).add(key)
    for name, keys in theirs.items():  # a row the agent changed too stays: graders judge it whole
        if name in logged:
            keys -= logged[name]
    return {name: keys for name, keys in logged.items() if keys}


def _rows_by_key(conn: sqlite3.Connection, table: Table, columns: list[str], keys: list[tuple]) -> dict[tuple, dict]:
    """The rows of `table` in the SQLite database of `conn` with these primary keys, a few hundred
    keys per statement."""
    quoted = ", ".join(f'"{c}"' for c in columns)  # names come from our own metadata, not input
    pk_names = [c.name for c in table.primary_key.columns]
    pk = [columns.index(n) for n in pk_names]
    target = "(" + ", ".join(f'"{n}"' for n in pk_names) + ")"
    one = "(" + ", ".join("?" * len(pk_names)) + ")"
    found = {}
    for chunk in range(0, len(keys), 400):
        part = keys[chunk:chunk + 400]
        sql = f'SELECT {quoted} FROM main."{table.name}" WHERE {target} IN (VALUES {", ".join([one] * len(part))})'
        for row in conn.execute(sql, [value for key in part for value in key]):
            found[tuple(row[i] for i in pk)] = dict(zip(columns, row))
    return found


def _without_unchanged(after: dict[tuple, dict], before: dict[tuple, dict]) -> tuple[dict, dict]:
    """Drop the rows a change log named that are the same before and after."""
    for key in set(after) & set(before):
        if after[key] == before[key]:
            del after[key], before[key]
    return after, before


def _diff_table(conn: sqlite3.Connection, table: Table) -> TableDiff:
    columns = compared_columns(table)
    quoted = ", ".join(f'"{c}"' for c in columns)  # names come from our own metadata, not input
    pk = [columns.index(c.name) for c in table.primary_key.columns]

    def rows(first: str, second: str) -> dict[tuple, dict]:
        sql = f'SELECT {quoted} FROM {first}."{table.name}" EXCEPT SELECT {quoted} FROM {second}."{table.name}"'
        return {tuple(r[i] for i in pk): dict(zip(columns, r)) for r in conn.execute(sql)}

    return _table_diff(rows("main", "start"), rows("start", "main"))


def _table_diff(after: dict[tuple, dict], before: dict[tuple, dict]) -> TableDiff:
    """Rows only in `after` are added, only in `before` removed, in both (and different) updated."""
    result = TableDiff()
    for key in sorted(after, key=repr):
        if key in before:
            result.updated.append(RowUpdate(key, before[key], after[key]))
        else:
            result.added.append(after[key])
    result.removed = [before[k] for k in sorted(before, key=repr) if k not in after]
    return result


def diff_logged(start_path: Path, final: Engine) -> Diff:
    """Compare a PostgreSQL episode with its SQLite start file, row by row for the keys its change
    log names. Final values are put in SQLite's stored form, so both backends give the same diff."""
    import_models()
    with final.connect() as conn:
        windows = [tuple(w) for w in conn.execute(text(f"SELECT first_seq, last_seq FROM {WRITES_TABLE}"))]
        logged = agents_keys(((seq, name, tuple(key)) for seq, name, key in
                              conn.execute(text("SELECT seq, tbl, pk FROM og_change ORDER BY seq"))), windows)
        with start_connection(start_path) as start:
            tables = {}
            for table in Base.metadata.sorted_tables:
                if table.name in logged and table.name not in IGNORED_TABLES:
                    found = _diff_keys(table, sorted(logged[table.name], key=repr), conn, start)
                    if found:
                        tables[table.name] = found
            return Diff(tables)


def _diff_keys(table: Table, keys: list[tuple], final, start: sqlite3.Connection) -> TableDiff:
    columns = compared_columns(table)
    pk_names = [c.name for c in table.primary_key.columns]
    pk = [columns.index(n) for n in pk_names]
    stored = [_sqlite_form(table.c[name]) for name in columns]
    after: dict[tuple, dict] = {}
    for chunk in range(0, len(keys), 500):
        part = keys[chunk:chunk + 500]
        query = select(*(table.c[n] for n in columns)).where(tuple_(*(table.c[n] for n in pk_names)).in_(part))
        for row in final.execute(query):
            values = [convert(v) if convert and v is not None else v for convert, v in zip(stored, row)]
            after[tuple(values[i] for i in pk)] = dict(zip(columns, values))
    return _table_diff(*_without_unchanged(after, _rows_by_key(start, table, columns, keys)))


def _sqlite_form(column):
    """How SQLite stores a column's Python value (ISO text for times, 0/1, JSON text), or None."""
    return column.type.dialect_impl(_SQLITE).bind_processor(_SQLITE)
