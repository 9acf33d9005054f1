"""Read-only views across records: the pipeline report, search over every record type, and the
field history of one record."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Callable

from sqlalchemy import BigInteger, ColumnElement, Select, cast, func, or_, select
from sqlalchemy.orm import Session, joinedload

from officegym.apps.org.models import Person
from officegym.apps.org.services import contains
from officegym.errors import Invalid
from officegym.pagination import Page, bounded_count, check_window, count_bound, paginate

from . import fields
from .access import require_sales, resolve_owner, scope_of
from .accounts import query_text
from .lookups import resolve_record
from .models import (CLOSED_STAGES, OPEN_STAGES, RECORD_TYPES, STAGES, Account, Case, Contact, FieldChange, Lead,
                     Opportunity, PipelineTotal)

GROUPINGS = ("stage", "owner", "quarter")
_QUARTER = re.compile(r"^(\d{4})-?Q([1-4])$", re.IGNORECASE)


@dataclass
class PipelineRow:
    """One group of the pipeline: how many deals, their amount and their probability-weighted amount."""

    key: str
    label: str
    count: int
    amount_cents: int
    weighted_cents: int


def quarter_of(day: date) -> str:
    """"2026-Q1" for any day of January to March 2026."""
    return f"{day.year}-Q{(day.month - 1) // 3 + 1}"


def quarter_bounds(quarter: str) -> tuple[date, date]:
    """First and last day of a quarter written 2026-Q1."""
    match = _QUARTER.match(quarter.strip()) if isinstance(quarter, str) else None
    if not match:
        raise Invalid(f"A quarter is written like 2026-Q1, got {quarter!r}.")
    year, q = int(match.group(1)), int(match.group(2))
    first = date(year, 3 * q - 2, 1)
    last = date(year + (q == 4), 1 if q == 4 else 3 * q + 1, 1)
    return first, date.fromordinal(last.toordinal() - 1)


@dataclass
class PipelineReport:
    """One page of the pipeline's groups, and the totals over every group."""

    page: Page[PipelineRow]
    count: int
    amount_cents: int
    weighted_cents: int
    largest_cents: int  # the biggest group's amount, the full scale of a chart of any page


def pipeline_report(session: Session, actor: Person, group_by: str = "stage", quarter: str | None = None,
                    owner: int | str | None = None, stages: str = "open", offset: int = 0,
                    limit: int = 50) -> PipelineReport:
    """Deals the actor may see, grouped by stage, owner or close quarter, one page of groups at a
    time (stages in pipeline order, owners by amount, quarters in time order), with the totals
    over all groups; `stages` is "open", "closed" or "all"; `quarter` (2026-Q1) keeps deals
    closing in it."""
    scope = require_sales(session, actor, "see the pipeline")
    grouping = fields.choice(group_by, GROUPINGS, "group_by")
    which = fields.choice(stages, ("open", "closed", "all"), "stages")
    check_window(offset, limit)
    stmt, owner_of, stage_of = _group_sums(grouping, quarter not in (None, ""))
    stmt = stmt.where(scope.read_filter(owner_of))
    if which != "all":
        stmt = stmt.where(stage_of.in_(OPEN_STAGES if which == "open" else CLOSED_STAGES))
    if quarter not in (None, ""):
        first, last = quarter_bounds(quarter)
        stmt = stmt.where(Opportunity.close_date >= first, Opportunity.close_date <= last)
    if owner not in (None, ""):
        stmt = stmt.where(owner_of == resolve_owner(session, owner).id)
    if grouping == "owner":
        return _owner_report(session, stmt, offset, limit)
    # A handful of stages or quarters: summed up and paged here.
    groups = _folded_sums(session, stmt, grouping)
    return PipelineReport(Page([PipelineRow(*g) for g in groups[offset:offset + limit]], len(groups), offset, limit),
                          sum(g[2] for g in groups), sum(g[3] for g in groups), sum(g[4] for g in groups),
                          max((g[3] for g in groups), default=0))


