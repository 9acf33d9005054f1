"""Sheets (tabs) of a workbook: adding, renaming, moving and deleting them, and freezing header
rows. Renaming rewrites the references of every formula that names the sheet; deleting turns them
into #REF!."""

from __future__ import annotations

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from officegym.apps.org.models import Person
from officegym.errors import Conflict, Invalid
from officegym.journal import journaled
from officegym.values import whole

from .access import require_editor
from .book import all_rows, recalculate_all, replace_cells, sheets_of
from .formula.shift import Edit, rewrite
from .lookups import resolve_sheet, resolve_workbook
from .models import Cell, FilterView, NamedRange, Sheet

MAX_SHEETS = 50
_FORBIDDEN = set("[]*?/\\:")


def check_sheet_name(name) -> str:
    """A sheet name: 1 to 100 characters, none of [ ] * ? / \\ :, not starting or ending with '."""
    if not isinstance(name, str) or not name.strip():
        raise Invalid("A sheet needs a name, such as 'Q1 plan'.")
    name = name.strip()
    if len(name) > 100:
        raise Invalid(f"A sheet name has at most 100 characters; {name[:20]!r}... has {len(name)}.")
    bad = sorted(set(name) & _FORBIDDEN)
    if bad or name.startswith("'") or name.endswith("'"):
        raise Invalid(f"Sheet name {name!r} may not contain {' '.join(bad) or 'a leading or trailing quote'}.")
    return name


def list_sheets(session: Session, actor: Person, workbook) -> list[Sheet]:
    """The workbook's sheets in tab order."""
    return sheets_of(session, resolve_workbook(session, actor, workbook))


def _unique(sheets: list[Sheet], name: str, keep: Sheet | None = None) -> None:
    if any(s.name.lower() == name.lower() and s is not keep for s in sheets):
        raise Conflict(f"The workbook already has a sheet named '{name}'.")


@journaled("sheets.create_sheet")
def create_sheet(session: Session, actor: Person, workbook, name: str, position: int | None = None) -> Sheet:
    """Add a sheet, at the end or at a 1-based tab position."""
    found = resolve_workbook(session, actor, workbook)
    require_editor(session, actor, found)
    name = check_sheet_name(name)
    sheets = sheets_of(session, found)
    if len(sheets) >= MAX_SHEETS:
        raise Conflict(f"A workbook holds at most {MAX_SHEETS} sheets.")
    _unique(sheets, name)
    index = len(sheets) if position is None else whole(position, "Position", 1, len(sheets) + 1) - 1
    for later in sheets[index:]:
        later.position += 1
    sheet = Sheet(workbook_id=found.id, name=name, position=index)
    session.add(sheet)
    session.flush()
    recalculate_all(session, actor, found, f"add sheet {name}")  # formulas may have been waiting for it
    return sheet


@journaled("sheets.rename_sheet")
def rename_sheet(session: Session, actor: Person, workbook, sheet: str, new_name: str) -> Sheet:
    """Rename a sheet; formulas that name it follow."""
    found = resolve_workbook(session, actor, workbook)
    require_editor(session, actor, found)
    target = resolve_sheet(session, found, sheet, required=True)
    new_name = check_sheet_name(new_name)
    if new_name == target.name:
        raise Conflict(f"The sheet is already named '{new_name}'.")
    _unique(sheets_of(session, found), new_name, keep=target)
    edit = Edit("rename_sheet", sheet=target.name, new_name=new_name)
    names = {s.id: s.name for s in sheets_of(session, found)}
    rows = [_rewritten(item, names, edit) for item in all_rows(session, found)]
    old = target.name
    target.name = new_name
    session.flush()
    replace_cells(session, actor, found, rows, f"rename sheet {old} to {new_name}")
    return target


@journaled("sheets.delete_sheet")
def delete_sheet(session: Session, actor: Person, workbook, sheet: str) -> str:
    """Delete a sheet and its cells; formulas elsewhere that read it show #REF!. Returns its name."""
    found = resolve_workbook(session, actor, workbook)
    require_editor(session, actor, found)
    target = resolve_sheet(session, found, sheet, required=True)
    sheets = sheets_of(session, found)
    if len(sheets) == 1:
        raise Conflict("A workbook keeps at least one sheet; add another before deleting this one.")
    edit = Edit("delete_sheet", sheet=target.name)
    names = {s.id: s.name for s in sheets}
    rows = [_rewritten(item, names, edit) for item in all_rows(session, found) if item["sheet_id"] != target.id]
    for model in (Cell, FilterView, NamedRange):
        session.execute(delete(model).where(model.sheet_id == target.id))
    for later in sheets:
        if later.position > target.position:
            later.position -= 1
    name = target.name
    session.delete(target)
    session.flush()
    replace_cells(session, actor, found, rows, f"delete sheet {name}")
    return name


@journaled("sheets.move_sheet")
def move_sheet(session: Session, actor: Person, workbook, sheet: str, position: int) -> Sheet:
    """Move a sheet to a 1-based tab position."""
    found = resolve_workbook(session, actor, workbook)
    require_editor(session, actor, found)
    target = resolve_sheet(session, found, sheet, required=True)
    sheets = sheets_of(session, found)
    index = whole(position, "Position", 1, len(sheets)) - 1
    order = [s for s in sheets if s is not target]
    order.insert(index, target)
    for k, item in enumerate(order):
        item.position = k
    return target


@journaled("sheets.freeze")
def freeze(session: Session, actor: Person, workbook, sheet: str | None, rows: int = 0, cols: int = 0) -> Sheet:
    """Keep the first rows and columns of a sheet in view (0 unfreezes)."""
    found = resolve_workbook(session, actor, workbook)
    require_editor(session, actor, found)
    target = resolve_sheet(session, found, sheet)
    target.frozen_rows = whole(rows, "Frozen rows", 0, 20)
    target.frozen_cols = whole(cols, "Frozen columns", 0, 10)
    return target


def _rewritten(item: dict, names: dict[int, str], edit: Edit) -> dict:
    raw = item["raw"]
    if raw.startswith("=") and len(raw) > 1:
        raw = "=" + rewrite(raw[1:], names[item["sheet_id"]], edit)
    return {**item, "raw": raw}


def rewrite_all(rows: list[dict], names: dict[int, str], edit: Edit) -> list[dict]:
    """Every formula of the rows adjusted to a structural edit."""
    return [_rewritten(item, names, edit) for item in rows]


def named_ranges(session: Session, workbook_id: int) -> list[NamedRange]:
    """The workbook's named ranges, by name."""
    return list(session.scalars(select(NamedRange).where(NamedRange.workbook_id == workbook_id)
                                .order_by(NamedRange.name)))
