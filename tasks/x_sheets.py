"""Cross-app tasks with sheets: bring the forecast's Closed Won tab up to date with the CRM, build a
table of open incidents per assignment group."""

from __future__ import annotations

from collections import Counter

from sqlalchemy import select

from officegym import clock
from officegym.apps.crm import services as crm
from officegym.apps.crm.models import Opportunity
from officegym.apps.org.models import Department, Person
from officegym.apps.sheets.formula.a1 import quote_sheet
from officegym.apps.sheets.models import Sheet, Workbook
from officegym.apps.tickets import workflow
from officegym.apps.tickets.models import Group, Ticket
from officegym.graders.checks import Allow, check, listed_once, nothing_else_changed
from officegym.graders.sheets import allow_workbook_cells, cells_guard, close, formulas_follow

from .base import Declaration, Ref, TaskInstance, TaskTemplate, Target, ToolCall
from .common import pick, spread
from .registry import register
from .split import person_in
from .sheets import a1, editors, is_number, row_labelled, sheet_guards, sheet_named, values, workbook_titled
from .sheets_formulas import EXCEL_EPOCH
from .tickets import project_id, tickets_where

WON = "Closed Won"


def won_unlisted(session, workbook_id: int) -> list[Opportunity]:
    """This year's Closed Won deals that the forecast's Closed Won tab does not list (by deal name)."""
    year = clock.now(session).year
    listed = {v for (r, c), v in values(session, sheet_named(session, workbook_id, WON).id).items() if c == 1}
    deals = session.scalars(select(Opportunity).where(Opportunity.stage == "Closed Won").order_by(Opportunity.id))
    return [d for d in deals if d.closed_at and d.closed_at.year == year and d.name not in listed]


def _win(deal_ids: list[int]):
    """A setup step: each deal's owner closes it won (from Negotiation)."""
    def run(session) -> None:
        for deal_id in deal_ids:
            deal = session.get(Opportunity, deal_id)
            crm.move_stage(session, session.get(Person, deal.owner_id), deal_id, "Closed Won")
    return run


def _won_rows(session, workbook_id: int) -> tuple[int, int]:
    """The Closed Won tab's Total row and the row new deals go in (the blank row above the Total),
    both 0-based."""
    total = row_labelled(values(session, sheet_named(session, workbook_id, WON).id), "Total")
    return total, total - 1


