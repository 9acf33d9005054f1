"""Filing, reading, editing and assigning tickets.

Incidents take their priority from impact × urgency; other types take it directly. A sub-task
belongs to a parent in the same software project. Assignees must be able to work the ticket: a
member of its assignment group when it has one, otherwise one of the project's agents. Giving a New
service ticket an assignee moves it to Assigned.
"""

from __future__ import annotations

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from officegym import clock
from officegym.apps.crm.models import Account
from officegym.apps.org.models import Person
from officegym.apps.org.services import resolve_person
from officegym.errors import Forbidden, Invalid, NotFound
from officegym.journal import journaled
from officegym.values import choice, day, text, whole

from . import workflow
from .access import is_agent, require_worker
from .history import apply_changes, note_change
from .lookups import resolve_component, resolve_group, resolve_project, resolve_ticket
from .models import (LEVELS, PRIORITIES, SERVICE_TYPES, SOFTWARE_TYPES, Component, Group, GroupMember, Project, Ticket,
                     TicketComponent, TicketLabel)
from .sla import incident_priority, priority_rank

MAX_LABELS = 10
_LABEL_CHARS = set("abcdefghijklmnopqrstuvwxyz0123456789-_.")


def get_ticket(session: Session, actor: Person, key: str) -> Ticket:
    """One ticket the actor may see, by key."""
    return resolve_ticket(session, actor, key)


def labels_of(session: Session, ticket: Ticket) -> list[str]:
    """The ticket's labels, sorted."""
    return list(session.scalars(select(TicketLabel.name).where(TicketLabel.ticket_id == ticket.id)
                                .order_by(TicketLabel.name)))


def components_of(session: Session, ticket: Ticket) -> list[str]:
    """The names of the ticket's components, sorted."""
    return list(session.scalars(select(Component.name)
                                .join(TicketComponent, TicketComponent.component_id == Component.id)
                                .where(TicketComponent.ticket_id == ticket.id).order_by(Component.name)))


def sub_tasks(session: Session, ticket: Ticket) -> list[Ticket]:
    """The ticket's sub-tasks, by number."""
    return list(session.scalars(select(Ticket).where(Ticket.parent_id == ticket.id).order_by(Ticket.number)))


def parse_labels(values) -> list[str]:
    """Labels as lowercase words of letters, digits and - _ . (a list, or text split on commas/spaces)."""
    if isinstance(values, str):
        values = [v for v in values.replace(",", " ").split() if v]
    if not isinstance(values, (list, tuple)):
        raise Invalid(f"Labels are a list of words, got {values!r}.")
    labels: list[str] = []
    for value in values:
        label = text(value, "A label", 40, required=True).lower()
        if not set(label) <= _LABEL_CHARS:
            raise Invalid(f"Label {label!r} may hold only letters, digits and - _ . (no spaces).")
        if label not in labels:
            labels.append(label)
    if len(labels) > MAX_LABELS:
        raise Invalid(f"A ticket has at most {MAX_LABELS} labels; got {len(labels)}.")
    return sorted(labels)


def _component_ids(session: Session, project: Project, values) -> list[int]:
    if isinstance(values, str):
        values = [v.strip() for v in values.split(",") if v.strip()]
    if not isinstance(values, (list, tuple)):
        raise Invalid(f"Components are a list of names, got {values!r}.")
    return sorted({resolve_component(session, project, value).id for value in values})


def _account_id(session: Session, value) -> int | None:
    if value in (None, ""):
        return None
    name = text(value, "Account", 160, required=True)
    found = session.scalar(select(Account).where(func.lower(Account.name) == name.lower()))
    if found is None:
        raise NotFound(f"No CRM account named {name!r}; name the customer's account exactly (crm_list_accounts).")
    return found.id


def _field_values(session: Session, ticket_type: str, project: Project, values: dict) -> dict:
    """Parse the editable fields present in `values` into column values."""
    out: dict = {}
    if "summary" in values:
        out["summary"] = text(values["summary"], "Summary", 255, required=True)
    if "description" in values:
        out["description"] = text(values["description"], "Description", 10000)
    if "due_date" in values:
        out["due_date"] = None if values["due_date"] in (None, "") else day(values["due_date"], "Due date")
    if "story_points" in values:
        if ticket_type in SERVICE_TYPES and values["story_points"] not in (None, ""):
            raise Invalid("Story points are for software work (bugs, tasks, stories, sub-tasks), not service tickets.")
        points = values["story_points"]
        out["story_points"] = None if points in (None, "") else whole(points, "Story points", 0, 100)
    if "account" in values:
        out["account_id"] = _account_id(session, values["account"])
    is_incident = ticket_type == "Incident"
    if is_incident and values.get("priority") not in (None, ""):
        raise Invalid("An incident's priority derives from its impact and urgency; set impact and urgency instead.")
    if not is_incident and any(values.get(k) not in (None, "") for k in ("impact", "urgency")):
        raise Invalid("Impact and urgency are set on incidents only; set the priority of other tickets directly.")
    if is_incident:
        for level in ("impact", "urgency"):
            if level in values:
                out[level] = choice(values[level], LEVELS, level)
    elif values.get("priority") not in (None, ""):
        out["priority"] = choice(values["priority"], PRIORITIES, "priority")
    return out


