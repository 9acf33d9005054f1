"""Opportunities of the CRM world: stage and timeline, line items from the standard price book,
discount approvals and the stage history. Amounts are unique across the world, so "the biggest
deal" always has one answer, and equal the sum of the line items whenever a deal has any."""

from __future__ import annotations

from datetime import date, datetime, timedelta

from sqlalchemy import insert
from sqlalchemy.orm import Session

from officegym.apps.crm.models import (LOSS_REASONS, OPEN_STAGES, STAGE_PROBABILITY, DiscountApproval, LineItem,
                                       Opportunity)

from . import crm_vocab as cv
from .bulk import bulk_insert
from .crm_model import AccountRec, ApprovalRec, Crm, Ctx, DealRec, LineRec, _weighted, business_time

OUTCOMES = {"Closed Won": 27, "Closed Lost": 15, "Prospecting": 10, "Qualification": 15, "Proposal": 17,
            "Negotiation": 16}
FIRST_TYPE = {"New Business": 5, "Renewal": 4, "Upsell": 1}
LATER_TYPE = {"Upsell": 5, "Renewal": 3, "New Business": 2}
LOSS_WEIGHTS = dict(zip(LOSS_REASONS, (2, 3, 1, 1, 1, 1)))
UNITS = {code: unit for code, _n, _f, _p, unit, _d in cv.PRODUCTS}
NAMES = {code: name for code, name, *_ in cv.PRODUCTS}


def quarter_end(now: datetime) -> date:
    """The last day of the quarter `now` is in."""
    month = (now.month - 1) // 3 * 3 + 3
    nxt = date(now.year + (month == 12), month % 12 + 1, 1)
    return nxt - timedelta(days=1)


def _quantity(ctx: Ctx, code: str, size: str) -> int:
    unit = UNITS[code]
    if unit == "seat":
        low, high = cv.SEATS[size]
        return ctx.rng.randint(low, high)
    return {"day": ctx.rng.randint(2, 5), "pack": ctx.rng.randint(1, 4)}.get(unit, 1)


def _lines(ctx: Ctx, crm: Crm, main: str, extras: list[str], size: str) -> list[LineRec]:
    """1–3 items: the main product and some extras, mostly at 0–20% discount."""
    codes = [main] + [c for c in extras if ctx.rng.random() < 0.45][:2]
    lines = []
    for code in codes:
        discount = 0 if ctx.rng.random() < 0.45 else ctx.rng.choice((5, 8, 10, 12, 15, 18, 20))
        lines.append(LineRec(code, _quantity(ctx, code, size), crm.products[code][2], discount * 100))
    return lines


def _unique_amount(ctx: Ctx, deal: DealRec, used: set[int]) -> None:
    """Set the deal's amount, nudging a quantity (or the flat amount) until no other deal has it."""
    if not deal.lines:
        amount = ctx.rng.randint(12, 500) * 50_000
        while amount in used:
            amount += 50_000
        deal.amount_cents = amount
    else:
        countable = [line for line in deal.lines if UNITS[line.code] in ("seat", "day", "pack")] or deal.lines
        while sum(line.total_cents for line in deal.lines) in used:
            countable[0].quantity += 1
        deal.amount_cents = sum(line.total_cents for line in deal.lines)
    used.add(deal.amount_cents)


def _timeline(ctx: Ctx, deal: DealRec, outcome: str, acc: AccountRec, recent: bool) -> None:
    """Creation, stage moves (one stage at a time, as the services allow) and closing; a `recent`
    deal closes (or last moved) during the chat history window."""
    rng, org, end = ctx.rng, ctx.org, ctx.end
    window = org.window_start
    if outcome in ("Closed Won", "Closed Lost"):
        recent = rng.random() < 0.3 or recent
        last = business_time(rng, window if recent else ctx.now - timedelta(days=182),
                             end if recent else window - timedelta(days=1))
        from_stage = "Negotiation" if outcome == "Closed Won" else rng.choice(OPEN_STAGES[1:] * 2 + OPEN_STAGES[:1])
        path = list(OPEN_STAGES[:OPEN_STAGES.index(from_stage) + 1]) + [outcome]
        created = last - timedelta(days=rng.randint(20, 120), hours=rng.randint(0, 5))
    else:
        path = list(OPEN_STAGES[:OPEN_STAGES.index(outcome) + 1])
        recent = rng.random() < 0.45 or recent
        last = business_time(rng, window if recent else ctx.now - timedelta(days=120),
                             end if recent else window - timedelta(days=1))
        created = last if len(path) == 1 else last - timedelta(days=rng.randint(7, 100), hours=rng.randint(0, 5))
    created = max(created, acc.created_at + timedelta(days=1))
    last = max(last, created + timedelta(hours=len(path)))
    if len(path) > 1:
        marks = sorted(business_time(rng, created + timedelta(hours=1), last - timedelta(hours=1))
                       for _ in range(len(path) - 2))
        times = marks + [last]
        deal.changes = [(old, new, at) for old, new, at in zip(path, path[1:], times)]
    deal.created_at, deal.stage = created, path[-1]
    if outcome in ("Closed Won", "Closed Lost"):
        deal.closed_at, deal.close_date = last, last.date()
    elif rng.random() < 0.35:  # closing this month or quarter; a few already overdue
        start = ctx.now.date() - timedelta(days=3)
        deal.close_date = start + timedelta(days=rng.randint(0, (quarter_end(ctx.now) - start).days))
    else:
        deal.close_date = quarter_end(ctx.now) + timedelta(days=rng.randint(1, 182))


