"""Cross-app tasks with sheets: bring the forecast's Closed Won tab up to date with the CRM, build a
table of open incidents per assignment group, share the budget with the new Finance hire welcomed
in #general and tell them, assign an incident to the person the on-call rota names for this week."""

from __future__ import annotations

from collections import Counter
from datetime import date

from sqlalchemy import select

from officegym import clock
from officegym.apps.chat import services as chat
from officegym.apps.chat.models import Channel
from officegym.apps.crm import services as crm
from officegym.apps.crm.models import Opportunity
from officegym.apps.org.models import Department, Person, Team
from officegym.apps.sheets.models import Share, Sheet, Workbook
from officegym.apps.tickets import workflow
from officegym.apps.tickets.models import Group, Ticket
from officegym.graders.checks import Allow, check, nothing_else_changed

from .base import Ref, TaskInstance, TaskTemplate, ToolCall
from .chat import _post, _steps
from .common import added_messages, allow_posts, channel_named, contains_text, pick
from .registry import register
from .sheets import (allow_edits, close, editors, formula_check, row_labelled, sheet_named, values,
                     workbook_titled)
from .tickets import allow_ticket, group_people, project_id, tickets_where

EXCEL_EPOCH = date(1899, 12, 30)


def won_unlisted(session, workbook_id: int) -> list[Opportunity]:
    """This year's Closed Won deals that the forecast's Closed Won tab does not list (by deal name)."""
    year = clock.now(session).year
    listed = {v for (r, c), v in values(session, sheet_named(session, workbook_id, "Closed Won").id).items() if c == 1}
    deals = session.scalars(select(Opportunity).where(Opportunity.stage == "Closed Won").order_by(Opportunity.id))
    return [d for d in deals if d.closed_at and d.closed_at.year == year and d.name not in listed]


def _win(deal_ids: list[int]):
    """A setup step: each deal's owner closes it won (from Negotiation)."""
    def run(session) -> None:
        for deal_id in deal_ids:
            deal = session.get(Opportunity, deal_id)
            crm.move_stage(session, session.get(Person, deal.owner_id), deal_id, "Closed Won")
    return run


