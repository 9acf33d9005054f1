"""Leads, cases, activities and record history of the CRM world (after accounts and deals exist).

Converted leads point at a real account, the contact they became and the deal they opened; the
account with the most open cases is unique, so questions about it have one answer."""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timedelta

from officegym.apps.crm.models import (CASE_ORIGINS, LEAD_SOURCES, Activity, Case, FieldChange, Lead)

from . import crm_vocab as cv
from .crm_model import Crm, Ctx, _domain, _phone, _weighted, business_time
from .crm_deals import deal_history
from .crm_story import field_history
from .org import slugify

LEAD_STATUS = {"New": 3, "Working": 3, "Qualified": 2, "Unqualified": 2}
LEAD_AGE = {"New": (1, 20), "Working": (10, 60), "Qualified": (20, 120), "Unqualified": (20, 150)}
CASE_STATUS = {"New": 2, "Working": 3, "Escalated": 1, "Closed": 4}
PRIORITY = {"Low": 2, "Medium": 4, "High": 3, "Urgent": 1}
KINDS = {"call": 3, "email": 3, "meeting": 2, "note": 1, "task": 2}


def _leads(ctx: Ctx, crm: Crm, contacts: list[dict]) -> list[dict]:
    """Open leads at new companies, and a few converted ones that became a contact and a deal."""
    rng, fake = ctx.rng, ctx.fake
    total = max(10, round(ctx.spec.customers * 1.5))
    converted = max(2, total // 8)
    taken = {a.name for a in crm.accounts}
    domains = {a.domain for a in crm.accounts}
    rows = []
    firsts = sorted((d for d in crm.deals if d.type == "New Business" and d.account.contact_ids),
                    key=lambda d: d.id)
    seen: set[int] = set()
    for deal in rng.sample(firsts, min(converted, len(firsts))):
        if deal.account.id in seen:
            continue
        seen.add(deal.account.id)
        contact = contacts[deal.account.contact_ids[0] - 1]
        contact["created_at"] = deal.created_at  # the contact was born of the conversion
        rows.append({"first_name": contact["first_name"], "last_name": contact["last_name"],
                     "company": deal.account.name, "title": contact["title"], "email": contact["email"],
                     "phone": contact["phone"], "source": rng.choice(LEAD_SOURCES), "status": "Converted",
                     "owner_id": rng.choice(ctx.sdrs).id,
                     "created_at": deal.created_at - timedelta(days=rng.randint(5, 40), hours=rng.randint(0, 6)),
                     "converted_at": deal.created_at, "converted_account_id": deal.account.id,
                     "converted_contact_id": contact["id"], "converted_opportunity_id": deal.id})
    while len(rows) < total:
        company = fake.company()
        if company in taken:
            continue
        taken.add(company)
        fresh = len(rows) - len(seen)  # every status shows up at least once, then by weight
        status = list(LEAD_STATUS)[fresh] if fresh < len(LEAD_STATUS) else _weighted(rng, LEAD_STATUS)
        low, high = LEAD_AGE[status]
        first, last = fake.first_name(), fake.last_name()
        domain = _domain(company, domains, rng)
        rows.append({"first_name": first, "last_name": last, "company": company,
                     "title": rng.choice(cv.CONTACT_TITLES),
                     "email": f"{slugify(first)}.{slugify(last)}@{domain}".replace("-", ""),
                     "phone": _phone(rng, "North America"), "source": rng.choice(LEAD_SOURCES), "status": status,
                     "owner_id": rng.choice(ctx.sdrs).id,
                     "created_at": business_time(rng, ctx.now - timedelta(days=high), ctx.end - timedelta(days=low)),
                     "converted_at": None, "converted_account_id": None, "converted_contact_id": None,
                     "converted_opportunity_id": None})
    rows.sort(key=lambda r: (r["created_at"], r["last_name"]))
    return [dict(r, id=n) for n, r in enumerate(rows, start=1)]


def _cases(ctx: Ctx, crm: Crm) -> list[dict]:
    """Customer issues, spread unevenly (a few accounts have most of them)."""
    rng = ctx.rng
    total = max(10, round(ctx.spec.customers * 1.5))
    accounts = list(crm.accounts)
    rng.shuffle(accounts)
    weights = [1 / (rank + 1) for rank in range(len(accounts))]
    picks = rng.choices(accounts, weights=weights, k=total)
    statuses = [_weighted(rng, CASE_STATUS) for _ in picks]
    open_count = Counter(a.id for a, s in zip(picks, statuses) if s != "Closed")
    top = max(open_count.values(), default=0)
    leaders = [a for a in accounts if open_count[a.id] == top]
    if len(leaders) != 1:  # break the tie: one more open case for one of them
        picks.append(leaders[0])
        statuses.append("Working")
    rows = []
    for acc, status in zip(picks, statuses):
        subject, description = rng.choice(cv.CASE_SUBJECTS)
        if status == "Closed":
            created = business_time(rng, ctx.now - timedelta(days=150), ctx.end - timedelta(days=10))
            closed = min(created + timedelta(days=rng.randint(1, 14), hours=rng.randint(0, 6)), ctx.end)
        else:
            created, closed = business_time(rng, ctx.now - timedelta(days=40), ctx.end), None
        owner = acc.owner_id if rng.random() < 0.7 else rng.choice(ctx.reps).id
        rows.append({"subject": subject, "description": description, "account_id": acc.id,
                     "contact_id": rng.choice(acc.contact_ids) if acc.contact_ids else None, "owner_id": owner,
                     "status": status, "priority": _weighted(rng, PRIORITY), "origin": rng.choice(CASE_ORIGINS),
                     "created_at": max(created, acc.created_at), "closed_at": closed, "ticket_key": None})
    rows.sort(key=lambda r: (r["created_at"], r["account_id"]))
    return [dict(r, id=n) for n, r in enumerate(rows, start=1)]


def _activity(ctx: Ctx, record_type: str, record_id: int, owner_id: int, start: datetime, stop: datetime,
              subject: str, open_task: dict | None = None) -> dict:
    """One logged activity; a task is open (due soon, maybe overdue) or completed (due in the past).
    `open_task` holds the names an open task's subject is filled with (contact, account, product)."""
    rng = ctx.rng
    kind = "task" if open_task else _weighted(rng, KINDS)
    at = business_time(rng, start, max(start, stop))
    row = {"kind": kind, "subject": subject if not open_task else rng.choice(cv.ACTIVITY_SUBJECTS["task"]).format(
        **open_task),
           "body": "", "record_type": record_type, "record_id": record_id, "owner_id": owner_id,
           "due_date": None, "status": "Completed", "created_at": at, "completed_at": at}
    if kind == "task":
        if open_task:
            row.update(due_date=ctx.now.date() + timedelta(days=rng.randint(-3, 14)), status="Open",
                       completed_at=None)
        else:
            row.update(due_date=(at + timedelta(days=rng.randint(1, 5))).date(),
                       completed_at=min(at + timedelta(days=rng.randint(0, 4), hours=rng.randint(1, 5)), ctx.end))
    return row


def _activities(ctx: Ctx, crm: Crm, contacts: list[dict], leads: list[dict], cases: list[dict]) -> list[dict]:
    """Several per open deal (one an open task), some on closed deals, accounts, contacts, leads, cases."""
    rng, rows = ctx.rng, []

    def subject(kind_pool: list[str], contact: str, account: str, product: str = "the platform") -> str:
        return rng.choice(kind_pool).format(contact=contact, account=account, product=product)

    pools = [s for kind in ("call", "email", "meeting", "note") for s in cv.ACTIVITY_SUBJECTS[kind]]
    for d in crm.deals:
        acc = d.account
        person = contacts[acc.contact_ids[0] - 1]["first_name"] if acc.contact_ids else "the champion"
        stop = d.closed_at or ctx.end
        count = rng.randint(2, 5) if d.closed_at is None else rng.randint(1, 2)
        if ctx.spec.crm_history:  # a touch every week or two over the deal's life
            count = max(count, min(30, (stop - d.created_at).days // rng.randint(6, 12)))
        names = {"contact": person, "account": acc.name, "product": d.product}
        for k in range(count):
            rows.append(_activity(ctx, "opportunity", d.id, d.owner_id, d.created_at, stop,
                                  subject(pools, person, acc.name, d.product),
                                  open_task=names if d.closed_at is None and k == 0 else None))
    more = ctx.spec.crm_history  # a long history: every record keeps a trail of activities
    for acc in crm.accounts:
        for _ in range(rng.randint(1, 5) if more else int(rng.random() < 0.3)):
            rows.append(_activity(ctx, "account", acc.id, acc.owner_id, acc.created_at, ctx.end,
                                  subject(pools, "their team", acc.name)))
    for c in contacts:
        for _ in range(rng.randint(1, 3) if more and rng.random() < 0.5 else int(not more and rng.random() < 0.15)):
            rows.append(_activity(ctx, "contact", c["id"], c["owner_id"], c["created_at"], ctx.end,
                                  subject(cv.ACTIVITY_SUBJECTS["call"], c["first_name"], crm.account(c["account_id"]).name)))
    for lead in leads:
        if lead["status"] in ("Working", "Qualified", "Converted"):
            stop = lead["converted_at"] or ctx.end
            for _ in range(rng.randint(1, 4 if more else 2)):
                rows.append(_activity(ctx, "lead", lead["id"], lead["owner_id"], lead["created_at"], stop,
                                      subject(cv.LEAD_SUBJECTS, lead["first_name"], lead["company"])))
    for case in cases:
        if case["status"] != "New":
            first = contacts[case["contact_id"] - 1]["first_name"] if case["contact_id"] else "the customer"
            for _ in range(rng.randint(1, 4) if more else 1):
                rows.append(_activity(ctx, "case", case["id"], case["owner_id"], case["created_at"],
                                      case["closed_at"] or ctx.end, subject(cv.CASE_ACTIVITY, first, "")))
    rows.sort(key=lambda r: (r["created_at"], r["record_type"], r["record_id"]))
    return [dict(r, id=n) for n, r in enumerate(rows, start=1)]


def _created(record_type: str, rows: list[dict]) -> list[dict]:
    return [{"record_type": record_type, "record_id": r["id"], "field": "created", "old_value": "", "new_value": "",
             "changed_by_id": r["owner_id"], "changed_at": r["created_at"]} for r in rows]


def build_records(ctx: Ctx, crm: Crm, contacts: list[dict]) -> list[tuple[type, list[dict]]]:
    """Leads, cases, activities and the history rows of every record, as (table, rows) to insert
    after contacts and deals."""
    leads = _leads(ctx, crm, contacts)
    cases = _cases(ctx, crm)
    activities = _activities(ctx, crm, contacts, leads, cases)
    accounts = [{"id": a.id, "owner_id": a.owner_id, "created_at": a.created_at} for a in crm.accounts]
    history = (_created("account", accounts) + _created("contact", contacts) + _created("lead", leads)
               + _created("case", cases) + deal_history(crm))
    if ctx.spec.crm_history:

        history += field_history(ctx, crm, leads, cases)
    history.sort(key=lambda r: (r["changed_at"], r["record_type"], r["record_id"]))
    return [(Lead, leads), (Case, cases), (Activity, activities),
            (FieldChange, [dict(r, id=n) for n, r in enumerate(history, start=1)])]
