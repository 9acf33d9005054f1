"""Summary tables (pivot-like): group a range's rows by one column and aggregate another, written
into a sheet as live formulas (SUMIF, COUNTIF, AVERAGEIF, MINIFS, MAXIFS) with a total row."""

from __future__ import annotations

from functools import cmp_to_key

from sqlalchemy import select
from sqlalchemy.orm import Session

from officegym.apps.org.models import Person
from officegym.errors import Conflict, Invalid
from officegym.journal import journaled
from officegym.values import choice

from .access import require_editor
from .book import Change, cell_value, sheets_of, store_inputs
from .cells import clip
from .formula.a1 import MAX_COLS, MAX_ROWS, BadReference, cell_text, col_name, parse_area, quote_sheet
from .formula.values import compare, to_text
from .lookups import resolve_range, resolve_workbook
from .models import Cell
from .structure import column_number, literal_input
from .tabs import create_sheet

AGGREGATES = ("sum", "count", "average", "min", "max")
MAX_GROUPS = 500


def _formula(aggregate: str, groups: str, values: str, key: str) -> str:
    return {"sum": f"=SUMIF({groups},{key},{values})", "count": f"=COUNTIF({groups},{key})",
            "average": f"=AVERAGEIF({groups},{key},{values})", "min": f"=MINIFS({values},{groups},{key})",
            "max": f"=MAXIFS({values},{groups},{key})"}[aggregate]


@journaled("sheets.create_summary_table")
def create_summary_table(session: Session, actor: Person, workbook, source: str, group_by, value_column,
                         aggregate: str, target: str) -> str:
    """Group the rows of `source` (header row first) by one column and aggregate another into a table
    at `target` (such as Summary!A1; a missing sheet is created). Returns the table's A1 range."""
    found = resolve_workbook(session, actor, workbook)
    require_editor(session, actor, found)
    aggregate = choice(aggregate, AGGREGATES, "Aggregate")
    sheet, area = resolve_range(session, found, source, "source range")
    area = clip(session, sheet, area)
    group_col, value_col = column_number(group_by, "Group-by column"), column_number(value_column, "Value column")
    for col, what in ((group_col, "group-by"), (value_col, "value")):
        if not area.left <= col <= area.right:
            raise Invalid(f"The {what} column {col_name(col)} is outside the source range {area.text(False)}.")
    if area.height < 2:
        raise Invalid("The source range needs a header row and at least one row of data.")
    values = {(c.row, c.col): cell_value(c.kind, c.number, c.text) for c in session.scalars(select(Cell).where(
        Cell.sheet_id == sheet.id, Cell.row.between(area.top, area.bottom), Cell.col.in_((group_col, value_col))))}
    keys = []
    for row in range(area.top + 1, area.bottom + 1):
        key = values.get((row, group_col))
        if key not in (None, "") and not any(compare(key, k) == 0 for k in keys):
            keys.append(key)
    if not keys:
        raise Invalid(f"Column {col_name(group_col)} of {area.text(False)} has no values to group by.")
    if len(keys) > MAX_GROUPS:
        raise Invalid(f"Column {col_name(group_col)} has {len(keys)} distinct values; a summary holds {MAX_GROUPS}.")
    keys.sort(key=cmp_to_key(compare))
    to_sheet, anchor = _target(session, actor, found, target)
    height, top, left = len(keys) + 2, anchor.top, anchor.left
    if top + height > MAX_ROWS or left + 2 > MAX_COLS:
        raise Invalid("The summary table would run past the end of the sheet.")
    occupied = session.scalar(select(Cell.row).where(Cell.sheet_id == to_sheet.id, Cell.raw != "",
                                                     Cell.row.between(top, top + height - 1),
                                                     Cell.col.between(left, left + 1)).limit(1))
    if occupied is not None:
        raise Conflict(f"The table needs {cell_text(top, left)}:{cell_text(top + height - 1, left + 1)} on "
                       f"{to_sheet.name} empty; clear it or pick another place.")
    prefix = quote_sheet(sheet.name) + "!"
    first, last = area.top + 1, area.bottom
    groups = f"{prefix}${col_name(group_col)}${first + 1}:${col_name(group_col)}${last + 1}"
    sums = f"{prefix}${col_name(value_col)}${first + 1}:${col_name(value_col)}${last + 1}"
    header_group = to_text(values.get((area.top, group_col))) or col_name(group_col)
    header_value = to_text(values.get((area.top, value_col))) or col_name(value_col)
    changes = [Change(to_sheet, top, left, literal_input(header_group)),
               Change(to_sheet, top, left + 1, literal_input(f"{aggregate.upper()} of {header_value}"))]
    for offset, key in enumerate(keys, start=1):
        changes.append(Change(to_sheet, top + offset, left, literal_input(key)))
        changes.append(Change(to_sheet, top + offset, left + 1,
                              _formula(aggregate, groups, sums, cell_text(top + offset, left))))
    total_row = top + len(keys) + 1
    column = col_name(left + 1)
    total = {"sum": "SUM", "count": "SUM", "average": "AVERAGE", "min": "MIN", "max": "MAX"}[aggregate]
    changes.append(Change(to_sheet, total_row, left, "Total"))
    changes.append(Change(to_sheet, total_row, left + 1,
                          f"=AVERAGE({sums})" if aggregate == "average" else
                          f"={total}({column}{top + 2}:{column}{total_row})"))
    store_inputs(session, actor, found, changes, f"summary of {sheet.name}!{area.text(False)}")
    return f"{quote_sheet(to_sheet.name)}!{cell_text(top, left)}:{cell_text(total_row, left + 1)}"


def _target(session, actor, workbook, target: str):
    if not isinstance(target, str) or not target.strip():
        raise Invalid("Give the target cell, such as Summary!A1.")
    try:
        area = parse_area(target)
    except BadReference as bad:
        raise Invalid(f"The target {target!r} is not valid: {bad}") from None
    if not area.single:
        raise Invalid("The target is one cell, the table's top-left corner, such as Summary!A1.")
    existing = {s.name.lower(): s for s in sheets_of(session, workbook)}
    if area.sheet and area.sheet.lower() not in existing:
        return create_sheet(session, actor, workbook.id, area.sheet), area
    return resolve_range(session, workbook, target, "target cell")[0], area