def _group_sums(grouping: str, by_close_date: bool) -> tuple[Select, ColumnElement, ColumnElement]:
    """SELECT key, deals, cents, weighted GROUP BY the grouping, and the owner and stage columns to
    filter it on. Without dates, from the per-owner-and-stage totals the database keeps (one row per
    owner and stage, whatever the number of deals); with them, from the deals themselves, on the
    covering (stage, close date, owner, amount, probability) index."""
    if not by_close_date and grouping != "quarter":
        column = PipelineTotal.stage if grouping == "stage" else PipelineTotal.owner_id
        return (select(column.label("key"), func.sum(PipelineTotal.deals).label("deals"),
                       func.sum(PipelineTotal.amount_cents).label("cents"),
                       func.sum(PipelineTotal.weighted).label("weighted")).group_by(column),
                PipelineTotal.owner_id, PipelineTotal.stage)
    column = {"stage": Opportunity.stage, "owner": Opportunity.owner_id, "quarter": Opportunity.close_date}[grouping]
    return (select(column.label("key"), func.count().label("deals"), func.sum(Opportunity.amount_cents).label("cents"),
                   func.sum(cast(Opportunity.amount_cents, BigInteger) * Opportunity.probability).label("weighted"))
            .group_by(column), Opportunity.owner_id, Opportunity.stage)


def _owner_report(session: Session, stmt: Select, offset: int, limit: int) -> PipelineReport:
    """Owners largest amount first (then by name), sorted, paged, named and totalled in SQL, so a
    company's hundreds of owners cost one statement that returns one page."""
    sums = stmt.subquery()
    weighted = (cast(sums.c.weighted, BigInteger) + 50) // 100  # cents, rounded half up
    totals = (func.count().over(), func.sum(sums.c.deals).over(), func.sum(sums.c.cents).over(),
              func.sum(weighted).over(), func.max(sums.c.cents).over())
    found = session.execute(select(sums.c.key, Person.name, sums.c.deals, sums.c.cents, weighted, *totals)
                            .join(Person, Person.id == sums.c.key)
                            .order_by(sums.c.cents.desc(), Person.name, sums.c.key).offset(offset).limit(limit)).all()
    if not found:  # past the last owner: the totals alone
        whole = select(sums.c.key.label("key"), sums.c.cents.label("cents"), weighted.label("weighted"),
                       sums.c.deals.label("deals")).subquery()
        found = [(None,) * 5 + tuple(session.execute(select(
            func.count(), func.sum(whole.c.deals), func.sum(whole.c.cents), func.sum(whole.c.weighted),
            func.max(whole.c.cents))).one())]
    groups, deals, cents, weighted_cents, largest = found[0][5:]
    rows = [PipelineRow(str(key), name, int(n), int(amount), int(weight)) for key, name, n, amount, weight, *_ in found
            if key is not None]
    return PipelineReport(Page(rows, groups, offset, limit), int(deals or 0), int(cents or 0), int(weighted_cents or 0),
                          int(largest or 0))