@register
class ForecastClosedWon(TaskTemplate):
    id, apps, difficulty = "x.forecast_closed_won", ("crm", "sheets"), 3
    summary = "Add the deals won in the CRM since the forecast's Closed Won tab was updated; keep its total right."

    def sample(self, session, rng, instance):
        book = workbook_titled(session, "FY")
        negotiating = list(session.scalars(select(Opportunity).where(Opportunity.stage == "Negotiation")
                                           .order_by(Opportunity.id)))
        picked = sorted(rng.sample(negotiating, min(len(negotiating), pick(rng, [1, 2, 2, 3]))), key=lambda d: d.id)
        actor = pick(rng, editors(session, book, self.split))
        _, at = _won_rows(session, book.id)
        today = clock.now(session).date().isoformat()
        rows = [[d.account.name, d.name, session.get(Person, d.owner_id).name, d.amount_cents / 100, today]
                for d in picked]
        return TaskInstance(
            self.id, instance, actor.id,
            f"Deals were won in the CRM since the Closed Won tab of \"{book.title}\" was last updated. Insert one row "
            "per deal won this year that the tab does not list yet, right after the last listed deal (above the "
            "blank row and the Total), with its account, deal, owner, amount and closed on. Make sure the Total "
            "still adds up every listed deal, and change nothing else.",
            [ToolCall("sheets_read_range", {"workbook": book.id, "range": f"'{WON}'!A1:F40"}),
             ToolCall("crm_list_opportunities", {"stage": "Closed Won", "close_from": f"{today[:4]}-01-01",
                                                 "limit": 100}),
             ToolCall("sheets_insert_rows", {"workbook": book.id, "sheet": WON, "before": at + 1,
                                             "count": len(rows)}),
             ToolCall("sheets_write_range", {"workbook": book.id, "start": a1(WON, at, 0), "rows": rows})],
            {"workbook": book.id, "deals": [d.id for d in picked]}, setup=_win([d.id for d in picked]))

    def declare(self, start, inst):
        """Where the new deals go; the blank row and the rows below the Total are look-alikes."""
        p = inst.params
        total, at = _won_rows(start, p["workbook"])
        return Declaration([Target("cell", a1(WON, at, 0), [a1(WON, at + 1, 0), a1(WON, total + 3, 0)],
                                   {"workbook": p["workbook"]})])

    def check(self, ctx, inst):
        p = inst.params
        missing = won_unlisted(ctx.start, p["workbook"])
        start_total, at = _won_rows(ctx.start, p["workbook"])
        total, new = start_total + len(missing), range(at, at + len(missing))
        after = values(ctx.final, sheet_named(ctx.start, p["workbook"], WON).id)
        by_name = {after.get((r, 1)): r for r in new}
        results = []
        for deal in missing:
            row = by_name.get(deal.name)
            owner = ctx.start.get(Person, deal.owner_id).name
            ok = row is not None and (after.get((row, 0)), after.get((row, 2))) == (deal.account.name, owner) \
                and close(after.get((row, 3)), deal.amount_cents / 100)
            day_ok = row is not None and after.get((row, 4)) in {
                (d - EXCEL_EPOCH).days for d in (deal.close_date, deal.closed_at.date())}
            results += [check(f"{deal.name} is listed in a new row with its account, owner and amount", ok,
                              "it is missing or a value is wrong", weight=2),
                        check(f"{deal.name} has the day it closed", day_ok, "the Closed on cell is wrong or empty")]
        listed = values(ctx.start, sheet_named(ctx.start, p["workbook"], WON).id)
        expected = listed[(start_total, 3)] + sum(d.amount_cents / 100 for d in missing)
        last = a1(WON, at + len(missing) - 1, 3)
        typed = after.get((at + len(missing) - 1, 3))
        inputs = {a1(WON, 1, 3): listed[(1, 3)] + 10, last: (typed if is_number(typed) else 0) + 1000}
        names = [v for (r, c), v in sorted(after.items()) if c == 1 and 0 < r < total and v not in (None, "")]
        return results + [
            check("The Total adds up every listed deal, the new ones included", close(after.get((total, 3)), expected),
                  f"it reads {after.get((total, 3))!r}, not {expected:.2f}", weight=2),
            formulas_follow(ctx.final, p["workbook"], [a1(WON, total, 3)], "The Total", inputs, [expected + 1010]),
            listed_once(names, "deal"),
            *sheet_guards(ctx, p["workbook"], [f"{quote_sheet(WON)}!A{at + 1}:E{at + len(missing)}",
                                               a1(WON, total, 3)], inserted=(WON, at, len(missing)))]


def open_incidents_by_group(session) -> dict[str, int]:
    """Open incidents of the IT project per assignment group name."""
    it = project_id(session, "IT")
    counts = Counter()
    for ticket in tickets_where(session, Ticket.project_id == it, Ticket.type == "Incident"):
        if workflow.is_open(ticket.status) and ticket.group_id:
            counts[session.get(Group, ticket.group_id).name] += 1
    return dict(sorted(counts.items()))


TABLE_TITLES = ["Open incidents by group", "Incident load per group", "IT incidents per group",
                "Open IT incidents — by group", "Incident queue snapshot", "Incidents per assignment group",
                "Where the incidents sit", "Open incident counts", "IT incident backlog by group",
                "Incident workload"]


