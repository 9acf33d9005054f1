"""Who sees and edits which workbook: the owner does everything; people it is shared with see it,
and editors change it; nobody else learns it exists (refusals say "not found")."""

from __future__ import annotations

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from officegym.apps.org.models import Person
from officegym.errors import Forbidden

from .book import hold_workbook
from .models import Share, Workbook


def role_of(session: Session, actor: Person, workbook: Workbook) -> str | None:
    """"owner", "editor", "viewer", or None when the workbook is not shared with the actor."""
    if workbook.owner_id == actor.id:
        return "owner"
    share = session.get(Share, (workbook.id, actor.id))
    return share.role if share else None


def visible_to(actor: Person):
    """A condition on Workbook: owned by the actor or shared with them."""
    shared = select(Share.workbook_id).where(Share.person_id == actor.id)
    return or_(Workbook.owner_id == actor.id, Workbook.id.in_(shared))


def require_editor(session: Session, actor: Person, workbook: Workbook) -> None:
    """Refuse viewers: only the owner and editors change a workbook. An editor's change holds the
    workbook from here to the end of its transaction (book.hold_workbook): what it reads next, it
    reads after every write committed before, and no other writer of the workbook runs meanwhile."""
    if role_of(session, actor, workbook) not in ("owner", "editor"):
        raise Forbidden(f"You can only view '{workbook.title}'; ask its owner to make you an editor.")
    hold_workbook(session, workbook)


def require_owner(session: Session, actor: Person, workbook: Workbook, what: str) -> None:
    """Refuse everyone but the owner."""
    if workbook.owner_id != actor.id:
        raise Forbidden(f"Only the owner of '{workbook.title}' can {what}.")