def _derive_priority(ticket: Ticket, out: dict) -> None:
    if ticket.type == "Incident":
        out["priority"] = incident_priority(out.get("impact", ticket.impact), out.get("urgency", ticket.urgency))
    if "priority" in out:
        out["priority_rank"] = priority_rank(out["priority"])


@journaled("tickets.create_ticket")
def create_ticket(session: Session, actor: Person, project: str, type: str, summary: str, description: str = "",
                  priority: str | None = None, impact: str | None = None, urgency: str | None = None,
                  assignee: int | str | None = None, group: int | str | None = None, labels=None,
                  components=None, due_date=None, parent: str | None = None, account: str | None = None,
                  story_points: int | None = None) -> Ticket:
    """File a ticket. Service desks take incidents, service requests and problems; software
    projects take bugs, tasks, stories and sub-tasks (which need a parent)."""
    found = resolve_project(session, project)
    allowed = SERVICE_TYPES if found.is_service_desk else SOFTWARE_TYPES
    kind = choice(type, allowed, f"type of a {found.key} ticket")
    if kind == "Incident":
        impact, urgency = impact or "Medium", urgency or "Medium"
    values = _field_values(session, kind, found, {
        "summary": summary, "description": description, "priority": priority, "impact": impact, "urgency": urgency,
        "due_date": due_date, "account": account, "story_points": story_points})
    parent_ticket = _parent(session, actor, found, kind, parent)
    label_names = parse_labels(labels or [])
    component_ids = _component_ids(session, found, components or [])
    if kind == "Incident":
        values["priority"] = incident_priority(values["impact"], values["urgency"])
    values.setdefault("priority", "Medium")
    values["priority_rank"] = priority_rank(values["priority"])
    when = clock.advance(session)
    ticket = Ticket(project_id=found.id, number=found.next_number, key=f"{found.key}-{found.next_number}", type=kind,
                    status=workflow.initial_status(kind), reporter_id=actor.id, created_at=when, updated_at=when,
                    parent_id=parent_ticket.id if parent_ticket else None, **values)
    ticket.project = found
    found.next_number += 1
    session.add(ticket)
    session.flush()
    session.add_all([TicketLabel(ticket_id=ticket.id, name=name) for name in label_names])
    session.add_all([TicketComponent(ticket_id=ticket.id, component_id=cid) for cid in component_ids])
    note_change(session, actor, ticket, "created", None, ticket.key, when)
    if assignee not in (None, "") or group not in (None, ""):
        _assign(session, actor, ticket, assignee, group, when)
        require_worker(session, actor, ticket, "assign")  # only the people who work it assign a new ticket
    return ticket


def _parent(session: Session, actor: Person, project: Project, kind: str, parent) -> Ticket | None:
    if kind != "Sub-task":
        if parent not in (None, ""):
            raise Invalid("Only sub-tasks have a parent; file this as type Sub-task or leave the parent out.")
        return None
    if parent in (None, ""):
        raise Invalid("A sub-task needs a parent: give the key of the story, task or bug it belongs to.")
    found = resolve_ticket(session, actor, parent)
    if found.project_id != project.id or found.type == "Sub-task":
        raise Invalid(f"A sub-task's parent must be a bug, task or story of {project.key}; {found.key} is a "
                      f"{found.type} of {found.project.key}.")
    return found


