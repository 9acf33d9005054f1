"""Converters from directory records to the output models of schemas.py, and the paging and
people helpers every app's presenters use.

Presenters only read. They take whole pages at once and load related names in one query for the
page, never one query per row.
"""

from __future__ import annotations

from typing import Sequence

from sqlalchemy import func, select
from sqlalchemy.orm import Session, aliased

from officegym.facts import remembered

from .models import Department, Person, Team
from .schemas import DepartmentOut, MeOut, PersonBrief, PersonOut, TeamDetailOut, TeamOut


def page_fields(page) -> dict:
    """The PageFields of an officegym Page, as keyword arguments."""
    return {"total": page.total, "total_is_exact": page.total_is_exact, "offset": page.offset,
            "next_offset": page.next_offset}


def page_out(model, items: list, page):
    """A page model from presented items and the service's Page."""
    return model(items=items, **page_fields(page))


def when(value) -> str | None:
    """A date or time as ISO text (None stays None)."""
    return value.isoformat() if value is not None else None


def people_briefs(session: Session, ids) -> dict[int, PersonBrief]:
    """PersonBriefs by id for every id given (one query)."""
    ids = {i for i in ids if i}
    if not ids:
        return {}
    return {pid: PersonBrief(id=pid, name=name, handle=handle) for pid, name, handle in session.execute(
        select(Person.id, Person.name, Person.handle).where(Person.id.in_(ids)))}


def me_out(session: Session, person: Person, now) -> MeOut:
    """The acting person's profile (kept until the database changes, facts.py) with the company's
    current time."""
    profile = remembered(session, ("profile", person.id), lambda current: person_out(current, person).model_dump())
    return MeOut(**profile, now=now.isoformat(timespec="seconds"), weekday=now.strftime("%A"))


def _names(session: Session, model, ids: set[int]) -> dict[int, str]:
    if not ids:
        return {}
    return dict(session.execute(select(model.id, model.name).where(model.id.in_(ids))).all())


def _people(session: Session, ids: set[int]) -> dict[int, tuple[str, str]]:
    """(handle, name) of each person in `ids`."""
    if not ids:
        return {}
    rows = session.execute(select(Person.id, Person.handle, Person.name).where(Person.id.in_(ids)))
    return {pid: (handle, name) for pid, handle, name in rows}


def _relations(session: Session, people: Sequence[Person]) -> dict[int, tuple]:
    """(department name, team name, manager's handle) of each person, in one query."""
    if not people:
        return {}
    manager = aliased(Person)
    rows = session.execute(
        select(Person.id, Department.name, Team.name, manager.handle)
        .select_from(Person)
        .outerjoin(Department, Department.id == Person.department_id)
        .outerjoin(Team, Team.id == Person.team_id)
        .outerjoin(manager, manager.id == Person.manager_id)
        .where(Person.id.in_({p.id for p in people})))
    return {pid: (department, team, handle) for pid, department, team, handle in rows}


def people_out(session: Session, people: Sequence[Person]) -> list[PersonOut]:
    """Profiles of a page of people (one query whatever the page size)."""
    relations = _relations(session, people)
    return [_person(p, *relations.get(p.id, (None, None, None))) for p in people]


def _person(p: Person, department: str | None, team: str | None, manager: str | None) -> PersonOut:
    return PersonOut(id=p.id, name=p.name, handle=p.handle, email=p.email, title=p.title, department=department or "",
                     team=team, manager=manager, location=p.location, timezone=p.timezone, role=p.role)


def person_out(session: Session, person: Person) -> PersonOut:
    """One profile."""
    return people_out(session, [person])[0]


def teams_out(session: Session, teams: Sequence[Team]) -> list[TeamOut]:
    """A list of teams with their lead and size."""
    ids = [t.id for t in teams]
    departments = _names(session, Department, {t.department_id for t in teams})
    leads = _people(session, {t.lead_id for t in teams if t.lead_id})
    counts = dict(session.execute(select(Person.team_id, func.count()).where(Person.team_id.in_(ids))
                                  .group_by(Person.team_id)).all()) if ids else {}
    return [TeamOut(id=t.id, name=t.name, slug=t.slug, department=departments.get(t.department_id, ""),
                    lead=leads[t.lead_id][0] if t.lead_id in leads else None,
                    lead_name=leads[t.lead_id][1] if t.lead_id in leads else None,
                    member_count=counts.get(t.id, 0))
            for t in teams]


def team_detail_out(session: Session, team: Team) -> TeamDetailOut:
    """One team with every member's profile."""
    members = list(session.scalars(select(Person).where(Person.team_id == team.id).order_by(Person.name, Person.id)))
    summary = teams_out(session, [team])[0]
    return TeamDetailOut(**summary.model_dump(), members=people_out(session, members))


def departments_out(session: Session, departments: Sequence[Department]) -> list[DepartmentOut]:
    """A list of departments with head, headcount and team names."""
    ids = [d.id for d in departments]
    heads = _people(session, {d.head_id for d in departments if d.head_id})
    counts: dict[int, int] = {}
    teams: dict[int, list[str]] = {i: [] for i in ids}
    if ids:
        counts = dict(session.execute(select(Person.department_id, func.count())
                                      .where(Person.department_id.in_(ids)).group_by(Person.department_id)).all())
        for department_id, name in session.execute(select(Team.department_id, Team.name)
                                                   .where(Team.department_id.in_(ids)).order_by(Team.name)):
            teams[department_id].append(name)
    return [DepartmentOut(id=d.id, name=d.name, slug=d.slug,
                          head=heads[d.head_id][0] if d.head_id in heads else None,
                          head_name=heads[d.head_id][1] if d.head_id in heads else None,
                          headcount=counts.get(d.id, 0), teams=teams.get(d.id, []))
            for d in departments]
