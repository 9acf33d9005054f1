"""Who sees and works which ticket.

- Workspace admins see and do everything.
- A project's agents are the people of its department and its lead. A ticket's workers are the
  project's agents, the members of its assignment group and its assignee.
- Software projects are open: everyone reads them, files tickets and comments; workers change
  tickets.
- Service desks are private: everyone raises requests, but outside the workers a person sees only
  the requests they reported or watch, and never the internal work notes.
- Handing a ticket over (changing its group or assignee) does not hide it from the person who did:
  they keep seeing it, its work notes included, and may still comment and add work notes, though
  only its workers change it.
- The project lead (and admins) administer a project: its details, components and sprints.
"""

from __future__ import annotations

from sqlalchemy import false, or_, select, true
from sqlalchemy.orm import Session

from officegym.apps.org.models import Person
from officegym.errors import Forbidden

from .models import GroupMember, HistoryEntry, Project, Ticket, Watcher

HAND_OVER = ("group", "assignee")  # the history fields that move a ticket between queues


def _groups_of(session: Session, actor: Person) -> frozenset[int]:
    key = ("tickets_groups", actor.id)
    if key not in session.info:
        session.info[key] = frozenset(session.scalars(
            select(GroupMember.group_id).where(GroupMember.person_id == actor.id)))
    return session.info[key]


def is_agent(actor: Person, project: Project) -> bool:
    """Whether the actor works the project's queue (its department, its lead, admins)."""
    return actor.is_admin or actor.department_id == project.department_id or actor.id == project.lead_id


def is_worker(session: Session, actor: Person, ticket: Ticket) -> bool:
    """Whether the actor may change the ticket: agents, the assignment group, the assignee."""
    return (is_agent(actor, ticket.project) or ticket.assignee_id == actor.id
            or (ticket.group_id is not None and ticket.group_id in _groups_of(session, actor)))


def handed_over(session: Session, actor: Person, ticket: Ticket) -> bool:
    """Whether the actor has moved the ticket between queues (changed its group or assignee)."""
    return session.scalar(select(HistoryEntry.id).where(
        HistoryEntry.ticket_id == ticket.id, HistoryEntry.changed_by_id == actor.id,
        HistoryEntry.field.in_(HAND_OVER)).limit(1)) is not None


def can_see(session: Session, actor: Person, ticket: Ticket) -> bool:
    """Whether the actor may see the ticket at all."""
    if not ticket.project.is_service_desk or is_worker(session, actor, ticket) or ticket.reporter_id == actor.id:
        return True
    return session.get(Watcher, (ticket.id, actor.id)) is not None or handed_over(session, actor, ticket)


def read_filter(session: Session, actor: Person):
    """A WHERE condition over Ticket keeping the tickets the actor may see."""
    if actor.is_admin:
        return true()
    open_projects = select(Project.id).where(or_(Project.kind != "service_desk",
                                                 Project.department_id == actor.department_id,
                                                 Project.lead_id == actor.id))
    groups = sorted(_groups_of(session, actor))
    watched = select(Watcher.ticket_id).where(Watcher.person_id == actor.id)
    handed = select(HistoryEntry.ticket_id).where(HistoryEntry.changed_by_id == actor.id,
                                                   HistoryEntry.field.in_(HAND_OVER))
    return or_(Ticket.project_id.in_(open_projects), Ticket.reporter_id == actor.id, Ticket.assignee_id == actor.id,
               Ticket.group_id.in_(groups) if groups else false(), Ticket.id.in_(watched), Ticket.id.in_(handed))


def can_see_notes(session: Session, actor: Person, ticket: Ticket) -> bool:
    """Internal work notes are for workers, and for whoever handed the ticket over to them."""
    return is_worker(session, actor, ticket) or handed_over(session, actor, ticket)


def require_note_writer(session: Session, actor: Person, ticket: Ticket) -> None:
    """Refuse a work note by someone who neither works the ticket nor handed it over."""
    if not can_see_notes(session, actor, ticket):
        require_worker(session, actor, ticket, "add work notes to")


def require_worker(session: Session, actor: Person, ticket: Ticket, doing: str) -> None:
    """Refuse a change by someone who does not work the ticket, saying who does."""
    if not is_worker(session, actor, ticket):
        project = ticket.project
        handed = (" You handed it over: you still see it and may comment and add work notes."
                  if handed_over(session, actor, ticket) else " You can comment on tickets you can see.")
        raise Forbidden(f"You cannot {doing} {ticket.key}: only the {project.name} project's agents, the members of "
                        "the ticket's assignment group and its assignee can." + handed)


def require_lead(actor: Person, project: Project, doing: str) -> None:
    """Refuse project administration to anyone but its lead and admins."""
    if not (actor.is_admin or actor.id == project.lead_id):
        raise Forbidden(f"Only the lead of {project.key} ({project.name}) and workspace admins can {doing}.")
