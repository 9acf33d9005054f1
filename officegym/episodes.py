"""Episodes: isolated copies of a world plus a task's setup, each with its own database.

Reset = copy a cached start state (world + the task instance's setup, built once, starts.py): a
SQLite file copied to a new file, or on PostgreSQL `CREATE DATABASE ... TEMPLATE` (backends.py).
Every episode is recorded in the backend's episode registry (episode_registry.py), so any process
reading that registry serves, grades and deletes it. Episode ids are unguessable tokens and are
never reused, even after deletion (retired_ids.py)."""

from __future__ import annotations

import functools
import logging
import secrets
import threading
import weakref
from contextlib import contextmanager
from typing import TYPE_CHECKING, Iterator

from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError

from officegym.backends import backend_for
from officegym.config import Settings, load_settings
from officegym.db import make_sessionmaker, sqlite_engine, transaction
from officegym.episode import EPISODE_ID, Episode
from officegym.episode_registry import TOUCH_EVERY, Entry, now
from officegym.episode_tools import ToolSets, default_actor, tool_set  # noqa: F401 - tool_set: re-exported
from officegym.errors import Invalid, NotFound, Unavailable
from officegym.leftovers import this_process
from officegym.memory import MemoryReturn
from officegym.open_episodes import OpenEpisodes, raise_open_file_limit
from officegym.retired_ids import RetiredIds
from officegym.starts import start_file
from officegym.worlds import World, ensure_world

if TYPE_CHECKING:  # pragma: no cover
    from officegym.tasks.base import TaskInstance

log = logging.getLogger(__name__)


