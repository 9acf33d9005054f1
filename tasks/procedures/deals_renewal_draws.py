"""Draws of the renewal templates (tasks.w_lib_deals_renewals): a rep whose open deals, closed last week as the
setup plants them, make their renewal work (`renewal_week`): New Business and
Renewal wins that open a renewal, Upsell wins that add to the account's open renewal (opened months ago),
and two deals lost, which open nothing."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date, timedelta

from sqlalchemy import select

from officegym.apps.crm.models import CLOSED_STAGES, OPEN_STAGES, Account, Opportunity
from officegym.apps.org.models import Person

from ..common import world_scan
from ..crm import sales_people, today
from ..split import in_split, person_in
from .core import Procedure
from .deals_renewals import AddUpsell, LostNoRenewal, OpenRenewal, a_year_after

LOST = ("Price", "No Budget", "No Decision", "Timing")


@dataclass
class ClosedWeek:
    """A rep and the open deals the setup closes: wins (New Business or Renewal), Upsells, one lost."""

    rep: Person
    wins: list[Opportunity]
    upsells: list[Opportunity]
    lost: list[Opportunity]


def _renewals_open(session, account_id: int) -> set[int]:
    return set(session.scalars(select(Opportunity.id).where(Opportunity.account_id == account_id,
                                                            Opportunity.type == "Renewal",
                                                            Opportunity.stage.in_(OPEN_STAGES))))


def closed_weeks(session, split: str, wins: int, upsells: int) -> list[ClosedWeek]:
    """Reps of the split (with a manager) who closed nothing in the last fifteen days and hold, on accounts of
    their own, `wins` open New Business or Renewal deals on accounts with no other open renewal (one of the
    deals of the split) and `upsells` open Upsells on accounts with no open renewal, all on different
    accounts, with an amount; and two more open deals to lose."""
    def scan() -> tuple:
        since = today(session) - timedelta(days=15)
        found = []
        for rep in sales_people(session):
            if not person_in(split, rep.id) or rep.manager_id is None:
                continue
            closed = session.scalar(select(Opportunity.id).where(
                Opportunity.owner_id == rep.id, Opportunity.stage.in_(CLOSED_STAGES), Opportunity.close_date >= since))
            deals = list(session.scalars(select(Opportunity).where(
                Opportunity.owner_id == rep.id, Opportunity.stage.in_(OPEN_STAGES), Opportunity.amount_cents > 0)
                .order_by(Opportunity.id)))
            mine = [d for d in deals
                    if d.account.owner_id == rep.id and _renewals_open(session, d.account_id) <= {d.id}]
            more = [d for d in mine if d.type == "Upsell" and not _renewals_open(session, d.account_id)]
            taken = {d.account_id for d in more[:upsells]}
            new = list({d.account_id: d for d in reversed(mine)
                        if d.type != "Upsell" and d.account_id not in taken}.values())
            new.sort(key=lambda d: (not in_split(split, "opportunity", d.id), d.id))
            rest = [d for d in deals if d.account_id not in taken | {n.account_id for n in new[:wins]}]
            if closed is None and len(new) >= wins and len(more) >= upsells and len(rest) >= 2 and in_split(
                    split, "opportunity", new[0].id):
                found.append((rep.id, tuple(d.id for d in new[:wins]), tuple(d.id for d in more[:upsells]),
                              tuple(d.id for d in rest[:2])))
        return tuple(found)

    def deals(ids) -> list[Opportunity]:
        return [session.get(Opportunity, i) for i in ids]
    return [ClosedWeek(session.get(Person, rep), deals(wins_), deals(ups), deals(lost))
            for rep, wins_, ups, lost in world_scan(session, ("closed weeks", split, wins, upsells), scan)]


def renewal_week(session, rng, f: ClosedWeek, split: str, wins: int, upsells: int) -> list[Procedure]:
    """The procedures of the renewal work of `f`: `wins` wins (one of the split first), `upsells` Upsells (each
    account's open renewal planted, opened months ago), two deals lost, each closed on a working day of the
    last week (Tuesday to Friday)."""
    monday = today(session) - timedelta(days=today(session).weekday())
    days = [monday - timedelta(days=d) for d in (6, 5, 4, 3)]  # last Tuesday to Friday: within five working days
    won = list(f.wins)
    up = list(f.upsells)
    when = iter(sorted(rng.choice(days) for _ in range(wins + upsells + len(f.lost))))
    first = (session.scalar(select(Opportunity.id).order_by(Opportunity.id.desc())) or 0) + 1
    made: list[Procedure] = []
    busy = {d.account_id for d in [*won, *up, *f.lost]}
    near = tuple(session.scalars(select(Account.id).where(Account.owner_id == f.rep.id, Account.id.not_in(busy))
                                 .order_by(Account.id)))
    for deal in won:
        made.append(OpenRenewal(deal.id, deal.name, deal.account_id, deal.account.name, f.rep.id, next(when),
                                deal.amount_cents, tuple(sorted(near, key=lambda a: abs(a - deal.account_id))[:6])))
    for k, deal in enumerate(up):
        day: date = next(when)
        before = rng.randrange(12, 60) * 2_500_00
        made.append(AddUpsell(deal.id, deal.name, deal.account_id, deal.account.name, f.rep.id, day, deal.amount_cents,
                              first + k, f"{deal.account.name} - Annual renewal", before,
                              a_year_after(day) - timedelta(days=rng.randrange(20, 90)), planted=True))
    for lost in f.lost:
        made.append(LostNoRenewal(lost.id, lost.name, lost.account_id, lost.account.name, f.rep.id, next(when),
                                  lost.amount_cents, rng.choice(LOST)))
    rng.shuffle(made)
    made.sort(key=lambda p: not isinstance(p, OpenRenewal) or not in_split(split, "opportunity", p.deal))
    ids = iter(range(first, first + upsells))  # the planted renewals get their ids in the order the setup makes them
    return [replace(p, renewal=next(ids)) if isinstance(p, AddUpsell) else p for p in made]
