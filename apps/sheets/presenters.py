"""Converters from sheets records to the output models of schemas.py.

Presenters only read. They take whole lists at once and load related rows (people, shares, cell
counts) with one query per kind of relation, never one per row. Which workbooks an actor may see
is decided by the services they call; `open_workbook` finds the workbook a tool names with the
same lookup the services use, so that a tool can present a workbook the write has just renamed or
taken out of the actor's sight.
"""

from __future__ import annotations

import base64
import json
from typing import Sequence

from sqlalchemy import case, func, select
from sqlalchemy.orm import Session

from officegym.apps.org.models import Person
from officegym.apps.org.presenters import page_out, people_briefs

from .formula.a1 import cell_text, parse_area, quote_sheet
from .lookups import resolve_sheet, resolve_workbook
from .models import Cell, FilterView, NamedRange, Revision, Share, Sheet, Workbook
from .presenters_cells import area_out, block_refs, book_ref, paste_range, range_out, row_values, written_out
from .schemas import (ConditionOut, CsvOut, DeletedOut, FilteredOut, FilterViewOut, ImportOut, NamedRangeOut,
                      RevisionOut, SharesOut, ShareOut, SheetOut, StructureOut, TabsOut, WorkbookDetailOut,
                      WorkbookOut, XlsxOut)

__all__ = ["page_out", "open_workbook", "workbooks_out", "workbook_detail_out", "sheets_out", "tabs_out",
           "shares_out", "revisions_out", "named_range_out", "range_out", "written_out", "block_refs", "area_out",
           "structure_out", "deleted_out", "filter_views_out", "filtered_out", "import_out", "csv_out", "xlsx_out",
           "shares_changed_out", "sheet_name", "paste_range", "defined_out"]


def open_workbook(session: Session, actor: Person, ref) -> Workbook:
    """The workbook a tool names, as the services find it (same refusal when it cannot be seen)."""
    return resolve_workbook(session, actor, ref)


def workbooks_out(session: Session, actor: Person, workbooks: Sequence[Workbook]) -> list[WorkbookOut]:
    """Workbooks with their owners and the actor's role on each."""
    owners = people_briefs(session, {w.owner_id for w in workbooks})
    roles = dict(session.execute(select(Share.workbook_id, Share.role).where(
        Share.person_id == actor.id, Share.workbook_id.in_([w.id for w in workbooks]))).all()) if workbooks else {}
    return [WorkbookOut(id=w.id, title=w.title, description=w.description, owner=owners[w.owner_id],
                        my_role="owner" if w.owner_id == actor.id else roles.get(w.id, ""),
                        created_at=w.created_at.isoformat(), updated_at=w.updated_at.isoformat())
            for w in workbooks]


def sheets_out(session: Session, workbook: Workbook) -> list[SheetOut]:
    """The workbook's sheets in tab order, with their used ranges and cell counts (one query)."""
    sheets = list(session.scalars(select(Sheet).where(Sheet.workbook_id == workbook.id).order_by(Sheet.position)))
    extents = {sid: (rows, cols, filled) for sid, rows, cols, filled in session.execute(
        select(Cell.sheet_id, func.max(Cell.row), func.max(Cell.col), func.sum(case((Cell.raw != "", 1), else_=0)))
        .where(Cell.sheet_id.in_([s.id for s in sheets])).group_by(Cell.sheet_id))}
    out = []
    for sheet in sheets:
        rows, cols, filled = extents.get(sheet.id, (None, None, 0))
        used = None if rows is None else ("A1" if rows == cols == 0 else f"A1:{cell_text(rows, cols)}")
        out.append(SheetOut(name=sheet.name, position=sheet.position + 1, frozen_rows=sheet.frozen_rows,
                            frozen_columns=sheet.frozen_cols, used_range=used, cell_count=filled or 0))
    return out


def shares_out(session: Session, workbook_id: int) -> list[ShareOut]:
    """Who a workbook is shared with, by name."""
    shares = list(session.scalars(select(Share).where(Share.workbook_id == workbook_id)))
    people = people_briefs(session, {s.person_id for s in shares} | {s.shared_by_id for s in shares})
    shares.sort(key=lambda s: (people[s.person_id].name, s.person_id))
    return [ShareOut(person=people[s.person_id], role=s.role, shared_by=people[s.shared_by_id],
                     shared_at=s.shared_at.isoformat()) for s in shares]


def named_range_out(named: NamedRange, sheet: str) -> NamedRangeOut:
    """A named range with its sheet's name."""
    return NamedRangeOut(name=named.name, sheet=sheet, range=named.ref, ref=f"{quote_sheet(sheet)}!{named.ref}")


def defined_out(session: Session, named: NamedRange) -> NamedRangeOut:
    """A named range just defined."""
    return named_range_out(named, session.get(Sheet, named.sheet_id).name)


