"""Worlds: a seeded company `(scale, seed, version)` built once into a SQLite file and cached
under OFFICEGYM_HOME. Same inputs give the same content hash."""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from sqlalchemy import select, text
from sqlalchemy.engine import Engine
from sqlalchemy.schema import CreateIndex, CreateTable

from officegym import change_log
from officegym.config import Settings, load_settings
from officegym.db import Base, make_sessionmaker, sqlite_engine, transaction
from officegym.registry import import_models

# Bump when seed_data changes what a world contains: old caches are then rebuilt.
WORLD_VERSION = 1

Progress = Callable[[str, float], None]


@dataclass(frozen=True)
class World:
    """A built, cached world."""

    scale: str
    seed: int
    version: int
    path: Path
    content_hash: str

    @property
    def key(self) -> str:
        """Stable name of this world, e.g. `small-0-v1-<fingerprint>`."""
        return self.path.stem


def code_fingerprint() -> str:
    """A short hash of the code that decides a world's content (seed_data and the app models), so
    that a changed generator never serves a stale cached world."""
    root = Path(__file__).resolve().parent
    from officegym import apps, seed_data

    sources = sorted(Path(seed_data.__file__).parent.glob("*.py"))
    sources += sorted(Path(apps.__file__).parent.glob("*/models.py"))
    sources += sorted(Path(apps.__file__).parent.glob("*/schema_triggers.py"))
    # the handbook (seed_data.tickets_handbook*) quotes the SLA targets and the discount ceiling from these
    sources += [Path(apps.__file__).parent / "tickets" / "sla.py", Path(apps.__file__).parent / "crm" / "products.py"]
    sources += [root / "colleagues" / "models.py", root / "db.py", root / "journal.py", root / "clock.py", root / "worlds.py", root / "change_log.py"]
    digest = hashlib.sha256()
    for source in sources:
        digest.update(source.name.encode() + source.read_bytes())
    return digest.hexdigest()[:10]


def world_key(scale: str, seed: int) -> str:
    """Cache key of a world: scale, seed, version and the generator's fingerprint."""
    return f"{scale}-{seed}-v{WORLD_VERSION}-{code_fingerprint()}"


def content_hash(engine: Engine) -> str:
    """SHA-256 over every row of every table in primary-key order, in a canonical text form that
    does not depend on the backend."""
    import_models()
    digest = hashlib.sha256()
    with engine.connect() as conn:
        for table in sorted(Base.metadata.sorted_tables, key=lambda t: t.name):
            digest.update(f"\x00table {table.name}\n".encode())
            order = list(table.primary_key.columns) or list(table.columns)
            for row in conn.execute(select(table).order_by(*order)):
                digest.update(json.dumps([_canonical(v) for v in row], separators=(",", ":")).encode())
                digest.update(b"\n")
    return digest.hexdigest()


def _canonical(value):
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return repr(round(value, 9))
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return str(value)


def ensure_world(scale: str = "small", seed: int = 0, settings: Settings | None = None,
                 progress: Progress | None = None) -> World:
    """The cached world for `(scale, seed)`, building it first if needed (safe across processes)."""
    settings = settings or load_settings()
    folder = settings.worlds_dir
    folder.mkdir(parents=True, exist_ok=True)
    key = world_key(scale, seed)
    path, meta_path = folder / f"{key}.sqlite", folder / f"{key}.json"
    with open(folder / f"{key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (path.exists() and meta_path.exists()):
            digest = _build(path, scale, seed, progress)
            written = meta_path.with_suffix(".json-building")  # renamed into place whole: never half a record
            written.write_text(json.dumps({"scale": scale, "seed": seed, "version": WORLD_VERSION,
                                           "content_hash": digest}))
            written.replace(meta_path)
    meta = json.loads(meta_path.read_text())
    return World(scale, seed, WORLD_VERSION, path, meta["content_hash"])


def create_schema(engine: Engine) -> None:
    """Create every table, then every index in name order: SQLAlchemy keeps a table's indexes in a
    set, whose order changes with the process's hash seed, and the order of CREATE INDEX decides
    the bytes of the file. Last, the triggers that keep derived tables (`info["triggers"]`)."""
    with engine.begin() as conn:
        for table in Base.metadata.sorted_tables:
            conn.execute(CreateTable(table))
        for index in sorted((i for t in Base.metadata.sorted_tables for i in t.indexes), key=lambda i: i.name):
            conn.execute(CreateIndex(index))
        for table in Base.metadata.sorted_tables:
            for statement in table.info.get("triggers", lambda dialect: [])(engine.dialect.name):
                conn.exec_driver_sql(statement)


def _build(path: Path, scale: str, seed: int, progress: Progress | None) -> str:
    from officegym.seed_data.world import build_world  # seed_data imports the apps

    import_models()
    partial = path.with_suffix(".building")
    partial.unlink(missing_ok=True)
    engine = sqlite_engine(str(partial))
    try:
        create_schema(engine)
        with transaction(make_sessionmaker(engine), surface="setup") as session:
            build_world(session, scale=scale, seed=seed, progress=progress)
        with engine.begin() as conn:
            change_log.install(conn)  # empty: the built world is where every episode's changes start
        with engine.connect() as conn:
            conn.execute(text("VACUUM"))
        digest = content_hash(engine)
    except BaseException:  # Ctrl-C or a full disk: no half-built world stays behind
        engine.dispose()
        for leftover in (partial, Path(f"{partial}-journal")):
            leftover.unlink(missing_ok=True)
        raise
    engine.dispose()
    os.replace(partial, path)
    return digest
