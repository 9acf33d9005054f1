"""One page of a long list, the same shape for every app and surface."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, Sequence, TypeVar

from sqlalchemy import Select, func, select
from sqlalchemy.orm import Session

from officegym.errors import Invalid

T = TypeVar("T")
MAX_LIMIT = 200


@dataclass
class Page(Generic[T]):
    """`items` from `offset`; `next_offset` is None on the last page."""

    items: Sequence[T]
    total: int
    offset: int
    limit: int

    @property
    def next_offset(self) -> int | None:
        """Offset of the next page, or None when this is the last one."""
        return self.offset + self.limit if self.offset + self.limit < self.total else None


def check_window(offset: int, limit: int) -> None:
    """Refuse negative offsets and limits outside 1..200 with a clear message."""
    if not isinstance(offset, int) or offset < 0:
        raise Invalid(f"offset must be a whole number >= 0, got {offset!r}.")
    if not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise Invalid(f"limit must be between 1 and {MAX_LIMIT}, got {limit!r}.")


def paginate(session: Session, query: Select, offset: int = 0, limit: int = 50) -> Page:
    """Run `query` (already ordered) for one page and count the whole result."""
    check_window(offset, limit)
    total = session.scalar(select(func.count()).select_from(query.order_by(None).subquery())) or 0
    items = list(session.scalars(query.offset(offset).limit(limit)))
    return Page(items, total, offset, limit)
