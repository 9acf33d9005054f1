"""The workbooks of a big company (`workbooks` in the spec), drafted from the other apps' records:
each sales team's own pipeline (its members' open deals in the CRM, summed per rep by formulas),
the IT help desk's weekly metrics (tickets filed and resolved per week and queue, counted from the
tickets app), and a Teams tab in the headcount plan that counts the People tab per team.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from random import Random

from officegym.apps.crm.models import OPEN_STAGES, STAGE_PROBABILITY
from officegym.apps.sheets.formula.a1 import col_name

from .chat_text import history_end
from .crm_model import Crm
from .org import Org
from .sheets_model import WorkbookDraft
from .sheets_build import COUNT, DAY, MONEY, PERCENT, dated_draft
from .tickets_model import Tickets


def team_pipelines(org: Org, crm: Crm | None, rng: Random) -> list[WorkbookDraft]:
    """One workbook per sales team with open deals: the deals its people own, and a table per rep
    (deals, amount and weighted amount by SUMIF over the deals); owned by the team's lead, edited
    by the team, seen by the lead's manager."""
    if crm is None:
        return []
    year, end = org.now.year, history_end(org.now)
    open_deals = [d for d in crm.deals if d.stage in OPEN_STAGES]
    drafts = []
    for team in (t for t in org.teams if t.dept == "Sales"):
        members = set(team.member_ids)
        deals = sorted((d for d in open_deals if d.owner_id in members), key=lambda d: (d.close_date, d.id))
        if not deals:
            continue
        lead = org.person(team.lead_id)
        book = dated_draft(org, rng, f"team-pipeline:{team.id}", f"{team.name} Pipeline {year}", lead,
                           (datetime(year, 1, 5, 9), datetime(year, 1, 16, 17)), (end - timedelta(days=4), end))
        book.description = f"Open deals of the {team.name} team, from the CRM, with totals per rep."
        book.share(sorted(members), "editor")
        if lead.manager_id:
            book.share([lead.manager_id], "viewer")
        sheet, reps = book.tab("Deals", 1), book.tab("By rep", 1)
        sheet.put_row(0, ["Account", "Deal", "Owner", "Stage", "Amount", "Expected close", "Probability", "Weighted"])
        for r, deal in enumerate(deals, start=2):
            sheet.put_row(r - 1, [deal.account.name, deal.name, org.person(deal.owner_id).name, deal.stage,
                                  deal.amount_cents / 100, deal.close_date, STAGE_PROBABILITY[deal.stage] / 100,
                                  f"=E{r}*G{r}"], ("", "", "", "", MONEY, DAY, PERCENT, MONEY))
        last = len(deals) + 1
        reps.put_row(0, ["Rep", "Deals", "Amount", "Weighted"])
        owners = sorted({org.person(d.owner_id).name for d in deals})
        for r, name in enumerate(owners, start=2):
            reps.put_row(r - 1, [name, f"=COUNTIF(Deals!$C$2:$C${last},A{r})",
                                 f"=SUMIF(Deals!$C$2:$C${last},A{r},Deals!$E$2:$E${last})",
                                 f"=SUMIF(Deals!$C$2:$C${last},A{r},Deals!$H$2:$H${last})"], ("", COUNT, MONEY, MONEY))
        total = len(owners) + 2
        reps.put_row(total - 1, ["Total", f"=SUM(B2:B{total - 1})", f"=SUM(C2:C{total - 1})", f"=SUM(D2:D{total - 1})"],
                     ("", COUNT, MONEY, MONEY))
        drafts.append(book)
    return drafts


def _monday(day: date) -> date:
    return day - timedelta(days=day.weekday())


def desk_metrics(org: Org, tickets: Tickets | None, rng: Random) -> WorkbookDraft | None:
    """The IT help desk's weekly numbers: tickets filed and resolved per week for each of its queues
    (typed from the tickets app), and totals by formulas; owned by the help desk's lead."""
    if tickets is None or "IT" not in tickets.projects:
        return None
    it = tickets.projects["IT"]
    used = {t.group_id for t in tickets.tickets if t.project is it}
    queues = [g for g in tickets.groups.values() if g.id in used]
    if not queues:
        return None
    end = history_end(org.now)
    filed_on = [t.created_at.date() for t in tickets.tickets if t.project is it]
    weeks = [_monday(min(filed_on)) + timedelta(weeks=k)
             for k in range((_monday(end.date()) - _monday(min(filed_on))).days // 7 + 1)]
    filed, solved = {}, {}
    for t in tickets.tickets:
        if t.project is it and t.group_id:
            key = (_monday(t.created_at.date()), t.group_id)
            filed[key] = filed.get(key, 0) + 1
            if t.resolved_at is not None:
                done = (_monday(t.resolved_at.date()), t.group_id)
                solved[done] = solved.get(done, 0) + 1
    owner = org.person(it.lead_id)
    first = datetime.combine(weeks[0], datetime.min.time())
    book = dated_draft(org, rng, "desk-metrics", f"IT Help Desk Metrics {org.now.year}", owner,
                       (first + timedelta(hours=9), first + timedelta(days=4, hours=17)),
                       (end - timedelta(days=3), end))
    book.description = "Tickets filed and resolved each week per queue of the IT help desk, from the tickets app."
    book.share([i for i in it.agents if i != owner.id], "viewer")
    for name, counts in (("Filed", filed), ("Resolved", solved)):
        sheet = book.tab(name, 1, 1)
        sheet.put_row(0, ["Week of"] + [g.name for g in queues] + ["Total"])
        for r, week in enumerate(weeks, start=2):
            values = [counts.get((week, g.id), 0) for g in queues]
            last = col_name(len(queues))
            sheet.put_row(r - 1, [week] + values + [f"=SUM(B{r}:{last}{r})"], (DAY,) + (COUNT,) * (len(queues) + 1))
        bottom = len(weeks) + 2
        sheet.put_row(bottom, ["Total"] + [f"=SUM({col_name(c)}2:{col_name(c)}{bottom - 1})"
                                          for c in range(1, len(queues) + 2)], ("",) + (COUNT,) * (len(queues) + 1))
    return book


def teams_tab(org: Org, book: WorkbookDraft) -> None:
    """A Teams tab in the headcount plan: each team, its department and lead, and its headcount
    counted from the People tab (column E holds the team)."""
    teams = book.tab("Teams", 1)
    teams.put_row(0, ["Team", "Department", "Lead", "Headcount"])
    for r, team in enumerate(sorted(org.teams, key=lambda t: (t.dept, t.name)), start=2):
        teams.put_row(r - 1, [team.name, team.dept, org.person(team.lead_id).name, f"=COUNTIF(People!E:E,A{r})"],
                      ("", "", "", COUNT))
    total = len(org.teams) + 2
    teams.put_row(total - 1, ["Total", None, None, f"=SUM(D2:D{total - 1})"], ("", "", "", COUNT))
