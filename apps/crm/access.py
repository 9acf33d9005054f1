"""Who may read and edit which CRM record.

- Workspace admins read and edit everything.
- Sales people read their own records and their team's, and edit their own; a manager (a team
  lead, the head of Sales) also reads and edits the records of everyone who reports to them,
  directly or not.
- Everyone else reads accounts and contacts only.

A record's "owner" decides; activities follow the record they are attached to. An owner is a person
of the Sales department, assigned within the assigner's reach (resolve_owner).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select, true
from sqlalchemy.orm import Session

from officegym.apps.org.models import Department, Person
from officegym.apps.org.services import resolve_person
from officegym.errors import Forbidden, Invalid

SALES = "Sales"


@dataclass(frozen=True)
class Scope:
    """The owners whose records an actor may read and edit (None means everyone's)."""

    is_admin: bool
    is_sales: bool
    readable: frozenset[int] | None
    editable: frozenset[int] | None

    def can_read(self, owner_id: int) -> bool:
        """Whether records owned by `owner_id` are visible."""
        return self.readable is None or owner_id in self.readable

    def can_edit(self, owner_id: int) -> bool:
        """Whether records owned by `owner_id` may be changed."""
        return self.editable is None or owner_id in self.editable

    def read_filter(self, owner_column):
        """A WHERE condition keeping the rows an actor may read."""
        return true() if self.readable is None else owner_column.in_(sorted(self.readable))


def sales_department_id(session: Session) -> int | None:
    """Id of the Sales department (None in a company without one)."""
    return session.scalar(select(Department.id).where(Department.name == SALES))


def reports_of(session: Session, manager: Person) -> set[int]:
    """Everyone who reports to `manager`, directly or through others."""
    found: set[int] = set()
    frontier = {manager.id}
    while frontier:
        below = set(session.scalars(select(Person.id).where(Person.manager_id.in_(sorted(frontier))))) - found
        found |= below
        frontier = below
    return found


def scope_of(session: Session, actor: Person) -> Scope:
    """The actor's CRM reach, computed once per transaction."""
    key = ("crm_scope", actor.id)
    if key in session.info:
        return session.info[key]
    if actor.is_admin:
        scope = Scope(True, actor.department_id == sales_department_id(session), None, None)
    elif actor.department_id != sales_department_id(session):
        scope = Scope(False, False, frozenset(), frozenset())
    else:
        managed = reports_of(session, actor)
        team = set(session.scalars(select(Person.id).where(Person.team_id == actor.team_id))) \
            if actor.team_id else set()
        editable = frozenset(managed | {actor.id})
        scope = Scope(False, True, frozenset(editable | team), editable)
    session.info[key] = scope
    return scope


def require_sales(session: Session, actor: Person, what: str) -> Scope:
    """The actor's scope, or a refusal for people outside Sales (who read accounts and contacts only)."""
    scope = scope_of(session, actor)
    if not (scope.is_admin or scope.is_sales):
        raise Forbidden(f"Only the Sales department and admins can {what}; outside Sales you can read "
                        "accounts and contacts (crm_list_accounts, crm_list_contacts).")
    return scope


def require_edit(session: Session, actor: Person, owner_id: int, label: str) -> None:
    """Refuse a change to a record the actor may not edit, naming the owner."""
    scope = require_sales(session, actor, f"change {label}")
    if not scope.can_edit(owner_id):
        owner = session.get(Person, owner_id)
        raise Forbidden(f"{label} is owned by {owner.name} (@{owner.handle}); you can edit your own records"
                        " and, as a manager, those of the people who report to you.")


def require_read(session: Session, actor: Person, owner_id: int, label: str) -> None:
    """Refuse to show a record outside the actor's reach, naming why."""
    scope = require_sales(session, actor, f"see {label}")
    if not scope.can_read(owner_id):
        raise Forbidden(f"{label} belongs to another sales team; you can see your own records and your team's.")


def resolve_owner(session: Session, ref, actor: Person | None = None, assigning: bool = False) -> Person:
    """The person named as a record owner. With `assigning`, the actor must be allowed to hand
    records to them (themself; a manager also the people who report to them; admins anyone in
    Sales). No name means the actor."""
    if ref is None or ref == "":
        if actor is None:
            raise Invalid("Name an owner by id, @handle, email or full name.")
        return actor
    person = resolve_person(session, ref)
    if assigning and actor is not None and person.id != actor.id:
        if person.department_id != sales_department_id(session):
            raise Invalid(f"{person.name} is not in Sales; CRM records are owned by the Sales department.")
        if not scope_of(session, actor).can_edit(person.id):
            raise Forbidden(f"You cannot give records to {person.name} (@{person.handle}): you may assign "
                            "records to yourself and, as a manager, to the people who report to you.")
    return person
