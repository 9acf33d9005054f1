"""Finding projects, tickets, groups, components and sprints from what an agent names them by,
with errors that list what exists."""

from __future__ import annotations

import re

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from officegym.apps.org.models import Person
from officegym.apps.org.services import get_by_id, numeric_id
from officegym.errors import Invalid, NotFound

from .access import can_see
from .models import Comment, Component, Group, HistoryEntry, Project, Sprint, Ticket

_KEY = re.compile(r"^([A-Za-z][A-Za-z0-9]{1,9})-(\d{1,9})$")


def _listing(names: list[str], limit: int = 12) -> str:
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def resolve_project(session: Session, ref: int | str) -> Project:
    """A project by key (IT), exact name or id."""
    if isinstance(ref, bool) or not isinstance(ref, (int, str)) or (isinstance(ref, str) and not ref.strip()):
        raise Invalid(f"Name a project by its key (such as IT) or name, got {ref!r}.")
    ident = numeric_id(ref)
    found = get_by_id(session, Project, ident) if ident is not None else session.scalar(
        select(Project).where(or_(func.upper(Project.key) == ref.strip().upper(),
                                  func.lower(Project.name) == ref.strip().lower())))
    if found is None:
        keys = list(session.scalars(select(Project.key).order_by(Project.key)))
        raise NotFound(f"No project {ref!r}. Projects: {_listing(keys)}.")
    return found


def parse_key(ref) -> tuple[str, int]:
    """('IT', 142) from 'IT-142' (any case), or a clear refusal."""
    match = _KEY.match(ref.strip()) if isinstance(ref, str) else None
    if match is None:
        raise Invalid(f"Name a ticket by its key, such as IT-142; got {ref!r}.")
    return match.group(1).upper(), int(match.group(2))


def resolve_ticket(session: Session, actor: Person, ref: str) -> Ticket:
    """A ticket the actor may see, by key."""
    prefix, number = parse_key(ref)
    ticket = session.scalar(select(Ticket).where(Ticket.key == f"{prefix}-{number}"))
    if ticket is not None and can_see(session, actor, ticket):
        return ticket
    if ticket is not None and _worked_on(session, actor, ticket):
        raise NotFound(f"You no longer see {ticket.key}: service desk tickets are private, and you are no longer its "
                       "reporter, a watcher or one of its workers (the project's agents, its assignment group, its "
                       "assignee). Ask its assignment group if you need it.")
    raise NotFound(f"No ticket {prefix}-{number} that you can see. Use tickets_search_tickets to find tickets.")


def _worked_on(session: Session, actor: Person, ticket: Ticket) -> bool:
    """Whether the actor has written on or changed the ticket (so it was theirs to see once)."""
    wrote = select(Comment.id).where(Comment.ticket_id == ticket.id, Comment.author_id == actor.id).limit(1)
    changed = select(HistoryEntry.id).where(HistoryEntry.ticket_id == ticket.id,
                                            HistoryEntry.changed_by_id == actor.id).limit(1)
    return session.scalar(wrote) is not None or session.scalar(changed) is not None


def resolve_group(session: Session, ref: int | str) -> Group:
    """An assignment group by exact name (any case) or id."""
    if isinstance(ref, bool) or not isinstance(ref, (int, str)) or (isinstance(ref, str) and not ref.strip()):
        raise Invalid(f"Name an assignment group by its name, got {ref!r}.")
    ident = numeric_id(ref)
    found = get_by_id(session, Group, ident) if ident is not None else session.scalar(
        select(Group).where(func.lower(Group.name) == ref.strip().lower()))
    if found is None:
        names = list(session.scalars(select(Group.name).order_by(Group.name)))
        raise NotFound(f"No assignment group {ref!r}. Groups: {_listing(names, 30)}.")
    return found


def resolve_component(session: Session, project: Project, ref: str) -> Component:
    """A component of the project by exact name (any case)."""
    if not isinstance(ref, str) or not ref.strip():
        raise Invalid(f"Name a component of {project.key} by its name, got {ref!r}.")
    found = session.scalar(select(Component).where(Component.project_id == project.id,
                                                   func.lower(Component.name) == ref.strip().lower()))
    if found is None:
        names = list(session.scalars(select(Component.name).where(Component.project_id == project.id)
                                     .order_by(Component.name)))
        raise NotFound(f"{project.key} has no component {ref!r}. Components: {_listing(names, 30) or 'none'}.")
    return found


def resolve_sprint(session: Session, project: Project, ref: int | str) -> Sprint:
    """A sprint of the project by exact name (any case) or id."""
    if isinstance(ref, bool) or not isinstance(ref, (int, str)) or (isinstance(ref, str) and not ref.strip()):
        raise Invalid(f"Name a sprint of {project.key} by its name or id, got {ref!r}.")
    ident = numeric_id(ref)
    found = get_by_id(session, Sprint, ident) if ident is not None else session.scalar(
        select(Sprint).where(Sprint.project_id == project.id, func.lower(Sprint.name) == ref.strip().lower()))
    if found is None or found.project_id != project.id:
        names = list(session.scalars(select(Sprint.name).where(Sprint.project_id == project.id).order_by(Sprint.id)))
        raise NotFound(f"{project.key} has no sprint {ref!r}. Sprints: {_listing(names) or 'none'}.")
    return found
