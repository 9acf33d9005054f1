"""The sheets part of a world: the workbooks a company of this size keeps, built from the other
apps' records so that the numbers agree — a sales forecast over the CRM's open deals, department
budgets and a headcount plan over the real directory, an on-call rota over the tickets app's
groups — and a few personal workbooks that make search need care.

Workbooks are drafted here as cell inputs (what a person would type: text, numbers, dates and
formulas); `insert_workbooks` stores them and `book.replace_cells` computes every formula with the
sheets engine, so no value is written by hand. The contents are drafted in seed_data.sheets_build.
"""

from __future__ import annotations

from random import Random

from sqlalchemy import func, insert, select
from sqlalchemy.orm import Session

from officegym.apps.sheets.book import replace_cells
from officegym.apps.sheets.formula.parser import read_input
from officegym.apps.sheets.models import NamedRange, Share, Sheet, Workbook

from . import sheets_build as sb
from . import sheets_more as sm
from .crm_model import Crm, business_time
from .org import Org
from .sheets_model import Sheets, WorkbookDraft, WorkbookRec
from .sheets_rota import rota
from .tickets_model import Tickets


def build_sheets(session: Session, spec, seed: int, org: Org, crm: Crm | None,
                 tickets: Tickets | None, progress=None) -> Sheets:
    """Draft and insert every seeded workbook; return the `Sheets` description for later generators.
    `progress(step, fraction)` hears how far it got (0 to 1)."""
    rng = Random(f"{seed}:sheets")  # its own stream: the sheets never reshuffle another app's draws
    drafts = [sb.forecast(org, crm, rng), sb.budget(org, rng), sb.headcount_plan(org, rng), rota(org, tickets, rng)]
    drafts = [d for d in drafts if d is not None] + sb.personal(spec, org, rng)
    if spec.workbooks:  # a big company keeps more: team pipelines, desk metrics, headcount per team
        sm.teams_tab(org, next(d for d in drafts if d.key == "headcount"))
        drafts += sm.team_pipelines(org, crm, rng) + [d for d in (sm.desk_metrics(org, tickets, rng),) if d]
    return Sheets(insert_workbooks(session, org, drafts, rng, by_kind=spec.workbooks, progress=progress))


def _kind_of(row: dict) -> int:
    """0 for a formula, 1 for a number (or date), 2 for text."""
    if row["raw"].startswith("="):
        return 0
    return 1 if isinstance(read_input(row["raw"]).value, (int, float)) else 2


def insert_workbooks(session: Session, org: Org, drafts: list[WorkbookDraft], rng: Random,
                     by_kind: bool = False, progress=None) -> list[WorkbookRec]:
    """Bulk-insert workbooks, tabs, named ranges and shares, then fill each workbook's cells through
    the sheets engine (values computed, no revision written). With `by_kind`, each workbook's cells
    are handed over grouped by what they hold (text, numbers, formulas), which lets the batch insert
    write many rows per statement: the same rows, stored faster (for big worlds)."""
    next_book = (session.scalar(select(func.max(Workbook.id))) or 0) + 1
    next_sheet = (session.scalar(select(func.max(Sheet.id))) or 0) + 1
    books, tabs, names, shares, made = [], [], [], [], []
    for book_id, draft in enumerate(drafts, start=next_book):
        books.append({"id": book_id, "title": draft.title, "description": draft.description,
                      "owner_id": draft.owner_id, "created_at": draft.created_at, "updated_at": draft.updated_at})
        ids = {}
        for position, tab in enumerate(draft.tabs):
            ids[tab.name] = next_sheet
            tabs.append({"id": next_sheet, "workbook_id": book_id, "name": tab.name, "position": position,
                         "frozen_rows": tab.frozen_rows, "frozen_cols": tab.frozen_cols})
            next_sheet += 1
        names += [{"workbook_id": book_id, "name": name, "sheet_id": ids[sheet], "ref": ref}
                  for name, sheet, ref in draft.names]
        for pid in sorted(draft.shares):
            start = max(draft.created_at, org.person(pid).since)
            shares.append({"workbook_id": book_id, "person_id": pid, "role": draft.shares[pid],
                           "shared_by_id": draft.owner_id,
                           "shared_at": business_time(rng, start, max(start, draft.updated_at))})
        made.append(WorkbookRec(book_id, draft.key, draft.title, draft.owner_id, draft.created_at,
                                draft.updated_at, ids, dict(sorted(draft.shares.items()))))
    for table, rows in ((Workbook, books), (Sheet, tabs), (NamedRange, names), (Share, shares)):
        if rows:
            session.execute(insert(table), rows)
    for k, (draft, rec) in enumerate(zip(drafts, made)):
        if progress is not None and k % 50 == 0:
            progress(f"sheets: workbook {k + 1}/{len(drafts)}", k / len(drafts))
        rows = [{"sheet_id": rec.sheets[tab.name], "row": row, "col": col, "raw": raw, "number_format": fmt}
                for tab in draft.tabs for (row, col), (raw, fmt) in sorted(tab.cells.items())]
        if by_kind:
            rows.sort(key=_kind_of)
        replace_cells(session, None, session.get(Workbook, rec.id), rows, "seed")
    return made
