"""One page of a long list, the same shape for every app and surface."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, Sequence, TypeVar

from sqlalchemy import Select, func, select
from sqlalchemy.orm import Session

from officegym.errors import Invalid

T = TypeVar("T")
MAX_LIMIT = 200
# Searches over the biggest tables stop counting here (and at each further multiple, for deeper
# pages): "at least 1,000" tells an agent to narrow its search as well as an exact 101,592 would,
# and counting every match of a common word in a company's whole chat history costs a full scan.
COUNT_STEP = 1000
MAX_OFFSET = 2**63 - 1  # the largest number a database column or OFFSET clause holds


@dataclass
class Page(Generic[T]):
    """`items` from `offset`; `next_offset` is None on the last page. When `total_is_exact` is
    False, `total` is a lower bound: at least that many items match."""

    items: Sequence[T]
    total: int
    offset: int
    limit: int
    total_is_exact: bool = True

    @property
    def next_offset(self) -> int | None:
        """Offset of the next page, or None when this is the last one."""
        return self.offset + self.limit if self.offset + self.limit < self.total else None


def check_window(offset: int, limit: int) -> None:
    """Refuse offsets outside 0..2**63-1 and limits outside 1..200 with a clear message."""
    if not isinstance(offset, int) or not 0 <= offset <= MAX_OFFSET:
        raise Invalid(f"offset must be a whole number from 0 to {MAX_OFFSET}, got {offset!r}.")
    if not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise Invalid(f"limit must be between 1 and {MAX_LIMIT}, got {limit!r}.")


def window(items: Sequence[T], offset: int, limit: int) -> Page[T]:
    """One window of a complete list that a service returned whole (short lists such as teams,
    pins or the knowledge base's articles)."""
    check_window(offset, limit)
    return Page(list(items[offset:offset + limit]), len(items), offset, limit)


def count_bound(offset: int, limit: int) -> int:
    """How far a bounded count goes for the page at `offset`: the first multiple of COUNT_STEP
    beyond the page, so a page always knows whether another follows it."""
    return (offset + limit) // COUNT_STEP * COUNT_STEP + COUNT_STEP


def bounded_count(session: Session, query: Select, bound: int) -> tuple[int, bool]:
    """(how many rows `query` selects, counting at most `bound`; whether that is all of them)."""
    counted = session.scalar(select(func.count()).select_from(query.order_by(None).limit(bound + 1).subquery())) or 0
    return min(counted, bound), counted <= bound


def paginate(session: Session, query: Select, offset: int = 0, limit: int = 50, bounded: bool = False) -> Page:
    """Run `query` (already ordered) for one page and count the whole result; `bounded` counts
    only up to count_bound (for searches over tables that grow with the company)."""
    check_window(offset, limit)
    items = list(session.scalars(query.offset(offset).limit(limit)))
    if len(items) < limit and (items or offset == 0):
        # The last page tells the total by itself: a search for a rare word then reads the table once.
        return Page(items, offset + len(items), offset, limit)
    if bounded:
        total, exact = bounded_count(session, query, count_bound(offset, limit))
    else:
        total, exact = session.scalar(select(func.count()).select_from(query.order_by(None).subquery())) or 0, True
    return Page(items, total, offset, limit, exact)