def _deal(ctx: Ctx, crm: Crm, acc: AccountRec, deal_type: str, purposes: set[str], outcome: str,
          recent: bool) -> DealRec:
    rng, org = ctx.rng, ctx.org
    options = [p for p in cv.PURPOSES[deal_type] if p[0] not in purposes] or cv.PURPOSES[deal_type]
    purpose, main, extras = rng.choice(options)
    purposes.add(purpose)
    owner = org.person(acc.owner_id)
    mates = [p for p in ctx.reps if p.team == owner.team and p.id != owner.id]
    if mates and rng.random() < 0.12:
        owner = rng.choice(mates)
    deal = DealRec(0, f"{acc.name} - {purpose}", acc, owner.id, deal_type, outcome, date.min, acc.created_at,
                   product=NAMES[main])
    _timeline(ctx, deal, outcome, acc, recent)
    if rng.random() < (0.9 if deal.stage in ("Proposal", "Negotiation", "Closed Won") else 0.6):  # quoted by then
        deal.lines = _lines(ctx, crm, main, extras, acc.size)
    if deal.stage == "Closed Lost":
        deal.loss_reason = _weighted(rng, LOSS_WEIGHTS)
        if deal.loss_reason == "Competitor" or rng.random() < 0.4:
            deal.competitor = rng.choice(cv.COMPETITORS)
    elif deal.stage in OPEN_STAGES:
        deal.next_step = rng.choice(cv.NEXT_STEPS[deal.stage])
        deal.competitor = rng.choice(cv.COMPETITORS) if rng.random() < 0.3 else ""
    deal.description = rng.choice(cv.DESCRIPTIONS).format(n=rng.randint(2, 9))
    return deal


