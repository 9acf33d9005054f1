"""Who of a list had joined by a given time, quickly: a big channel or pool has few late joiners, so
the answer is the whole list most of the time, and otherwise a filtered copy remembered per set of
people still to come. Always the same list, in the same order, as filtering the whole list."""

from __future__ import annotations

from datetime import datetime
from typing import Callable, Generic, Sequence, TypeVar

T = TypeVar("T")


class Roster(Generic[T]):
    """`items` with the time each one joined (`since_of`)."""

    def __init__(self, items: Sequence[T], since_of: Callable[[T], datetime]):
        self.items = items
        self.since = [since_of(item) for item in items]
        self.latest_first = sorted(range(len(items)), key=lambda i: self.since[i], reverse=True)
        self._filtered: dict[tuple[int, ...], list[T]] = {}

    def at(self, when: datetime) -> Sequence[T]:
        """The items that had joined by `when` (since <= when), in their order."""
        missing = []
        for i in self.latest_first:
            if self.since[i] <= when:
                break
            missing.append(i)
        if not missing:
            return self.items
        key = tuple(sorted(missing))
        found = self._filtered.get(key)
        if found is None:
            gone = set(missing)
            found = self._filtered[key] = [item for i, item in enumerate(self.items) if i not in gone]
        return found
