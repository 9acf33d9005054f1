"""Episodes: isolated copies of a world plus a task's setup, each with its own database.

Reset = copy a cached start state (world + the task instance's setup, built once): a SQLite file
copied to a new file, or on PostgreSQL `CREATE DATABASE ... TEMPLATE` (see backends.py).
Episode ids are unguessable tokens and are never reused, even after deletion.
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import inspect
import json
import re
import secrets
import shutil
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

from sqlalchemy import select
from sqlalchemy.orm import Session

from officegym import change_log, colleagues
from officegym.apps.org.models import Person
from officegym.backends import EpisodeDatabase, backend_for
from officegym.config import Settings, load_settings
from officegym.db import make_sessionmaker, sqlite_engine, transaction
from officegym.errors import Invalid, NotFound
from officegym.leftovers import this_process
from officegym.trajectory import Trajectory
from officegym.worlds import World, ensure_world

if TYPE_CHECKING:  # pragma: no cover
    from officegym.tasks.base import TaskInstance


AGENT_SURFACES = ("ui", "mcp")
EPISODE_ID = re.compile(r"^[A-Za-z0-9_-]{8,64}$")


class Episode:
    """One live episode: its database, its actor and, for task episodes, the task instance."""

    def __init__(self, episode_id: str, world: World, database: EpisodeDatabase, start_path: Path,
                 task: "TaskInstance | None", actor_id: int, tools: tuple[str, ...] = ()):
        self.id = episode_id
        self.tools = tools  # the MCP tools it serves (mcp_wrappers.toolsets)
        self.trajectory = Trajectory()
        self.created = self.last_used = time.time()  # for the store's listing and idle expiry only
        self.keep_alive = False  # never expires (the served default episode)
        self.world = world
        self.database = database
        self.start_path = start_path
        self.task = task
        self.actor_id = actor_id
        self.engine = database.engine
        self._factory = make_sessionmaker(self.engine)
        self._mcp_server = None

    @property
    def is_task(self) -> bool:
        """Task episodes fix the actor; the free episode lets a person pick whom to act as."""
        return self.task is not None

    @property
    def instruction(self) -> str:
        """What the agent is asked to do ('' for the free episode)."""
        return self.task.instruction if self.task else ""

    @property
    def task_id(self) -> str | None:
        """The task's id, or None for the free episode."""
        return self.task.task_id if self.task else None

    @contextmanager
    def session(self, surface: str = "api") -> Iterator[Session]:
        """A transaction on this episode's database (commit on success, rollback on error). On the
        agent's surfaces (ui, mcp) colleagues answer the messages that reach them."""
        with transaction(self._factory, surface) as session:
            if surface in AGENT_SURFACES:
                colleagues.enable(session)
            yield session

    def actor(self, session: Session, actor_id: int | None = None) -> Person:
        """The acting person, loaded in `session`."""
        person = session.get(Person, actor_id or self.actor_id)
        if person is None:
            raise NotFound(f"No person {actor_id or self.actor_id} in this episode.")
        return person

    def mcp_server(self):
        """This episode's MCP server (built on first use; cheap, the tool catalogue is shared)."""
        if self._mcp_server is None:
            from officegym.mcp_wrappers.server import build_server

            self._mcp_server = build_server(self)
        return self._mcp_server

    @property
    def path(self) -> Path | None:
        """The episode's SQLite file (None on PostgreSQL)."""
        return getattr(self.database, "path", None)

    def diff(self):
        """What the episode changed since its start state, table by table."""
        return self.database.diff(self.start_path)

    def grade(self):
        """Score the episode's current state against its task."""
        from officegym.graders.scoring import grade_episode

        return grade_episode(self)

    def close(self, meta_path: Path) -> None:
        """Release and delete the database and its record."""
        meta_path.unlink(missing_ok=True)
        self.database.drop()


@functools.lru_cache(maxsize=None)
def _source_digest(module_name: str) -> str:
    """A digest of a loaded module's source (read once per process)."""
    module = sys.modules.get(module_name)
    return hashlib.sha256(inspect.getsource(module).encode()).hexdigest() if module else ""


