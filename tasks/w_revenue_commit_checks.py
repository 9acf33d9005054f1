"""Helpers that grade the month-commit workflow (w_revenue_commit): who decides each deal's commit
(its owner, or who covers for an owner away), whether they were asked, and the totals a post could
wrongly give."""

from __future__ import annotations

from officegym.apps.crm.models import Opportunity
from officegym.graders.statements import Candidate

from .common import added_messages


def total_pool(session, p: dict, total: int) -> list[Candidate]:
    """Totals a post could give instead: every deal of the month counted, one left-out deal counted,
    one committed deal forgotten (a single deal's own amount is left out: a post may list them)."""
    amount = {int(k): session.get(Opportunity, int(k)).amount_cents for k in p["notes"]}
    kept = [amount[i] for i in p["committed"]]
    missed = [c for i, c in amount.items() if i not in p["committed"]]
    wrong = {sum(amount.values())} | {total + c for c in missed} | {total - c for c in kept if len(kept) > 1}
    return [Candidate.money(c) for c in sorted(wrong - {total} - set(amount.values()))]


def known_by(ctx, p: dict, person_id: int) -> list[Opportunity]:
    """The month's deals whose commit `person_id` decides: their own, or the away owner's when they cover."""
    deals = [ctx.start.get(Opportunity, int(k)) for k in sorted(p["notes"], key=int)]
    return [d for d in deals if (d.owner_id == person_id and d.owner_id != p.get("away"))
            or (person_id == p["cover"] and d.owner_id == p.get("away"))]


def asked_about(ctx, p: dict, reached: dict[int, bool], deal: Opportunity, channel, asked) -> bool:
    """Whether whoever decides a deal's commit was asked: a direct message to them, or (the lead) a
    message in the request's thread."""
    knower = p["cover"] if deal.owner_id == p.get("away") else deal.owner_id
    if reached.get(knower):
        return True
    return knower == p["lead"] and asked is not None and any(
        r["channel_id"] == channel.id and r["thread_parent_id"] == asked.id for r in added_messages(ctx, ctx.actor_id))