@register
class ForecastClosedWon(TaskTemplate):
    id, apps, difficulty = "x.forecast_closed_won", ("crm", "sheets"), 3
    summary = "Add the deals won in the CRM since the forecast was refreshed to its Closed Won tab; keep the total right."

    def sample(self, session, rng, instance):
        book = workbook_titled(session, "FY")
        won_sheet = sheet_named(session, book.id, "Closed Won")
        negotiating = list(session.scalars(select(Opportunity).where(Opportunity.stage == "Negotiation")
                                           .order_by(Opportunity.id)))
        picked = sorted(rng.sample(negotiating, min(len(negotiating), pick(rng, [1, 2, 2, 3]))), key=lambda d: d.id)
        actor = pick(rng, editors(session, book))
        cells = values(session, won_sheet.id)
        blank = row_labelled(cells, "Total")  # 0-based Total row; the blank row above it is inside the SUM
        today = clock.now(session).date().isoformat()
        rows = [[d.account.name, d.name, session.get(Person, d.owner_id).name, d.amount_cents / 100, today]
                for d in picked]
        return TaskInstance(
            self.id, instance, actor.id,
            f"Deals were won in the CRM since the Closed Won tab of \"{book.title}\" was last updated. Add every "
            f"deal won this year that the tab does not list yet (account, deal, owner, amount, closed on), above "
            "its Total, and make sure the Total still adds up every listed deal. Leave the other tabs alone.",
            [ToolCall("sheets_insert_rows", {"workbook": book.id, "sheet": "Closed Won", "before": blank,
                                             "count": len(rows)}),
             ToolCall("sheets_write_range", {"workbook": book.id, "start": f"'Closed Won'!A{blank}", "rows": rows})],
            {"workbook": book.id, "deals": [d.id for d in picked]}, setup=_win([d.id for d in picked]))

    def check(self, ctx, inst):
        p = inst.params
        sheet = sheet_named(ctx.final, p["workbook"], "Closed Won")
        missing = won_unlisted(ctx.start, p["workbook"])
        after = values(ctx.final, sheet.id)
        total = row_labelled(after, "Total")
        by_name = {v: r for (r, c), v in after.items() if c == 1 and (total is None or r < total)}
        results = []
        for deal in missing:
            row = by_name.get(deal.name)
            owner = ctx.start.get(Person, deal.owner_id).name
            ok = row is not None and (after.get((row, 0)), after.get((row, 2))) == (deal.account.name, owner) \
                and close(after.get((row, 3)), deal.amount_cents / 100)
            day_ok = row is not None and after.get((row, 4)) in {
                (d - EXCEL_EPOCH).days for d in (deal.close_date, deal.closed_at.date())}
            results += [check(f"{deal.name} is listed with its account, owner and amount", ok,
                              "it is missing or a value is wrong", weight=2),
                        check(f"{deal.name} has the day it closed", day_ok, "the Closed on cell is wrong or empty")]
        allowed = allow_edits(ctx.start, p["workbook"], {sheet.id}, structural=True)
        if total is None or not missing:
            return results + [check("The tab still has its Total", False, "no row is labelled Total"),
                              nothing_else_changed(ctx.diff, allowed)]
        amounts = [after[(r, 3)] for (r, c) in after if c == 3 and 0 < r < total and isinstance(after[(r, 3)], float)]
        first = by_name.get(missing[0].name)
        results.append(check("The Total adds up every listed deal", close(after.get((total, 3)), sum(amounts), 0.01),
                             f"it reads {after.get((total, 3))!r}, the deals add up to {sum(amounts):.2f}", weight=2))
        if first is not None:
            results.append(formula_check(ctx.final, p["workbook"], sheet, total, 3, "the Total",
                                         {f"'Closed Won'!D{first + 1}": after[(first, 3)] + 1000},
                                         sum(amounts) + 1000))
        summary = values(ctx.final, sheet_named(ctx.final, p["workbook"], "Summary").id)
        won = row_labelled(summary, f"Won in {clock.now(ctx.start).year}")
        results.append(check("The Summary's won figure still reads the Total",
                             won is not None and close(summary.get((won, 1)), after.get((total, 3)), 0.01),
                             f"it reads {summary.get((won, 1)) if won is not None else 'nothing'!r}"))
        return results + [nothing_else_changed(ctx.diff, allowed)]


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
    id, apps, difficulty = "x.open_incidents_table", ("tickets", "sheets"), 3
    summary = "Count the IT project's open incidents per assignment group into a new workbook."

    def sample(self, session, rng, instance):
        it = project_id(session, "IT")
        agents = list(session.scalars(select(Person).join(Department, Person.department_id == Department.id)
                                      .where(Department.name == "IT").order_by(Person.id)))
        actor, title = pick(rng, agents), pick(rng, TABLE_TITLES)
        header = pick(rng, [["Group", "Open incidents"], ["Assignment group", "Incidents"], ["Group", "Count"]])
        counts = open_incidents_by_group(session)
        return TaskInstance(
            self.id, instance, actor.id,
            f"Create a workbook titled \"{title}\" with one sheet: a header row \"{header[0]}\", \"{header[1]}\", "
            "then one row per assignment group that has open incidents in the IT project, with the group's name "
            "and how many open incidents it has.",
            [ToolCall("tickets_search_tickets", {"query": "project = IT AND type = Incident AND statusCategory != Done",
                                                 "limit": 100}),
             ToolCall("sheets_create_workbook", {"title": title, "sheets": ["Incidents"]}),
             ToolCall("sheets_write_range", {"workbook": Ref(1, "id"), "start": "A1",
                                             "rows": [header] + [[g, n] for g, n in counts.items()]})],
            {"title": title, "project": it, "header": header})

    def check(self, ctx, inst):
        p = inst.params
        expected = open_incidents_by_group(ctx.start)
        book = ctx.final.scalars(select(Workbook).where(Workbook.owner_id == ctx.actor_id,
                                                        Workbook.title.ilike(p["title"])).order_by(Workbook.id)).first()
        if book is None:
            return [check(f"You own a workbook titled {p['title']}", False, "there is none", weight=3),
                    nothing_else_changed(ctx.diff, [])]
        sheet = ctx.final.scalars(select(Sheet).where(Sheet.workbook_id == book.id).order_by(Sheet.position)).first()
        cells = values(ctx.final, sheet.id)
        header = [str(cells.get((0, c)) or "").strip().casefold() for c in (0, 1)]
        found = {cells.get((r, 0)): cells.get((r, 1)) for (r, c) in cells if c == 0 and r > 0}
        found.pop("Total", None)
        right = set(found) == set(expected) and all(close(found[g], n) for g, n in expected.items())
        mine = {book.id}
        return [check(f"You own a workbook titled {p['title']}", True),
                check("Its header row is right", header == [h.casefold() for h in p["header"]], f"it reads {header}"),
                check("Each group with open incidents is listed once with its count", right,
                      f"it lists {found}", weight=3),
                nothing_else_changed(ctx.diff, [
                    Allow("sheets_workbook", ("added", "updated"), lambda r: r["id"] in mine),
                    Allow("sheets_sheet", ("added", "updated"), lambda r: r["workbook_id"] in mine),
                    Allow("sheets_cell", ("added", "updated", "removed"), lambda r: r["sheet_id"] == sheet.id)])]


