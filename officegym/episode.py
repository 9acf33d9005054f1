"""One episode: an isolated copy of a world plus a task's setup, with its own database, its actor,
its served tools and its trajectory (the store that makes them is episodes.py)."""

from __future__ import annotations

import re
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator

from sqlalchemy.orm import Session

from officegym import colleagues
from officegym.apps.org.models import Person
from officegym.backends import EpisodeDatabase
from officegym.db import make_sessionmaker, transaction
from officegym.episode_registry import now
from officegym.errors import NotFound
from officegym.trajectory import Trajectory
from officegym.worlds import World

if TYPE_CHECKING:  # pragma: no cover
    from officegym.tasks.base import TaskInstance


AGENT_SURFACES = ("ui", "mcp")
EPISODE_ID = re.compile(r"^[A-Za-z0-9_-]{8,64}$")


class Episode:
    """One live episode: its database, its actor and, for task episodes, the task instance."""

    def __init__(self, episode_id: str, world: World, database: EpisodeDatabase, start: Callable[[], Path],
                 task: "TaskInstance | None", actor_id: int, tools: tuple[str, ...], registry):
        self.id = episode_id
        self.tools = tools  # the MCP tools it serves (mcp_wrappers.toolsets)
        self.trajectory = Trajectory(registry, episode_id)
        self.created = self.last_used = now()  # for the store's listing and idle expiry only
        self.world = world
        self.database = database
        self._start = start  # the start file, made again if it was evicted (starts.py)
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
    def start_path(self) -> Path:
        """The SQLite file of the episode's start state (graders compare with it)."""
        return self._start()

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

    def release(self) -> None:
        """Close this process's connections to the database (which stays)."""
        self.engine.dispose()
