"""Draws of a manager's discount queue (tasks.w_lib_deals): the requests waiting on a Sales manager, those of
the world and some their reports asked for yesterday (reasons that stand, one naming a competitor the CRM
does not know, some that name nothing the handbook accepts), each a `DecideDiscount`."""

from __future__ import annotations

from dataclasses import replace

from sqlalchemy import select

from officegym.apps.crm.models import OPEN_STAGES, DiscountApproval, LineItem, Opportunity
from officegym.apps.org.models import Person
from officegym.colleagues.reasons import reason_stands

from ..common import pick
from ..split import in_split, person_in
from .deals import DecideDiscount
from .deals_draws import GOOD, TRICKY, UNKNOWN, fair_reasons, visible_rivals

WEAK = ("Customer asked for a better price", "They think it is overpriced", "Three-year commitment",
        "No competitor involved, they just want a lower price")


def waiting_on(session, manager: Person) -> list[DiscountApproval]:
    """The pending requests `manager` decides, by id."""
    return list(session.scalars(select(DiscountApproval).where(DiscountApproval.status == "Pending",
                                                               DiscountApproval.approver_id == manager.id)
                                .order_by(DiscountApproval.id)))


def free_lines(session, manager: Person, split: str, besides: int = 0) -> list[LineItem]:
    """One line of each open deal of the split that a direct report of `manager` owns, on an account with no request
    pending, by the deal's id (none of `besides`'s)."""
    busy = {session.get(Opportunity, a.opportunity_id).account_id for a in waiting_on(session, manager)}
    direct = select(Person.id).where(Person.manager_id == manager.id,  # a request goes to its owner's own manager
                                     Person.id != besides)
    deals = list(session.scalars(select(Opportunity).where(Opportunity.owner_id.in_(direct),
                                                           Opportunity.stage.in_(OPEN_STAGES)).order_by(Opportunity.id)))
    first: dict[int, LineItem] = {}  # each deal's first line, read in one query
    for line in session.scalars(select(LineItem).where(LineItem.opportunity_id.in_([d.id for d in deals]))
                                .order_by(LineItem.id)):
        first.setdefault(line.opportunity_id, line)
    lines, seen = [], set(busy)
    for deal in deals:
        item = first.get(deal.id)
        if item is not None and deal.account_id not in seen and in_split(split, "opportunity", deal.id):
            lines.append(item)
            seen.add(deal.account_id)
    return lines


def queue_managers(session, split: str, least: int) -> list[Person]:
    """Sales managers of the split with a manager of their own, whose waiting requests ask 35% at most and name
    only competitors they can see, and who have lines free for `least` new requests, by id."""
    ids = sorted({a.approver_id for a in session.scalars(select(DiscountApproval))})
    found = []
    for manager in (session.get(Person, i) for i in ids):
        waiting = waiting_on(session, manager)
        if (person_in(split, manager.id) and manager.manager_id is not None
                and all(a.discount_bp <= 3500 for a in waiting)
                and fair_reasons(session, manager, [a.reason for a in waiting])
                and len(free_lines(session, manager, split)) >= least):
            found.append(manager)
    return found


def queue(session, rng, manager: Person, split: str, planted: int, besides: int = 0,
          after: int = 0) -> list[DecideDiscount]:
    """The requests waiting on `manager`: `planted` the reports asked for yesterday (two whose reasons stand,
    one naming an unknown competitor, the rest naming nothing), then those of the world; each strict, beside
    the others as look-alikes. With `besides`, none on that rep's deals (their book is decided on its own),
    and the planted come `after` as many others the setup makes first."""
    world = [DecideDiscount(a.id, a.line_item_id, a.opportunity_id, session.get(Opportunity, a.opportunity_id).name,
                            a.discount_bp // 100, a.reason, reason_stands(session, a.reason))
             for a in waiting_on(session, manager)
             if session.get(Opportunity, a.opportunity_id).owner_id != besides]
    made = []
    first = (session.scalar(select(DiscountApproval.id).order_by(DiscountApproval.id.desc())) or 0) + 1 + after
    rivals = visible_rivals(session, manager)
    kinds = [True, True, None] + [False] * (planted - 3)
    rng.shuffle(kinds)
    for k, (item, stands) in enumerate(zip(rng.sample(free_lines(session, manager, split, besides), planted), kinds)):
        deal = session.get(Opportunity, item.opportunity_id)
        reason = (pick(rng, GOOD).format(rival=pick(rng, rivals), budget=rng.randrange(4, 20) * 5_000) if stands else
                  pick(rng, TRICKY).format(rival=pick(rng, UNKNOWN)) if stands is None else pick(rng, WEAK))
        made.append(DecideDiscount(first + k, item.id, deal.id, deal.name, pick(rng, (22, 25, 28, 30, 32, 35)), reason,
                                   reason_stands(session, reason), deal.owner_id, minute=k, tricky=stands is None))
    ids = [d.approval for d in made + world]  # the planted first: the first of them is of the split, not the newest
    return [replace(d, near=tuple(i for i in ids if i != d.approval), strict=True) for d in made + world]
