"""Read-only views across records: the pipeline report, search over every record type, and the
field history of one record."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Callable

from sqlalchemy import BigInteger, Select, cast, func, or_, select
from sqlalchemy.orm import Session, joinedload

from officegym.apps.org.models import Person
from officegym.apps.org.services import contains
from officegym.errors import Invalid
from officegym.pagination import Page, check_window, paginate

from . import fields
from .access import require_sales, scope_of
from .accounts import query_text
from .lookups import resolve_record
from .models import (CLOSED_STAGES, OPEN_STAGES, RECORD_TYPES, STAGES, Account, Case, Contact, FieldChange, Lead,
                     Opportunity)
from .owners import resolve_owner

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


def pipeline_report(session: Session, actor: Person, group_by: str = "stage", quarter: str | None = None,
                    owner: int | str | None = None, stages: str = "open") -> list[PipelineRow]:
    """Deals the actor may see, grouped by stage, owner or close quarter; `stages` is "open",
    "closed" or "all"; `quarter` (2026-Q1) keeps deals closing in it."""
    scope = require_sales(session, actor, "see the pipeline")
    grouping = fields.choice(group_by, GROUPINGS, "group_by")
    which = fields.choice(stages, ("open", "closed", "all"), "stages")
    # Summed in SQL, one row per stage, owner or close date (dates are folded into quarters here),
    # in the order each group is first met, so the report costs one pass over the deals in SQL.
    column = {"stage": Opportunity.stage, "owner": Opportunity.owner_id, "quarter": Opportunity.close_date}[grouping]
    stmt = (select(column, func.count(), func.sum(Opportunity.amount_cents),
                   func.sum(cast(Opportunity.amount_cents, BigInteger) * Opportunity.probability))
            .where(scope.read_filter(Opportunity.owner_id)).group_by(column).order_by(func.min(Opportunity.id)))
    if which != "all":
        stmt = stmt.where(Opportunity.stage.in_(OPEN_STAGES if which == "open" else CLOSED_STAGES))
    if quarter not in (None, ""):
        first, last = quarter_bounds(quarter)
        stmt = stmt.where(Opportunity.close_date >= first, Opportunity.close_date <= last)
    if owner not in (None, ""):
        stmt = stmt.where(Opportunity.owner_id == resolve_owner(session, owner).id)
    groups: dict[str, list[int]] = {}
    for value, count, amount, weighted in session.execute(stmt):
        key = value if grouping == "stage" else str(value) if grouping == "owner" else quarter_of(value)
        bucket = groups.setdefault(key, [0, 0, 0])
        bucket[0] += count
        bucket[1] += int(amount)
        bucket[2] += int(weighted)
    names = dict(session.execute(select(Person.id, Person.name).where(
        Person.id.in_([int(k) for k in groups]))).all()) if grouping == "owner" else {}
    rows = [PipelineRow(k, names.get(int(k), k) if grouping == "owner" else k, c, a, (w + 50) // 100)
            for k, (c, a, w) in groups.items()]
    if grouping == "stage":
        return sorted(rows, key=lambda r: STAGES.index(r.key))
    if grouping == "owner":
        return sorted(rows, key=lambda r: (-r.amount_cents, r.label))
    return sorted(rows, key=lambda r: r.key)


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
    contains `query`, each type in turn, limited to what the actor may see."""
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
    # Each type is counted in SQL and only the rows of the requested window are loaded (with the
    # contact's account in the same query), so a page costs the same whatever the world's size.
    hits: list[SearchHit] = []
    total = 0
    for kind in RECORD_TYPES:
        if kind not in kinds:
            continue
        stmt, hit = _search(scope, kind, term)
        count = session.scalar(select(func.count()).select_from(stmt.order_by(None).subquery())) or 0
        start, stop = max(0, offset - total), min(count, offset + limit - total)
        if stop > start:
            hits += [hit(r) for r in session.scalars(stmt.offset(start).limit(stop - start))]
        total += count
    return Page(hits, total, offset, limit)


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