NEW_HIRES = ["Priya Raman", "Jonas Weber", "Amara Okafor", "Lucas Ferreira", "Mei Tanaka", "Olivia Brandt",
             "Samuel Osei", "Chloe Martin", "Diego Alvarez", "Hannah Kowalski", "Ravi Menon", "Ingrid Lund"]
HIRE_TITLES = ["Financial Analyst", "Senior Financial Analyst", "FP&A Manager", "Budget Analyst"]
DECOY_TITLES = [("Marketing", "Content Marketing Manager"), ("Engineering", "Software Engineer"),
                ("Sales", "Account Executive"), ("Customer Success", "Customer Success Manager")]


def _hire(name: str, title: str, dept_name: str):
    """A setup step: a person joins a department (the directory has no hiring service: seeded data)."""
    def run(session) -> None:
        dept = session.scalar(select(Department).where(Department.name == dept_name))
        team = session.scalars(select(Team).where(Team.department_id == dept.id).order_by(Team.id)).first()
        domain = session.scalar(select(Person.email).order_by(Person.id)).split("@")[1]
        handle = name.lower().replace(" ", ".")
        session.add(Person(name=name, handle=handle, email=f"{handle}@{domain}", title=title,
                           department_id=dept.id, team_id=team.id if team else None, manager_id=dept.head_id,
                           location="Remote", timezone="UTC", role="member"))
        session.flush()
    return run


@register
class ShareBudgetNewHire(TaskTemplate):
    id, apps, difficulty = "x.share_budget_new_hire", ("chat", "sheets"), 2
    summary = "Share the budget with the new Finance hire welcomed in #general and tell them by direct message."

    def sample(self, session, rng, instance):
        book = workbook_titled(session, "Department Budgets")
        owner = session.get(Person, book.owner_id)
        general = channel_named(session, "general")
        hire, decoy = rng.sample(NEW_HIRES, 2)
        title, (decoy_dept, decoy_title) = pick(rng, HIRE_TITLES), pick(rng, DECOY_TITLES)
        role = pick(rng, ["editor", "viewer"])
        handle = hire.lower().replace(" ", ".")
        return TaskInstance(
            self.id, instance, owner.id,
            f"Share your workbook \"{book.title}\" with the new Finance hire welcomed in #general today, as "
            f"{'an editor' if role == 'editor' else 'a viewer'}, and send them a direct message telling them that "
            f"the \"{book.title}\" workbook is shared with them.",
            [ToolCall("sheets_share_workbook", {"workbook": book.id, "person": f"@{handle}", "role": role}),
             ToolCall("chat_open_conversation", {"people": [f"@{handle}"]}),
             ToolCall("chat_post_message", {"channel": Ref(1, "id"),
                                            "text": f"Welcome! I shared \"{book.title}\" with you."})],
            {"workbook": book.id, "hire": hire, "decoy": decoy, "role": role},
            setup=_steps(_hire(hire, title, "Finance"), _hire(decoy, decoy_title, decoy_dept),
                         _post(owner.id, general.id, f"Please welcome {hire}, who joins Finance as {title} today!"),
                         _post(owner.id, general.id, f"And a warm welcome to {decoy}, our new {decoy_title} "
                                                     f"in {decoy_dept}.")))

    def check(self, ctx, inst):
        p = inst.params
        hire = ctx.start.scalar(select(Person).where(Person.name == p["hire"]))
        book = ctx.start.get(Workbook, p["workbook"])
        share = ctx.final.get(Share, (p["workbook"], hire.id))
        name = chat.conversation_name([hire, ctx.start.get(Person, ctx.actor_id)])
        dm = ctx.final.scalar(select(Channel).where(Channel.name == name))
        told = [r for r in added_messages(ctx, ctx.actor_id) if dm is not None and r["channel_id"] == dm.id
                and contains_text(r["text"], book.title)]
        allowed = [Allow("sheets_share", ("added",), lambda r: (r["workbook_id"], r["person_id"]) == (book.id, hire.id)),
                   Allow("chat_channel", ("added",), lambda row: row["name"] == name),
                   Allow("chat_membership", ("added",), lambda row: dm is not None and row["channel_id"] == dm.id)]
        return [check(f"{hire.name} has the workbook as {p['role']}", share is not None and share.role == p["role"],
                      f"their role is {share.role if share else 'none'}", weight=2),
                check(f"{hire.name} got a direct message naming the workbook", told,
                      "no new direct message of yours to them names it", weight=2),
                nothing_else_changed(ctx.diff, allowed + allow_posts(ctx, dm.id if dm else -1))]


