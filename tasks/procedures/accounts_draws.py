"""Draws of the CRM-operations procedures' overdue pipeline (tasks.procedures.accounts_pipeline): whose deals
are reviewed, and which of them the setup makes stale (to push or to close), a Renewal in an early stage (the
article's exception) and look-alikes overdue by fourteen days or fewer."""

from __future__ import annotations

import random
from datetime import timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from officegym.apps.crm.models import DiscountApproval, Opportunity
from officegym.apps.org.models import Person

from officegym.apps.crm.models import OPEN_STAGES

from ..crm import open_deals, sales_people, today
from ..split import person_in
from .accounts_pipeline import LATE_STAGES, OverdueDeal, month_end_after

REVIEWED_LEAST = 7  # open deals an owner needs for a review of their own


def reviewable(session: Session) -> dict[int, list[Opportunity]]:
    """Each Sales person's open deals that a review may touch (no pending discount request, a close date not
    passed yet), by owner id; deals by id."""
    if "accounts_reviewable" in session.info:  # read once per session: the draws read the world before any setup
        return session.info["accounts_reviewable"]
    pending = set(session.scalars(select(DiscountApproval.opportunity_id).where(DiscountApproval.status == "Pending")))
    day = today(session)
    found: dict[int, list[Opportunity]] = {}
    for deal in open_deals(session):
        if deal.id not in pending and deal.close_date >= day:
            found.setdefault(deal.owner_id, []).append(deal)
    session.info["accounts_reviewable"] = found
    return found


def overdue_already(session: Session, owner: Person) -> list[Opportunity]:
    """The owner's open deals whose close date has passed in the world already (by a few days), by id."""
    return list(session.scalars(select(Opportunity).where(
        Opportunity.owner_id == owner.id, Opportunity.stage.in_(OPEN_STAGES), Opportunity.close_date < today(session))
        .order_by(Opportunity.id)))


def review_owners(session: Session, split: str) -> list[Person]:
    """Sales reps of `split` with enough open deals for a review of their own, by id."""
    deals = reviewable(session)
    return [p for p in sales_people(session) if person_in(split, p.id) and len(deals.get(p.id, [])) >= REVIEWED_LEAST
            and any(d.stage not in LATE_STAGES and d.type != "Renewal" for d in deals[p.id])
            and any(d.stage in LATE_STAGES for d in deals[p.id])]


def review_managers(session: Session, split: str) -> list[Person]:
    """Sales managers of `split` with at least two reps of `split` who have deals to review, by id."""
    owners = {p.id for p in review_owners(session, split)}
    people = sales_people(session)
    return [m for m in people if person_in(split, m.id)
            and sum(1 for p in people if p.manager_id == m.id and p.id in owners) >= 2]


def overdue_deals(session: Session, rng: random.Random, owners: list[Person], per_owner: tuple[int, int, int]
                  ) -> list[OverdueDeal]:
    """For each owner, `per_owner` = (stale to close, stale to push, left) of their deals made overdue, and an
    early-stage Renewal made stale where they have one; listed as an agent meets them, by close date."""
    deals = reviewable(session)
    day = today(session)
    push_to = month_end_after(day)
    made: list[OverdueDeal] = []
    for owner in owners:
        mine = deals[owner.id][:]
        rng.shuffle(mine)
        early = [d for d in mine if d.stage not in LATE_STAGES and d.type != "Renewal"]
        late = [d for d in mine if d.stage in LATE_STAGES]
        renewal = [d for d in mine if d.stage not in LATE_STAGES and d.type == "Renewal"][:1]
        close, push = early[:per_owner[0]], late[:per_owner[1]]
        rest = [d for d in mine if d not in close + push + renewal]
        left = rest[:per_owner[2]]
        chosen = [(d, rng.randint(15, 45)) for d in close + push + renewal] + [(d, rng.randint(9, 14)) for d in left]
        for deal, days in chosen:
            near = tuple(d.id for d in deals[owner.id] if d.id != deal.id)
            made.append(OverdueDeal(deal.id, deal.name, deal.account.name, owner.id, deal.stage, deal.type, days,
                                    day - timedelta(days=days), push_to, near))
        for deal in overdue_already(session, owner):
            made.append(OverdueDeal(deal.id, deal.name, deal.account.name, owner.id, deal.stage, deal.type,
                                    (day - deal.close_date).days, deal.close_date, push_to, (), planted=False))
    return sorted(made, key=lambda r: (r.close_date, r.deal))
