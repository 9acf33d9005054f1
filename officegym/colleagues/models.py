"""What colleagues know beyond the records (notes a task's story gives them), and which rows their
own writes touched, so that a grade never counts a colleague's reply or decision against the agent."""

from __future__ import annotations

from sqlalchemy import ForeignKey, Integer, String, Text
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
    """One colleague's answer: the change-log entries (first_seq..last_seq, inclusive) its writes made."""

    __tablename__ = "og_colleague_write"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    person_id: Mapped[int] = mapped_column(Integer)
    message_id: Mapped[int] = mapped_column(Integer)
    first_seq: Mapped[int] = mapped_column(Integer)
    last_seq: Mapped[int] = mapped_column(Integer)

    def __repr__(self) -> str:
        return f"<ColleagueWrite {self.id} person={self.person_id} seq {self.first_seq}..{self.last_seq}>"