def on_call_this_week(session, group_name: str) -> Person | None:
    """The person the On-call Rota names for a group this week (its 'On call this week' row)."""
    book = workbook_titled(session, "On-call Rota")
    if book is None:
        return None
    cells = values(session, sheet_named(session, book.id, "Rota").id)
    row = row_labelled(cells, "On call this week")
    col = next((c for (r, c), v in cells.items() if r == 0 and v == group_name), None)
    if row is None or col is None:
        return None
    name = cells.get((row, col))
    group = session.scalar(select(Group).where(Group.name == group_name))
    return next((p for p in group_people(session, group.id) if p.name == name), None)


@register
class AssignOnCall(TaskTemplate):
    id, apps, difficulty = "x.assign_on_call", ("sheets", "tickets"), 2
    summary = "Assign an open ticket to whoever the on-call rota names for its group this week."

    def sample(self, session, rng, instance):
        book = workbook_titled(session, "On-call Rota")
        header = values(session, sheet_named(session, book.id, "Rota").id)
        groups = [v for (r, c), v in sorted(header.items()) if r == 0 and c > 0]
        options = []
        for name in groups:
            group, person = session.scalar(select(Group).where(Group.name == name)), on_call_this_week(session, name)
            if person is None:
                continue
            for ticket in tickets_where(session, Ticket.group_id == group.id):
                if workflow.is_open(ticket.status) and ticket.assignee_id != person.id and ticket.type != "Problem":
                    options.append((ticket, group, person))
        ticket, group, person = pick(rng, options)
        actor = pick(rng, [p for p in group_people(session, group.id) if p.id != person.id] or [person])
        return TaskInstance(
            self.id, instance, actor.id,
            f"{ticket.key} (\"{ticket.summary}\") needs an owner: assign it to whoever the On-call Rota workbook "
            f"says is on call for the {group.name} group this week.",
            [ToolCall("sheets_read_range", {"workbook": book.id, "range": "Rota!A1:Z40"}),
             ToolCall("tickets_assign_ticket", {"key": ticket.key, "assignee": f"@{person.handle}"})],
            {"ticket": ticket.id, "group": group.name})

    def check(self, ctx, inst):
        p = inst.params
        person = on_call_this_week(ctx.start, p["group"])
        now = ctx.final.get(Ticket, p["ticket"])
        return [check(f"{now.key} is assigned to {person.name}, on call for {p['group']}",
                      now.assignee_id == person.id, f"its assignee is {now.assignee_id}", weight=2),
                nothing_else_changed(ctx.diff, [allow_ticket(p["ticket"], "assignee_id", "status")])]
