"""Field history of a CRM with a long past (`crm_history` in the spec): besides creations and stage
moves, deals record how their amount was revised, how their close date slipped and their next
step at each stage; cases and leads record each status they went through. Every chain ends at the
record's current value, as the app's own history would, and every change is by the record's owner,
after its creation and no later than the end of the seeded history.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from officegym.apps.crm.models import OPEN_STAGES

from . import crm_vocab as cv
from .crm_model import Crm, Ctx, business_time


def _dollars(cents: int) -> str:
    """Money as the CRM's history writes it: $120,000.00."""
    return f"${cents / 100:,.2f}"


def _row(record_type: str, record_id: int, field: str, old: str, new: str, who: int, at: datetime) -> dict:
    return {"record_type": record_type, "record_id": record_id, "field": field, "old_value": old, "new_value": new,
            "changed_by_id": who, "changed_at": at}


def field_history(ctx: Ctx, crm: Crm, leads: list[dict], cases: list[dict]) -> list[dict]:
    """History rows beyond creations and stage moves (see the module docstring)."""
    rng, end = ctx.rng, ctx.end
    rows: list[dict] = []
    for d in crm.deals:
        stop = d.closed_at or end
        if d.amount_cents and rng.random() < 0.4:  # the quote was revised once
            old = max(100_00, round(d.amount_cents * rng.uniform(0.7, 0.95) / 10_000) * 10_000)
            if old != d.amount_cents:
                at = max(d.created_at, business_time(rng, d.created_at + timedelta(hours=1), stop - timedelta(hours=1)))
                rows.append(_row("opportunity", d.id, "amount", _dollars(old), _dollars(d.amount_cents),
                                 d.owner_id, at))
        if d.stage not in OPEN_STAGES:
            continue
        slips = rng.choice((0, 0, 1, 1, 2))  # the close date slipped, once or twice
        dates = sorted(d.close_date - timedelta(days=rng.randint(7, 45) * (k + 1)) for k in range(slips))
        times = sorted(max(d.created_at, business_time(rng, d.created_at + timedelta(hours=1), stop))
                       for _ in range(slips))
        chain = dates + [d.close_date]
        rows += [_row("opportunity", d.id, "close_date", a.isoformat(), b.isoformat(), d.owner_id, at)
                 for a, b, at in zip(chain, chain[1:], times)]
        steps, previous = [], ""  # a next step for each stage it reached, the current one last
        for k, (_old, new, at) in enumerate(d.changes):
            step = d.next_step if k == len(d.changes) - 1 else rng.choice(cv.NEXT_STEPS[new])
            if step != previous:
                steps.append(_row("opportunity", d.id, "next_step", previous, step, d.owner_id, at))
            previous = step
        rows += steps
    case_paths = {"New": [], "Working": ["Working"], "Escalated": ["Working", "Escalated"],
                  "Closed": ["Working", "Closed"]}
    for case in cases:
        stop = case["closed_at"] or end
        if case["status"] == "Escalated":  # escalated within hours: engineering filed a bug soon after
            stop = min(end, case["created_at"] + timedelta(hours=2))
        rows += _statuses(ctx, "case", case, case_paths[case["status"]], stop, case["closed_at"])
    lead_paths = {"New": [], "Working": ["Working"], "Qualified": ["Working", "Qualified"],
                  "Unqualified": ["Working", "Unqualified"], "Converted": ["Working", "Qualified", "Converted"]}
    for lead in leads:
        rows += _statuses(ctx, "lead", lead, lead_paths[lead["status"]], lead["converted_at"] or end,
                          lead["converted_at"])
    return rows


def _statuses(ctx: Ctx, record_type: str, record: dict, path: list[str], stop: datetime,
              final_at: datetime | None) -> list[dict]:
    """A record's way from New through `path`, by its owner, the last step at `final_at` when given."""
    marks = sorted(business_time(ctx.rng, record["created_at"] + timedelta(minutes=5), stop) for _ in path)
    if final_at and marks:
        marks[-1] = final_at
    rows, previous = [], "New"
    for status, at in zip(path, marks):
        rows.append(_row(record_type, record["id"], "status", previous, status, record["owner_id"],
                         max(at, record["created_at"])))
        previous = status
    return rows
