"""What colleagues know beyond the records (notes a task's story gives them), the replies they
owe and the events a task scheduled (both due at simulated times), and which rows their replies touched, so that a grade never counts a colleague's reply against the agent (what they do
for the agent's message is the agent's doing: see `attribution`)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, Boolean, DateTime, ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from officegym.db import Base

TOPIC_KINDS = ("ticket", "opportunity", "account", "person")


class ColleagueNote(Base):
    """Something one person knows about one record: `topic` is "<kind>:<ref>" (ticket:IT-48,
    opportunity:12, account:5, person:7). Tools never read these; the colleague says them when asked."""

    __tablename__ = "og_colleague_note"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    person_id: Mapped[int] = mapped_column(ForeignKey("org_person.id"), index=True)
    topic: Mapped[str] = mapped_column(String(40), index=True)
    text: Mapped[str] = mapped_column(Text)

    def __repr__(self) -> str:
        return f"<ColleagueNote {self.id} person={self.person_id} {self.topic}>"


class ColleagueWrite(Base):
    """One colleague's reply: the change-log entries (first_seq..last_seq, inclusive) posting it made."""

    __tablename__ = "og_colleague_write"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    person_id: Mapped[int] = mapped_column(Integer)
    message_id: Mapped[int] = mapped_column(Integer)
    first_seq: Mapped[int] = mapped_column(Integer)
    last_seq: Mapped[int] = mapped_column(Integer)

    def __repr__(self) -> str:
        return f"<ColleagueWrite {self.id} person={self.person_id} seq {self.first_seq}..{self.last_seq}>"


class PendingReply(Base):
    """A reply a colleague owes a message, due at a simulated time (their working hours and delay,
    or at once for an out-of-office auto-reply). Delivered replies are deleted."""

    __tablename__ = "og_colleague_pending"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    message_id: Mapped[int] = mapped_column(Integer)
    person_id: Mapped[int] = mapped_column(Integer)
    direct: Mapped[bool] = mapped_column(Boolean)  # the message addressed them (not only their thread)
    away_until: Mapped[datetime | None] = mapped_column(DateTime)  # an auto-reply: they are out until then
    due_at: Mapped[datetime] = mapped_column(DateTime, index=True)

    def __repr__(self) -> str:
        return f"<PendingReply {self.id} person={self.person_id} message={self.message_id} at {self.due_at}>"


class ScheduledEvent(Base):
    """Something a task makes happen during the episode: at a simulated time (`due_at`), or once the
    agent has made `after_writes` writes. `kind` and `args` say what (see `events.KINDS`);
    `delivered_at` is set when it happened."""

    __tablename__ = "og_event"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(40))
    args: Mapped[dict] = mapped_column(JSON)
    due_at: Mapped[datetime | None] = mapped_column(DateTime)
    after_writes: Mapped[int | None] = mapped_column(Integer)
    delivered_at: Mapped[datetime | None] = mapped_column(DateTime)

    def __repr__(self) -> str:
        return f"<ScheduledEvent {self.id} {self.kind} due={self.due_at} after={self.after_writes}>"
