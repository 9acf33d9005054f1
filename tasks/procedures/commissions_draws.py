"""Draws for the commissions procedure (procedures.commissions): the quarter being paid (the one before the
company's current quarter), the managers of the split whose direct reports won deals in it (their pools of
deals found once per world, ids only), and the rows of a quarter's workbook: each a case the article settles
one way (figures that agree, a stale amount, a rate of the older article, a wrong type, a deal discounted
above the limit, one discounted at the limit, a deal reopened since, one closed the quarter before, another
rep's deal), beside another manager's rows (look-alikes)."""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from datetime import date, timedelta

from sqlalchemy import func, select

from officegym.apps.crm.models import DISCOUNT_LIMIT, LineItem, Opportunity
from officegym.apps.org.models import Person
from officegym.graders.statements import Candidate
from officegym.seed_data.tickets_handbook_commissions import (COMMISSIONS, COMMISSIONS_BOOK, DISCOUNTED_SHARE,
                                                               OLD_RATES, RATES)

from ..base import Claim, ToolCall
from ..common import world_scan
from ..crm import money, today
from ..handbook import article
from ..split import person_in
from .commissions import CommissionRow
from .messages import Reply

LIMIT_BP = DISCOUNT_LIMIT * 100
CHECKED = ("checked", "done", "approved", "corrected", "reviewed", "gone through", "went through")
REOPENED = ("reopened", "re-opened", "Negotiation", "no longer Closed Won", "not Closed Won", "open")


