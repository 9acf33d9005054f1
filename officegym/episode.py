"""One episode: an isolated copy of a world plus a task's setup, with its own database, its actor,
its served tools and its trajectory (the store that makes them is episodes.py)."""

from __future__ import annotations

import functools
import re
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator

from sqlalchemy.engine import Engine
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from officegym import colleagues
from officegym.apps.org.models import Person
from officegym.backends import EpisodeDatabase
from officegym.db import transaction
from officegym.episode_registry import now
from officegym.errors import NotFound
from officegym.facts import row
from officegym.failures import translated
from officegym.trajectory import Trajectory
from officegym.worlds import World

if TYPE_CHECKING:  # pragma: no cover
    from officegym.open_episodes import OpenEpisodes
    from officegym.tasks.base import TaskInstance


AGENT_SURFACES = ("ui", "mcp")
EPISODE_ID = re.compile(r"^[A-Za-z0-9_-]{8,64}$")
# One session factory (objects stay readable after commit) for every episode, bound per session: a
# sessionmaker makes a Session subclass of its own, for which SQLAlchemy keeps event bookkeeping
# (about 20 KB a class), and a process holds thousands of episodes.
EPISODE_SESSIONS: sessionmaker[Session] = sessionmaker(expire_on_commit=False)


class Episode:
    """One live episode: its database, its actor and, for task episodes, the task instance.

    Thousands may be live in one process, most of them idle: an idle episode whose connections the
    store closed (open_episodes.py) holds no engine either, only the few fields below (slots, no
    per-instance dict), and makes its engine again on its next session."""

    __slots__ = ("id", "tools", "created", "last_used", "world", "database", "_start", "task", "actor_id",
                 "_registry", "_mcp_server", "_open_episodes", "_use_lock", "_sessions", "__weakref__")

    def __init__(self, episode_id: str, world: World, database: EpisodeDatabase, start: Callable[[], Path],
                 task: "TaskInstance | None", actor_id: int, tools: tuple[str, ...], registry,
                 open_episodes: "OpenEpisodes | None" = None):
        self.id = episode_id
        self.tools = tools  # the MCP tools it serves (mcp_wrappers.toolsets)
        self.created = self.last_used = now()  # for the store's listing and idle expiry only
        self.world = world
        self.database = database
        self._start = start  # the start file, made again if it was evicted (starts.py)
        self.task = task
        self.actor_id = actor_id
        self._registry = registry
        self._mcp_server = None
        self._open_episodes = open_episodes  # closes this episode's connections while it is idle
        self._use_lock = threading.Lock()
        self._sessions = 0  # sessions (and grades) under way

    @property
    def engine(self) -> Engine:
        """The engine on the episode's database (made again after the episode was idle)."""
        return self.database.engine

    @property
    def trajectory(self) -> Trajectory:
        """The episode's trajectory (kept in the registry, so any process adds to the same one)."""
        return Trajectory(self._registry, self.id)

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
        agent's surfaces (ui, mcp) colleagues answer the messages that reach them. A connection
        closed while the episode was idle (open_episodes.py) is opened again. A database or disk
        failure is raised as the OfficeError that says it in the product's words (failures.translated):
        a race lost, a full disk, a lost connection."""
        with self._using():
            try:
                with transaction(functools.partial(EPISODE_SESSIONS, bind=self.database.engine), surface) as session:
                    if surface in AGENT_SURFACES:
                        colleagues.enable(session)
                    yield session
            except (SQLAlchemyError, OSError) as error:
                said = translated(error)
                if said is None:
                    raise
                raise said from error

    @contextmanager
    def _using(self) -> Iterator[None]:
        """Count a use of the database under way (the store closes only idle episodes), and make
        this episode the most recently used."""
        with self._use_lock:
            self._sessions += 1
        try:
            if self._open_episodes is not None:
                self._open_episodes.used(self)
            yield
        finally:
            with self._use_lock:
                self._sessions -= 1

    def close_if_idle(self) -> bool:
        """Close this process's connections to the database and let go of its engine unless a
        session is using them (the next session makes them again); whether they were closed."""
        with self._use_lock:
            if self._sessions:
                return False
            self.database.close()
            return True

    def actor(self, session: Session, actor_id: int | None = None) -> Person:
        """The acting person, loaded in `session` (from the row read last time while nothing
        wrote to the database since, facts.py)."""
        person = row(session, Person, actor_id or self.actor_id)
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
    def start_path(self) -> Path:
        """The SQLite file of the episode's start state (graders compare with it)."""
        return self._start()

    @property
    def path(self) -> Path | None:
        """The episode's SQLite file (None on PostgreSQL)."""
        return getattr(self.database, "path", None)

    def diff(self):
        """What the episode changed since its start state, table by table."""
        start = self.start_path
        with self._using():
            return self.database.diff(start)

    def grade(self):
        """Score the episode's current state against its task."""
        from officegym.graders.scoring import grade_episode

        return grade_episode(self)

    def release(self) -> None:
        """Close this process's connections to the database (which stays)."""
        if self._open_episodes is not None:
            self._open_episodes.forget(self)
        self.database.close()
