"""Backends: a backend is nothing but the `database_url` of the settings an EpisodeStore gets.
SQLite files are the default; PostgreSQL keeps each world as a template database and creates an
episode with `CREATE DATABASE ... TEMPLATE` (set OFFICEGYM_BENCH_POSTGRES_URL to use another server)."""

from __future__ import annotations

import os
from pathlib import Path

from officegym.config import Settings, load_settings

BACKENDS = {
    "sqlite": "sqlite",
    "postgresql": os.environ.get("OFFICEGYM_BENCH_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/postgres"),
}
DEFAULT_BACKENDS = "sqlite,postgresql"


def settings_for(backend: str, home: Path | None, episodes_dir: Path) -> Settings:
    """Settings for `backend`, with worlds cached under `home` (None: the normal OFFICEGYM_HOME),
    without a warm pool (the pool's own benchmark turns it on: its copies would disturb the rest)."""
    return load_settings(home=home, episodes_dir=episodes_dir, database_url=BACKENDS[backend], pool_size=0)


def world_size(world) -> str:
    """The size of a built world: its file for SQLite, else whatever the world reports."""
    size = getattr(world, "size_bytes", None)
    if size is None and world.path.exists():
        size = world.path.stat().st_size
    return f"{size / 1e6:.1f} MB" if size is not None else "size unknown"