@register
class OpenIncidentsTable(TaskTemplate):
    id, apps, difficulty = "x.open_incidents_table", ("tickets", "sheets"), 2
    summary = "Count the IT project's open incidents per assignment group into a new workbook."

    def sample(self, session, rng, instance):
        it = project_id(session, "IT")
        agents = [p for p in session.scalars(select(Person).join(Department, Person.department_id == Department.id)
                                      .where(Department.name == "IT").order_by(Person.id))
                  if person_in(self.split, p.id)]
        actor = pick(rng, agents)
        # Instances step through the titles and headers: a split has few IT agents to ask.
        title, header = spread([(t, h) for t in TABLE_TITLES for h in (["Group", "Open incidents"],
                                                                       ["Assignment group", "Incidents"],
                                                                       ["Group", "Count"])], instance)
        counts = open_incidents_by_group(session)
        return TaskInstance(
            self.id, instance, actor.id,
            f"Create a workbook titled \"{title}\" with one sheet: a header row \"{header[0]}\", \"{header[1]}\", "
            "then one row per assignment group that has open incidents in the IT project, with the group's name "
            "and how many open incidents it has, and nothing else (no total row). Change nothing else anywhere.",
            [ToolCall("tickets_search_tickets", {"query": "project = IT AND type = Incident AND statusCategory != Done",
                                                 "limit": 100}),
             ToolCall("sheets_create_workbook", {"title": title, "sheets": ["Incidents"]}),
             ToolCall("sheets_write_range", {"workbook": Ref(1, "id"), "start": "A1",
                                             "rows": [header] + [[g, n] for g, n in counts.items()]})],
            {"title": title, "project": it, "header": header})

    def declare(self, start, inst):
        """The first group listed, with the other groups as look-alikes, and an open incident."""
        counts = open_incidents_by_group(start)
        first = next(iter(counts))
        names = list(start.scalars(select(Group.name).order_by(Group.name)))
        others = [n for n in names if n not in counts] + [n for n in counts if n != first]
        incident = next(t for t in tickets_where(start, Ticket.project_id == inst.params["project"],
                                                 Ticket.type == "Incident") if workflow.is_open(t.status))
        return Declaration([Target("group", first, others), Target("ticket", incident.key)])

    def check(self, ctx, inst):
        p = inst.params
        expected = open_incidents_by_group(ctx.start)
        book = ctx.final.scalars(select(Workbook).where(Workbook.owner_id == ctx.actor_id,
                                                        Workbook.title.ilike(p["title"])).order_by(Workbook.id)).first()
        if book is None or ctx.start.get(Workbook, book.id) is not None:
            return [check(f"You created a workbook titled {p['title']}", False, "there is none", weight=5),
                    nothing_else_changed(ctx.diff, [])]
        sheet = ctx.final.scalars(select(Sheet).where(Sheet.workbook_id == book.id).order_by(Sheet.position)).first()
        cells = values(ctx.final, sheet.id) if sheet else {}
        header = [str(cells.get((0, c)) or "").strip().casefold() for c in (0, 1)]
        listed = [cells.get((r, 0)) for r in range(1, len(expected) + 1)]
        right = sorted(map(str, listed)) == sorted(expected) and all(
            close(cells.get((r, 1)), expected[str(name)]) for r, name in enumerate(listed, start=1))
        return [check(f"You created a workbook titled {p['title']}", True),
                check("Its header row is right", header == [h.casefold() for h in p["header"]], f"it reads {header}"),
                check("Each group with open incidents is listed once with its count", right,
                      f"it lists {[(n, cells.get((r, 1))) for r, n in enumerate(listed, start=1)]}", weight=3),
                listed_once(listed, "group"),
                cells_guard(ctx, book.id, [f"{quote_sheet(sheet.name)}!A1:B{len(expected) + 1}"] if sheet else []),
                nothing_else_changed(ctx.diff, allow_workbook_cells(ctx, book.id) + [
                    Allow("sheets_workbook", ("added",), lambda r: r["id"] == book.id),
                    Allow("sheets_sheet", ("added",), lambda r: r["workbook_id"] == book.id)])]