def _approvals(ctx: Ctx, deals: list[DealRec]) -> None:
    """A few discounts above the limit, approved by the owner's manager (and applied), and a
    couple of requests still pending (the line keeps its old discount until a decision)."""
    rng, org = ctx.rng, ctx.org
    with_lines = [d for d in deals if d.lines]
    won = [d for d in with_lines if d.stage in ("Closed Won", "Negotiation")]
    for deal in rng.sample(won, min(len(won), max(1, len(deals) // 25))):
        line = rng.randrange(len(deal.lines))
        bp = rng.choice((22, 25, 28, 30)) * 100
        last = deal.closed_at or ctx.end
        asked = business_time(rng, max(deal.created_at, last - timedelta(days=10)), last - timedelta(hours=3))
        decided = business_time(rng, asked + timedelta(hours=1), min(asked + timedelta(days=2), last - timedelta(hours=1)))
        deal.lines[line].discount_bp = bp
        reason = rng.choice(cv.DISCOUNT_REASONS).format(competitor=deal.competitor or "a competitor",
                                                       region=deal.account.region)
        deal.approvals.append(ApprovalRec(line, bp, "Approved", org.person(deal.owner_id).manager_id, asked, decided,
                                          reason, "Approved: strategic account."))
    rejected = len(deals) >= 50  # bigger worlds also keep one refused request on record
    wanted = max(2, len(deals) // 30) + rejected
    live = [d for d in with_lines if d.stage in ("Proposal", "Negotiation") and not d.approvals]
    chosen = rng.sample(live, min(len(live), wanted))
    chosen += [d for d in with_lines if d.stage == "Qualification"][:wanted - len(chosen)]
    for k, deal in enumerate(chosen):
        line = rng.randrange(len(deal.lines))
        asked = business_time(rng, max(deal.created_at, ctx.end - timedelta(days=6)), ctx.end - timedelta(hours=2))
        status = "Rejected" if rejected and k == 0 else "Pending"
        decided = business_time(rng, asked + timedelta(hours=1), ctx.end) if status == "Rejected" else None
        deal.approvals.append(ApprovalRec(line, rng.choice((25, 30, 35)) * 100, status,
                                          org.person(deal.owner_id).manager_id, asked, decided,
                                          rng.choice(cv.DISCOUNT_REASONS).format(
                                              competitor=deal.competitor or "a competitor", region=deal.account.region),
                                          "Too deep for a one-year term; 20% is the most." if decided else ""))


def _twin_deals(crm: Crm, deals: list[DealRec]) -> None:
    """A look-alike account's first deal is about the same thing as its original's first deal, with
    the same products (amounts then differ by a seat or so, as every amount is unique)."""
    first: dict[str, DealRec] = {}
    for deal in deals:
        first.setdefault(deal.account.name, deal)
    for twin, original in crm.twins:
        copy, model = first.get(twin), first.get(original)
        if copy is None or model is None or copy.account.parent_id or model.account.parent_id:
            continue
        name = f"{twin} - {model.name[len(original) + 3:]}"
        if any(d.name == name for d in deals if d.account is copy.account):
            continue
        copy.name = name
        copy.type, copy.product = model.type, model.product
        if model.lines and copy.stage not in ("Prospecting",):
            copy.lines = [LineRec(line.code, line.quantity, line.unit_price_cents, line.discount_bp)
                          for line in model.lines]


def _closing_soon(ctx: Ctx, deals: list[DealRec]) -> None:
    """At least a third of the open deals (and three) close this quarter: forecast questions need them."""
    start, end = ctx.now.date() - timedelta(days=3), quarter_end(ctx.now)
    live = [d for d in deals if d.stage in OPEN_STAGES]
    later = [d for d in live if d.close_date > end]
    missing = max(3, len(live) // 3) - (len(live) - len(later))
    for deal in later[:max(0, missing)]:
        deal.close_date = start + timedelta(days=ctx.rng.randint(0, (end - start).days))


def build_deals(ctx: Ctx, crm: Crm) -> list[DealRec]:
    """1–3 deals per account (one per subsidiary), ids in creation order."""
    rng = ctx.rng
    deals: list[DealRec] = []
    counts = [1 if acc.parent_id else rng.choices((1, 2, 3), weights=(3, 5, 2))[0] for acc in crm.accounts]
    # Every stage at least once (questions about any stage have an answer), the rest by weight.
    outcomes = list(OUTCOMES) + [_weighted(rng, OUTCOMES) for _ in range(sum(counts) - len(OUTCOMES))]
    rng.shuffle(outcomes)
    recent_wins = 0  # the first two wins close in the chat window, so #deals always has news to share
    for acc, count in zip(crm.accounts, counts):
        purposes: set[str] = set()
        for k in range(count):
            kind = "New Business" if acc.parent_id else _weighted(rng, FIRST_TYPE if k == 0 else LATER_TYPE)
            outcome = outcomes.pop()
            recent_wins += outcome == "Closed Won"
            deals.append(_deal(ctx, crm, acc, kind, purposes, outcome, outcome == "Closed Won" and recent_wins <= 2))
    if ctx.twins:
        _twin_deals(crm, deals)
    _closing_soon(ctx, deals)
    _approvals(ctx, deals)
    used: set[int] = set()
    for deal in deals:
        _unique_amount(ctx, deal, used)
    deals.sort(key=lambda d: (d.created_at, d.name))
    for n, deal in enumerate(deals, start=1):
        deal.id = n
    return deals


def deal_history(crm: Crm) -> list[dict]:
    """History rows of every deal: its creation, then each stage move with its probability."""
    rows = []
    for d in crm.deals:
        rows.append({"record_type": "opportunity", "record_id": d.id, "field": "created", "old_value": "",
                     "new_value": "", "changed_by_id": d.owner_id, "changed_at": d.created_at})
        for old, new, at in d.changes:
            for field, before, after in (("stage", old, new),
                                         ("probability", STAGE_PROBABILITY[old], STAGE_PROBABILITY[new])):
                rows.append({"record_type": "opportunity", "record_id": d.id, "field": field,
                             "old_value": str(before), "new_value": str(after), "changed_by_id": d.owner_id,
                             "changed_at": at})
    return rows


def insert_deals(session: Session, crm: Crm) -> None:
    """Bulk-insert opportunities, their line items and discount approvals."""
    bulk_insert(session, Opportunity, [
        {"id": d.id, "name": d.name, "account_id": d.account.id, "owner_id": d.owner_id, "type": d.type,
         "stage": d.stage, "amount_cents": d.amount_cents, "close_date": d.close_date,
         "probability": STAGE_PROBABILITY[d.stage], "next_step": d.next_step, "competitor": d.competitor,
         "loss_reason": d.loss_reason, "description": d.description, "created_at": d.created_at,
         "closed_at": d.closed_at} for d in crm.deals])
    items, approvals = [], []
    for d in crm.deals:
        ids = []
        for line in d.lines:
            ids.append(len(items) + 1)
            items.append({"id": ids[-1], "opportunity_id": d.id, "product_id": crm.products[line.code][0],
                          "price_book_id": 1, "quantity": line.quantity, "unit_price_cents": line.unit_price_cents,
                          "discount_bp": line.discount_bp, "total_cents": line.total_cents})
        for a in d.approvals:
            approvals.append({"line_item_id": ids[a.line], "opportunity_id": d.id, "discount_bp": a.discount_bp,
                              "reason": a.reason, "status": a.status, "requested_by_id": d.owner_id,
                              "approver_id": a.approver_id, "requested_at": a.requested_at,
                              "decided_at": a.decided_at, "decision_note": a.note})
    bulk_insert(session, LineItem, items)
    approvals.sort(key=lambda a: (a["requested_at"], a["opportunity_id"]))
    if approvals:
        session.execute(insert(DiscountApproval), [dict(a, id=n) for n, a in enumerate(approvals, start=1)])
