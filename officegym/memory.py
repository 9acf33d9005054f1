"""Giving the memory of deleted episodes back to the system.

An episode this process served holds a few hundred kilobytes: its SQLite or PostgreSQL connection
(the parsed schema, the pages read) and its MCP server. Python frees them when the episode goes,
but glibc's allocator keeps freed heap for reuse, so a server that once held a thousand episodes
would keep their memory for good. `MemoryReturn` asks the allocator to give free heap back
(`malloc_trim`) after every few releases and whenever none is left; elsewhere than glibc it does
nothing."""

from __future__ import annotations

import ctypes
import ctypes.util
import threading

# Releases between two trims: a trim takes well under a millisecond, and deletions come in bursts.
TRIM_EVERY = 16


def _malloc_trim():
    """glibc's malloc_trim, or None where the C library has none."""
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None


_trim = _malloc_trim()


def return_free_memory() -> bool:
    """Give the allocator's free heap back to the system; whether it could."""
    if _trim is None:
        return False
    _trim(0)
    return True


class MemoryReturn:
    """Counts the episodes a store let go of and returns free memory every TRIM_EVERY of them, or
    at once when the store holds none any more."""

    def __init__(self, every: int = TRIM_EVERY):
        self.every = every
        self._released = 0
        self._lock = threading.Lock()

    def released(self, still_open: int) -> None:
        """One episode was let go of; `still_open` are left in this process."""
        with self._lock:
            self._released += 1
            due = self._released >= self.every or still_open == 0
            if due:
                self._released = 0
        if due:
            return_free_memory()
