"""Simulated company time. Services read `now(session)`, never the wall clock, so an episode
replays the same way every time. Each write advances the clock by one tick; reading advances
nothing; waiting (`advance_to`, used by the chat's wait) moves it to a later time in whole ticks.

A task's setup writes at times of its own (`set_time`): what it plants happened earlier, at a
plausible hour, in every history the agent can read, and the company clock does not move."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from officegym.db import MetaEntry
from officegym.facts import remembered

TICK = timedelta(seconds=30)
_BASE_KEY, _TICKS_KEY = "now", "clock_ticks"
_SET = "officegym.clock.set_time"  # key in session.info while a setup writes at times of its own


def _meta(session: Session, key: str) -> MetaEntry | None:
    return session.get(MetaEntry, key)


def set_base(session: Session, when: datetime) -> None:
    """Fix the company's "now" when a world is built."""
    session.merge(MetaEntry(key=_BASE_KEY, value=when.isoformat()))
    session.merge(MetaEntry(key=_TICKS_KEY, value="0"))


def _reading(session: Session) -> tuple[str, str] | None:
    """The clock's base time and ticks as stored."""
    base, ticks = _meta(session, _BASE_KEY), _meta(session, _TICKS_KEY)
    return None if base is None else (base.value, ticks.value if ticks else "0")


def company_now(session: Session) -> datetime:
    """The company clock's time, even while a setup writes at a time of its own (read once until
    something writes, facts.py)."""
    reading = remembered(session, "clock", _reading)
    if reading is None:
        raise RuntimeError("this database has no company clock; was it built by officegym.worlds?")
    return datetime.fromisoformat(reading[0]) + TICK * int(reading[1])


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


def advance_to(session: Session, when: datetime) -> datetime:
    """Move the company clock forward to `when` (rounded up to a whole tick); never backwards.
    Returns the new time."""
    current = company_now(session)
    if when > current:
        ticks = _meta(session, _TICKS_KEY)
        if ticks is None:
            ticks = MetaEntry(key=_TICKS_KEY, value="0")
            session.add(ticks)
        ticks.value = str(int(ticks.value) + -(-(when - current) // TICK))
    return company_now(session)


def at_time(session: Session) -> datetime | None:
    """The time a setup (or a colleague acting later) writes at, when one is set."""
    return session.info.get(_SET)


def clear_time(session: Session) -> None:
    """End `set_time`: the writes that follow happen on the company clock again."""
    session.info.pop(_SET, None)


def set_time(session: Session, when: datetime) -> None:
    """For task setups: the writes that follow in this session happen at `when`, a tick apart,
    and leave the company clock where it was."""
    session.info[_SET] = when


def today(session: Session) -> datetime:
    """Midnight of the company's current day."""
    current = now(session)
    return current.replace(hour=0, minute=0, second=0, microsecond=0)


__all__ = ["now", "advance", "advance_to", "set_base", "set_time", "at_time", "clear_time", "company_now", "today", "select"]