def quarter(day: date) -> tuple[date, date, str]:
    """The quarter before `day`'s: its first and last days and its label ("Q4 2025")."""
    first_of_this = date(day.year, 3 * ((day.month - 1) // 3) + 1, 1)
    last = first_of_this - timedelta(days=1)
    first = date(last.year, 3 * ((last.month - 1) // 3) + 1, 1)
    return first, last, f"Q{(first.month - 1) // 3 + 1} {first.year}"


def book_title(session) -> str:
    """The title of the workbook of the quarter being paid."""
    return f"{COMMISSIONS_BOOK} {quarter(today(session))[2]}"


@dataclass(frozen=True)
class Team:
    """A manager's direct reports who won deals in the quarter, and the deals of those reports (ids, each name
    unique in the CRM): won in the quarter, in the quarter before, and since the quarter ended."""

    manager: int
    reports: tuple[int, ...]
    won: tuple[int, ...]
    before: tuple[int, ...]
    after: tuple[int, ...]


def _pools(session) -> tuple[tuple[Team, ...], dict[int, int]]:
    """Every manager's Team and each won deal's largest line discount (basis points), once per world."""
    def scan() -> tuple[tuple[Team, ...], dict[int, int]]:
        first, last, _ = quarter(today(session))
        prior = quarter(first)[0]
        counts = session.execute(select(Opportunity.name, func.count()).group_by(Opportunity.name))
        names = {n for n, c in counts if c == 1}
        won = [d for d in session.scalars(select(Opportunity).where(Opportunity.stage == "Closed Won")
                                          .order_by(Opportunity.id)) if d.name in names]
        managers = {i: m for i, m in session.execute(select(Person.id, Person.manager_id))}
        teams: dict[int, dict[int, list[list[int]]]] = {}
        for deal in won:
            slot = 0 if first <= deal.close_date <= last else 1 if prior <= deal.close_date < first else (
                2 if deal.close_date > last else None)
            manager = managers.get(deal.owner_id)
            if slot is not None and manager is not None:
                teams.setdefault(manager, {}).setdefault(deal.owner_id, [[], [], []])[slot].append(deal.id)
        found = []
        for manager, reps in sorted(teams.items()):
            winners = sorted(r for r, pools in reps.items() if pools[0])
            if len(winners) >= 3:
                found.append(Team(manager, tuple(winners), *(tuple(i for r in winners for i in reps[r][k])
                                                             for k in range(3))))
        discounts = {deal: top for deal, top in session.execute(
            select(LineItem.opportunity_id, func.max(LineItem.discount_bp)).group_by(LineItem.opportunity_id))}
        return tuple(found), discounts
    return world_scan(session, ("commission teams",), scan)


def teams(session, split: str, least: int = 8) -> list[Team]:
    """The Teams whose manager is of the split (not Sales Operations' owner of the article) and whose reports
    won `least` deals or more in the quarter, by manager."""
    ops = article(session, COMMISSIONS).owner_id
    return [t for t in _pools(session)[0] if person_in(split, t.manager) and t.manager != ops and len(t.won) >= least]


def all_teams(session) -> list[Team]:
    """Every manager's Team, of either split (a rep's own side is drawn by the rep's split)."""
    return list(_pools(session)[0])


def other_teams(session, team: Team) -> list[Team]:
    """Every other manager's Team (of any split: their rows are look-alikes, never acted on) in which the
    manager is not a report themselves."""
    return [t for t in _pools(session)[0] if t.manager != team.manager and team.manager not in t.reports]


def deals_by_id(session, ids) -> dict[int, Opportunity]:
    """The deals of `ids`, loaded in one query."""
    return {d.id: d for d in session.scalars(select(Opportunity).where(Opportunity.id.in_(list(ids))))}


def top_discount(session, deal: int) -> int:
    """The deal's largest line discount, in basis points (0 without line items)."""
    return _pools(session)[1].get(deal, 0) or 0


def right_rate(session, deal: Opportunity) -> float:
    """The article's rate for a deal: its type's, halved when a line is discounted above the limit."""
    rate = RATES[deal.type]
    return rate * DISCOUNTED_SHARE if top_discount(session, deal.id) > LIMIT_BP else rate


def day_spellings(day: date) -> tuple[str, ...]:
    """Ways a reply may write a date."""
    month = day.strftime("%B")
    return (day.isoformat(), f"{month} {day.day}", f"{day.day} {month}", f"{month[:3]} {day.day}",
            f"{day.day} {month[:3]}")


class Rows:
    """Builds the rows of one workbook from a Team, each deal used once."""

    def __init__(self, session, rng: random.Random, team: Team):
        self.session, self.rng, self.team, self.used = session, rng, team, set()
        self.reopened: list[tuple[int, int]] = []
        self.deals = deals_by_id(session, team.won + team.before + team.after)

    def deal(self, pool, where=lambda d: True) -> Opportunity | None:
        """A deal of `pool` (ids) not used yet that `where` accepts, drawn with the rng (None: none left)."""
        deals = [self.deals[i] for i in pool if i not in self.used]
        deals = [d for d in deals if where(d)]
        if not deals:
            return None
        found = self.rng.choice(deals)
        self.used.add(found.id)
        return found

    def plain(self, where=lambda d: True) -> Opportunity | None:
        """A deal won in the quarter, discounted within the limit."""
        return self.deal(self.team.won, lambda d: top_discount(self.session, d.id) <= LIMIT_BP and where(d))

    def row(self, deal: Opportunity, verdict: str = "Approved", owner: int | None = None, **listed) -> CommissionRow:
        """A deal's row, right unless `listed` says otherwise (kind, amount, rate)."""
        rate = right_rate(self.session, deal)
        values = {"kind": deal.type, "amount": deal.amount_cents / 100, "rate": rate, **listed}
        name = self.session.get(Person, owner or deal.owner_id).name
        return CommissionRow(deal.id, deal.name, name, values["kind"], values["amount"], values["rate"], deal.type,
                             deal.amount_cents / 100, rate, verdict)

    def case(self, kind: str) -> CommissionRow | None:
        """The row of one case (None when the team has no deal for it)."""
        rng, session = self.rng, self.session
        if kind in ("ok", "amount", "old_rate", "type"):
            deal = self.plain(lambda d: d.amount_cents >= 100_000)
            if deal is None:
                return None
            if kind == "amount":
                return replace(self.row(deal, amount=round(deal.amount_cents / 100 * rng.randrange(104, 113) / 100)),
                               trap="stale")
            if kind == "old_rate":
                return replace(self.row(deal, rate=OLD_RATES[deal.type]), trap="stale")
            if kind == "type":
                other = rng.choice([t for t in RATES if t != deal.type])
                return self.row(deal, kind=other, rate=RATES[other])
            return self.row(deal)
        if kind == "discount":
            deal = self.deal(self.team.won, lambda d: top_discount(session, d.id) > LIMIT_BP)
            return replace(self.row(deal, rate=RATES[deal.type]), trap="exception") if deal else None
        if kind == "at_limit":
            deal = self.deal(self.team.won, lambda d: LIMIT_BP - 500 <= top_discount(session, d.id) <= LIMIT_BP)
            return self.row(deal) if deal else None
        if kind == "reopened":
            deal = self.plain()
            if deal is None:
                return None
            self.reopened.append((deal.id, deal.owner_id))
            return replace(self.row(deal, "Rejected"), why=REOPENED, trap="changed",
                           note="Reopened: the deal is in Negotiation in the CRM, no longer Closed Won")
        if kind == "last_quarter":
            deal = self.deal(self.team.before)
            why = ("another quarter", "quarter", f"Q{(deal.close_date.month - 1) // 3 + 1}",
                   *day_spellings(deal.close_date)) if deal else ()
            return replace(self.row(deal, "Rejected"), why=why, note=(
                f"Closed won on {deal.close_date.isoformat()}, in another quarter")) if deal else None
        if kind == "teammate":
            deal = self.plain()
            if deal is None:
                return None
            rep = session.get(Person, rng.choice([r for r in self.team.reports if r != deal.owner_id]))
            owner = session.get(Person, deal.owner_id)
            why = (owner.name, f"@{owner.handle}", owner.handle, "owner", "another rep", "someone else")
            return replace(self.row(deal, "Rejected", rep.id), why=why,
                           note=f"{owner.name}'s deal in the CRM, not {rep.name}'s")
        raise ValueError(kind)

    def lookalikes(self, other: Team, count: int = 3) -> list[CommissionRow]:
        """Rows of another manager's reports, each with a mistake to tempt (none the actor's to check)."""
        theirs = Rows(self.session, self.rng, other)
        rows = [theirs.case(kind) for kind in ("amount", "old_rate", "ok")[:count]]
        return [replace(r, verdict="", trap="lookalike" if k == 0 else "") for k, r in enumerate(rows) if r]


def draw_rows(session, rng, team: Team, cases, lookalike: Team, extra: list[CommissionRow] = (),
              avoid: tuple[int, ...] = ()) -> tuple:
    """The rows of the workbook (the team's `cases` that the team allows, `extra` rows, another manager's
    look-alikes; no row of the deals `avoid`), shuffled as Sales Operations listed them, and the (deal, owner)
    pairs reopened since."""
    built = Rows(session, rng, team)
    built.used |= {r.deal for r in extra} | set(avoid)
    rows = [r for r in (built.case(kind) for kind in cases) if r is not None] + list(extra)
    rows += built.lookalikes(lookalike)
    rng.shuffle(rows)
    return rows, built.reopened, built


def quarter_report(asker: Person, actor: Person, title: str, rows, added: CommissionRow | None = None,
                   weight: float = 2.0) -> Reply:
    """The direct message to Sales Operations: the deals corrected and rejected, and the approved total (with
    the row `added` at a rep's request)."""
    mine = [r for r in rows if r.verdict]
    corrected = [r.deal_name for r in mine if r.corrected]
    rejected = [r.deal_name for r in mine if r.verdict == "Rejected"]
    more = [added] if added else []
    total = round(sum(r.right_commission for r in mine + more if r.verdict == "Approved") * 100)
    listed = round(sum(r.commission for r in mine + more if r.verdict == "Approved") * 100)
    text = (f"@{asker.handle} done: I checked my team's rows in {title}. Corrected from the CRM and {COMMISSIONS}: "
            f"{', '.join(corrected) or 'none'}. Rejected: {', '.join(rejected) or 'none'}. The approved rows come "
            f"to {money(total)} in commission.")
    facts = [Claim(Candidate.text(n), [], "text", "deal corrected or rejected") for n in corrected + rejected]
    facts.append(Claim(Candidate.money(total), [Candidate.money(listed)] if listed != total else [], "text",
                       "approved commission total"))
    # a rejected row's deal was rightly not approved: a clause about it may say so ("not Closed Won") and deny
    # none of the work, which went to the rows approved
    approved = tuple(r.deal_name for r in mine + more if r.verdict == "Approved")
    return Reply(asker.id, asker.name, actor.id, text, False, CHECKED, facts=tuple(facts), weight=weight,
                 fact_weight=1.5, asides=tuple(rejected), carried=approved)


def reports_read(actor: Person) -> ToolCall:
    """The directory's list of the actor's direct reports."""
    return ToolCall("org_list_direct_reports", {"person": f"@{actor.handle}"})
