"""Loading a world into a PostgreSQL template database: its rows copied from the SQLite world,
and the change log (a table and a trigger on every graded table) that episode diffs read."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from sqlalchemy.engine import Engine

from officegym.db import Base


def copy_rows(sqlite_path: Path, engine: Engine) -> None:
    """Copy every table's rows from a SQLite file with COPY, as stored (text, numbers, ISO times,
    0/1 booleans, JSON text), then move each id sequence past the largest id. Derived tables are
    left to their triggers, which fill them as the rows they sum arrive."""
    source = sqlite3.connect(f"file:{sqlite_path}?mode=ro", uri=True)
    raw = engine.raw_connection()
    try:
        cursor = raw.cursor()
        for table in Base.metadata.sorted_tables:
            if table.info.get("derived"):
                continue
            names = [c.name for c in table.columns]
            columns = ", ".join(f'"{n}"' for n in names)  # names from our own metadata
            with cursor.copy(f'COPY "{table.name}" ({columns}) FROM STDIN') as copy:
                for row in source.execute(f'SELECT {columns} FROM "{table.name}"'):
                    copy.write_row(row)
            pk = list(table.primary_key.columns)
            if len(pk) == 1 and pk[0].autoincrement in (True, "auto") and pk[0].type.python_type is int:
                cursor.execute(f"SELECT setval(pg_get_serial_sequence(%s, %s), "
                               f'COALESCE((SELECT MAX("{pk[0].name}") FROM "{table.name}"), 0) + 1, false)',
                               (f'"{table.name}"', pk[0].name))
        raw.commit()
    finally:
        raw.close()
        source.close()


CHANGE_LOG = """
CREATE TABLE og_change (seq bigserial PRIMARY KEY, tbl text NOT NULL, pk jsonb NOT NULL);
CREATE FUNCTION og_log_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  r jsonb;
  k jsonb;
  i int;
BEGIN
  IF TG_OP <> 'INSERT' THEN
    r := to_jsonb(OLD); k := '[]'::jsonb;
    FOR i IN 0 .. TG_NARGS - 1 LOOP k := k || jsonb_build_array(r -> TG_ARGV[i]); END LOOP;
    INSERT INTO og_change (tbl, pk) VALUES (TG_TABLE_NAME, k);
  END IF;
  IF TG_OP <> 'DELETE' THEN
    r := to_jsonb(NEW); k := '[]'::jsonb;
    FOR i IN 0 .. TG_NARGS - 1 LOOP k := k || jsonb_build_array(r -> TG_ARGV[i]); END LOOP;
    INSERT INTO og_change (tbl, pk) VALUES (TG_TABLE_NAME, k);
  END IF;
  RETURN NULL;
END $$;
"""


def install_change_log(engine: Engine) -> None:
    """The og_change table and a row trigger on every table a diff compares."""
    from officegym.change_log import IGNORED_TABLES

    with engine.begin() as conn:
        conn.exec_driver_sql(CHANGE_LOG)
        for table in Base.metadata.sorted_tables:
            if table.name in IGNORED_TABLES:
                continue
            keys = ", ".join(f"'{c.name}'" for c in table.primary_key.columns)  # names from our metadata
            conn.exec_driver_sql(f'CREATE TRIGGER og_change_log AFTER INSERT OR UPDATE OR DELETE ON "{table.name}" '
                                 f"FOR EACH ROW EXECUTE FUNCTION og_log_change({keys})")
