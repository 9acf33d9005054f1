"""People: every app resolves a person through `resolve_person`, so that an agent can name someone
by id, @handle, email or full name; search, profiles and reporting lines."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from officegym import clock
from officegym.errors import Invalid, NotFound
from officegym.pagination import Page, paginate

from .lookups import contains, get_by_id, numeric_id
from .models import Person
from .structure import get_department


def resolve_person(session: Session, ref: int | str) -> Person:
    """The person named by id, `@handle`, handle, email or exact full name (case-insensitive)."""
    if isinstance(ref, bool) or not isinstance(ref, (int, str)):
        raise Invalid(f"A person is named by id, @handle, email or full name, got {ref!r}.")
    ident = numeric_id(ref)
    if ident is not None:
        person = get_by_id(session, Person, ident)
        if person is None:
            raise NotFound(f"No person has id {ref}. Use org_search_people to find someone.")
        return person
    key = str(ref).strip()
    if not key:
        raise Invalid("A person's name, @handle or email is required.")
    lowered = key.lstrip("@").lower()
    person = session.scalar(select(Person).where(or_(Person.handle == lowered, func.lower(Person.email) == lowered)))
    if person is not None:
        return person
    matches = list(session.scalars(select(Person).where(func.lower(Person.name) == key.lower()).limit(5)))
    if len(matches) == 1:
        return matches[0]
    if matches:
        names = ", ".join(f"@{p.handle} ({p.title})" for p in matches)
        raise Invalid(f"Several people are called {key!r}: {names}. Name one by @handle.")
    raise NotFound(f"No person matches {key!r}. Use org_search_people to find someone by part of a name.")


def resolve_people(session: Session, refs: list[int | str]) -> list[Person]:
    """Several people, without duplicates, in the order given."""
    if not isinstance(refs, (list, tuple)) or not refs:
        raise Invalid("Name at least one person.")
    people: list[Person] = []
    for ref in refs:
        person = resolve_person(session, ref)
        if person not in people:
            people.append(person)
    return people


def search_people(session: Session, actor: Person, query: str = "", department: str | None = None,
                  offset: int = 0, limit: int = 50) -> Page[Person]:
    """People whose name, handle, email or title contains `query`, optionally in one department."""
    if not isinstance(query, str) or len(query) > 200:
        raise Invalid("query must be text of at most 200 characters.")
    stmt = select(Person).order_by(Person.name, Person.id)
    for term in query.split():
        stmt = stmt.where(or_(*(contains(column, term) for column in (Person.name, Person.handle, Person.email,
                                                                        Person.title))))
    if department not in (None, ""):
        stmt = stmt.where(Person.department_id == get_department(session, actor, department).id)
    return paginate(session, stmt, offset, limit)


def whoami(session: Session, actor: Person) -> tuple[Person, datetime]:
    """The acting person and the company's current date and time (simulated, the same in every replay)."""
    return actor, clock.now(session)


def get_person(session: Session, actor: Person, ref: int | str) -> Person:
    """One person's profile."""
    return resolve_person(session, ref)


def direct_reports(session: Session, actor: Person, ref: int | str) -> list[Person]:
    """The people who report to someone."""
    person = resolve_person(session, ref)
    return list(session.scalars(select(Person).where(Person.manager_id == person.id).order_by(Person.name)))