def setup_fingerprint(inst: "TaskInstance") -> str:
    """A short digest of what a task's setup writes: the instance drawn and the source of the task
    modules (the setup's own and the helpers it calls), so that a start file built by older task
    code is never reused."""
    drawn = repr((inst.actor_id, inst.instruction, sorted(inst.params.items(), key=lambda kv: kv[0])))
    modules = sorted({inst.setup.__module__} | {m for m in sys.modules if m.startswith("officegym.tasks.")})
    return hashlib.sha256((drawn + "".join(_source_digest(m) for m in modules)).encode()).hexdigest()[:12]


class EpisodeStore:
    """Creates, finds and deletes episodes; one per process is enough."""

    def __init__(self, settings: Settings | None = None):
        self.settings = settings or load_settings()
        self.settings.episodes_dir.mkdir(parents=True, exist_ok=True)
        self.backend = backend_for(self.settings)
        self._episodes: dict[str, Episode] = {}
        self._retired: set[str] = set()
        self._worlds: dict[tuple[str, int], World] = {}
        self._instances: dict[tuple[str, str, int], "TaskInstance"] = {}
        self._lock = threading.Lock()

    def world(self, scale: str = "small", seed: int = 0, progress=None) -> World:
        """The cached world, built on first use."""
        key = (scale, seed)
        if key not in self._worlds:
            self._worlds[key] = ensure_world(scale, seed, self.settings, progress)
        return self._worlds[key]

    def task_instance(self, world: World, task_id: str, instance: int) -> "TaskInstance":
        """Instance `instance` of a task in `world` (drawn once per process, then reused)."""
        key = (world.key, task_id, instance)
        if key not in self._instances:
            from officegym.tasks.registry import get_task

            template = get_task(task_id)
            engine = sqlite_engine(str(world.path), readonly=True)
            try:
                with transaction(make_sessionmaker(engine), "setup") as session:
                    self._instances[key] = template.make(session, instance, world.seed)
            finally:
                engine.dispose()
        return self._instances[key]

    def _start_file(self, world: World, inst: "TaskInstance | None") -> Path:
        if inst is None or inst.setup is None:
            return world.path
        folder = self.settings.home / "starts" / world.key
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{inst.task_id}-{inst.instance}-{setup_fingerprint(inst)}.sqlite"
        with open(folder / f"{path.stem}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not path.exists():
                partial = path.with_suffix(".building")
                shutil.copyfile(world.path, partial)
                engine = sqlite_engine(str(partial))
                with transaction(make_sessionmaker(engine), "setup") as session:
                    inst.apply_setup(session)
                with engine.begin() as conn:
                    change_log.clear(conn)  # the setup is the start, not a change
                engine.dispose()
                partial.replace(path)
        return path

    def _new_id(self) -> str:
        while True:
            candidate = secrets.token_urlsafe(16)
            if candidate not in self._episodes and candidate not in self._retired:
                return candidate

    def create(self, task_id: str | None = None, instance: int = 0, scale: str = "small", seed: int = 0,
               actor: str | None = None, tools: str | list[str] | None = None) -> Episode:
        """A new episode: the free world (acting as `actor`, default the owner) or a task instance.
        `tools` picks the MCP tools it serves: "task" (a task episode's default), "all" (the free
        episode's) or a list of apps, areas and tool names (see mcp_wrappers.toolsets)."""
        served = tool_set(tools, task_id)
        world = self.world(scale, seed)
        inst = self.task_instance(world, task_id, instance) if task_id else None
        start = self._start_file(world, inst)
        with self._lock:
            episode_id = self._new_id()
            self._episodes[episode_id] = None  # type: ignore[assignment]  # reserve the id
        try:
            database = self.backend.create(world, inst, start, episode_id)
        except BaseException:
            with self._lock:
                self._episodes.pop(episode_id, None)
                self._retired.add(episode_id)
            raise
        episode = Episode(episode_id, world, database, start, inst, inst.actor_id if inst else 0, served)
        if inst is None:
            with episode.session("setup") as session:
                episode.actor_id = _default_actor(session, actor)
        # Recorded in the episodes folder so that another process (`officegym mcp --episode`) can open it.
        self._meta_path(episode_id).write_text(json.dumps({
            "scale": scale, "seed": seed, "task_id": task_id, "instance": instance, "actor_id": episode.actor_id,
            "backend": self.backend.name, "tools": list(served), "owner": this_process()}))
        with self._lock:
            self._episodes[episode_id] = episode
        return episode

    def get(self, episode_id: str) -> Episode:
        """A live episode by id; the lookup counts as a use (it keeps the episode from expiring)."""
        episode = self._episodes.get(episode_id)
        if episode is None:
            raise NotFound("No such episode (it may have been deleted).")
        episode.last_used = time.time()
        return episode

    def open(self, episode_id: str) -> Episode:
        """A live episode of this process, or one another process created in the same episodes folder."""
        if episode_id in self._episodes and self._episodes[episode_id] is not None:
            return self._episodes[episode_id]
        if not EPISODE_ID.match(episode_id or ""):
            raise Invalid("An episode id is 8-64 letters, digits, '-' or '_'.")
        meta_path = self._meta_path(episode_id)
        if not meta_path.exists():
            raise NotFound(f"No episode {episode_id} in {self.settings.episodes_dir}.")
        meta = json.loads(meta_path.read_text())
        if meta.get("backend", "sqlite") != self.backend.name:
            raise Invalid(f"Episode {episode_id} lives on {meta.get('backend', 'sqlite')}, not {self.backend.name}: "
                          "set OFFICEGYM_DATABASE_URL as the process that created it did.")
        world = self.world(meta["scale"], meta["seed"])
        inst = self.task_instance(world, meta["task_id"], meta["instance"]) if meta["task_id"] else None
        episode = Episode(episode_id, world, self.backend.reopen(episode_id), self._start_file(world, inst), inst,
                          meta["actor_id"], tuple(meta.get("tools") or tool_set("all", None)))
        with self._lock:
            self._episodes[episode_id] = episode
        return episode

    def delete(self, episode_id: str) -> None:
        """Delete an episode and its database; its id is never handed out again."""
        with self._lock:
            episode = self._episodes.pop(episode_id, None)
            if episode is None:
                raise NotFound("No such episode (it may have been deleted).")
            self._retired.add(episode_id)
        episode.close(self._meta_path(episode_id))

    def _meta_path(self, episode_id: str) -> Path:
        return self.settings.episodes_dir / f"{episode_id}.json"

    def live(self) -> list[Episode]:
        """Every live episode."""
        return [e for e in list(self._episodes.values()) if e is not None]

    def expire(self, idle_seconds: float) -> list[str]:
        """Delete the episodes unused for longer than `idle_seconds` (not those kept alive); their ids."""
        cutoff = time.time() - idle_seconds
        expired = [e.id for e in self.live() if e.last_used < cutoff and not e.keep_alive]
        for episode_id in expired:
            try:
                self.delete(episode_id)
            except NotFound:  # deleted meanwhile
                pass
        return expired

    def close(self) -> None:
        """Delete every live episode."""
        for episode in self.live():
            self.delete(episode.id)
        self.backend.close()


def tool_set(spec, task_id: str | None) -> tuple[str, ...]:
    """The names of the tools an episode of `task_id` (None: the free episode) serves for `spec`."""
    from officegym.mcp_wrappers.server import catalog
    from officegym.mcp_wrappers.toolsets import resolve
    from officegym.tasks.registry import get_task

    return resolve(spec, [t.name for t in catalog()], get_task(task_id) if task_id else None)


def _default_actor(session: Session, handle: str | None) -> int:
    if handle:
        from officegym.apps.org.services import resolve_person

        return resolve_person(session, handle).id
    owner = session.scalar(select(Person.id).where(Person.role == "owner").order_by(Person.id))
    return owner or session.scalar(select(Person.id).order_by(Person.id))


@contextmanager
def temporary_store(settings: Settings | None = None) -> Iterator[EpisodeStore]:
    """A store whose episodes are all deleted on exit."""
    store = EpisodeStore(settings)
    try:
        yield store
    finally:
        store.close()
