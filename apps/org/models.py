"""Directory tables: departments, teams and people."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column, relationship

from officegym.db import Base

ROLES = ("owner", "admin", "member")


class Department(Base):
    """A department such as Sales or Engineering."""

    __tablename__ = "org_department"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(80), unique=True)
    slug: Mapped[str] = mapped_column(String(80), unique=True)
    head_id: Mapped[int | None] = mapped_column(ForeignKey("org_person.id", use_alter=True))

    teams: Mapped[list[Team]] = relationship(back_populates="department", order_by="Team.name")


class Team(Base):
    """A team inside a department, with a lead."""

    __tablename__ = "org_team"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(80), unique=True)
    slug: Mapped[str] = mapped_column(String(80), unique=True)
    department_id: Mapped[int] = mapped_column(ForeignKey("org_department.id"), index=True)
    lead_id: Mapped[int | None] = mapped_column(ForeignKey("org_person.id", use_alter=True))

    department: Mapped[Department] = relationship(back_populates="teams")
    members: Mapped[list[Person]] = relationship(
        back_populates="team", foreign_keys="Person.team_id", order_by="Person.name"
    )


class Person(Base):
    """An employee. `role` is the workspace role: owner, admin or member."""

    __tablename__ = "org_person"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(120), index=True)
    handle: Mapped[str] = mapped_column(String(60), unique=True)
    email: Mapped[str] = mapped_column(String(160), unique=True)
    title: Mapped[str] = mapped_column(String(120))
    department_id: Mapped[int] = mapped_column(ForeignKey("org_department.id"), index=True)
    team_id: Mapped[int | None] = mapped_column(ForeignKey("org_team.id"), index=True)
    manager_id: Mapped[int | None] = mapped_column(ForeignKey("org_person.id"), index=True)
    location: Mapped[str] = mapped_column(String(80))
    timezone: Mapped[str] = mapped_column(String(60))
    role: Mapped[str] = mapped_column(String(10), default="member")

    department: Mapped[Department] = relationship(foreign_keys=[department_id])
    team: Mapped[Team | None] = relationship(back_populates="members", foreign_keys=[team_id])
    manager: Mapped[Person | None] = relationship(remote_side=[id], foreign_keys=[manager_id])

    @property
    def is_admin(self) -> bool:
        """Workspace owners and admins may administer every app."""
        return self.role in ("owner", "admin")

    def __repr__(self) -> str:
        return f"<Person {self.id} @{self.handle}>"


class Absence(Base):
    """Time a person is out of office (from `starts_at` to `ends_at`, company time), and who covers
    for them meanwhile: their auto-reply names the cover."""

    __tablename__ = "org_absence"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    person_id: Mapped[int] = mapped_column(ForeignKey("org_person.id"), index=True)
    cover_id: Mapped[int] = mapped_column(ForeignKey("org_person.id"))
    starts_at: Mapped[datetime] = mapped_column(DateTime)
    ends_at: Mapped[datetime] = mapped_column(DateTime)

    def __repr__(self) -> str:
        return f"<Absence {self.id} person={self.person_id} until {self.ends_at:%Y-%m-%d}>"
