"""The change log of a SQLite database: triggers on every table a diff compares write the primary
key of each row inserted, updated or deleted into `og_change`, so that grading compares only
those rows with the start state instead of whole tables (PostgreSQL has its own, in postgres.py).

Worlds carry the log from the end of their build (empty then); a task's start file empties it
after its setup, so an episode's log names what the episode changed. A diff may read more keys
than changed (a row changed and changed back): those rows compare equal and drop out."""

from __future__ import annotations

from sqlalchemy import Table
from sqlalchemy.engine import Connection

from officegym.db import Base, BOOKKEEPING_TABLES

LOG_TABLE = "og_change"
# Tables whose changes never count (see graders.diff): no triggers on them.
IGNORED_TABLES = BOOKKEEPING_TABLES | {"og_answer"}


def _key(table: Table, row: str) -> str:
    """SQL for a row's primary key as a JSON array (column names come from our own metadata)."""
    return "json_array(" + ", ".join(f'{row}."{c.name}"' for c in table.primary_key.columns) + ")"


def install(conn: Connection) -> None:
    """Create the log table and the triggers of every logged table (on a SQLite connection)."""
    conn.exec_driver_sql(f"CREATE TABLE {LOG_TABLE} (seq INTEGER PRIMARY KEY, tbl TEXT NOT NULL, pk TEXT NOT NULL)")
    for table in Base.metadata.sorted_tables:
        if table.name in IGNORED_TABLES:
            continue
        for event, rows in (("INSERT", ("NEW",)), ("UPDATE", ("OLD", "NEW")), ("DELETE", ("OLD",))):
            body = " ".join(f"INSERT INTO {LOG_TABLE} (tbl, pk) VALUES ('{table.name}', {_key(table, row)});"
                            for row in rows)
            conn.exec_driver_sql(f'CREATE TRIGGER "og_log_{event.lower()}_{table.name}" AFTER {event} '
                                 f'ON "{table.name}" BEGIN {body} END')


def clear(conn: Connection) -> None:
    """Empty the log (what is in the database now becomes the start), if the database has one."""
    if conn.exec_driver_sql(f"SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '{LOG_TABLE}'").first():
        conn.exec_driver_sql(f"DELETE FROM {LOG_TABLE}")
