"""One episode's database on the PostgreSQL server (the backend that makes it is postgres.py).

The episode's engine, and its pool of connections, is made on first use and let go of when the
store closes an idle episode's connections (open_episodes.py): a process holding thousands of live
episodes then holds an engine only for those in use, and the next call makes one again.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy.engine import Engine

from officegym.db import LazyEngine

if TYPE_CHECKING:  # pragma: no cover
    from officegym.postgres import PostgresBackend


class PostgresEpisode(LazyEngine):
    """An episode database on the PostgreSQL server."""

    __slots__ = ("backend", "name")

    def __init__(self, backend: "PostgresBackend", name: str):
        backend.quoted(name)  # refuses a name officegym did not make
        super().__init__()
        self.backend = backend
        self.name = name

    def make_engine(self) -> Engine:
        """The pooled engine on the episode's database."""
        return self.backend.engine(self.name)

    def close(self) -> None:
        """Close this process's connections and let go of the engine (made again on next use)."""
        engine = self.let_go()
        if engine is not None:
            self.backend.forget_pool(self.name)
            engine.pool.dispose()  # closes its connections; the engine itself is let go of, not renewed

    def diff(self, start_path: Path):
        """The rows the change log names, compared with the SQLite start file."""
        from officegym.graders.diff import diff_logged

        return diff_logged(start_path, self.engine)

    def drop(self) -> None:
        """Drop the database (in the background, see PostgresBackend.drop_episode)."""
        self.backend.drop_episode(self.name, self.let_go())
