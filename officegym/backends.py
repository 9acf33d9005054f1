"""Database backends: where an episode's database lives.

Every world and every task's start state is first built as a SQLite file (the cache, see worlds.py
and episodes.py). The backend decides what an episode gets:

- `sqlite` (the default): a copy of the start file (a reflink where the filesystem shares blocks,
  clone.py), made ahead of time by the warm pool (warm_pool.py) or at reset.
- `postgresql://...`: the world is loaded once into a template database, a task's start state is a
  database created from it with the setup applied, and each episode is
  `CREATE DATABASE ... TEMPLATE <start>`, dropped with the episode (see postgres.py).

Graders read the start state from the SQLite start file on both backends: it holds the same rows.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from sqlalchemy.engine import Engine

from officegym.clone import clone_file
from officegym.config import Settings
from officegym.db import LazyEngine, sqlite_engine
from officegym.episode_registry import FileRegistry
from officegym.setting_checks import POSTGRES_SCHEMES
from officegym.warm_pool import SqlitePool

if TYPE_CHECKING:  # pragma: no cover
    from officegym.graders.diff import Diff
    from officegym.tasks.base import TaskInstance
    from officegym.worlds import World


class EpisodeDatabase(Protocol):
    """One episode's database."""

    name: str
    engine: Engine

    def diff(self, start_path: Path) -> "Diff":
        """What changed since the episode's start state (the SQLite start file)."""

    def close(self) -> None:
        """Close this process's connections and let go of the engine (made again on next use)."""

    def drop(self) -> None:
        """Release and delete the database."""


class Backend(Protocol):
    """Makes and reopens episode databases."""

    name: str

    def create(self, world: "World", inst: "TaskInstance | None", start_path: Path,
               episode_id: str) -> EpisodeDatabase:
        """A new episode database holding the start state."""

    def reopen(self, episode_id: str) -> EpisodeDatabase:
        """The database of an episode another process created."""

    def discard(self, episode_id: str) -> None:
        """Delete the database of an episode no process of this store has open."""

    def registry(self):
        """The episode registry that goes with this backend (episode_registry.py)."""


class SqliteEpisode(LazyEngine):
    """An episode database that is a SQLite file in the episodes folder. Its engine is made on
    first use and let go of by `close` (an idle episode holds none: thousands of engines and their
    pools, about 13 KB each, would be spread over the allocator's arenas)."""

    __slots__ = ("name",)

    def __init__(self, path: Path | str):
        super().__init__()
        self.name = str(path)

    @property
    def path(self) -> Path:
        """The episode's file."""
        return Path(self.name)

    def make_engine(self) -> Engine:
        """An engine on the file."""
        return sqlite_engine(self.name)

    def close(self) -> None:
        """Close the connections and let go of the engine (the next use makes one again)."""
        engine = self.let_go()
        if engine is not None:
            engine.pool.dispose()  # closes its connections; the engine itself is let go of, not renewed

    def diff(self, start_path: Path) -> "Diff":
        """Compare with the start file, reading the episode through its own open connection."""
        from officegym.graders.diff import diff_sqlite

        with self.engine.connect() as connection:
            return diff_sqlite(start_path, self.path, connection.connection.dbapi_connection)

    def drop(self) -> None:
        """Close the engine and remove the file and its companions."""
        self.close()
        remove_sqlite(self.path)


def remove_sqlite(path: Path) -> None:
    """Remove a SQLite file and its companions (journal, write-ahead log)."""
    for suffix in ("", "-journal", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


class SqliteBackend:
    """Episodes as copies of the start file."""

    name = "sqlite"

    def __init__(self, settings: Settings):
        self.folder = settings.episodes_dir
        self.fleet = settings.fleet
        self.pool = SqlitePool(self.folder, settings.pool_size, settings.pool_starts)

    def create(self, world, inst, start_path: Path, episode_id: str) -> SqliteEpisode:
        """A ready copy of the start file from the warm pool, or else a copy made now."""
        path = self.folder / f"{episode_id}.sqlite"
        if not self.pool.take(f"{start_path.parent.name}-{start_path.stem}", start_path, str(path)):
            clone_file(start_path, path)
        return SqliteEpisode(path)

    def reopen(self, episode_id: str) -> SqliteEpisode:
        """The file of an existing episode."""
        return SqliteEpisode(self.folder / f"{episode_id}.sqlite")

    def discard(self, episode_id: str) -> None:
        """Remove an episode's file."""
        remove_sqlite(self.folder / f"{episode_id}.sqlite")

    def registry(self) -> FileRegistry:
        """Records beside the episode files."""
        return FileRegistry(self.folder, self.fleet)

    def close(self) -> None:
        """Stop filling the warm pool."""
        self.pool.close()


def backend_for(settings: Settings) -> Backend:
    """The backend a settings' database URL selects: `sqlite` or `postgresql://...`."""
    url = settings.database_url or "sqlite"
    if url == "sqlite":
        return SqliteBackend(settings)
    if url.startswith(POSTGRES_SCHEMES):
        from officegym.postgres import PostgresBackend

        return PostgresBackend(settings)
    from officegym.errors import Invalid

    raise Invalid(f"Unsupported database URL {url!r}: use 'sqlite' or 'postgresql://user@host:port/database'.")
