"""Bulk inserts for the world builder: rows (dicts with the same keys) go through SQLAlchemy Core in
batches, so that a world of millions of rows neither keeps ORM bookkeeping nor one giant statement."""

from __future__ import annotations

from sqlalchemy.orm import Session

BATCH = 20_000


def bulk_insert(session: Session, model, rows: list[dict], batch: int = BATCH) -> None:
    """Insert `rows` into `model`'s table, `batch` rows per executemany, in the given order."""
    table = model.__table__
    connection = session.connection()
    for start in range(0, len(rows), batch):
        connection.execute(table.insert(), rows[start:start + batch])