class EpisodeStore:
    """Creates, finds and deletes episodes; one per process is enough. `owner` names the server the
    store's episodes belong to (default: this process); a server's workers share their server's."""

    def __init__(self, settings: Settings | None = None, owner: dict | None = None):
        self.settings = settings or load_settings()
        raise_open_file_limit()
        self.settings.episodes_dir.mkdir(parents=True, exist_ok=True)
        self.backend = backend_for(self.settings)
        try:  # the first connection to the database
            self.registry = self.backend.registry()
        except DBAPIError as error:  # refused, or no such database: say so in one line
            reason = " ".join(str(error.orig).split("\n")[0].split())
            shown = make_url(self.settings.database_url).render_as_string(hide_password=True)
            raise Unavailable(f"cannot use the database {shown}: {reason}") from None
        self.owner = owner or {**this_process(), "store": secrets.token_hex(6)}
        # The episodes this process holds in memory: those whose connections are open (held by
        # open_episodes) and those a caller still holds. An idle episode whose connections were
        # closed is a record in the registry only, and its next use opens it again from there.
        self._episodes: weakref.WeakValueDictionary[str, Episode] = weakref.WeakValueDictionary()
        self._retired = RetiredIds()
        self._worlds: dict[tuple[str, int], World] = {}
        self._instances: dict[tuple[str, str, int], "TaskInstance"] = {}
        self._actors: dict[tuple[str, str], int] = {}
        self._starts: dict[tuple, functools.partial] = {}
        self._tool_sets = ToolSets()
        self._lock = threading.Lock()
        self._memory = MemoryReturn()
        # Only the episodes used most recently keep their connections (open files) open.
        self.open_episodes = OpenEpisodes(self.settings.open_episodes)

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

    def _start_of(self, world: World, inst: "TaskInstance | None"):
        """The function giving the start file of `inst`'s episodes (made again if it was evicted),
        one shared by all of them."""
        key = (world.key, inst.task_id, inst.instance) if inst else (world.key,)
        if key not in self._starts:
            self._starts[key] = functools.partial(start_file, self.settings, world, inst)
        return self._starts[key]

    def _new_id(self) -> str:
        """A fresh random id that starts with a letter or digit (a command line would read an id
        that starts with '-' as an option)."""
        while True:
            candidate = secrets.token_urlsafe(16)
            if candidate[0].isalnum() and candidate not in self._episodes and candidate not in self._retired:
                return candidate

    def create(self, task_id: str | None = None, instance: int = 0, scale: str = "small", seed: int = 0,
               actor: str | None = None, tools: str | list[str] | None = None, keep_alive: bool = False) -> Episode:
        """A new episode: the free world (acting as `actor`, default the owner) or a task instance.
        `tools` picks the MCP tools it serves: "task" (a task episode's default), "all" (the free
        episode's) or a list of apps, areas and tool names (see mcp_wrappers.toolsets). A kept-alive
        episode never expires."""
        served = self._tool_sets.named(tools, task_id)
        world = self.world(scale, seed)
        inst = self.task_instance(world, task_id, instance) if task_id else None
        start = self._start_of(world, inst)
        start_path = start()
        with self._lock:
            episode_id = self._new_id()
            self._retired.add(episode_id)  # reserved: never handed out again, whatever happens next
        try:
            database = self.backend.create(world, inst, start_path, episode_id)
        except BaseException:  # a full disk, say: leave no half-made copy behind
            self.backend.discard(episode_id)
            raise
        episode = Episode(episode_id, world, database, start, inst, inst.actor_id if inst else 0, served,
                          self.registry, self.open_episodes)
        try:
            if inst is None:
                episode.actor_id = self._free_actor(episode, actor)
            self.registry.add(episode_id, {
                "scale": scale, "seed": seed, "task_id": task_id, "instance": instance, "actor_id": episode.actor_id,
                "backend": self.backend.name, "tools": list(served), "owner": self.owner,
                "created": episode.created, "keep_alive": keep_alive})
        except BaseException:
            database.drop()
            raise
        with self._lock:
            self._episodes[episode_id] = episode
        return episode

    def _free_actor(self, episode: Episode, handle: str | None) -> int:
        """Whom a free episode acts as: `handle`, or the owner; looked up once per world (a world
        never changes, so neither does the answer), which spares a reset its first connection."""
        key = (episode.world.key, handle or "")
        if key not in self._actors:
            with episode.session("setup") as session:
                self._actors[key] = default_actor(session, handle)
        return self._actors[key]

    def get(self, episode_id: str) -> Episode:
        """A live episode by id, opened from the registry when another process created it; the
        lookup counts as a use (it keeps the episode from expiring)."""
        episode = self._episodes.get(episode_id)
        if episode is None:
            return self._open(episode_id)
        if not self.registry.touch(episode_id):  # deleted by another process
            self._forget(episode_id)
            raise NotFound("No such episode (it may have been deleted).")
        episode.last_used = now()
        return episode

    def opened_here(self, episode_id: str) -> bool:
        """Whether this process holds the episode in memory (a `get` then opens nothing)."""
        return episode_id in self._episodes

    def open(self, episode_id: str) -> Episode:
        """A live episode of any process sharing this store's registry (as `get`), for a command
        given an id: a refusal says where the episode was looked for."""
        try:
            return self.get(episode_id)
        except NotFound:
            raise NotFound(f"No episode {episode_id} in {self.registry.where}.") from None

    def _open(self, episode_id: str) -> Episode:
        if not EPISODE_ID.match(episode_id or ""):
            raise Invalid("An episode id is 8-64 letters, digits, '-' or '_'.")
        entry = self.registry.get(episode_id)
        if entry is None:
            raise NotFound("No such episode (it may have been deleted).")
        meta = entry.record
        if meta.get("backend", "sqlite") != self.backend.name:
            raise Invalid(f"Episode {episode_id} lives on {meta.get('backend', 'sqlite')}, not {self.backend.name}: "
                          "set OFFICEGYM_DATABASE_URL as the process that created it did.")
        world = self.world(meta["scale"], meta["seed"])
        inst = self.task_instance(world, meta["task_id"], meta["instance"]) if meta["task_id"] else None
        episode = Episode(episode_id, world, self.backend.reopen(episode_id), self._start_of(world, inst), inst,
                          meta["actor_id"], self._tool_sets.recorded(meta.get("tools")), self.registry, self.open_episodes)
        self.registry.touch(episode_id)  # this first lookup is a use too
        episode.created, episode.last_used = entry.created, now()
        with self._lock:
            opened = self._episodes.setdefault(episode_id, episode)
        if opened is not episode:  # another thread opened it meanwhile
            episode.release()
        return opened

    def _forget(self, episode_id: str) -> None:
        """Release this process's hold on an episode another process deleted."""
        with self._lock:
            episode = self._episodes.pop(episode_id, None)
            self._retired.add(episode_id)
        if episode is not None:
            episode.release()
            self._memory.released(len(self._episodes))

    def delete(self, episode_id: str) -> None:
        """Delete an episode and its database, whichever process created it; its id is never
        handed out again."""
        with self._lock:
            episode = self._episodes.pop(episode_id, None)
            self._retired.add(episode_id)
        removed = EPISODE_ID.match(episode_id or "") is not None and self.registry.remove(episode_id)
        if episode is not None:
            self.open_episodes.forget(episode)
            episode.database.drop()
            self._memory.released(len(self._episodes))
        elif removed:
            self.backend.discard(episode_id)
        if not removed:
            raise NotFound("No such episode (it may have been deleted).")

    def live(self) -> list[Episode]:
        """The live episodes this process holds in memory (the most recently used, and those a
        caller holds); the others are in the registry only (`entries`)."""
        return list(self._episodes.values())

    def entries(self) -> list[Entry]:
        """Every registered episode, whichever process serves it, oldest first."""
        return self.registry.entries()

    def expire(self, idle_seconds: float) -> list[str]:
        """Delete the episodes unused for longer than `idle_seconds` (not those kept alive), and
        release those another process deleted; the ids deleted. A use is written at most every
        TOUCH_EVERY seconds, so an episode counts as idle only that much later."""
        cutoff = now() - idle_seconds - TOUCH_EVERY
        entries = self.entries()
        expired = [e.id for e in entries if e.last_used < cutoff and not e.record.get("keep_alive")]
        for episode_id in expired:
            try:
                self.delete(episode_id)
            except NotFound:  # deleted meanwhile
                pass
        registered = {e.id for e in entries}
        for episode in self.live():
            if episode.id not in registered:
                self._forget(episode.id)
        return expired

    def close(self) -> None:
        """Delete every episode this store's server owns, and release the others. When the database
        cannot be reached (PostgreSQL is down), what is left is said in the log and the next server
        to start deletes it: a stopping server does not wait for the database."""
        try:
            for entry in self.entries():
                if entry.record.get("owner") == self.owner:
                    try:
                        self.delete(entry.id)
                    except NotFound:
                        pass
        except DBAPIError as error:
            log.warning("could not delete this server's episodes, %s is out of reach (%s); the next server "
                        "to start deletes them", self.registry.where, str(error.orig or error).splitlines()[0])
        finally:
            self.release()

    def release(self) -> None:
        """Let go of every episode this process has open (they stay for the other processes),
        finish the deletions under way and close the connections."""
        for episode in self.live():
            self._forget(episode.id)
        self.backend.close()
        self.registry.close()


@contextmanager
def temporary_store(settings: Settings | None = None) -> Iterator[EpisodeStore]:
    """A store whose episodes are all deleted on exit."""
    store = EpisodeStore(settings)
    try:
        yield store
    finally:
        store.close()
