"""Drawing a month-end reconciliation from the world (tasks.procedures.revenue): who may reconcile which
tab (an editor of the workbook, in #deals, who can read the rows' deals in the CRM), and the drifts
planted on the tab's rows. The drifts reuse the revenue family's ways of making a row disagree
(tasks.w_revenue_drift): an amount or a date typed over, a deal moved on in the CRM, a deal closed."""

from __future__ import annotations

from dataclasses import replace
from datetime import date, timedelta

from sqlalchemy import select

from officegym.apps.crm.access import scope_of
from officegym.apps.crm.models import LineItem, Opportunity
from officegym.apps.org.models import Person
from officegym.apps.sheets.models import Workbook
from officegym.apps.sheets.formula.a1 import cell_text

from ..base import ToolCall
from ..common import channel_named, member_ids, pick, world_scan
from ..crm import money, open_deals, today
from ..sheets import a1, workbook_titled
from ..split import in_split, person_in
from ..w_revenue_common import editor_ids, layout, team_pipelines
from ..w_revenue_drift import grown
from .revenue import Drift, ReconcileTab

# How many drifts of each kind a marathon's pipeline tab holds (the first kind comes first, on a deal of the split).
PIPELINE = {"typed_amount": 5, "typed_close": 3, "crm_close": 4, "crm_amount": 3, "closed": 2}
COLUMN = {"typed_amount": "Amount", "crm_amount": "Amount", "typed_close": "Expected close",
          "crm_close": "Expected close", "typed_closed_on": "Closed on", "closed": "Stage"}
LATER = timedelta(days=45)  # how far a date moves, typed over or pushed in the CRM
FORECAST = "FY{year} Sales Forecast"


def unique(session, deals) -> list[Opportunity]:
    """The deals whose name no other deal has (a tab's row names its deal by name)."""
    names = list(session.scalars(select(Opportunity.name)))
    return [d for d in deals if names.count(d.name) == 1]


def readable(session, person_id: int, deals) -> list[Opportunity]:
    """The deals a person can read in the CRM, in their order."""
    scope = scope_of(session, session.get(Person, person_id))
    return [d for d in deals if scope.can_read(d.owner_id)]


def in_deals(session) -> set[int]:
    """The members of #deals (where the reconciliation is posted)."""
    return member_ids(session, channel_named(session, "deals").id)


def pipeline_options(session, split: str, least: int = 30) -> list[tuple]:
    """(workbook, actor, the open deals its Deals tab lists) for each editor of a team pipeline of `split`,
    in #deals, who can read at least `least` of those deals (only those are kept)."""
    def scan() -> tuple:
        inside, deals = in_deals(session), unique(session, open_deals(session))
        found = []
        for book, _team in team_pipelines(session):
            rows = layout(session, book.id, "Deals")[2]
            listed = [d for d in deals if d.name in rows]
            for person_id in sorted(editor_ids(session, book) & inside):
                seen = readable(session, person_id, listed)
                if person_in(split, person_id) and len(seen) >= least:
                    found.append((book.id, person_id, tuple(d.id for d in seen)))
        return tuple(found)
    return [(session.get(Workbook, book), person_id, [session.get(Opportunity, d) for d in seen])
            for book, person_id, seen in world_scan(session, ("pipeline options", split, least), scan)]


def won_in(session, book_id: int, month: date) -> list[Opportunity]:
    """The deals won in `month` (its first day) that the forecast's Closed Won tab lists, by id."""
    rows = layout(session, book_id, "Closed Won")[2]
    won = session.scalars(select(Opportunity).where(Opportunity.stage == "Closed Won").order_by(Opportunity.id))
    return [d for d in unique(session, won)
            if d.name in rows and (d.close_date.year, d.close_date.month) == (month.year, month.month)]


def drift_of(kind: str, deal: Opportunity, tab: str, row: int, cols: dict, typist: int, beside: int) -> Drift:
    """The drift of `kind` planted on a deal's row of `tab` (`beside`: the look-alike row)."""
    column = COLUMN[kind]
    amount, close = deal.amount_cents / 100, deal.close_date
    # A Closed on date typed over stays in the deal's month: the tab's column is what puts a row in scope.
    typed_on = close + timedelta(days=3)
    typed_on = typed_on if typed_on.month == close.month else close - timedelta(days=3)
    right, wrong, how, by = {
        "typed_amount": (amount, amount + 7_500, "typed", typist),
        "typed_close": (close, close + LATER, "typed", typist),
        "typed_closed_on": (close, typed_on, "typed", typist),
        "crm_close": (close + LATER, close, "crm", deal.owner_id),
        "crm_amount": (grown(deal.amount_cents) / 100, amount, "crm", deal.owner_id),
        "closed": (None, deal.stage, "closed", deal.owner_id)}[kind]
    return Drift(deal.id, deal.name, column, a1(tab, row, cols[column]), right, wrong, how, by,
                 a1(tab, beside, cols[column]))


