"""Directory reads. Every app resolves people through `resolve_person` so that an agent can name
someone by id, @handle, email or full name."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, String, func, literal, or_, select
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.orm import Session
from sqlalchemy.sql.functions import FunctionElement

from officegym import clock
from officegym.errors import Invalid, NotFound
from officegym.pagination import Page, paginate

from .models import Department, Person, Team

# SQLite integers are signed 64-bit: a larger id names nothing (and must not crash the driver).
MAX_ID = 2**63 - 1


def numeric_id(ref) -> int | None:
    """The id in `ref` when it is a whole number or a string of digits; None when it is a name."""
    if isinstance(ref, bool):
        return None
    if isinstance(ref, int):
        return ref
    if isinstance(ref, str) and ref.strip().isascii() and ref.strip().isdecimal():
        return int(ref.strip())
    return None


def get_by_id(session: Session, model, ident: int):
    """The row of `model` with this id, or None (also for ids no row can have)."""
    return session.get(model, ident) if 0 < ident <= MAX_ID else None


class _contains(FunctionElement):
    """`column` LIKE `pattern` (a lower-cased pattern with backslash escapes), ignoring case."""

    type = Boolean()
    inherit_cache = True


@compiles(_contains)
def _lower_like(element, compiler, **kw) -> str:
    column, pattern = (compiler.process(c, **kw) for c in element.clauses)
    return f"lower({column}) LIKE {pattern} ESCAPE '\\'"


@compiles(_contains, "postgresql")
def _ilike(element, compiler, **kw) -> str:
    # ILIKE, not lower() LIKE: PostgreSQL estimates how many rows ILIKE keeps from the column's
    # statistics, while lower(column) has none, and a blind guess of a common word's matches picks
    # a plan that reads and sorts every match instead of walking the newest rows.
    column, pattern = (compiler.process(c, **kw) for c in element.clauses)
    return f"({column}) ILIKE {pattern} ESCAPE '\\'"


@compiles(_contains, "sqlite")
def _like(element, compiler, **kw) -> str:
    # SQLite's LIKE already ignores the case of ASCII letters and its lower() folds nothing else, so
    # the result is the same and a search scanning a large table does half the work.
    column, pattern = (compiler.process(c, **kw) for c in element.clauses)
    return f"({column}) LIKE {pattern} ESCAPE '\\'"


def contains(column, term: str):
    """A case-insensitive 'column contains term' condition where % and _ match themselves."""
    escaped = term.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return _contains(column, literal(f"%{escaped}%", String()))


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


def list_departments(session: Session, actor: Person) -> list[Department]:
    """Every department, by name."""
    return list(session.scalars(select(Department).order_by(Department.name)))


def get_department(session: Session, actor: Person, ref: int | str) -> Department:
    """A department by id, name or slug."""
    ident = numeric_id(ref)
    if ident is not None:
        found = get_by_id(session, Department, ident)
    else:
        key = str(ref).strip().lower()
        found = session.scalar(select(Department).where(or_(func.lower(Department.name) == key, Department.slug == key)))
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
    ident = numeric_id(ref)
    if ident is not None:
        found = get_by_id(session, Team, ident)
    else:
        key = str(ref).strip().lower()
        found = session.scalar(select(Team).where(or_(func.lower(Team.name) == key, Team.slug == key)))
    if found is None:
        names = ", ".join(t.name for t in list_teams(session, actor))
        raise NotFound(f"No team {ref!r}. Teams: {names}.")
    return found
