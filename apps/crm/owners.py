"""Record owners: people of the Sales department, assigned within the assigner's reach."""

from __future__ import annotations

from sqlalchemy.orm import Session

from officegym.apps.org.models import Person
from officegym.apps.org.services import resolve_person
from officegym.errors import Forbidden, Invalid

from .access import sales_department_id, scope_of


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
