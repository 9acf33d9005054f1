"""SQLAlchemy base, engines and the transaction helper every surface uses."""

from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Iterator

from sqlalchemy import JSON, Integer, String, create_engine, event
from sqlalchemy.engine import Engine
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column, sessionmaker
from sqlalchemy.pool import NullPool
from sqlalchemy.util import LRUCache


class Base(DeclarativeBase):
    """Declarative base of every officegym table."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} id={getattr(self, 'id', None)!r}>"


class MetaEntry(Base):
    """Key/value facts about a world or episode (company now, clock ticks, scale, seed)."""

    __tablename__ = "og_meta"
    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(String(512))


class Answer(Base):
    """The answer an agent submitted for an answer task (the last one counts)."""

    __tablename__ = "og_answer"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    actor_id: Mapped[int] = mapped_column(Integer)
    text: Mapped[str] = mapped_column(String(2000))
    submitted_at: Mapped[str] = mapped_column(String(32))


# Tables no grader counts as a change made by the agent: histories, and totals kept by triggers
# (they change with the rows graders already compare).
BOOKKEEPING_TABLES = {"og_meta", "og_journal", "crm_field_history", "tickets_history", "sheets_revision",
                      "crm_pipeline_total", "og_colleague_note", "og_colleague_write",
                      "og_colleague_pending", "og_event"}


# Compiled statements kept per process and kind of database, for every engine of that kind.
COMPILED_CACHE_SIZE = 3000
_shared: dict[str, tuple[object, LRUCache]] = {}
_shared_lock = threading.Lock()


def shared_compilation(engine: Engine, prototype: str | None = None) -> Engine:
    """Make `engine` compile with the process's one dialect and compiled-statement cache for its
    kind of database (SQLite, PostgreSQL). Every episode has an engine of its own; SQLAlchemy keys
    its cache of compiled statements by dialect object and keeps one cache per engine, so each new
    episode would otherwise compile again every statement the last one compiled. The dialect shared
    is initialized first by one connection: to the URL `prototype` if given (an in-memory SQLite
    database), else to `engine`'s own database."""
    kind = f"{engine.dialect.name}+{engine.dialect.driver}"
    with _shared_lock:
        shared = _shared.get(kind)
        if shared is None:
            source = create_engine(prototype) if prototype else engine
            with source.connect():
                pass
            shared = _shared[kind] = (source.dialect, LRUCache(COMPILED_CACHE_SIZE))
    engine.dialect = shared[0]
    engine.update_execution_options(compiled_cache=shared[1])
    return engine


def sqlite_engine(path: str, readonly: bool = False) -> Engine:
    """An engine on one SQLite file, tuned for one writer and many short transactions."""
    url = f"sqlite:///file:{path}?mode=ro&uri=true" if readonly else f"sqlite:///{path}"
    engine = create_engine(
        url, poolclass=NullPool if readonly else None, connect_args={"check_same_thread": False, "timeout": 15}
    )

    @event.listens_for(engine, "connect")
    def _pragmas(dbapi_conn, _record):  # noqa: ANN001 - DB-API objects
        cursor = dbapi_conn.cursor()
        cursor.execute("PRAGMA foreign_keys=ON")
        if not readonly:
            cursor.execute("PRAGMA synchronous=OFF")
        cursor.close()

    return shared_compilation(engine, prototype="sqlite://")


def make_sessionmaker(engine: Engine) -> sessionmaker[Session]:
    """A session factory whose objects stay readable after commit."""
    return sessionmaker(engine, expire_on_commit=False)


@contextmanager
def transaction(factory: sessionmaker[Session], surface: str = "api") -> Iterator[Session]:
    """One unit of work: commit on success, roll back on any error, so a failed action changes
    nothing. `surface` (ui, mcp, api, setup) is recorded in the journal of every write."""
    session = factory()
    session.info["surface"] = surface
    try:
        yield session
        session.commit()
    except BaseException:
        session.rollback()
        raise
    finally:
        session.close()


__all__ = ["Base", "MetaEntry", "Answer", "JSON", "BOOKKEEPING_TABLES", "sqlite_engine", "shared_compilation",
           "make_sessionmaker", "transaction"]


_MAKING = threading.Lock()  # an episode's engine is made (or let go of) by one thread at a time


class LazyEngine:
    """An episode database whose engine is made on first use (`make_engine`) and let go of by
    `let_go`: an idle episode holds none, and its next use makes one again."""

    __slots__ = ("_engine",)

    def __init__(self):
        self._engine: Engine | None = None

    def make_engine(self) -> Engine:
        """A new engine on the database (each backend says how)."""
        raise NotImplementedError

    @property
    def engine(self) -> Engine:
        """The engine, made now if there is none."""
        engine = self._engine
        if engine is None:
            with _MAKING:
                engine = self._engine
                if engine is None:
                    engine = self._engine = self.make_engine()
        return engine

    def let_go(self) -> Engine | None:
        """Forget the engine (the next use makes one again) and return it, or None when there was none."""
        with _MAKING:
            engine, self._engine = self._engine, None
        return engine
