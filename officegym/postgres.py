"""The PostgreSQL backend: worlds as template databases, episodes as copies of them.

Names (all generated here, checked against NAME and always quoted):
- `og_w_<world key>`: a world, loaded from the cached SQLite world with COPY; its content hash is
  checked against the SQLite world's before it is published.
- `og_s_<digest>`: a task instance's start state: the world's template plus the task's setup.
- `og_e_<episode id>`: one episode, `CREATE DATABASE ... TEMPLATE` its start, or a ready copy
  of it from the warm pool renamed (postgres_pool.py); dropped on delete. Its comment names its
  fleet and the process that made it (leftovers.py).
- `og_p_<template digest>_<token>`: a ready copy in the warm pool.
Templates are built under a temporary `og_b_` name and renamed when complete, under an advisory
lock, so several processes sharing one server never see half a world.

Each database carries a change log (`og_change`, filled by triggers on every graded table, see
postgres_load.py) that the episode's diff reads: grading costs what the episode changed, not the
size of the world.
"""

from __future__ import annotations

import atexit
import hashlib
import logging
import queue
import re
import threading
import time
from collections import OrderedDict
from pathlib import Path

from sqlalchemy import event, text
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import OperationalError
from sqlalchemy.pool import NullPool, QueuePool

from officegym.config import Settings
from officegym.db import make_sessionmaker, shared_compilation, transaction
from officegym.leftovers import maker_note
from officegym.postgres_engines import postgres_engine
from officegym.postgres_episode import PostgresEpisode
from officegym.postgres_pool import PostgresPool
from officegym.postgres_registry import PostgresRegistry
from officegym.registry import import_models

log = logging.getLogger(__name__)
NAME = re.compile(r"^og_[bwsep]_[A-Za-z0-9_-]{1,58}$")
# A world key as written into a template's COMMENT, which takes a literal and no bind parameter.
WORLD_KEY = re.compile(r"^[A-Za-z0-9_.-]{1,200}$")
# Episodes whose connection pools stay open; the least recently used beyond this are closed (and
# reopen on their next use), so that many live episodes fit in the server's max_connections.
OPEN_POOLS = 24
# Templates above this size are copied with STRATEGY FILE_COPY (see copy_database).
BIG_TEMPLATE = 256 * 1024 * 1024
# Threads dropping deleted episodes' databases. Each DROP DATABASE waits for a checkpoint, which a
# busy server takes seconds to finish; drops under way together share one.
DROP_THREADS = 4