def _folded_sums(session: Session, stmt: Select, grouping: str) -> list[tuple]:
    """One group per stage in pipeline order, or per quarter in time order (from the sums per close date)."""
    groups: dict[str, list[int]] = {}
    for value, deals, cents, weighted in session.execute(stmt):
        bucket = groups.setdefault(value if grouping == "stage" else quarter_of(value), [0, 0, 0])
        bucket[0] += int(deals)
        bucket[1] += int(cents)
        bucket[2] += int(weighted)
    order = sorted(groups, key=STAGES.index if grouping == "stage" else None)
    return [(k, k, groups[k][0], groups[k][1], (groups[k][2] + 50) // 100) for k in order]


@dataclass
class SearchHit:
    """A record found by search_records."""

    record_type: str
    id: int
    title: str
    detail: str


def search_records(session: Session, actor: Person, query: str, record_types: list[str] | None = None,
                   offset: int = 0, limit: int = 20) -> Page[SearchHit]:
    """Accounts, contacts, leads, opportunities and cases whose name (or email, company, subject)
    contains `query`, each type in turn, limited to what the actor may see. Counting stops at the
    next thousand past the page (the page then says its total is a lower bound)."""
    term = query_text(query)
    if not term:
        raise Invalid("query is empty: give part of a name, email or subject.")
    check_window(offset, limit)
    kinds = list(RECORD_TYPES) if not record_types else [fields.choice(k, RECORD_TYPES, "record type")
                                                         for k in record_types]
    scope = scope_of(session, actor)
    if not (scope.is_admin or scope.is_sales):
        if record_types and set(kinds) - {"account", "contact"}:
            require_sales(session, actor, "search leads, opportunities or cases")
        kinds = [k for k in kinds if k in ("account", "contact")]
    # Each type is counted in SQL, up to what is left of one bound shared by all types (so a
    # common word stops being counted once the bound is reached, and later types are not counted
    # at all), and only the rows of the requested window are loaded (with the contact's account in
    # the same query): a page costs about the same whatever the world's size.
    hits: list[SearchHit] = []
    total, exact, bound = 0, True, count_bound(offset, limit)
    for kind in RECORD_TYPES:
        if kind not in kinds:
            continue
        if total >= bound:
            exact = False
            break
        stmt, hit = _search(scope, kind, term)
        count, all_counted = bounded_count(session, stmt, bound - total)
        start, stop = max(0, offset - total), min(count, offset + limit - total)
        if stop > start:
            hits += [hit(r) for r in session.scalars(stmt.offset(start).limit(stop - start))]
        total += count
        exact = exact and all_counted
    return Page(hits, total, offset, limit, exact)


def _search(scope, kind: str, term: str) -> tuple[Select, Callable[[object], SearchHit]]:
    """The ordered query finding records of one type, and how a row becomes a hit."""
    if kind == "account":
        return (select(Account).where(or_(contains(Account.name, term), contains(Account.website, term)))
                .order_by(Account.name),
                lambda r: SearchHit(kind, r.id, r.name, f"{r.industry} · {r.region}"))
    if kind == "contact":
        full = Contact.first_name + " " + Contact.last_name
        return (select(Contact).where(or_(contains(full, term), contains(Contact.email, term)))
                .options(joinedload(Contact.account, innerjoin=True)).order_by(Contact.last_name, Contact.id),
                lambda r: SearchHit(kind, r.id, r.name, f"{r.title} at {r.account.name}"))
    if kind == "lead":
        full = Lead.first_name + " " + Lead.last_name
        return (select(Lead).where(scope.read_filter(Lead.owner_id), or_(
            contains(full, term), contains(Lead.company, term), contains(Lead.email, term))).order_by(Lead.id),
            lambda r: SearchHit(kind, r.id, r.name, f"{r.company} · {r.status}"))
    if kind == "opportunity":
        return (select(Opportunity).where(scope.read_filter(Opportunity.owner_id), contains(Opportunity.name, term))
                .order_by(Opportunity.id),
                lambda r: SearchHit(kind, r.id, r.name, f"{r.stage} · {fields.dollars(r.amount_cents)}"))
    return (select(Case).where(scope.read_filter(Case.owner_id), contains(Case.subject, term)).order_by(Case.id),
            lambda r: SearchHit(kind, r.id, r.subject, f"{r.status} · {r.priority}"))


def record_history(session: Session, actor: Person, record_type: str, record_id: int | str, offset: int = 0,
                   limit: int = 50) -> Page[FieldChange]:
    """Who changed which field of a record, newest first."""
    record = resolve_record(session, actor, record_type, record_id)
    stmt = (select(FieldChange).where(FieldChange.record_type == record_type.strip().lower(),
                                      FieldChange.record_id == record.id)
            .order_by(FieldChange.id.desc()))
    return paginate(session, stmt, offset, limit)
