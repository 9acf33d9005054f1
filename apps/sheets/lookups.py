"""Finding what a caller names: a workbook by id or title, a sheet by name, a range in A1 notation
(with or without a sheet prefix), and one stored cell by its reference. Errors say what exists instead."""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from officegym.apps.org.models import Person
from officegym.apps.org.services import get_by_id, numeric_id
from officegym.errors import Invalid, NotFound

from .access import role_of, visible_to
from .formula.a1 import Area, BadReference, parse_area
from .models import Cell, Revision, Sheet, Workbook


def resolve_workbook(session: Session, actor: Person, ref) -> Workbook:
    """A workbook the actor may see, by id (number or digits) or exact title."""
    if isinstance(ref, bool) or not isinstance(ref, (int, str)) or (isinstance(ref, str) and not ref.strip()):
        raise Invalid("Name the workbook by its id (a number) or its exact title.")
    found, ident = None, numeric_id(ref)
    if ident is not None:
        found = get_by_id(session, Workbook, ident)
    else:
        matches = list(session.scalars(select(Workbook).where(visible_to(actor),
                                                              func.lower(Workbook.title) == ref.strip().lower())
                                       .order_by(Workbook.id)))
        if len(matches) > 1:
            ids = ", ".join(str(w.id) for w in matches)
            raise Invalid(f"Several workbooks are titled '{ref.strip()}' (ids {ids}); name one by its id.")
        found = matches[0] if matches else session.scalar(  # one the actor once changed, to say it was unshared
            select(Workbook).where(func.lower(Workbook.title) == ref.strip().lower(), Workbook.id.in_(
                select(Revision.workbook_id).where(Revision.changed_by_id == actor.id))).order_by(Workbook.id).limit(1))
    if found is not None and role_of(session, actor, found) is None and _worked_on(session, actor, found):
        owner = session.get(Person, found.owner_id)
        raise NotFound(f"'{found.title}' is no longer shared with you: ask its owner, {owner.name} (@{owner.handle}), "
                       "to share it again.")
    if found is None or role_of(session, actor, found) is None:
        raise NotFound(f"No workbook {ref!r} that you can see. Use sheets_list_workbooks to find one.")
    return found


def _worked_on(session: Session, actor: Person, workbook: Workbook) -> bool:
    """Whether the actor has changed the workbook (so it was theirs to see once)."""
    return session.scalar(select(Revision.id).where(Revision.workbook_id == workbook.id,
                                                    Revision.changed_by_id == actor.id).limit(1)) is not None


def resolve_sheet(session: Session, workbook: Workbook, name: str | None, required: bool = False) -> Sheet:
    """A sheet of the workbook by name (case-insensitive); None or blank means the first sheet, unless
    the name is `required` (renaming, moving and deleting name their sheet)."""
    sheets = list(session.scalars(select(Sheet).where(Sheet.workbook_id == workbook.id).order_by(Sheet.position)))
    if name is None or (isinstance(name, str) and not name.strip()):
        if required:
            raise Invalid(f"Name the sheet. Sheets of '{workbook.title}': {', '.join(s.name for s in sheets)}.")
        return sheets[0]
    if not isinstance(name, str):
        raise Invalid("A sheet is named by text, such as 'Sheet1'.")
    for sheet in sheets:
        if sheet.name.lower() == name.strip().lower():
            return sheet
    raise NotFound(f"No sheet '{name}' in '{workbook.title}'. Sheets: {', '.join(s.name for s in sheets)}.")


def resolve_range(session: Session, workbook: Workbook, text, what: str = "range") -> tuple[Sheet, Area]:
    """(sheet, area) of A1 text such as B3, A1:C10, A:A or 'Q1 plan'!B2:B9 (no prefix: the first sheet)."""
    if not isinstance(text, str) or not text.strip():
        raise Invalid(f"Give the {what} in A1 notation, such as A1:C10 or Budget!B2.")
    try:
        area = parse_area(text)
    except BadReference as bad:
        raise Invalid(f"The {what} {text.strip()!r} is not valid: {bad}") from None
    return resolve_sheet(session, workbook, area.sheet), area



def stored_cell(session: Session, workbook_id: int, ref: str) -> Cell | None:
    """The stored row of one cell such as 'Forecast'!B7 (no access check: for graders and tests)."""
    area = parse_area(ref)
    sheets = list(session.scalars(select(Sheet).where(Sheet.workbook_id == workbook_id).order_by(Sheet.position)))
    sheet = next((s for s in sheets if area.sheet is None or s.name.lower() == area.sheet.lower()), None)
    if sheet is None or (area.sheet is None and sheets and sheet is not sheets[0]):
        return None
    return session.get(Cell, (sheet.id, area.top, area.left))