def draw_drifts(session, rng, split: str, book, tab: str, actor_id: int, deals: list[Opportunity],
                counts: dict[str, int], vouch: bool = True) -> tuple[Drift, ...]:
    """The drifts of one tab: `counts` of each kind over as many of `deals`, the first (of the first kind)
    on a deal of the split that is not the newest, the others in the tab's order. A teammate who edits
    the workbook types (and, with `vouch`, says in #deals that one amount they typed is right)."""
    _, cols, rows = layout(session, book.id, tab)
    typist = pick(rng, sorted(editor_ids(session, book) & in_deals(session) - {actor_id}))
    itemised = set(session.scalars(select(LineItem.opportunity_id)))
    newest = max(deals, key=lambda d: (d.created_at, d.id))
    first = pick(rng, [d for d in deals if in_split(split, "opportunity", d.id) and d is not newest])
    pool = rng.sample([d for d in deals if d is not first], len(deals) - 1)
    kinds = [k for k, n in counts.items() for _ in range(n)][1:]
    bare = [d for d in pool if d.id not in itemised][:kinds.count("crm_amount")]  # the CRM refuses them otherwise
    rest = [d for d in pool if d not in bare][:len(kinds) - len(bare)]
    planned = sorted([*zip(rest, [k for k in kinds if k != "crm_amount"]), *((d, "crm_amount") for d in bare)],
                     key=lambda pair: rows[pair[0].name])
    spare = sorted(set(rows.values()) - {rows[d.name] for d in [first, *rest, *bare]})
    drifts = [drift_of(kind, deal, tab, rows[deal.name], cols, typist,
                       min(spare, key=lambda r, row=rows[deal.name]: (abs(r - row), r)))
              for deal, kind in [(first, next(iter(counts))), *planned]]
    vouched = next((i for i, d in enumerate(drifts) if i and d.how == "typed" and d.column == "Amount"), None)
    if vouch and vouched is not None:
        drifts[vouched] = replace(drifts[vouched], stale=(
            f"FYI the {drifts[vouched].name} amount in {book.title} is right: {money(int(drifts[vouched].wrong * 100))}"
            ", I fixed it there."))
    return tuple(drifts)


def reconcile(session, rng, split: str, book, tab: str, actor_id: int, deals, counts: dict[str, int],
              reads: list[ToolCall], vouch: bool = True) -> tuple[ReconcileTab, list[str], list[str]]:
    """The reconciliation of `deals`' rows on a tab, with the names of its corrected and agreeing deals."""
    drifts = draw_drifts(session, rng, split, book, tab, actor_id, deals, counts, vouch)
    _, cols, rows = layout(session, book.id, tab)
    area = f"{a1(tab, 0, 0)}:{cell_text(max(rows.values()), max(cols.values()))}"
    found = ReconcileTab(book.id, book.title, tab, area, tuple(d.id for d in deals), drifts, tuple(reads))
    fixed = {d.deal for d in found.fixed}
    return found, [d.name for d in found.fixed], [d.name for d in deals if d.id not in fixed]


def open_pages(deals) -> list[ToolCall]:
    """The pages of crm_list_opportunities that list the open deals an actor can see."""
    return [ToolCall("crm_list_opportunities", {"stage": "open", "limit": 100, "offset": k * 100})
            for k in range((len(deals) + 99) // 100)]


def month_closed(session) -> date:
    """The first day of the month being closed: the one before the company's current month."""
    return (today(session).replace(day=1) - timedelta(days=1)).replace(day=1)


def won_pages(month: date) -> list[ToolCall]:
    """The call that lists the deals won in `month` an actor can see."""
    last = (month + timedelta(days=32)).replace(day=1) - timedelta(days=1)
    return [ToolCall("crm_list_opportunities", {"stage": "Closed Won", "close_from": month.isoformat(),
                                                "close_to": last.isoformat(), "limit": 100})]


def forecast_options(session, split: str, least_won: int, least_open: int = 0) -> list[tuple]:
    """(forecast, pipeline or None, actor, open deals they reconcile, won deals they reconcile) for each editor
    of the sales forecast of `split`, in #deals, who can read at least `least_won` of the deals won in the
    month being closed (and, with `least_open`, edits a team pipeline listing that many deals they read)."""
    forecast = workbook_titled(session, FORECAST.format(year=today(session).year))
    pipelines = {person: (book, deals) for book, person, deals in pipeline_options(session, split, least_open)}

    def scan() -> tuple:
        won, inside = won_in(session, forecast.id, month_closed(session)), in_deals(session)
        found = []
        for person_id in sorted(editor_ids(session, forecast) & inside):
            seen = readable(session, person_id, won)
            book, _deals = pipelines.get(person_id, (None, []))
            if person_in(split, person_id) and len(seen) >= least_won and (book is not None or not least_open):
                found.append((person_id, tuple(d.id for d in seen)))
        return tuple(found)
    found = []
    for person_id, seen in world_scan(session, ("forecast options", split, least_won, least_open), scan):
        book, deals = pipelines.get(person_id, (None, []))
        found.append((forecast, book, person_id, deals, [session.get(Opportunity, d) for d in seen]))
    return found


def won_total(deals, drifts=()) -> int:
    """The won deals' amounts added up (cents), as the CRM has them, or as a tab shows them with `drifts`."""
    typed = {d.deal: round(d.wrong * 100) for d in drifts if d.how == "typed" and d.column == "Amount"}
    return sum(typed.get(d.id, d.amount_cents) for d in deals)
