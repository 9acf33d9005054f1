"""When a colleague answers: each person has working hours and a response delay of their own,
drawn from their place in the world (a stable hash of their handle, so the same person keeps the
same habits in every episode and every run), and some are out of office, as the directory's
absences say (`org_absence`), with an auto-reply that names who covers for them.

- Working hours, in company time, on weekdays: a start between 08:00 and 10:00 (by half hours)
  and a day of 8.5 hours.
- Response delay: most people answer within 2 to 20 minutes, some take up to an hour, a few
  (one in ten) take one to three hours; each message adds a few minutes of its own.
- A message that reaches someone outside their hours is read when their next working day starts.
- A message that reaches someone who is away gets their auto-reply at once, and no other answer.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime, time, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from officegym.apps.org.models import Absence, Person

DAY_LENGTH = timedelta(hours=8, minutes=30)
EARLIEST_START = time(8, 0)


def _draw(*parts: object) -> int:
    """A stable number from these parts (the same on every machine and every run)."""
    return int.from_bytes(hashlib.sha256("|".join(map(str, parts)).encode()).digest()[:8], "big")


@dataclass(frozen=True)
class Hours:
    """A person's working day in company time."""

    start: time
    length: timedelta = DAY_LENGTH

    def working(self, when: datetime) -> bool:
        """Whether `when` falls in these hours on a weekday."""
        begins = datetime.combine(when.date(), self.start)
        return when.weekday() < 5 and begins <= when < begins + self.length

    def next_start(self, when: datetime) -> datetime:
        """`when` itself within these hours, else the start of the next working day after it."""
        if self.working(when):
            return when
        day = datetime.combine(when.date(), self.start)
        if when >= day:
            day += timedelta(days=1)
        while day.weekday() >= 5:
            day += timedelta(days=1)
        return day


def working_hours(person: Person) -> Hours:
    """The person's working hours (drawn from their handle)."""
    half_hours = _draw("hours", person.handle) % 5
    start = datetime.combine(datetime(2000, 1, 1), EARLIEST_START) + timedelta(minutes=30 * half_hours)
    return Hours(start.time())


def response_delay(person: Person, message_id: int) -> timedelta:
    """How long the person takes to answer this message once they read it."""
    habit = _draw("delay", person.handle) % 10
    base = 2 + _draw("base", person.handle) % 18 if habit < 7 else \
        20 + _draw("base", person.handle) % 40 if habit < 9 else 60 + _draw("base", person.handle) % 120
    return timedelta(minutes=base + _draw("message", person.handle, message_id) % 5)


def away(session: Session, person: Person, when: datetime) -> Absence | None:
    """The absence `person` is on at `when`, if any."""
    return session.scalar(select(Absence).where(Absence.person_id == person.id, Absence.starts_at <= when,
                                                Absence.ends_at > when).order_by(Absence.id).limit(1))


def reply_due(person: Person, message_id: int, sent: datetime) -> datetime:
    """When `person` answers a message sent at `sent` (working hours, then their delay)."""
    return working_hours(person).next_start(sent) + response_delay(person, message_id)


def auto_reply(session: Session, absence: Absence) -> str:
    """The out-of-office reply of someone on `absence`, naming their cover."""
    cover = session.get(Person, absence.cover_id)
    back = absence.ends_at.strftime("%A %d %B").replace(" 0", " ")
    return (f"Auto-reply: I'm out of office until {back}, with limited access to messages. For anything "
            f"urgent, please contact @{cover.handle}, who is covering for me.")
