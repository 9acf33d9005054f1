"""Simulated company time. Services read `now(session)`, never the wall clock, so an episode
replays the same way every time. Each write advances the clock by one tick."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from officegym.db import MetaEntry

TICK = timedelta(seconds=30)
_BASE_KEY, _TICKS_KEY = "now", "clock_ticks"


def _meta(session: Session, key: str) -> MetaEntry | None:
    return session.get(MetaEntry, key)


def set_base(session: Session, when: datetime) -> None:
    """Fix the company's "now" when a world is built."""
    session.merge(MetaEntry(key=_BASE_KEY, value=when.isoformat()))
    session.merge(MetaEntry(key=_TICKS_KEY, value="0"))


def now(session: Session) -> datetime:
    """The company's current time in this episode."""
    base, ticks = _meta(session, _BASE_KEY), _meta(session, _TICKS_KEY)
    if base is None:
        raise RuntimeError("this database has no company clock; was it built by officegym.worlds?")
    return datetime.fromisoformat(base.value) + TICK * int(ticks.value if ticks else 0)


def advance(session: Session) -> datetime:
    """Move the clock one tick forward and return the new time (used for every write)."""
    ticks = _meta(session, _TICKS_KEY)
    if ticks is None:
        ticks = MetaEntry(key=_TICKS_KEY, value="0")
        session.add(ticks)
    ticks.value = str(int(ticks.value) + 1)
    return now(session)


def today(session: Session) -> datetime:
    """Midnight of the company's current day."""
    current = now(session)
    return current.replace(hour=0, minute=0, second=0, microsecond=0)


__all__ = ["now", "advance", "set_base", "today", "select"]
