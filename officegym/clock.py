"""Simulated company time. Services read `now(session)`, never the wall clock, so an episode
replays the same way every time. Each write advances the clock by one tick.

A task's setup writes at times of its own (`set_time`): what it plants happened earlier, at a
plausible hour, in every history the agent can read, and the company clock does not move."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from officegym.db import MetaEntry

TICK = timedelta(seconds=30)
_BASE_KEY, _TICKS_KEY = "now", "clock_ticks"
_SET = "officegym.clock.set_time"  # key in session.info while a setup writes at times of its own


def _meta(session: Session, key: str) -> MetaEntry | None:
    return session.get(MetaEntry, key)


def set_base(session: Session, when: datetime) -> None:
    """Fix the company's "now" when a world is built."""
    session.merge(MetaEntry(key=_BASE_KEY, value=when.isoformat()))
    session.merge(MetaEntry(key=_TICKS_KEY, value="0"))


def company_now(session: Session) -> datetime:
    """The company clock's time, even while a setup writes at a time of its own."""
    base, ticks = _meta(session, _BASE_KEY), _meta(session, _TICKS_KEY)
    if base is None:
        raise RuntimeError("this database has no company clock; was it built by officegym.worlds?")
    return datetime.fromisoformat(base.value) + TICK * int(ticks.value if ticks else 0)


def now(session: Session) -> datetime:
    """The company's current time in this episode (a setup's own time while it writes)."""
    return session.info[_SET] if _SET in session.info else company_now(session)


def advance(session: Session) -> datetime:
    """Move the clock one tick forward and return the new time (used for every write)."""
    if _SET in session.info:
        session.info[_SET] += TICK
        return session.info[_SET]
    ticks = _meta(session, _TICKS_KEY)
    if ticks is None:
        ticks = MetaEntry(key=_TICKS_KEY, value="0")
        session.add(ticks)
    ticks.value = str(int(ticks.value) + 1)
    return now(session)


def set_time(session: Session, when: datetime) -> None:
    """For task setups: the writes that follow in this session happen at `when`, a tick apart,
    and leave the company clock where it was."""
    session.info[_SET] = when


def today(session: Session) -> datetime:
    """Midnight of the company's current day."""
    current = now(session)
    return current.replace(hour=0, minute=0, second=0, microsecond=0)


__all__ = ["now", "advance", "set_base", "set_time", "company_now", "today", "select"]
