"""The episode registry on PostgreSQL: two tables in the database the URL names, shared by every
process and machine that uses that server (see episode_registry.py for what a registry holds).

- `og_episode`: one row per live episode: id, fleet, record (JSON), created, last used, steps taken.
- `og_step`: the trajectories, one row per kept step.

A registry sees only its fleet's rows: servers of different fleets on one server never list,
serve, expire or delete each other's episodes. Reads are tried again when a restart of the server
cut their connection.
"""

from __future__ import annotations

import json

from sqlalchemy import text
from sqlalchemy.engine import URL

from officegym.episode_registry import MAX_STEPS, Entry, now, numbered
from officegym.postgres_engines import postgres_engine, retrying

SCHEMA = """
CREATE TABLE IF NOT EXISTS og_episode (
  id text PRIMARY KEY, record jsonb NOT NULL, created double precision NOT NULL,
  last_used double precision NOT NULL, steps integer NOT NULL DEFAULT 0);
ALTER TABLE og_episode ADD COLUMN IF NOT EXISTS fleet text NOT NULL DEFAULT '';
CREATE INDEX IF NOT EXISTS og_episode_fleet ON og_episode (fleet, created);
CREATE TABLE IF NOT EXISTS og_step (
  episode_id text NOT NULL, seq integer NOT NULL, step json NOT NULL, PRIMARY KEY (episode_id, seq));
"""
# Serialises the schema's creation across processes (CREATE TABLE IF NOT EXISTS races otherwise).
SCHEMA_LOCK = 0x6F67_7265_6769_7374


class PostgresRegistry:
    """Episode records in tables of the settings' database."""

    name = "postgresql"

    def __init__(self, url: URL, fleet: str):
        self.fleet = fleet
        self.where = (f"the episode registry of PostgreSQL database {url.database} on {url.host}:{url.port} "
                      f"(fleet {fleet})")
        # A registry write needs no flush to disk: a crash loses the episodes it names anyway.
        self.engine = postgres_engine(url, "-c synchronous_commit=off", pool_size=4, max_overflow=16)
        with self.engine.begin() as conn:
            conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": SCHEMA_LOCK})
            conn.exec_driver_sql(SCHEMA)

    def add(self, episode_id: str, record: dict) -> None:
        """Register a new episode."""
        stamp = now()
        with self.engine.begin() as conn:
            conn.execute(text("INSERT INTO og_episode (id, fleet, record, created, last_used) "
                              "VALUES (:id, :fleet, CAST(:record AS jsonb), :t, :t)"),
                         {"id": episode_id, "fleet": self.fleet, "record": json.dumps(record), "t": stamp})

    def _read(self, sql: str, **values):
        """The rows of a read of this fleet's episodes (tried again when a restart cut the connection)."""
        def read():
            with self.engine.connect() as conn:
                return conn.execute(text(sql), {"fleet": self.fleet, **values}).all()

        return retrying(read)

    def get(self, episode_id: str) -> Entry | None:
        """An episode's entry, or None when it is not registered (any more) in this fleet."""
        rows = self._read("SELECT record, created, last_used FROM og_episode WHERE id = :id AND fleet = :fleet",
                          id=episode_id)
        return Entry(episode_id, *rows[0]) if rows else None

    def touch(self, episode_id: str) -> bool:
        """Mark a use; False when the episode is not registered (setting a time twice is harmless,
        so a cut connection is tried again)."""
        def mark() -> bool:
            with self.engine.begin() as conn:
                return conn.execute(text("UPDATE og_episode SET last_used = :t WHERE id = :id AND fleet = :fleet"),
                                    {"id": episode_id, "fleet": self.fleet, "t": now()}).rowcount == 1

        return retrying(mark)

    def set_last_used(self, episode_id: str, when: float) -> None:
        """Set the time of last use (for tests and tools that replay time)."""
        with self.engine.begin() as conn:
            conn.execute(text("UPDATE og_episode SET last_used = :t WHERE id = :id AND fleet = :fleet"),
                         {"id": episode_id, "fleet": self.fleet, "t": when})

    def remove(self, episode_id: str) -> bool:
        """Unregister an episode of this fleet; True for the one caller that removed it."""
        with self.engine.begin() as conn:
            removed = conn.execute(text("DELETE FROM og_episode WHERE id = :id AND fleet = :fleet"),
                                   {"id": episode_id, "fleet": self.fleet}).rowcount == 1
            if removed:
                conn.execute(text("DELETE FROM og_step WHERE episode_id = :id"), {"id": episode_id})
            return removed

    def entries(self) -> list[Entry]:
        """Every registered episode of this fleet, oldest first."""
        rows = self._read("SELECT id, record, created, last_used FROM og_episode WHERE fleet = :fleet "
                          "ORDER BY created, id")
        return [Entry(*row) for row in rows]

    def every_fleets_ids(self) -> set[str]:
        """The ids of the episodes registered in any fleet (a database one names is never an orphan)."""
        return {row[0] for row in self._read("SELECT id FROM og_episode")}

    def append_step(self, episode_id: str, step: dict) -> None:
        """Add a step to an episode's trajectory (kept up to MAX_STEPS, counted past them); the step
        also counts as a use."""
        with self.engine.begin() as conn:
            conn.execute(text(
                "WITH counted AS (UPDATE og_episode SET steps = steps + 1, last_used = :t "
                "WHERE id = :id AND fleet = :fleet RETURNING steps) "
                "INSERT INTO og_step (episode_id, seq, step) SELECT :id, steps, CAST(:step AS json) "
                "FROM counted WHERE steps <= :most"),
                {"id": episode_id, "fleet": self.fleet, "t": now(), "step": json.dumps(step), "most": MAX_STEPS})

    def steps(self, episode_id: str) -> list[dict]:
        """The trajectory: kept steps, numbered, and a note of those dropped."""
        kept = [row[0] for row in self._read(
            "SELECT step FROM og_step JOIN og_episode ON og_episode.id = og_step.episode_id "
            "WHERE episode_id = :id AND fleet = :fleet ORDER BY seq", id=episode_id)]
        return numbered(kept, max(0, self.step_count(episode_id) - len(kept)))

    def step_count(self, episode_id: str) -> int:
        """Steps taken, kept or dropped."""
        rows = self._read("SELECT steps FROM og_episode WHERE id = :id AND fleet = :fleet", id=episode_id)
        return rows[0][0] if rows else 0

    def close(self) -> None:
        """Release the registry's connections."""
        self.engine.dispose()