@journaled("tickets.update_ticket")
def update_ticket(session: Session, actor: Person, key: str, summary: str | None = None,
                  description: str | None = None, priority: str | None = None, impact: str | None = None,
                  urgency: str | None = None, due_date: str | None = None, labels=None, components=None,
                  story_points: int | str | None = None, account: str | None = None) -> Ticket:
    """Change a ticket's fields; None leaves a field as it is, "" clears the due date, points and
    account, an empty list clears labels or components."""
    ticket = resolve_ticket(session, actor, key)
    require_worker(session, actor, ticket, "edit")
    given = {k: v for k, v in {"summary": summary, "description": description, "priority": priority, "impact": impact,
                               "urgency": urgency, "due_date": due_date, "story_points": story_points,
                               "account": account}.items() if v is not None}
    if not given and labels is None and components is None:
        raise Invalid("Nothing to change: give at least one field.")
    values = _field_values(session, ticket.type, ticket.project, given)
    _derive_priority(ticket, values)
    new_labels = parse_labels(labels) if labels is not None else None
    new_components = _component_ids(session, ticket.project, components) if components is not None else None
    when = clock.advance(session)
    apply_changes(session, actor, ticket, values, when)
    if new_labels is not None:
        _replace_labels(session, actor, ticket, new_labels, when)
    if new_components is not None:
        _replace_components(session, actor, ticket, new_components, when)
    return ticket


def _replace_labels(session: Session, actor: Person, ticket: Ticket, labels: list[str], when) -> None:
    old = labels_of(session, ticket)
    if old == labels:
        return
    session.execute(delete(TicketLabel).where(TicketLabel.ticket_id == ticket.id))
    session.add_all([TicketLabel(ticket_id=ticket.id, name=name) for name in labels])
    note_change(session, actor, ticket, "labels", old, labels, when)
    ticket.updated_at = when


def _replace_components(session: Session, actor: Person, ticket: Ticket, component_ids: list[int], when) -> None:
    old = components_of(session, ticket)
    current = sorted(session.scalars(
        select(TicketComponent.component_id).where(TicketComponent.ticket_id == ticket.id)))
    if current == component_ids:
        return
    session.execute(delete(TicketComponent).where(TicketComponent.ticket_id == ticket.id))
    session.add_all([TicketComponent(ticket_id=ticket.id, component_id=cid) for cid in component_ids])
    session.flush()
    note_change(session, actor, ticket, "components", old, components_of(session, ticket), when)
    ticket.updated_at = when


def group_member_ids(session: Session, group_id: int) -> list[int]:
    """Ids of the people in an assignment group."""
    return list(session.scalars(select(GroupMember.person_id).where(GroupMember.group_id == group_id)))


@journaled("tickets.assign_ticket")
def assign_ticket(session: Session, actor: Person, key: str, assignee: int | str | None = None,
                  group: int | str | None = None) -> Ticket:
    """Set the assignee and/or the assignment group; "" clears one, None leaves it."""
    ticket = resolve_ticket(session, actor, key)
    require_worker(session, actor, ticket, "assign")
    if assignee is None and group is None:
        raise Invalid("Give an assignee, an assignment group or both (\"\" unassigns).")
    _assign(session, actor, ticket, assignee, group, clock.advance(session))
    return ticket


def _assign(session: Session, actor: Person, ticket: Ticket, assignee, group, when) -> None:
    changes: dict = {}
    if group is not None:
        changes["group_id"] = None if group == "" else resolve_group(session, group).id
    group_id = changes.get("group_id", ticket.group_id)
    if assignee is not None and assignee != "":
        person = resolve_person(session, assignee)
        _check_assignable(session, ticket, person, group_id)
        changes["assignee_id"] = person.id
    elif assignee == "":
        changes["assignee_id"] = None
    elif "group_id" in changes and ticket.assignee_id is not None and group_id is not None \
            and ticket.assignee_id not in group_member_ids(session, group_id):
        changes["assignee_id"] = None  # a new group takes the ticket back into its queue
    if ticket.status == "New" and changes.get("assignee_id"):
        changes["status"] = "Assigned"  # giving a new service ticket an assignee is the Assign transition
    apply_changes(session, actor, ticket, changes, when)


def _check_assignable(session: Session, ticket: Ticket, person: Person, group_id: int | None) -> None:
    if group_id is not None:
        members = group_member_ids(session, group_id)
        if person.id not in members:
            group = session.get(Group, group_id)
            names = ", ".join(f"@{p.handle}" for p in session.scalars(
                select(Person).where(Person.id.in_(members)).order_by(Person.name)))
            raise Invalid(f"{person.name} (@{person.handle}) is not in the assignment group {group.name}; assign "
                          f"one of its members ({names or 'it has none'}) or change the group too.")
    elif not is_agent(person, ticket.project):
        raise Forbidden(f"{person.name} (@{person.handle}) does not work {ticket.project.key}: assign one of the "
                        "project's agents, or set an assignment group that includes this person.")
