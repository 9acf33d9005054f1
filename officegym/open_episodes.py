"""Open episodes: how many live episodes of one process keep their database connections open.

A connection to an episode's database holds a file descriptor (SQLite: the file; PostgreSQL: a
socket, and a server process on the other side). A process may keep thousands of episodes live,
far more than it may hold open files (a default `ulimit -n` is 1024, and the whole server fails
once it is reached), so only the `limit` episodes used most recently keep their connections open
(`OFFICEGYM_OPEN_EPISODES`). The others' are closed; their next session opens a connection again
to the same database, so the agent sees the same state, the same trajectory (kept in the episode
registry, not in the connection) and the same grade. Memory, not open files, bounds the episodes
a process holds.

The store also raises the process's soft limit of open files to its hard limit when it starts
(`raise_open_file_limit`), so the episodes kept open, the server's sockets and the files a grade
opens have room.
"""

from __future__ import annotations

import logging
import resource
import threading
from collections import OrderedDict
from typing import Protocol

log = logging.getLogger(__name__)


class Closable(Protocol):
    """What the list needs of an episode."""

    id: str

    def close_if_idle(self) -> bool:
        """Close the episode's connections unless a session is using them; whether it did."""


class OpenEpisodes:
    """The episodes whose connections are open, least recently used first; using one more than
    `limit` closes the connections of the least recently used idle ones."""

    def __init__(self, limit: int):
        self.limit = max(1, limit)
        self._order: OrderedDict[str, Closable] = OrderedDict()
        self._lock = threading.Lock()
        self.closed = 0  # how many times an idle episode's connections were closed

    def __len__(self) -> int:
        return len(self._order)

    def used(self, episode: Closable) -> None:
        """`episode` is about to open (or reuse) a connection: it becomes the most recently used,
        and the least recently used idle episodes beyond the limit close theirs."""
        with self._lock:
            self._order[episode.id] = episode
            self._order.move_to_end(episode.id)
            excess = len(self._order) - self.limit
            if excess <= 0:
                return
            closed = []
            for key, candidate in self._order.items():
                if len(closed) == excess:
                    break
                if candidate is not episode and candidate.close_if_idle():
                    closed.append(key)
            for key in closed:
                del self._order[key]
            self.closed += len(closed)

    def forget(self, episode: Closable) -> None:
        """An episode this process let go of (deleted or released): no longer counted."""
        with self._lock:
            if self._order.get(episode.id) is episode:
                del self._order[episode.id]


def raise_open_file_limit() -> int:
    """Raise this process's soft limit of open files to its hard limit; the soft limit now (or
    unchanged where the system refuses)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft == resource.RLIM_INFINITY or soft >= hard:
        return soft
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    except (ValueError, OSError) as error:  # some systems cap the soft limit below the hard one
        log.info("could not raise the open-file limit from %s to %s: %s", soft, hard, error)
        return soft
    return hard
