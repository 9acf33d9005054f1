"""Named ranges (=SUM(Revenue)) and filter views (saved conditions on a range's columns)."""

from __future__ import annotations

import json
import re
from functools import cmp_to_key

from sqlalchemy import select
from sqlalchemy.orm import Session

from officegym.apps.org.models import Person
from officegym.errors import Conflict, Invalid, NotFound
from officegym.journal import journaled
from officegym.values import choice, text

from .access import require_editor
from .book import cell_value, recalculate_all
from .cells import MAX_READ, clip
from .formula.a1 import col_index, parse_area
from .formula.criteria import matcher
from .formula.values import compare
from .lookups import resolve_range, resolve_sheet, resolve_workbook
from .models import Cell, FilterView, NamedRange, Sheet

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.]{0,59}$")
_CELL_LIKE = re.compile(r"^[A-Za-z]{1,3}[0-9]+$")
OPERATORS = ("=", "!=", ">", ">=", "<", "<=", "contains", "not contains", "empty", "not empty")


def check_range_name(name) -> str:
    """A name for a range: a letter or _ then letters, digits, _ or ., not a cell such as Q1."""
    if not isinstance(name, str) or not _NAME.match(name.strip()):
        raise Invalid("A range name starts with a letter and holds letters, digits, _ or . (60 at most); "
                      f"got {name!r}.")
    name = name.strip()
    # Formulas read letters then digits as a cell even past the sheet's edge (ZZZ1 is a bad cell there,
    # not a name), so such a name could never be used.
    if _CELL_LIKE.match(name) or name.upper() in ("TRUE", "FALSE"):
        raise Invalid(f"{name!r} reads as a cell or value in formulas; pick another name.")
    return name


@journaled("sheets.define_named_range")
def define_named_range(session: Session, actor: Person, workbook, name: str, ref: str) -> NamedRange:
    """Name a range (Data!B2:B40), or point an existing name at a new range; formulas recalculate."""
    found = resolve_workbook(session, actor, workbook)
    require_editor(session, actor, found)
    name = check_range_name(name)
    sheet, area = resolve_range(session, found, ref)
    named = session.scalar(select(NamedRange).where(NamedRange.workbook_id == found.id,
                                                    NamedRange.name.ilike(name)))
    if named is None:
        named = NamedRange(workbook_id=found.id, name=name, sheet_id=sheet.id, ref=area.text(False))
        session.add(named)
    else:
        named.name, named.sheet_id, named.ref = name, sheet.id, area.text(False)
    session.flush()
    recalculate_all(session, actor, found, f"name {name} = {sheet.name}!{area.text(False)}")
    return named


@journaled("sheets.delete_named_range")
def delete_named_range(session: Session, actor: Person, workbook, name: str) -> str:
    """Remove a name; formulas using it show #NAME?."""
    found = resolve_workbook(session, actor, workbook)
    require_editor(session, actor, found)
    named = session.scalar(select(NamedRange).where(NamedRange.workbook_id == found.id,
                                                    NamedRange.name.ilike(str(name).strip())))
    if named is None:
        raise NotFound(f"No range named {name!r} in '{found.title}'.")
    session.delete(named)
    session.flush()
    recalculate_all(session, actor, found, f"remove the name {named.name}")
    return named.name


def list_named_ranges(session: Session, actor: Person, workbook) -> list[tuple[NamedRange, str]]:
    """(named range, its sheet's name) of a workbook, by name."""
    found = resolve_workbook(session, actor, workbook)
    sheets = {s.id: s.name for s in session.scalars(select(Sheet).where(Sheet.workbook_id == found.id))}
    return [(n, sheets[n.sheet_id]) for n in session.scalars(
        select(NamedRange).where(NamedRange.workbook_id == found.id).order_by(NamedRange.name))]


def _criteria(criteria, area) -> list[dict]:
    if not isinstance(criteria, list):
        raise Invalid("Criteria are a list such as [{\"column\": \"C\", \"op\": \">\", \"value\": \"5000\"}].")
    if len(criteria) > 10:
        raise Invalid("A filter view holds at most 10 conditions.")
    clean = []
    for item in criteria:
        if not isinstance(item, dict):
            raise Invalid("Each condition is an object with column, op and value.")
        column = str(item.get("column", "")).strip().upper()
        if not (column.isascii() and column.isalpha()) or not area.left <= col_index(column) <= area.right:
            raise Invalid(f"Condition column {column or '(none)'} is not a column of the range {area.text(False)}.")
        op = choice(item.get("op", "="), OPERATORS, "Condition operator")
        value = "" if op in ("empty", "not empty") else text(str(item.get("value", "")), "Condition value", 200)
        clean.append({"column": column, "op": op, "value": value})
    return clean


