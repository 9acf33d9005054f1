"""The journal: one row per write, for trajectories, auditing and graders."""

from __future__ import annotations

import functools
import inspect
import json
from datetime import date, datetime
from typing import Any, Callable, TypeVar

from sqlalchemy import JSON, DateTime, Integer, String, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from officegym import clock
from officegym.db import Base

F = TypeVar("F", bound=Callable[..., Any])
SURFACES = ("ui", "mcp", "api", "setup", "colleague")
CAUSE = "caused_by"  # session.info key: the message a colleague's writes answer (officegym.colleagues)


class JournalEntry(Base):
    """A write made through a service: who, through which surface, what, with which arguments."""

    __tablename__ = "og_journal"
    seq: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    actor_id: Mapped[int | None] = mapped_column(Integer)
    surface: Mapped[str] = mapped_column(String(12))
    action: Mapped[str] = mapped_column(String(64), index=True)
    args: Mapped[dict] = mapped_column(JSON)
    at: Mapped[datetime] = mapped_column(DateTime)


def _plain(value: Any) -> Any:
    """Arguments as JSON-safe values (ORM objects by id)."""
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, (list, tuple, set)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if hasattr(value, "id"):
        return getattr(value, "id")
    return json.loads(json.dumps(value, default=str))


def record(session: Session, actor_id: int | None, action: str, args: dict[str, Any]) -> None:
    """Append a journal entry in the caller's transaction; a write a colleague made for someone's
    message carries that cause in its args (`caused_by`: the message id and its author)."""
    surface = session.info.get("surface", "api")
    cause = session.info.get(CAUSE)
    values = _plain(args) if cause is None else {**_plain(args), CAUSE: dict(cause)}
    session.add(JournalEntry(actor_id=actor_id, surface=surface, action=action, args=values, at=clock.now(session)))


def journaled(action: str) -> Callable[[F], F]:
    """Decorate a service write `(session, actor, ...)` so that each successful call is journaled."""

    def decorate(fn: F) -> F:
        signature = inspect.signature(fn)

        @functools.wraps(fn)
        def wrapper(session: Session, actor, *args, **kwargs):
            result = fn(session, actor, *args, **kwargs)
            bound = signature.bind(session, actor, *args, **kwargs)
            bound.apply_defaults()
            values = {k: v for k, v in list(bound.arguments.items())[2:]}
            record(session, getattr(actor, "id", None), action, values)
            return result

        return wrapper  # type: ignore[return-value]

    return decorate


def entries(session: Session, since_seq: int = 0) -> list[JournalEntry]:
    """Journal entries after `since_seq`, oldest first."""
    return list(session.scalars(select(JournalEntry).where(JournalEntry.seq > since_seq).order_by(JournalEntry.seq)))
