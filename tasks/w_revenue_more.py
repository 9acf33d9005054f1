"""A finance workflow over chat, the directory, sheets and the tickets app: build your quarter's
expense report as the Expense policy wants it (its title, its columns, what it pays back and up to
how much, the manager's approval before booking a flight over $1,000 or a conference), from what the
travel desk booked, what the events team registered you for and a team lunch you paid; ask the two
colleagues who know how many sat at each meal; get the subscription your manager agreed to the way
the policy says (too big to expense: a Service Request in IT, giving its price a month and who agreed
to it); share the report with your manager and tell them the total. The message to the manager is read
as a report (it says the report is shared and gives the total; one denying it or saying nothing costs
most of the score) and the request's description as a note that must hold its facts. The spending and
the policy's arithmetic are in w_revenue_expense."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta

from sqlalchemy import select

from officegym import clock
from officegym.apps.chat import services as chat
from officegym.apps.crm.models import Account
from officegym.apps.org.models import Person
from officegym.apps.sheets.models import Share, Workbook
from officegym.apps.tickets.models import Component, TicketComponent
from officegym.colleagues import plant_note
from officegym.graders.checks import Allow, check, listed_once, nothing_else_changed
from officegym.graders.sheets import allow_workbook_cells, close
from officegym.graders.replies import report_reply
from officegym.graders.statements import Candidate, says

from .base import Claim, Declaration, Ref, TaskInstance, TaskTemplate, Target, ToolCall
from .common import added_messages, allow_new_conversation, allow_posts, pick, spread
from .handbook import read_rule
from .registry import register
from .split import person_in
from .tickets_common import added_tickets, allow_new_ticket, project_id
from .w_revenue_expense import (DASHES, MONTHLY, amount_pool, claimable, dm, items, options, report_title,
                                someone_in, spending)

SHARED = ("shared", "sent", "submitted", "filed", "ready", "attached")


def money(dollars: float) -> str:
    """An amount as people write it: $1,234 or $52.50."""
    return Candidate.money(round(dollars * 100)).label


def _story(p: dict, today: date) -> list[tuple[datetime, object]]:
    """The setup's messages, each at its moment: the flight and the conference asked of the manager
    before booking, what the events team and the travel desk booked, the colleagues' thanks for the
    dinner and the lunch, and the subscription asked for two days ago."""
    t, n = p["trip"], p["names"]
    start, conf = date.fromisoformat(t["start"]), date.fromisoformat(t["conf_day"])
    end, lunch = start + timedelta(days=t["nights"]), date.fromisoformat(t["lunch_day"])
    actor, manager = p["actor"], p["manager"]
    moment = lambda day, hour, minute: datetime.combine(day, time(hour, minute))  # noqa: E731
    said = [(start - timedelta(days=6), 10, 5, actor, manager,
             f"Can I book the ${t['flight']:,} flight to {t['city']} on {start} for the {n['customer']} visit? It is "
             "over $1,000."),
            (start - timedelta(days=6), 10, 40, manager, actor, "Approved, go ahead and book it." if t["approved"]
             else "No, that is too much: find a fare under $1,000."),
            (conf - timedelta(days=14), 11, 15, actor, manager,
             f"Can I go to the {t['conference']} on {conf}? The registration is ${t['fee']}."),
            (conf - timedelta(days=14), 11, 50, manager, actor, "Yes, go ahead and register." if t["conf_ok"]
             else "Not this quarter, sorry: our events budget is spent."),
            (conf - timedelta(days=12), 14, 0, p["events"], actor,
             f"Hi @{n['actor']}, you're registered for the {t['conference']} on {conf}: the ${t['fee']} registration "
             "was charged to your card today."),
            (start - timedelta(days=2), 15, 30, p["desk"], actor,
             f"Hi @{n['actor']}, your {t['city']} trip is booked and charged to your card: the flight on {start} "
             f"(${t['flight']:,}), the airport taxi on arrival ({money(t['taxi'])}), {t['nights']} nights at the "
             f"Harbor Hotel from {start} at ${t['rate']} a night, and the seat upgrade you asked for on the flight home "
             f"on {end} "
             f"(${t['upgrade']}). Keep the receipts for your expense report."),
            (start + timedelta(days=2), 9, 10, p["mate"], actor,
             f"Thanks again for dinner with {n['customer']} on {start + timedelta(days=1)}! You paid the "
             f"${(t['guests'] + 2) * t['per_head']:,} bill, right?"),
            (lunch, 15, 0, p["mate2"], actor,
             f"Thanks for getting the team lunch for {n['honoree']}'s promotion today! You paid the "
             f"{money(t['lunch_bill'])} bill, right?"),
            (today - timedelta(days=2), 10, 0, actor, manager,
             f"Could I get a {t['tool']} subscription for my customer demos? It's ${t['monthly']} a month."),
            (today - timedelta(days=2), 10, 30, manager, actor, "Sure, get it the way the expense policy says.")]
    return sorted((moment(day, h, m), dm(a, b, text)) for day, h, m, a, b, text in said)


def _setup(p: dict):
    """The setup: the story's messages in time order; the colleagues know the meals' headcounts."""
    def run(session) -> None:
        for when, step in _story(p, clock.company_now(session).date()):
            clock.set_time(session, when)
            step(session)
        t = p["trip"]
        plant_note(session, session.get(Person, p["mate"]), "account", p["customer"],
                   f"At the dinner with {p['names']['customer']} on "
                   f"{date.fromisoformat(t['start']) + timedelta(days=1)} we were {t['guests'] + 2}: {t['guests']} "
                   f"from {p['names']['customer']}, {p['names']['host']} and me.")
        plant_note(session, session.get(Person, p["mate2"]), "person", p["honoree"],
                   f"At the team lunch for {p['names']['honoree']}'s promotion on {t['lunch_day']} we were "
                   f"{t['lunch_people']}.")
    return run


@register
class ExpenseReport(TaskTemplate):
    id, apps, difficulty = "w.expense_report_trip", ("chat", "sheets", "tickets", "org"), 4
    toolsets = ("chat", "sheets", "tickets.work")  # its apps hold over 100 tools
    kind, scale, split = "workflow", "medium", "test"
    rules = ("Expense policy",)
    summary = ("Build your Q1 expense report (a trip, a conference, a team lunch) as the Expense policy wants it, ask "
               "two colleagues the meals' headcounts, request a subscription from IT (its price a month and who "
               "agreed), share the report and tell your manager the total.")

    def sample(self, session, rng, instance):
        actor, manager, mates = spread(options(session, lambda i: person_in(self.split, i)), instance)
        mate, mate2, honoree = rng.sample(mates, 3)
        desk = someone_in(session, "Procurement", "Finance", actor.id, manager.id, mate.id, mate2.id)
        events = someone_in(session, "Events", "Marketing", actor.id, manager.id, mate.id, mate2.id, desk.id)
        customer = pick(rng, list(session.scalars(select(Account).order_by(Account.id))))
        trip = spending(rng, clock.company_now(session).date())
        total = sum(r["amount"] for r in claimable(trip, customer.name))
        channel = {who.id: chat.conversation_name([actor, who]) for who in (manager, mate, mate2, desk, events)}
        title = report_title(actor.name)
        sheet = [["Date", "Category", "Description", "Amount"]] + [
            [r["days"][0].isoformat(), r["category"], r["what"], r["amount"]] for r in claimable(trip, customer.name)]
        steps = [*read_rule(session, "Expense policy", "expense report limits"),
                 ToolCall("chat_list_conversations", {}),
                 *[ToolCall("chat_list_messages", {"channel": channel[who.id], "limit": 20})
                   for who in (desk, manager, events, mate, mate2)],
                 ToolCall("tickets_create_ticket", {
                     "project": "IT", "type": "Service Request",
                     "summary": f"{trip['tool']} subscription for {actor.name}",
                     "description": f"${trip['monthly']} a month, for customer demos; {manager.name} agreed.",
                     "components": ["Software"]}, role="note"),
                 ToolCall("chat_post_message", {"channel": channel[mate.id], "text": (
                     f"Hi @{mate.handle}, how many of us were at the dinner with {customer.name}?")}),
                 ToolCall("chat_list_messages", {"channel": channel[mate.id], "limit": 5}),
                 ToolCall("chat_post_message", {"channel": channel[mate2.id], "text": (
                     f"Hi @{mate2.handle}, how many of us were at the team lunch for {honoree.name}'s promotion?")}),
                 ToolCall("chat_list_messages", {"channel": channel[mate2.id], "limit": 5}),
                 ToolCall("org_get_person", {"person": f"@{actor.handle}"}),
                 ToolCall("sheets_list_workbooks", {"query": "expense report"}),
                 ToolCall("sheets_create_workbook", {"title": title, "sheets": ["Expenses"]})]
        book = len(steps) - 1
        steps += [ToolCall("sheets_write_range", {"workbook": Ref(book, "id"), "start": "Expenses!A1", "rows": sheet}),
                  ToolCall("sheets_read_range", {"workbook": Ref(book, "id"), "range": f"Expenses!A1:D{len(sheet)}"}),
                  ToolCall("sheets_share_workbook", {"workbook": Ref(book, "id"), "person": manager.id,
                                                     "role": "viewer"}),
                  ToolCall("chat_post_message", {"channel": channel[manager.id], "text": (
                      f"I have shared \"{title}\" with you: {money(total)} to pay back.")}, role="report")]
        params = {"trip": trip, "customer": customer.id, "manager": manager.id, "mate": mate.id, "mate2": mate2.id,
                  "honoree": honoree.id, "desk": desk.id, "events": events.id, "actor": actor.id, "title": title,
                  "total": total, "names": {"customer": customer.name, "honoree": honoree.name, "actor": actor.handle,
                            "host": actor.name}}
        return TaskInstance(
            self.id, instance, actor.id,
            "Your Q1 expense report is due and you have not started it. Build it as the handbook's Expense policy "
            f"says, from what you spent this quarter: your {trip['city']} trip to see {customer.name} (the travel desk "
            f"booked it), the {trip['conference']} you registered for and the team lunch you paid for. Claim only "
            f"what the policy pays back, and no more than its limits. Your manager also agreed to the {trip['tool']} "
            "subscription you asked for: get it the way the policy says. Then share the report with your manager as "
            "the policy says, and tell them in a direct message the total it claims.",
            steps, params, setup=_setup(params))

    def declare(self, start, inst):
        """The manager the report goes to (the actor's teammates and nearby people are look-alikes);
        the total the message states."""
        p = inst.params
        manager = start.get(Person, p["manager"])
        actor = start.get(Person, inst.actor_id)
        mates = list(start.scalars(select(Person.id).where(Person.team_id == actor.team_id, Person.id.not_in(
            [actor.id, manager.id])).order_by(Person.id)))
        near = list(start.scalars(select(Person.id).where(Person.id > manager.id, Person.id != actor.id)
                                  .order_by(Person.id).limit(3)))
        return Declaration([Target("person", manager.id, list(dict.fromkeys(mates[:5] + near)))],
                           [Claim(Candidate.money(round(p["total"] * 100)), amount_pool(p["trip"], p["total"]),
                                  "text", "total")])

    def check(self, ctx, inst):
        p = inst.params
        wanted = claimable(p["trip"], ctx.start.get(Account, p["customer"]).name)
        actor, manager = ctx.start.get(Person, ctx.actor_id), ctx.start.get(Person, p["manager"])
        fold = lambda t: DASHES.sub(" - ", " ".join(t.split())).casefold()  # noqa: E731 (any dash will do)
        books = [b for b in ctx.final.scalars(select(Workbook).where(Workbook.owner_id == ctx.actor_id))
                 if ctx.start.get(Workbook, b.id) is None and fold(b.title) == fold(p["title"])]
        book = books[0] if books else None
        rows = items(ctx.final, book.id) if book else []
        results = [check(f"You created your workbook \"{p['title']}\"", book is not None, "there is none", weight=2)]
        left = list(rows)
        for row in wanted:
            match = next((i for i in left if i["category"] == row["category"] and close(i["amount"], row["amount"])
                          and i["day"] in row["days"] and (not row.get("names") or row["names"].casefold()
                                                           in i["what"].casefold())), None)
            if match:
                left.remove(match)
            results.append(check(f"It claims {row['what']} ({row['category']}, ${row['amount']:,})", match,
                                 f"its rows: {[(i['category'], i['amount']) for i in rows][:9]}"))
        share = ctx.final.get(Share, (book.id, manager.id)) if book else None
        dm_, allowed = allow_new_conversation(ctx, [actor, manager])
        told = [r["text"] for r in added_messages(ctx, ctx.actor_id) if dm_ is not None and r["channel_id"] == dm_.id]
        allowed += allow_posts(ctx, dm_.id, limit=2) if dm_ else []  # the total, and maybe a question first
        for who in (p["mate"], p["mate2"]):  # a question to each, and maybe a follow-up
            asked = allow_new_conversation(ctx, [actor, ctx.start.get(Person, who)])[0]
            allowed += allow_posts(ctx, asked.id, limit=2) if asked else []
        if book is not None:
            allowed += allow_workbook_cells(ctx, book.id) + [
                Allow("sheets_workbook", ("added",), lambda r: r["id"] == book.id),
                Allow("sheets_sheet", ("added",), lambda r: r["workbook_id"] == book.id, limit=3),
                Allow("sheets_share", ("added",),
                      lambda r: (r["workbook_id"], r["person_id"]) == (book.id, manager.id))]
        software = ctx.start.scalar(select(Component.id).where(Component.name == "Software",
                                                               Component.project_id == project_id(ctx.start, "IT")))
        requested = [t for t in added_tickets(ctx, "IT") if p["trip"]["tool"].casefold() in
                     f"{t['summary']} {t['description']}".casefold()]
        right = [t for t in requested if t["type"] == "Service Request" and ctx.final.scalar(select(
            TicketComponent.ticket_id).where(TicketComponent.ticket_id == t["id"],
                                             TicketComponent.component_id == software)) is not None]
        allowed += allow_new_ticket(ctx, "IT", "Service Request", component=software)
        total = Candidate.money(round(p["total"] * 100))
        asked_for = [f"{t['summary']}\n{t['description']}" for t in requested]
        results += [*says(asked_for, Candidate.money(p["trip"]["monthly"] * 100),
                          [Candidate.money(m * 100) for m in MONTHLY if m != p["trip"]["monthly"]],
                          f"The request gives the price a month, ${p['trip']['monthly']}", "price", weight=1),
                    *says(asked_for, Candidate.person(manager), [Candidate.person(ctx.start.get(Person, i)) for i in
                                                                (p["mate"], p["mate2"], p["desk"], p["events"])],
                          f"The request names who agreed to it, {manager.name}", "manager", weight=1, deniable=False)]
        work = sum(r.weight for r in results if not r.guard) + 4  # what the message tells weighs three times as much
        return results + [
            *report_reply(told, f"Your message to {manager.name} says the report is shared", SHARED,
                          weight=max(3, round(3 * work) - 2)),
            check("It claims nothing else (one row per item)", len(rows) == len(wanted),
                  f"{len(rows)} item rows for {len(wanted)} items"),
            listed_once([(i["category"], i["amount"]) for i in rows], "item"),
            check(f"{manager.name} can view it", share is not None and share.role == "viewer",
                  f"their role is {share.role if share else 'none'}", weight=2),
            check(f"The {p['trip']['tool']} subscription was requested in IT (a Service Request, component Software)",
                  len(right) == 1 == len(requested), f"requests naming it: {len(requested)}, right: {len(right)}"),
            *says(told, total, amount_pool(p["trip"], p["total"]), f"Your message to {manager.name} gives the total "
                  f"{total.label}", "total"),
            nothing_else_changed(ctx.diff, allowed)]