class PostgresBackend:
    """Template databases on one PostgreSQL server, reached by the settings' database URL."""

    name = "postgresql"

    def __init__(self, settings: Settings):
        url = make_url(settings.database_url)
        self.url = url.set(drivername="postgresql+psycopg")
        self.fleet = settings.fleet
        # Kept open: a reset from the warm pool lists and renames through it, and a new connection
        # costs more than both statements.
        self.admin = postgres_engine(self.url, pool_size=2, max_overflow=16, isolation_level="AUTOCOMMIT")
        self.quote = self.admin.dialect.identifier_preparer.quote_identifier
        self._lock = threading.Lock()  # guards the pool registry
        self._build_lock = threading.Lock()  # one template build at a time in this process
        self._ready: set[str] = set()
        self._pools: OrderedDict[str, Engine] = OrderedDict()
        self._drops: queue.Queue[str] = queue.Queue()
        self._sizes: dict[str, int] = {}
        self._droppers: list[threading.Thread] = []
        self.pool = PostgresPool(self, settings.pool_size, settings.pool_starts)

    def world_template(self, world) -> str:
        """The template database of a world, loaded from its SQLite file on first use."""
        name = f"og_w_{world.key}"
        self._ensure(name, lambda building: self._load_world(building, world), world.key)
        return name

    def start_template(self, world, inst, start_path: Path) -> str:
        """The template of a task instance's start state (the world's when the task has no setup)."""
        world_name = self.world_template(world)
        if inst is None or inst.setup is None:
            return world_name
        digest = hashlib.sha256(f"{world.key}/{start_path.stem}".encode()).hexdigest()[:24]
        name = f"og_s_{digest}"

        def build(building: str) -> None:
            self.copy_database(world_name, building)
            engine = self.engine(building, pooled=False)
            try:
                with transaction(make_sessionmaker(engine), "setup") as session:
                    inst.apply_setup(session)
                with engine.begin() as conn:
                    conn.execute(text("TRUNCATE og_change"))  # the setup is the start, not a change
            finally:
                engine.dispose()

        self._ensure(name, build, world.key)
        return name

    def _ensure(self, name: str, build, world_key: str) -> None:
        """Build database `name` once, across threads and processes; its comment names its world."""
        if name in self._ready:
            return
        with self._build_lock, self.admin.connect() as conn:
            key = int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big", signed=True)
            conn.execute(text("SELECT pg_advisory_lock(:key)"), {"key": key})
            try:
                if not self.exists(name, conn):
                    building = "og_b_" + name[5:]
                    self.drop(building, conn)
                    build(building)
                    if not WORLD_KEY.match(world_key):
                        raise ValueError(f"unexpected world key {world_key!r}")
                    conn.execute(text(f"COMMENT ON DATABASE {self.quoted(building)} IS '{world_key}'"))
                    conn.execute(text(f"ALTER DATABASE {self.quoted(building)} RENAME TO {self.quoted(name)}"))
            finally:
                conn.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": key})
            self._ready.add(name)

    def _load_world(self, building: str, world) -> None:
        from officegym.postgres_load import copy_rows, install_change_log
        from officegym.worlds import content_hash, create_schema

        with self.admin.connect() as conn:
            conn.execute(text(f"CREATE DATABASE {self.quoted(building)} TEMPLATE template0 ENCODING 'UTF8' "
                              "LC_COLLATE 'C' LC_CTYPE 'C'"))
        engine = self.engine(building, pooled=False)
        try:
            import_models()
            create_schema(engine)
            copy_rows(world.path, engine)
            install_change_log(engine)
            with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
                conn.execute(text("VACUUM (FREEZE, ANALYZE)"))
            found = content_hash(engine)
        finally:
            engine.dispose()
        if found != world.content_hash:
            raise RuntimeError(f"world {world.key} has content hash {found[:12]} on PostgreSQL but "
                               f"{world.content_hash[:12]} on SQLite")

    def create(self, world, inst, start_path: Path, episode_id: str) -> "PostgresEpisode":
        """CREATE DATABASE og_e_<id> TEMPLATE <start>, its comment naming its fleet and maker (so
        that a sweep finds it should the maker die before registering or dropping it)."""
        template = self.start_template(world, inst, start_path)
        name = f"og_e_{episode_id}"
        if not self.pool.take(template, template, name):
            self.copy_database(template, name)
        with self.admin.connect() as conn:
            conn.execute(text(f"COMMENT ON DATABASE {self.quoted(name)} IS '{maker_note(self.fleet)}'"))
        return PostgresEpisode(self, name)

    def reopen(self, episode_id: str) -> "PostgresEpisode":
        """The database of an episode created by another process."""
        name = f"og_e_{episode_id}"
        with self.admin.connect() as conn:
            if not self.exists(name, conn):
                from officegym.errors import NotFound

                raise NotFound(f"No episode database {name}.")
        return PostgresEpisode(self, name)

    def discard(self, episode_id: str) -> None:
        """Drop an episode's database (in the background) that no engine of this process holds."""
        name = f"og_e_{episode_id}"
        self.quoted(name)
        self.drop_episode(name, None)

    def registry(self) -> PostgresRegistry:
        """The episode registry in the URL's database (postgres_registry.py)."""
        return PostgresRegistry(self.url, self.fleet)

    def engine(self, name: str, pooled: bool = True) -> Engine:
        """An engine on database `name`; pooled engines count against OPEN_POOLS."""
        self.quoted(name)
        if not pooled:
            return shared_compilation(postgres_engine(self.url.set(database=name), poolclass=NullPool))
        engine = shared_compilation(postgres_engine(self.url.set(database=name), poolclass=QueuePool, pool_size=2,
                                                    max_overflow=6))
        event.listen(engine.pool, "checkout", lambda *_: self._used(name, engine))
        return engine

    def _used(self, name: str, engine: Engine) -> None:
        with self._lock:
            self._pools[name] = engine
            self._pools.move_to_end(name)
            while len(self._pools) > OPEN_POOLS:
                _, idle = self._pools.popitem(last=False)
                idle.pool.dispose()  # closes idle connections; the engine reconnects when used again

    def forget_pool(self, name: str) -> None:
        """An episode's engine let go of (its connections closed): no longer counted as open."""
        with self._lock:
            self._pools.pop(name, None)

    def drop_episode(self, name: str, engine: Engine | None) -> None:
        """Close the episode's connections and drop its database in the background: PostgreSQL
        waits for the closed sessions to end, which would hold up the caller for up to a second."""
        with self._lock:
            self._pools.pop(name, None)
            if not self._droppers:
                self._droppers = [threading.Thread(target=self._drop_pending, name=f"officegym-drops-{k}", daemon=True)
                                  for k in range(DROP_THREADS)]
                for thread in self._droppers:
                    thread.start()
                atexit.register(self.settle)  # a process that exits still drops what it deleted
        if engine is not None:
            engine.dispose()
        self._drops.put(name)

    def _drop_pending(self) -> None:
        while True:
            name = self._drops.get()
            try:
                with self.admin.connect() as conn:
                    self.drop(name, conn)
            except Exception as error:  # the server went away: leave the name for `officegym prune`
                log.warning("could not drop episode database %s: %s", name, error)
            finally:
                self._drops.task_done()

    def settle(self) -> None:
        """Wait until every deleted episode's database is dropped."""
        self._drops.join()

    def exists(self, name: str, conn) -> bool:
        """Whether database `name` exists."""
        return conn.scalar(text("SELECT 1 FROM pg_database WHERE datname = :name"), {"name": name}) is not None

    def databases(self, prefix: str = "og_") -> list[str]:
        """Names of the officegym databases on the server."""
        with self.admin.connect() as conn:
            rows = conn.execute(text("SELECT datname FROM pg_database WHERE starts_with(datname, :p) "
                                     "ORDER BY datname"), {"p": prefix})
            return [row[0] for row in rows]

    def forget_templates(self) -> None:
        """Check the templates' existence again on next use (after some were dropped)."""
        self._ready.clear()

    def copy_database(self, template: str, name: str) -> None:
        """CREATE DATABASE `name` TEMPLATE `template` (retried while the template is in use)."""
        # WAL_LOG (the default) copies block by block through the WAL: quick for small databases,
        # slow for big ones, which FILE_COPY copies as files after a checkpoint.
        strategy = "FILE_COPY" if self._size(template) > BIG_TEMPLATE else "WAL_LOG"
        sql = text(f"CREATE DATABASE {self.quoted(name)} TEMPLATE {self.quoted(template)} STRATEGY {strategy}")
        for attempt in range(50):  # a template must have no session; one may be closing right now
            try:
                with self.admin.connect() as conn:
                    conn.execute(sql)
                return
            except OperationalError as error:
                if "being accessed by other users" not in str(error) or attempt == 49:
                    raise
                time.sleep(0.05)

    def _size(self, name: str) -> int:
        if name not in self._sizes:
            with self.admin.connect() as conn:
                self._sizes[name] = conn.scalar(text("SELECT pg_database_size(:name)"), {"name": name})
        return self._sizes[name]

    def drop(self, name: str, conn) -> None:
        """DROP DATABASE `name`, ending its sessions."""
        conn.execute(text(f"DROP DATABASE IF EXISTS {self.quoted(name)} WITH (FORCE)"))

    def quoted(self, name: str) -> str:
        """An officegym database name, checked and quoted."""
        if not NAME.match(name):
            raise ValueError(f"not an officegym database name: {name!r}")
        return self.quote(name)

    def close(self) -> None:
        """Stop filling the warm pool, drop what is pending and release pooled connections."""
        self.pool.close()
        self.settle()
        with self._lock:
            pools, self._pools = list(self._pools.values()), OrderedDict()
        for engine in pools:
            engine.dispose()
        self.admin.dispose()
