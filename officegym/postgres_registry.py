"""The episode registry on PostgreSQL: two tables in the database the URL names, shared by every
process and machine that uses that server (see episode_registry.py for what a registry holds).

- `og_episode`: one row per live episode: id, record (JSON), created, last used, steps taken.
- `og_step`: the trajectories, one row per kept step.
"""

from __future__ import annotations

import json

from sqlalchemy import create_engine, text
from sqlalchemy.engine import URL

from officegym.episode_registry import MAX_STEPS, Entry, now, numbered

SCHEMA = """
CREATE TABLE IF NOT EXISTS og_episode (
  id text PRIMARY KEY, record jsonb NOT NULL, created double precision NOT NULL,
  last_used double precision NOT NULL, steps integer NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS og_step (
  episode_id text NOT NULL, seq integer NOT NULL, step json NOT NULL, PRIMARY KEY (episode_id, seq));
"""
# Serialises the schema's creation across processes (CREATE TABLE IF NOT EXISTS races otherwise).
SCHEMA_LOCK = 0x6F67_7265_6769_7374


class PostgresRegistry:
    """Episode records in tables of the settings' database."""

    name = "postgresql"

    def __init__(self, url: URL):
        self.where = f"the episode registry of PostgreSQL database {url.database} on {url.host}:{url.port}"
        # A registry write needs no flush to disk: a crash loses the episodes it names anyway.
        self.engine = create_engine(url, pool_size=4, max_overflow=16,
                                    connect_args={"options": "-c synchronous_commit=off"})
        with self.engine.begin() as conn:
            conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": SCHEMA_LOCK})
            conn.exec_driver_sql(SCHEMA)

    def add(self, episode_id: str, record: dict) -> None:
        """Register a new episode."""
        stamp = now()
        with self.engine.begin() as conn:
            conn.execute(text("INSERT INTO og_episode (id, record, created, last_used) "
                              "VALUES (:id, CAST(:record AS jsonb), :t, :t)"),
                         {"id": episode_id, "record": json.dumps(record), "t": stamp})

    def get(self, episode_id: str) -> Entry | None:
        """An episode's entry, or None when it is not registered (any more)."""
        with self.engine.connect() as conn:
            row = conn.execute(text("SELECT record, created, last_used FROM og_episode WHERE id = :id"),
                               {"id": episode_id}).first()
        return Entry(episode_id, row[0], row[1], row[2]) if row else None

    def touch(self, episode_id: str) -> bool:
        """Mark a use; False when the episode is not registered."""
        with self.engine.begin() as conn:
            return conn.execute(text("UPDATE og_episode SET last_used = :t WHERE id = :id"),
                                {"id": episode_id, "t": now()}).rowcount == 1

    def set_last_used(self, episode_id: str, when: float) -> None:
        """Set the time of last use (for tests and tools that replay time)."""
        with self.engine.begin() as conn:
            conn.execute(text("UPDATE og_episode SET last_used = :t WHERE id = :id"), {"id": episode_id, "t": when})

    def remove(self, episode_id: str) -> bool:
        """Unregister an episode; True for the one caller that removed it."""
        with self.engine.begin() as conn:
            conn.execute(text("DELETE FROM og_step WHERE episode_id = :id"), {"id": episode_id})
            return conn.execute(text("DELETE FROM og_episode WHERE id = :id"), {"id": episode_id}).rowcount == 1

    def entries(self) -> list[Entry]:
        """Every registered episode, oldest first."""
        with self.engine.connect() as conn:
            rows = conn.execute(text("SELECT id, record, created, last_used FROM og_episode ORDER BY created, id"))
            return [Entry(*row) for row in rows]

    def append_step(self, episode_id: str, step: dict) -> None:
        """Add a step to an episode's trajectory (kept up to MAX_STEPS, counted past them); the step
        also counts as a use."""
        with self.engine.begin() as conn:
            conn.execute(text(
                "WITH counted AS (UPDATE og_episode SET steps = steps + 1, last_used = :t WHERE id = :id "
                "RETURNING steps) "
                "INSERT INTO og_step (episode_id, seq, step) SELECT :id, steps, CAST(:step AS json) "
                "FROM counted WHERE steps <= :most"),
                {"id": episode_id, "t": now(), "step": json.dumps(step), "most": MAX_STEPS})

    def steps(self, episode_id: str) -> list[dict]:
        """The trajectory: kept steps, numbered, and a note of those dropped."""
        with self.engine.connect() as conn:
            kept = [row[0] for row in conn.execute(
                text("SELECT step FROM og_step WHERE episode_id = :id ORDER BY seq"), {"id": episode_id})]
        return numbered(kept, max(0, self.step_count(episode_id) - len(kept)))

    def step_count(self, episode_id: str) -> int:
        """Steps taken, kept or dropped."""
        with self.engine.connect() as conn:
            return conn.scalar(text("SELECT steps FROM og_episode WHERE id = :id"), {"id": episode_id}) or 0

    def close(self) -> None:
        """Release the registry's connections."""
        self.engine.dispose()
