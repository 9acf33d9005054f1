"""The episode ids a store never hands out again, kept without a Python object per id.

A store reserves every id it creates or deletes. Kept as a set of strings, each id was a small
object made beside an episode's short-lived ones (its engine, its connection pool), and outlived
them: CPython's allocator returns memory to the system only in whole arenas, so one such survivor
kept its arena, and deleting thousands of episodes gave back little. Here an id is an 8-byte
digest in one sorted array (a single large buffer, outside the small-object arenas), with the
newest few in a small array merged into it in batches. A digest two ids share (odds of 1 in
2**64) only makes the store draw another fresh id."""

from __future__ import annotations

import hashlib
from array import array
from bisect import bisect_left

BATCH = 256  # the newest ids kept in a small unsorted array before they join the sorted one


def _digest(episode_id: str) -> int:
    return int.from_bytes(hashlib.blake2b(episode_id.encode(), digest_size=8).digest(), "big")


class RetiredIds:
    """A set of ids that supports `add` and `in`, at about 8 bytes per id."""

    def __init__(self) -> None:
        self._sorted = array("Q")
        # Raw 8-byte values, not int objects: a digest kept as an object until the next merge
        # would be one more small survivor among the objects of the episodes made meanwhile.
        self._newest = array("Q")

    def add(self, episode_id: str) -> None:
        """Reserve an id for good."""
        digest = _digest(episode_id)
        if digest not in self._newest:
            self._newest.append(digest)
        if len(self._newest) >= BATCH:
            self._sorted = array("Q", sorted({*self._sorted, *self._newest}))
            self._newest = array("Q")

    def __contains__(self, episode_id: object) -> bool:
        if not isinstance(episode_id, str):
            return False
        digest = _digest(episode_id)
        if digest in self._newest:
            return True
        at = bisect_left(self._sorted, digest)
        return at < len(self._sorted) and self._sorted[at] == digest

    def __len__(self) -> int:
        return len(self._sorted) + len(self._newest)
