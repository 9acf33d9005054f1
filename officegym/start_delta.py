"""A task instance's start state as a delta: the rows its setup added, changed or removed in the
world, in a small SQLite file of their own, so that an instance keeps kilobytes on disk instead of
a full copy of the world (207 MB at large), and a full start file is made again from the world
when one is needed (starts.py keeps only the most recently used ones).

The delta holds, for each table the setup touched, a table of the same name with the setup's rows
as they ended (with their rowids, so a table scan meets them in the same order), and `og_gone`, the
keys the setup removed. The logged tables' changed keys come from the change log the setup wrote
(change_log.py); the tables without a log (histories, the journal, totals kept by triggers) are
compared whole. Table and column names in the SQL below come from our own metadata, never from
input."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from sqlalchemy import Table

from officegym.change_log import IGNORED_TABLES, LOG_TABLE
from officegym.db import Base
from officegym.registry import import_models

GONE = "og_gone"
ROWID = "og_rowid"


def _names(table: Table) -> tuple[str, str]:
    """(columns, key): the table's column list and its primary key as a JSON array expression."""
    columns = ", ".join(f'"{c.name}"' for c in table.columns)
    key_columns = list(table.primary_key.columns) or list(table.columns)
    return columns, "json_array(" + ", ".join(f'"{c.name}"' for c in key_columns) + ")"


def _tables() -> list[Table]:
    import_models()
    return [t for t in Base.metadata.sorted_tables if t.name != LOG_TABLE]


def _without_rowid(conn: sqlite3.Connection, schema: str) -> set[str]:
    """The tables of `schema` stored by primary key (WITHOUT ROWID): their order is their key's."""
    return {name for name, sql in conn.execute(f"SELECT name, sql FROM {schema}.sqlite_master WHERE type = 'table'")
            if sql and "WITHOUT ROWID" in sql.upper()}


def write_delta(built: Path, world: Path, delta: Path) -> None:
    """Write into `delta` how `built` (the world with a setup applied, its change log not yet
    cleared) differs from `world`."""
    delta.unlink(missing_ok=True)
    conn = sqlite3.connect(delta)
    try:
        conn.execute("ATTACH DATABASE ? AS b", (f"file:{built}?mode=ro",))
        conn.execute("ATTACH DATABASE ? AS w", (f"file:{world}?mode=ro",))
        conn.execute(f"CREATE TABLE {GONE} (tbl TEXT NOT NULL, pk TEXT NOT NULL)")
        keyed = _without_rowid(conn, "b")
        for table in _tables():
            columns, key = _names(table)
            name = f'"{table.name}"'
            if table.name in IGNORED_TABLES:  # no log: compared whole
                args: tuple = ()
                kept = f"SELECT {columns} FROM b.{name} EXCEPT SELECT {columns} FROM w.{name}"
                gone = f"SELECT {key} AS pk FROM w.{name} EXCEPT SELECT {key} FROM b.{name}"
            else:
                args = (table.name,)
                kept = f"SELECT {columns} FROM b.{name} WHERE {key} IN (SELECT pk FROM b.{LOG_TABLE} WHERE tbl = ?)"
                gone = f"SELECT pk FROM b.{LOG_TABLE} WHERE tbl = ? EXCEPT SELECT {key} FROM b.{name}"
            conn.execute(f"INSERT INTO {GONE} (tbl, pk) SELECT ?, pk FROM ({gone})", (table.name, *args))
            if conn.execute(f"SELECT 1 FROM ({kept}) LIMIT 1", args).fetchone():
                rowid = "NULL" if table.name in keyed else "rowid"
                conn.execute(f"CREATE TABLE main.{name} AS SELECT {rowid} AS {ROWID}, {columns} FROM b.{name} "
                             f"WHERE {key} IN (SELECT {key} FROM ({kept}))", args)
        conn.commit()
        conn.execute("VACUUM")
    finally:
        conn.close()


def apply_delta(delta: Path, target: Path) -> None:
    """Make `target` (a copy of the world) the start state `delta` describes, with an empty change
    log. Foreign keys stay unchecked while rows are swapped (removed, then written as they ended),
    all in one transaction."""
    conn = sqlite3.connect(target)
    try:
        conn.execute("ATTACH DATABASE ? AS d", (f"file:{delta}?mode=ro",))
        present = {row[0] for row in conn.execute("SELECT name FROM d.sqlite_master WHERE type = 'table'")}
        keyed = _without_rowid(conn, "main")
        # The tables without a log last: triggers of the others (the pipeline totals) fire as rows
        # are swapped, and these tables then take the values the setup left.
        tables = sorted(_tables(), key=lambda t: t.name in IGNORED_TABLES)
        with conn:
            for table in tables:
                columns, key = _names(table)
                name = f'"{table.name}"'
                conn.execute(f"DELETE FROM main.{name} WHERE {key} IN (SELECT pk FROM d.{GONE} WHERE tbl = ?)",
                             (table.name,))
                if table.name in present:
                    conn.execute(f"DELETE FROM main.{name} WHERE {key} IN (SELECT {key} FROM d.{name})")
                    if table.name in keyed:
                        conn.execute(f"INSERT INTO main.{name} ({columns}) SELECT {columns} FROM d.{name}")
                    else:
                        conn.execute(f"INSERT INTO main.{name} (rowid, {columns}) SELECT {ROWID}, {columns} "
                                     f"FROM d.{name} ORDER BY {ROWID}")
            conn.execute(f"DELETE FROM main.{LOG_TABLE}")
    finally:
        conn.close()