@journaled("sheets.create_filter_view")
def create_filter_view(session: Session, actor: Person, workbook, name: str, ref: str, criteria: list,
                       sort_column: str = "", sort_descending: bool = False) -> FilterView:
    """Save a filter view over a range whose first row is the header: conditions on columns and a sort."""
    found = resolve_workbook(session, actor, workbook)
    require_editor(session, actor, found)
    sheet, area = resolve_range(session, found, ref)
    name = text(name, "Filter view name", 80, required=True)
    if session.scalar(select(FilterView.id).where(FilterView.sheet_id == sheet.id, FilterView.name.ilike(name))):
        raise Conflict(f"Sheet {sheet.name} already has a filter view named '{name}'.")
    sort = str(sort_column or "").strip().upper()
    if sort and (not (sort.isascii() and sort.isalpha()) or not area.left <= col_index(sort) <= area.right):
        raise Invalid(f"Sort column {sort} is not a column of the range {area.text(False)}.")
    view = FilterView(sheet_id=sheet.id, name=name, ref=area.text(False),
                      criteria=json.dumps(_criteria(criteria, area)),
                      sort_column=sort, sort_descending=bool(sort_descending), created_by_id=actor.id)
    session.add(view)
    session.flush()
    return view


def list_filter_views(session: Session, actor: Person, workbook, sheet: str | None = None) -> list[FilterView]:
    """Filter views of one sheet (or of every sheet), by name."""
    found = resolve_workbook(session, actor, workbook)
    ids = [resolve_sheet(session, found, sheet).id] if sheet else list(
        session.scalars(select(Sheet.id).where(Sheet.workbook_id == found.id)))
    return list(session.scalars(select(FilterView).where(FilterView.sheet_id.in_(ids)).order_by(FilterView.name)))


def _view(session, actor, workbook, sheet, name) -> tuple[Sheet, FilterView]:
    found = resolve_workbook(session, actor, workbook)
    target = resolve_sheet(session, found, sheet)
    view = session.scalar(select(FilterView).where(FilterView.sheet_id == target.id,
                                                   FilterView.name.ilike(str(name).strip())))
    if view is None:
        names = ", ".join(v.name for v in session.scalars(select(FilterView).where(FilterView.sheet_id == target.id)))
        raise NotFound(f"No filter view {name!r} on {target.name}. Views: {names or 'none'}.")
    return target, view


@journaled("sheets.delete_filter_view")
def delete_filter_view(session: Session, actor: Person, workbook, sheet: str | None, name: str) -> str:
    """Remove a filter view."""
    require_editor(session, actor, resolve_workbook(session, actor, workbook))
    _target, view = _view(session, actor, workbook, sheet, name)
    session.delete(view)
    return view.name


def apply_filter_view(session: Session, actor: Person, workbook, sheet: str | None, name: str) -> list[int]:
    """The 1-based row numbers the view shows (header first), in its sort order."""
    target, view = _view(session, actor, workbook, sheet, name)
    return filtered_rows(session, target, view.ref, json.loads(view.criteria), view.sort_column, view.sort_descending)


def filtered_rows(session: Session, sheet: Sheet, ref: str, criteria: list[dict], sort_column: str = "",
                  descending: bool = False) -> list[int]:
    """1-based rows of a range (header first) whose cells meet every condition."""
    area = clip(session, sheet, parse_area(ref))
    if area.height * area.width > MAX_READ * 10:
        raise Invalid("The filtered range is too large; narrow it.")
    values = {(c.row, c.col): cell_value(c.kind, c.number, c.text) for c in session.scalars(select(Cell).where(
        Cell.sheet_id == sheet.id, Cell.row.between(area.top, area.bottom), Cell.col.between(area.left, area.right)))}
    tests = [(col_index(c["column"]), _test(c["op"], c["value"])) for c in criteria]
    kept = [row for row in range(area.top + 1, area.bottom + 1)
            if all(test(values.get((row, col))) for col, test in tests)]
    if sort_column:
        col = col_index(sort_column)
        present = [r for r in kept if values.get((r, col)) is not None]
        present.sort(key=cmp_to_key(lambda a, b: compare(values[(a, col)], values[(b, col)]) or a - b),
                     reverse=descending)
        kept = present + [r for r in kept if values.get((r, col)) is None]
    return [area.top + 1] + [r + 1 for r in kept]


def _test(op: str, value: str):
    if op == "empty":
        return lambda v: v is None or v == ""
    if op == "not empty":
        return lambda v: not (v is None or v == "")
    if op in ("contains", "not contains"):
        wanted = value.lower()
        present = lambda v: (v is not None  # noqa: E731
                             and wanted in str(v if not isinstance(v, float) else f"{v:g}").lower())
        return present if op == "contains" else (lambda v: not present(v))
    return matcher({"=": "=", "!=": "<>"}.get(op, op) + value)
