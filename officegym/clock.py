"""Simulated company time. Services read `now(session)`, never the wall clock, so an episode
replays the same way every time. Each write advances the clock by one tick; reading advances
nothing; waiting (`advance_to`, used by the chat's wait) moves it to a later time in whole ticks.

A task's setup writes at times of its own (`set_time`): what it plants happened earlier, at a
plausible hour, in every history the agent can read, and the company clock does not move."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import Integer, String, case, cast, select, update
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


def _clock_reading(session: Session) -> tuple[str, str]:
    """The clock's base time and ticks (read once until something writes, facts.py)."""
    reading = remembered(session, "clock", _reading)
    if reading is None:
        raise RuntimeError("this database has no company clock; was it built by officegym.worlds?")
    return reading


def _base(session: Session) -> datetime:
    """The time of tick 0: the company's "now" when the world was built."""
    return datetime.fromisoformat(_clock_reading(session)[0])


def company_now(session: Session) -> datetime:
    """The company clock's time, even while a setup writes at a time of its own."""
    reading = _clock_reading(session)
    return datetime.fromisoformat(reading[0]) + TICK * int(reading[1])


def now(session: Session) -> datetime:
    """The company's current time in this episode (a setup's own time while it writes)."""
    return session.info[_SET] if _SET in session.info else company_now(session)


def advance(session: Session) -> datetime:
    """Move the clock one tick forward and return the new time (used for every write)."""
    if _SET in session.info:
        session.info[_SET] += TICK
        return session.info[_SET]
    return _store_ticks(session, _base(session), _stored_ticks() + 1)


def advance_to(session: Session, when: datetime) -> datetime:
    """Move the company clock forward to `when` (rounded up to a whole tick); never backwards.
    Returns the new time."""
    base = _base(session)
    needed = -(-(when - base) // TICK)
    stored = _stored_ticks()
    return _store_ticks(session, base, case((stored < needed, needed), else_=stored))


def _stored_ticks():
    """The ticks as the database holds them when a statement runs, as a number."""
    return cast(MetaEntry.value, Integer)


def _store_ticks(session: Session, base: datetime, ticks) -> datetime:
    """Set the ticks to `ticks`, an expression over the stored value, in one UPDATE: writers of one
    episode that race each see the other's ticks (SQLite runs one writer at a time and PostgreSQL
    evaluates the row again once a concurrent writer commits), so none is lost and the clock never
    goes back. The new time, from `base`, the time of tick 0."""
    statement = (update(MetaEntry).where(MetaEntry.key == _TICKS_KEY).values(value=cast(ticks, String))
                 .returning(MetaEntry.value).execution_options(synchronize_session="fetch"))
    stored = session.execute(statement).scalar()
    if stored is None:  # a database made before the clock kept ticks: its first
        session.add(MetaEntry(key=_TICKS_KEY, value="0"))
        session.flush()
        stored = session.execute(statement).scalar()
    return base + TICK * int(stored)


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
