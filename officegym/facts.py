"""Facts of an episode's database read once and kept until something writes to it.

Every tool call and page reads the same few rows before its own work: the acting person, the
company clock. They change only when the database does, so each SQLite connection keeps what it
read beside a stamp of the database's state: SQLite's `PRAGMA data_version` (it moves when any
other connection, of this process or another, commits) and the connection's own count of changed
rows (it moves with this connection's writes), the first read once per session. A read whose stamp
differs reads again. A session with changes not yet flushed, or inside a write transaction (which
may still roll back), reads through, as does every backend without such a stamp (PostgreSQL).
"""

from __future__ import annotations

from typing import Any, Callable, TypeVar

from sqlalchemy.orm import Session, make_transient_to_detached

T = TypeVar("T")
_KEPT = "officegym.facts"  # in a connection's info: (stamp, {key: value})
_VERSION = "officegym.facts.version"  # in a session's info: (DB-API connection, its data_version)
_CURSOR = "officegym.facts.cursor"  # in a connection's info: the cursor that reads data_version


def _stamp(session: Session, raw, info: dict) -> tuple | None:
    """The state of the database as the DB-API connection `raw` sees it, or None where it cannot
    tell (not SQLite, or a write transaction under way). `PRAGMA data_version` is read once per
    session (one tool call or page): the facts a call reads are those of its start, while its own
    writes still show at once in the connection's count of changed rows."""
    changes = getattr(raw, "total_changes", None)
    if changes is None or raw.in_transaction:
        return None
    version = session.info.get(_VERSION)
    if version is None or version[0] is not raw:
        version = session.info[_VERSION] = (raw, _data_version(raw, info))
    return version[1], changes


def _data_version(raw, info: dict) -> int:
    """`PRAGMA data_version` through one cursor kept with the connection (`info`, the pool's
    record of it): a new cursor per read left a weak reference behind in the connection's list of
    cursors (pruned only every 200), a small object outliving the episodes made meanwhile."""
    cursor = info.get(_CURSOR)
    if cursor is None:
        cursor = info[_CURSOR] = raw.cursor()
    return cursor.execute("PRAGMA data_version").fetchall()[0][0]  # read to the end: no statement left open


def remembered(session: Session, key: Any, read: Callable[[Session], T]) -> T:
    """`read(session)`, or what it gave last time on this connection if nothing wrote since.
    `read` must return plain values, never objects bound to the session."""
    if session.new or session.dirty or session.deleted:
        return read(session)
    connection = session.connection()
    stamp = _stamp(session, connection.connection.dbapi_connection, connection.info)
    if stamp is None:
        return read(session)
    info = connection.info
    kept = info.get(_KEPT)
    if kept is None or kept[0] != stamp:
        kept = info[_KEPT] = (stamp, {})
    if key not in kept[1]:
        kept[1][key] = read(session)
    return kept[1][key]


def row(session: Session, model: type[T], key: int) -> T | None:
    """`session.get(model, key)`, from the row's remembered columns when nothing wrote since: the
    object is attached to `session` as loaded, without a statement."""
    found = session.identity_map.get(session.identity_key(model, key))
    if found is not None:
        return found

    def columns(current: Session) -> dict | None:
        loaded = current.get(model, key)
        if loaded is None:
            return None
        return {attr.key: getattr(loaded, attr.key) for attr in model.__mapper__.column_attrs}

    values = remembered(session, (model.__name__, key), columns)
    if values is None:
        return None
    found = session.identity_map.get(session.identity_key(model, key))
    if found is not None:  # loaded by `columns` just now
        return found
    copy = model(**values)
    make_transient_to_detached(copy)
    session.add(copy)
    return copy
