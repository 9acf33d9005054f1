"""Workbooks: listing what the actor can see, creating, renaming and deleting them, sharing with
people as viewers or editors, and the revision history."""

from __future__ import annotations

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from officegym import clock
from officegym.apps.org.models import Person
from officegym.apps.org.services import contains, resolve_person
from officegym.errors import Conflict, Invalid
from officegym.journal import journaled
from officegym.pagination import Page, paginate
from officegym.values import choice, text

from .access import require_editor, require_owner, role_of, visible_to
from .book import forget_book
from .lookups import resolve_workbook
from .tabs import check_sheet_name
from .models import ROLES, Cell, FilterView, NamedRange, Revision, Share, Sheet, Workbook

MAX_SHEETS = 50


def list_workbooks(session: Session, actor: Person, query: str = "", offset: int = 0,
                   limit: int = 50) -> Page[Workbook]:
    """Workbooks the actor owns or that are shared with them, most recently changed first; `query`
    matches part of the title."""
    stmt = select(Workbook).where(visible_to(actor))
    if query and query.strip():
        stmt = stmt.where(contains(Workbook.title, text(query, "Search text", 120)))
    return paginate(session, stmt.order_by(Workbook.updated_at.desc(), Workbook.id.desc()), offset, limit)


def get_workbook(session: Session, actor: Person, ref) -> Workbook:
    """One workbook the actor may see, by id or exact title."""
    return resolve_workbook(session, actor, ref)


def my_role(session: Session, actor: Person, workbook: Workbook) -> str:
    """The actor's role on a workbook they see: owner, editor or viewer."""
    return role_of(session, actor, workbook) or ""


@journaled("sheets.create_workbook")
def create_workbook(session: Session, actor: Person, title: str, sheet_names: list[str] | None = None,
                    description: str = "") -> Workbook:
    """A new workbook owned by the actor, with the named sheets (one called Sheet1 by default)."""
    title = text(title, "Title", 120, required=True)
    names = sheet_names or ["Sheet1"]
    if not isinstance(names, list) or len(names) > MAX_SHEETS:
        raise Invalid(f"Give between 1 and {MAX_SHEETS} sheet names as a list.")
    names = [check_sheet_name(n) for n in names]
    if len({n.lower() for n in names}) != len(names):
        raise Invalid("Two sheets may not share a name.")
    now = clock.now(session)
    workbook = Workbook(title=title, description=text(description, "Description", 500), owner_id=actor.id,
                        created_at=now, updated_at=now)
    session.add(workbook)
    session.flush()
    for position, name in enumerate(names):
        session.add(Sheet(workbook_id=workbook.id, name=name, position=position))
    session.flush()
    return workbook


@journaled("sheets.update_workbook")
def update_workbook(session: Session, actor: Person, ref, title: str | None = None,
                    description: str | None = None) -> Workbook:
    """Rename a workbook or change its description (owner and editors)."""
    workbook = resolve_workbook(session, actor, ref)
    require_editor(session, actor, workbook)
    if title is None and description is None:
        raise Invalid("Give a new title or description.")
    if title is not None:
        workbook.title = text(title, "Title", 120, required=True)
    if description is not None:
        workbook.description = text(description, "Description", 500)
    workbook.updated_at = clock.now(session)
    return workbook


@journaled("sheets.delete_workbook")
def delete_workbook(session: Session, actor: Person, ref) -> int:
    """Delete a workbook with everything in it (owner only); returns its id."""
    workbook = resolve_workbook(session, actor, ref)
    require_owner(session, actor, workbook, "delete it")
    sheet_ids = select(Sheet.id).where(Sheet.workbook_id == workbook.id)
    for model in (Cell, FilterView):
        session.execute(delete(model).where(model.sheet_id.in_(sheet_ids)))
    for model in (NamedRange, Share, Revision):
        session.execute(delete(model).where(model.workbook_id == workbook.id))
    session.execute(delete(Sheet).where(Sheet.workbook_id == workbook.id))
    ident = workbook.id
    forget_book(session, workbook)
    session.delete(workbook)
    return ident


def list_shares(session: Session, actor: Person, ref) -> list[Share]:
    """Who the workbook is shared with, by name."""
    workbook = resolve_workbook(session, actor, ref)
    shares = list(session.scalars(select(Share).where(Share.workbook_id == workbook.id)))
    names = {p.id: p.name for p in session.scalars(select(Person).where(Person.id.in_([s.person_id for s in shares])))}
    return sorted(shares, key=lambda s: (names.get(s.person_id, ""), s.person_id))


@journaled("sheets.share_workbook")
def share_workbook(session: Session, actor: Person, ref, person, role: str = "viewer") -> Share:
    """Share with a person as viewer or editor, or change their role (owner and editors)."""
    workbook = resolve_workbook(session, actor, ref)
    require_editor(session, actor, workbook)
    role = choice(role, ROLES, "Role")
    target = resolve_person(session, person)
    if target.id == workbook.owner_id:
        raise Conflict(f"{target.name} owns '{workbook.title}' already.")
    share = session.get(Share, (workbook.id, target.id))
    if share is not None and share.role == role:
        raise Conflict(f"'{workbook.title}' is already shared with {target.name} as {role}.")
    now = clock.now(session)
    if share is None:
        share = Share(workbook_id=workbook.id, person_id=target.id, role=role, shared_by_id=actor.id, shared_at=now)
        session.add(share)
    else:
        share.role, share.shared_by_id, share.shared_at = role, actor.id, now
    session.flush()
    return share


@journaled("sheets.unshare_workbook")
def unshare_workbook(session: Session, actor: Person, ref, person) -> Person:
    """Stop sharing with a person (owner and editors; anyone may remove themselves)."""
    workbook = resolve_workbook(session, actor, ref)
    target = resolve_person(session, person)
    if target.id != actor.id:
        require_editor(session, actor, workbook)
    share = session.get(Share, (workbook.id, target.id))
    if share is None:
        raise Conflict(f"'{workbook.title}' is not shared with {target.name}.")
    session.delete(share)
    return target


def list_revisions(session: Session, actor: Person, ref, offset: int = 0, limit: int = 50) -> Page[Revision]:
    """The workbook's changes, newest first."""
    workbook = resolve_workbook(session, actor, ref)
    stmt = select(Revision).where(Revision.workbook_id == workbook.id).order_by(Revision.id.desc())
    return paginate(session, stmt, offset, limit)
