"""Helpers of the revenue-operations workflows (w_revenue, w_revenue_drift, w_revenue_more,
w_revenue_commit, w_revenue_requests, w_revenue_refusals): the setup's clock, the sales teams' own
pipeline workbooks and their rows against the CRM, the reps who edit them, and who runs the deal desk."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from officegym import clock
from officegym.apps.crm.models import STAGE_PROBABILITY, Opportunity
from officegym.apps.org.models import Department, Person, Team
from officegym.apps.sheets.models import Share, Workbook
from officegym.graders.sheets import close

from .common import channel_named, member_ids
from .crm import open_deals
from .sheets import sheet_named, values
from .sheets_formulas import EXCEL_EPOCH
from .split import person_in

FIELDS = ("Stage", "Amount", "Expected close", "Probability")  # the columns a pipeline row takes from the CRM
LOOKALIKES = 6  # a drifted deal's look-alikes: the rep's listed deals nearest to it (the others are left to vandals)


def at(session, days: int, hour: int, minute: int = 0) -> None:
    """Let the setup's next writes happen `days` before today, at hour:minute (company time)."""
    day = clock.company_now(session) - timedelta(days=days)
    clock.set_time(session, day.replace(hour=hour, minute=minute, second=0, microsecond=0))


def team_pipelines(session) -> list[tuple[Workbook, Team]]:
    """The sales teams' own pipeline workbooks ("<Team> Pipeline <year>"), by id, with their team."""
    teams = {t.name: t for t in session.scalars(select(Team))}
    found = []
    for book in session.scalars(select(Workbook).where(Workbook.title.like("% Pipeline %")).order_by(Workbook.id)):
        team = teams.get(book.title.rsplit(" Pipeline ", 1)[0])
        if team is not None and team.lead_id == book.owner_id:
            found.append((book, team))
    return found


def editor_ids(session, book: Workbook) -> set[int]:
    """The owner and the editors of a workbook."""
    return {book.owner_id} | set(session.scalars(select(Share.person_id).where(Share.workbook_id == book.id,
                                                                                Share.role == "editor")))


def layout(session, workbook_id: int, tab: str) -> tuple[dict, dict[str, int], dict[str, int]]:
    """A deals tab's values, its columns by header and its rows (0-based) by deal name (all empty
    when the tab is gone)."""
    sheet = sheet_named(session, workbook_id, tab)
    cells = values(session, sheet.id) if sheet is not None else {}
    cols = {v: c for (r, c), v in cells.items() if r == 0 and isinstance(v, str)}
    rows = {v: r for (r, c), v in cells.items() if r > 0 and c == cols.get("Deal") and isinstance(v, str)}
    return cells, cols, rows


def crm_values(deal: Opportunity) -> dict[str, object]:
    """What a pipeline row shows of a deal, as the sheet computes it (a date is a serial number)."""
    return {"Stage": deal.stage, "Amount": deal.amount_cents / 100, "Expected close": (deal.close_date - EXCEL_EPOCH).days,
            "Probability": STAGE_PROBABILITY[deal.stage] / 100}


def agrees(value, wanted) -> bool:
    """A cell's computed value equals what the CRM says (numbers to the cent, texts exactly)."""
    return close(value, wanted) if isinstance(wanted, (int, float)) else value == wanted


def drifted(session, workbook_id: int, tab: str, owner_id: int) -> dict[int, list[str]]:
    """The owner's open deals whose row on the tab disagrees with the CRM: deal id -> the columns."""
    cells, cols, rows = layout(session, workbook_id, tab)
    found = {}
    for deal in open_deals(session):
        if deal.owner_id == owner_id and deal.name in rows:
            wrong = [f for f in FIELDS if f in cols and not agrees(cells.get((rows[deal.name], cols[f])),
                                                                   crm_values(deal)[f])]
            if wrong:
                found[deal.id] = wrong
    return found


def listed_deals(session, workbook_id: int, tab: str, owner_id: int, deals=None, rows=None) -> list[Opportunity]:
    """The owner's open deals (unique names) that the tab lists, by id (`deals` and `rows` spare
    reading them again)."""
    rows = layout(session, workbook_id, tab)[2] if rows is None else rows
    return [d for d in (open_deals(session) if deals is None else deals) if d.owner_id == owner_id and d.name in rows]


def repeated(texts: list[str]) -> bool:
    """Whether one message repeats another (the same words, give or take an addition)."""
    folded = [" ".join(t.casefold().split()) for t in texts if t]
    return any(a in b for i, a in enumerate(folded) for j, b in enumerate(folded) if i != j)


def rep_options(session, split: str, wanted, besides=()) -> list[tuple]:
    """(workbook, tab, rep, the rep's listed deals) for the reps in #deals of `split` who edit their
    team's pipeline workbook and whose listed deals `wanted` accepts."""
    inside = member_ids(session, channel_named(session, "deals").id)
    deals, options = open_deals(session), []
    for book, _team in team_pipelines(session):
        rows = layout(session, book.id, "Deals")[2]
        for person_id in sorted(editor_ids(session, book) & inside - set(besides)):
            listed = listed_deals(session, book.id, "Deals", person_id, deals, rows)
            if person_in(split, person_id) and wanted(listed):
                options.append((book, "Deals", person_id, listed))
    return options



# ---------------------------------------------------------------- the people of the deal desk

def sales_head(session) -> Person:
    """The head of the Sales department."""
    return session.get(Person, session.scalar(select(Department.head_id).where(Department.name == "Sales")))


def deal_desk(session, *besides: int) -> Person:
    """Who runs the deal desk: the Revenue Operations Manager (else someone else in Sales)."""
    found = session.scalars(select(Person).where(Person.title == "Revenue Operations Manager").order_by(Person.id))
    found = [p for p in found if p.id not in besides]
    sales = session.scalars(select(Person).join(Department, Person.department_id == Department.id)
                            .where(Department.name == "Sales").order_by(Person.id))
    return (found or [p for p in sales if p.id not in besides])[0]