def workbook_detail_out(session: Session, actor: Person, workbook: Workbook) -> WorkbookDetailOut:
    """One workbook with its sheets, named ranges and shares."""
    names = {s.id: s.name for s in session.scalars(select(Sheet).where(Sheet.workbook_id == workbook.id))}
    named = [named_range_out(n, names[n.sheet_id]) for n in session.scalars(
        select(NamedRange).where(NamedRange.workbook_id == workbook.id).order_by(NamedRange.name))]
    return WorkbookDetailOut(**workbooks_out(session, actor, [workbook])[0].model_dump(),
                             sheets=sheets_out(session, workbook), named_ranges=named,
                             shares=shares_out(session, workbook.id))


def tabs_out(session: Session, workbook: Workbook, sheet: str) -> TabsOut:
    """The workbook's sheets after a change of the sheet named `sheet`."""
    return TabsOut(workbook=book_ref(workbook), sheet=sheet, sheets=sheets_out(session, workbook))


def shares_changed_out(session: Session, workbook_id: int, person_id: int) -> SharesOut:
    """The shares of a workbook after one person's access changed."""
    share = session.get(Share, (workbook_id, person_id))
    return SharesOut(workbook=book_ref(session.get(Workbook, workbook_id)),
                     person=people_briefs(session, {person_id})[person_id],
                     role=share.role if share else None, shares=shares_out(session, workbook_id))


def revisions_out(session: Session, revisions: Sequence[Revision]) -> list[RevisionOut]:
    """Revisions with who made them."""
    people = people_briefs(session, {r.changed_by_id for r in revisions})
    return [RevisionOut(id=r.id, sheet=r.sheet_name, cell=r.cell, action=r.action, old_input=r.old_raw,
                        new_input=r.new_raw, changed_by=people[r.changed_by_id], changed_at=r.changed_at.isoformat())
            for r in revisions]


def structure_out(session: Session, workbook: Workbook, sheet: str | None, summary: str, count: int) -> StructureOut:
    """A sheet (None: the whole workbook) after a structural edit."""
    used = None
    if sheet is not None:
        used = next(s.used_range for s in sheets_out(session, workbook) if s.name == sheet)
    return StructureOut(workbook=book_ref(workbook), sheet=sheet, summary=summary, count=count, used_range=used)


def sheet_name(session: Session, workbook: Workbook, sheet: str | None) -> str:
    """The stored name of a sheet a tool named (None: the first sheet)."""
    return resolve_sheet(session, workbook, sheet).name


def deleted_out(workbook: Workbook, what: str, name: str) -> DeletedOut:
    """What a delete removed, and from which workbook."""
    return DeletedOut(workbook=book_ref(workbook), deleted=what, name=name)


def filter_views_out(session: Session, views: Sequence[FilterView]) -> list[FilterViewOut]:
    """Filter views with their sheets and creators."""
    names = dict(session.execute(select(Sheet.id, Sheet.name).where(
        Sheet.id.in_({v.sheet_id for v in views}))).all()) if views else {}
    people = people_briefs(session, {v.created_by_id for v in views})
    return [FilterViewOut(id=v.id, name=v.name, sheet=names[v.sheet_id], range=v.ref,
                          criteria=[ConditionOut(**c) for c in json.loads(v.criteria)],
                          sort_column=v.sort_column or None, sort_descending=v.sort_descending,
                          created_by=people[v.created_by_id]) for v in views]


def filtered_out(session: Session, workbook: Workbook, sheet: str | None, name: str, rows: list[int]) -> FilteredOut:
    """A filter view with the rows it shows and their values (first 200 rows)."""
    target = resolve_sheet(session, workbook, sheet)
    view = session.scalar(select(FilterView).where(FilterView.sheet_id == target.id,
                                                   FilterView.name.ilike(str(name).strip())))
    return FilteredOut(view=filter_views_out(session, [view])[0], rows=rows,
                       values=row_values(session, target, parse_area(view.ref), rows[:200]))


def import_out(session: Session, workbook: Workbook, names: list[str], cells: int | None = None) -> ImportOut:
    """The sheets an import filled and how many cells it wrote (counted when not given)."""
    wanted = {n.lower() for n in names}
    sheets = [s for s in sheets_out(session, workbook) if s.name.lower() in wanted]
    return ImportOut(workbook=book_ref(workbook), sheets=sheets,
                     cells=sum(s.cell_count for s in sheets) if cells is None else cells)


def csv_out(session: Session, workbook: Workbook, sheet: str | None, text: str) -> CsvOut:
    """A sheet's CSV export."""
    return CsvOut(workbook=book_ref(workbook), sheet=sheet_name(session, workbook, sheet), csv=text,
                  rows=len(text.splitlines()))


def xlsx_out(workbook: Workbook, data: str) -> XlsxOut:
    """A workbook's XLSX export (base64 text)."""
    safe = "".join(ch if ch.isalnum() or ch in " -_." else "_" for ch in workbook.title).strip() or "workbook"
    return XlsxOut(workbook=book_ref(workbook), filename=f"{safe}.xlsx", base64=data,
                   size=len(base64.b64decode(data)))
