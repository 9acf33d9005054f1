"""Projects, their components, and the assignment groups that work tickets."""

from __future__ import annotations

import re

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from officegym import clock
from officegym.apps.org.models import Person
from officegym.apps.org.services import resolve_person
from officegym.errors import Conflict, Forbidden, Invalid
from officegym.journal import journaled
from officegym.values import choice, text

from .access import read_filter, require_lead
from .lookups import resolve_group, resolve_project
from .models import PROJECT_KINDS, Component, Group, GroupMember, Project, Ticket
from .workflow import is_open

_PROJECT_KEY = re.compile(r"^[A-Z][A-Z0-9]{1,9}$")


def list_projects(session: Session, actor: Person) -> list[Project]:
    """Every project, by key (service desks list too: anyone may raise a request)."""
    return list(session.scalars(select(Project).order_by(Project.key)))


def get_project(session: Session, actor: Person, project: int | str) -> Project:
    """One project by key, name or id."""
    return resolve_project(session, project)


def open_counts(session: Session, actor: Person, project: Project) -> dict[str, int]:
    """Tickets the actor sees in the project, per status."""
    rows = session.execute(select(Ticket.status, func.count()).where(Ticket.project_id == project.id,
                                                                     read_filter(session, actor))
                           .group_by(Ticket.status))
    return {status: count for status, count in rows if is_open(status)}


@journaled("tickets.create_project")
def create_project(session: Session, actor: Person, key: str, name: str, kind: str, lead: int | str,
                   description: str = "") -> Project:
    """A new project (workspace admins only); its department is the lead's."""
    if not actor.is_admin:
        raise Forbidden("Only workspace admins create projects; ask an admin, or file tickets in an existing project.")
    cleaned_key = text(key, "Project key", 10, required=True).upper()
    if not _PROJECT_KEY.match(cleaned_key):
        raise Invalid("A project key is 2-10 capital letters and digits starting with a letter, such as OPS; "
                      f"got {key!r}.")
    cleaned_name = text(name, "Project name", 80, required=True)
    kind_value = choice(kind, PROJECT_KINDS, "kind")
    lead_person = resolve_person(session, lead)
    if session.scalar(select(Project.id).where(Project.key == cleaned_key)):
        raise Conflict(f"Project key {cleaned_key} is taken.")
    if session.scalar(select(Project.id).where(func.lower(Project.name) == cleaned_name.lower())):
        raise Conflict(f"A project is already called {cleaned_name!r}.")
    project = Project(key=cleaned_key, name=cleaned_name, kind=kind_value, lead_id=lead_person.id,
                      department_id=lead_person.department_id, description=text(description, "Description", 500),
                      created_at=clock.advance(session))
    session.add(project)
    session.flush()
    return project


@journaled("tickets.update_project")
def update_project(session: Session, actor: Person, project: int | str, name: str | None = None,
                   description: str | None = None, lead: int | str | None = None) -> Project:
    """Rename a project, change its description or hand it to a new lead (its lead or admins)."""
    found = resolve_project(session, project)
    require_lead(actor, found, "change the project")
    if name is None and description is None and lead is None:
        raise Invalid("Nothing to change: give a name, a description or a lead.")
    if name is not None:
        cleaned = text(name, "Project name", 80, required=True)
        if session.scalar(select(Project.id).where(func.lower(Project.name) == cleaned.lower(),
                                                   Project.id != found.id)):
            raise Conflict(f"A project is already called {cleaned!r}.")
        found.name = cleaned
    if description is not None:
        found.description = text(description, "Description", 500)
    if lead is not None:
        found.lead_id = resolve_person(session, lead).id
    clock.advance(session)
    return found


def list_components(session: Session, actor: Person, project: int | str) -> list[Component]:
    """A project's components, by name."""
    found = resolve_project(session, project)
    return list(session.scalars(select(Component).where(Component.project_id == found.id).order_by(Component.name)))


@journaled("tickets.create_component")
def create_component(session: Session, actor: Person, project: int | str, name: str, description: str = "",
                     lead: int | str | None = None) -> Component:
    """A new component of a project (its lead or admins)."""
    found = resolve_project(session, project)
    require_lead(actor, found, "add components")
    cleaned = text(name, "Component name", 60, required=True)
    if session.scalar(select(Component.id).where(Component.project_id == found.id,
                                                 func.lower(Component.name) == cleaned.lower())):
        raise Conflict(f"{found.key} already has a component {cleaned!r}.")
    component = Component(project_id=found.id, name=cleaned, description=text(description, "Description", 250),
                          lead_id=resolve_person(session, lead).id if lead not in (None, "") else None)
    clock.advance(session)
    session.add(component)
    session.flush()
    return component


def list_groups(session: Session, actor: Person) -> list[Group]:
    """Every assignment group, by name."""
    return list(session.scalars(select(Group).order_by(Group.name)))


def get_group(session: Session, actor: Person, group: int | str) -> Group:
    """One assignment group by name or id."""
    return resolve_group(session, group)


def group_members(session: Session, actor: Person, group: int | str) -> list[Person]:
    """The people of an assignment group, by name."""
    found = resolve_group(session, group)
    return list(session.scalars(select(Person).join(GroupMember, GroupMember.person_id == Person.id)
                                .where(GroupMember.group_id == found.id).order_by(Person.name)))
