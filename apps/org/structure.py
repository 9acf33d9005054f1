"""The company's structure: departments and teams, named by id, name or slug."""

from __future__ import annotations

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from officegym.errors import NotFound

from .lookups import get_by_id, numeric_id
from .models import Department, Person, Team


def list_departments(session: Session, actor: Person) -> list[Department]:
    """Every department, by name."""
    return list(session.scalars(select(Department).order_by(Department.name)))


def _named(session: Session, model, ref: int | str):
    """The row of `model` (a department or a team) with this id, name or slug, or None."""
    ident = numeric_id(ref)
    if ident is not None:
        return get_by_id(session, model, ident)
    key = str(ref).strip().lower()
    return session.scalar(select(model).where(or_(func.lower(model.name) == key, model.slug == key)))


def get_department(session: Session, actor: Person, ref: int | str) -> Department:
    """A department by id, name or slug."""
    found = _named(session, Department, ref)
    if found is None:
        names = ", ".join(d.name for d in list_departments(session, actor))
        raise NotFound(f"No department {ref!r}. Departments: {names}.")
    return found


def list_teams(session: Session, actor: Person, department: str | None = None) -> list[Team]:
    """Every team, or those of one department."""
    stmt = select(Team).order_by(Team.name)
    if department not in (None, ""):
        stmt = stmt.where(Team.department_id == get_department(session, actor, department).id)
    return list(session.scalars(stmt))


def get_team(session: Session, actor: Person, ref: int | str) -> Team:
    """A team by id, name or slug."""
    found = _named(session, Team, ref)
    if found is None:
        names = ", ".join(t.name for t in list_teams(session, actor))
        raise NotFound(f"No team {ref!r}. Teams: {names}.")
    return found
