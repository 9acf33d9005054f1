"""A revenue-operations workflow over chat, the CRM, the tickets app and sheets: make the CRM and a
team's pipeline workbook match two or three signed order forms (the deal desk tells the figures of
all but one, and names the analyst who holds that one), and file the legal review the deal desk
checklist wants for each contract that has none. The reply in the request's thread reports the
outcome (each deal and its signed amount), read as a report: one that says nothing was done, or says
nothing at all, costs most of the score. Shared helpers are in w_revenue_common."""

from __future__ import annotations

from collections import Counter
from datetime import date, timedelta

from sqlalchemy import select

from officegym import clock
from officegym.apps.chat import services as chat
from officegym.apps.crm.models import LineItem, Opportunity
from officegym.apps.org.models import Person, Team
from officegym.apps.tickets import services as tickets
from officegym.apps.tickets.models import Component, Ticket, TicketComponent
from officegym.colleagues import plant_note
from officegym.graders.checks import check, guard, nothing_else_changed
from officegym.graders.sheets import allow_workbook_cells, cells_guard
from officegym.graders.replies import report_reply
from officegym.graders.statements import Candidate, says

from .base import Claim, Declaration, Ref, TaskInstance, TaskTemplate, Target, ToolCall
from .common import added_messages, allow_new_conversation, allow_posts, channel_named, find_message, pick, spread
from .common import named as named_person
from .crm import allow_deal
from .handbook import read_rule
from .registry import register
from .sheets import a1
from .sheets_formulas import EXCEL_EPOCH
from .split import of_split
from .tickets_common import added_tickets, allow_new_ticket, group_named, group_people, project_id
from .w_revenue_common import LOOKALIKES, agrees, at, deal_desk, layout, listed_deals, rep_options, sales_head

DESK = "Deal desk checklist before Closed Won"
REVIEW = "Order form review: {account}"  # a legal review's summary, as the LEGAL desk words them
MATCHED = ("updated", "matched", "corrected", "set", "changed", "filed", "booked")


def _signed(rng, deal: Opportunity, today) -> tuple[int, str]:
    """The figures of a deal's signed order form: an amount (cents) near the CRM's and a recent day."""
    cents = round(deal.amount_cents * pick(rng, [0.9, 0.94, 0.97, 1.03, 1.06, 1.12]) / 100) * 100
    cents += pick(rng, [0, 0, 50, 25])
    return cents, (today - timedelta(days=pick(rng, [1, 2, 3, 4, 6]))).isoformat()


def _form_note(deal: Opportunity, form: tuple[int, str]) -> str:
    """What whoever holds a signed order form says of it."""
    return f"The order form for {deal.name} was signed on {form[1]} at {Candidate.money(form[0]).label}."


def _reviewable(session, listed: list[Opportunity], itemised: set[int]) -> list[Opportunity]:
    """The rep's deals an order form can be drawn for: no line items (the amount is set directly), the
    only listed deal of an account that has no request in LEGAL yet (so its review is ours to plant)."""
    legal = set(session.scalars(select(Ticket.account_id).where(Ticket.project_id == project_id(session, "LEGAL"))))
    per_account = Counter(d.account_id for d in listed)
    return [d for d in listed if d.id not in itemised and d.account_id not in legal and per_account[d.account_id] == 1]


def _plant_forms(p: dict, held: int, text: str):
    """The setup: weeks ago the rep filed the legal review of some of the deals and a lawyer resolved
    it; the deal desk knows each signed order form but one, which a Sales Operations analyst took in;
    this morning the head of Sales asks in #deals."""
    def run(session) -> None:
        rep, lawyer = session.get(Person, p["actor"]), session.get(Person, p["lawyer"])
        for n, deal_id in enumerate(p["reviewed"]):
            account = session.get(Opportunity, deal_id).account.name
            at(session, 24 - 5 * n, 10, 20)
            ticket = tickets.create_ticket(session, rep, "LEGAL", "Service Request", REVIEW.format(account=account),
                                           f"Please review the order form for {account} before signature.",
                                           components=["Contracts"], account=account)
            at(session, 22 - 5 * n, 9, 40)
            tickets.assign_ticket(session, lawyer, ticket.key, lawyer.id, "Commercial Legal")
            tickets.transition_ticket(session, lawyer, ticket.key, "Start work")
            at(session, 21 - 5 * n, 15, 5)
            tickets.transition_ticket(session, lawyer, ticket.key, "Resolve", "Fixed",
                                      "Reviewed: the order form is fine to sign.")
        desk, analyst = session.get(Person, p["desk"]), session.get(Person, p["analyst"])
        for key, form in p["forms"].items():
            deal = session.get(Opportunity, int(key))
            said = _form_note(deal, form)
            if int(key) == held:
                plant_note(session, analyst, "opportunity", deal.id, said)
                said = f"I don't have the order form for {deal.name}: @{analyst.handle} took it in, ask them."
            plant_note(session, desk, "opportunity", deal.id, said)
        at(session, 0, 8, 35)
        chat.post_message(session, session.get(Person, p["vp"]), p["channel"], text)
    return run


def _analyst(session, rng, *besides: int) -> Person:
    """A Sales Operations analyst who took in one of the signed order forms."""
    team = session.scalar(select(Team.id).where(Team.name == "Sales Operations"))
    return pick(rng, [p for p in session.scalars(select(Person).where(Person.team_id == team).order_by(Person.id))
                      if p.id not in besides])


@register
class SignedOrderForms(TaskTemplate):
    id, apps, difficulty = "w.revenue_signed_order_forms", ("crm", "chat", "tickets", "sheets"), 4
    toolsets = ("chat", "crm.sales", "sheets.cells", "sheets.views", "tickets.work")  # its apps hold over 100 tools
    kind, scale, split = "workflow", "medium", "train"
    rules = (DESK,)
    summary = ("Get the signed order forms' figures from the deal desk (and the analyst it names), make the CRM and "
               "the team's pipeline match them, file the missing legal reviews per the checklist, reply in #deals.")

    def sample(self, session, rng, instance):
        deals_channel, vp = channel_named(session, "deals"), sales_head(session)
        itemised = set(session.scalars(select(LineItem.opportunity_id)))
        options = rep_options(session, self.split, lambda listed: len(listed) >= LOOKALIKES + 3 and len(free := (
            _reviewable(session, listed, itemised))) >= 2 and of_split(self.split, "opportunity", free) and len(
            [d for d in listed if d.id not in itemised]) >= 3, (vp.id,))
        book, tab, actor_id, listed = spread(options, instance)
        actor, desk = session.get(Person, actor_id), deal_desk(session, actor_id, vp.id)
        analyst = _analyst(session, rng, actor_id, vp.id, desk.id)
        free = _reviewable(session, listed, itemised)
        first = pick(rng, of_split(self.split, "opportunity", free))
        settable = len([d for d in listed if d.id not in itemised]) - 1  # one left for a wrong record to change
        picked = [first] + rng.sample([d for d in free if d.id != first.id], min(2, len(free) - 1, settable - 1))
        forms = {d.id: _signed(rng, d, clock.company_now(session).date()) for d in picked}
        held = pick(rng, picked[1:])
        missing = rng.sample(picked, pick(rng, [1, len(picked) - 1]))  # at least one has its review already
        named = ", ".join(d.name for d in picked[:-1]) + f" and {picked[-1].name}"
        text = (f"@{actor.handle} the signed order forms for {named} reached the deal desk. @{desk.handle} has "
                f"them: please get the figures from {desk.name} and make the CRM and {book.title} match the signed "
                "order forms before Friday's forecast call. The desk won't book a deal without the legal review its "
                "checklist asks for: check each one has it, and file it where it's missing. Reply in this thread "
                "when it's done.")
        _, cols, rows = layout(session, book.id, tab)
        cells = [{"cell": a1(tab, rows[d.name], cols[c]), "value": v} for d in picked
                 for c, v in (("Amount", forms[d.id][0] / 100), ("Expected close", forms[d.id][1]))]
        reply = ("Done: " + "; ".join(f"{d.name} now at {Candidate.money(forms[d.id][0]).label}, signed "
                                      f"{forms[d.id][1]}" for d in picked)
                 + ", in the CRM and the pipeline workbook. Legal review filed for "
                 + " and ".join(d.account.name for d in missing) + ".")
        wide = f"{tab}!A1:{chr(ord('A') + max(cols.values()))}{len(rows) + 1}"
        steps = [ToolCall("chat_list_mentions", {}),
                 *read_rule(session, DESK, "signed order form amount close date legal review"),
                 ToolCall("crm_list_opportunities", {"owner": f"@{actor.handle}", "stage": "open", "limit": 200}),
                 *[ToolCall("tickets_search_tickets", {"query": f'project = LEGAL AND account = "{d.account.name}"'})
                   for d in picked],
                 *[ToolCall("tickets_create_ticket", {
                     "project": "LEGAL", "type": "Service Request", "summary": REVIEW.format(account=d.account.name),
                     "description": f"Please review the signed order form for {d.name}.", "components": ["Contracts"],
                     "account": d.account.name}) for d in missing]]
        for who, question in ((desk, f"what do the signed order forms say for {named}: the amount and the day each "
                                     "was signed?"),
                              (analyst, f"the deal desk says you took in the signed order form for {held.name}: what "
                                        "amount and signing day does it show?")):
            steps += [ToolCall("chat_open_conversation", {"people": [f"@{who.handle}"]}),
                      ToolCall("chat_post_message", {"channel": Ref(len(steps), "id"),
                                                     "text": f"Hi @{who.handle}, {question}"}),
                      ToolCall("chat_list_messages", {"channel": Ref(len(steps), "id"), "limit": 5})]
        steps += [*[ToolCall("crm_update_opportunity", {"opportunity": d.id, "amount": forms[d.id][0] / 100,
                                                        "close_date": forms[d.id][1]}) for d in picked],
                  ToolCall("sheets_list_workbooks", {"query": "Pipeline"}),
                  ToolCall("sheets_read_range", {"workbook": book.id, "range": wide}),
                  ToolCall("sheets_write_cells", {"workbook": book.id, "cells": cells}),
                  ToolCall("sheets_read_range", {"workbook": book.id, "range": wide}),
                  ToolCall("chat_post_message", {"channel": "deals", "text": reply,
                                                 "thread_parent_id": Ref(0, "items.0.id")}, role="report")]
        params = {"workbook": book.id, "tab": tab, "forms": {str(k): v for k, v in forms.items()}, "first": first.id,
                  "vp": vp.id, "desk": desk.id, "analyst": analyst.id, "text": text, "channel": deals_channel.id,
                  "actor": actor.id, "missing": [d.id for d in missing],
                  "reviewed": [d.id for d in picked if d not in missing],
                  "lawyer": pick(rng, group_people(session, group_named(session, "Commercial Legal").id)).id}
        return TaskInstance(
            self.id, instance, actor.id,
            f"{named_person(session, vp)} asked you something in #deals. Do it, following the handbook, and change "
            "nothing else.", steps, params, setup=_plant_forms(params, held.id, text))

    def declare(self, start, inst):
        """The first deal (the rep's nearest other listed deals are look-alikes) and the signed amount
        the reply must state."""
        p = inst.params
        first = start.get(Opportunity, p["first"])
        listed = listed_deals(start, p["workbook"], p["tab"], inst.actor_id)
        itemised = set(start.scalars(select(LineItem.opportunity_id)))  # their amounts follow the line items
        near = sorted((d.id for d in listed if str(d.id) not in p["forms"]), key=lambda i: (abs(i - first.id), i))
        free = [i for i in near if i not in itemised][:2]  # first: a wrong record's amount can be set
        near = free + sorted(set(near[:LOOKALIKES]) - set(free))
        targets = [Target("opportunity", first.id, near)]
        cents = p["forms"][str(first.id)][0]
        return Declaration(targets, [Claim(Candidate.money(cents), _form_pool(start, p, first, listed), "text",
                                           "amount")])

    def check(self, ctx, inst):
        p = inst.params
        asked = find_message(ctx.start, p["vp"], p["channel"], p["text"])
        listed = listed_deals(ctx.start, p["workbook"], p["tab"], ctx.actor_id)
        _, cols, rows = layout(ctx.start, p["workbook"], p["tab"])
        after = layout(ctx.final, p["workbook"], p["tab"])[0]
        replies = [r["text"] for r in added_messages(ctx, ctx.actor_id) if asked is not None
                   and r["channel_id"] == p["channel"] and r["thread_parent_id"] == asked.id]
        actor, allowed, asked_dm = ctx.start.get(Person, ctx.actor_id), [], False
        for who in (p["desk"], p["analyst"]):  # a question and a follow-up each, by DM
            dm, opened = allow_new_conversation(ctx, [ctx.start.get(Person, who), actor])
            asked_dm |= dm is not None and any(r["channel_id"] == dm.id for r in added_messages(ctx, ctx.actor_id))
            allowed += opened + (allow_posts(ctx, dm.id, limit=2) if dm is not None else [])
        allowed += allow_posts(ctx, p["channel"], asked.id if asked else -1, limit=2 if asked_dm else 4)  # or here
        results, ranges = _legal_checks(ctx, p, allowed), []
        others = [Candidate.text(d.name) for d in listed if str(d.id) not in p["forms"]]
        for key, (cents, day) in sorted(p["forms"].items()):
            deal, now = ctx.start.get(Opportunity, int(key)), ctx.final.get(Opportunity, int(key))
            row = rows[deal.name]
            ranges += [a1(p["tab"], row, cols["Amount"]), a1(p["tab"], row, cols["Expected close"])]
            serial = (date.fromisoformat(day) - EXCEL_EPOCH).days
            results += [check(f"In the CRM, {deal.name} is at {Candidate.money(cents).label}, closing {day}",
                              now.amount_cents == cents and now.close_date.isoformat() == day,
                              f"it is at {now.amount_cents / 100}, closing {now.close_date}", weight=2),
                        check(f"{deal.name}'s row of the pipeline shows the same amount and close date",
                              agrees(after.get((row, cols["Amount"])), cents / 100)
                              and agrees(after.get((row, cols["Expected close"])), serial),
                              f"it shows {after.get((row, cols['Amount']))}, "
                              f"{after.get((row, cols['Expected close']))}",
                              weight=2),
                        *says(replies, Candidate.text(deal.name), others, f"The reply names {deal.name}", "deal",
                              weight=0.5),
                        *says(replies, Candidate.money(cents), _form_pool(ctx.start, p, deal, listed),
                              f"The reply gives {deal.name}'s signed amount", "amount", weight=1)]
            allowed.append(allow_deal(deal.id, "amount_cents", "close_date"))
        work = sum(r.weight for r in results if not r.guard)  # what the reply tells weighs three times the work
        results += report_reply(replies, "The reply in the thread says it was done", MATCHED,
                                weight=max(3, round(3 * work)))
        return results + [cells_guard(ctx, p["workbook"], ranges),
                          nothing_else_changed(ctx.diff, allowed + allow_workbook_cells(ctx, p["workbook"]))]


def _legal_checks(ctx, p: dict, allowed: list) -> list:
    """One legal review filed in LEGAL (a Service Request, component Contracts, naming the account) for
    each deal that had none, and none for a deal whose review was resolved already; extends `allowed`."""
    contracts = ctx.start.scalar(select(Component.id).where(Component.name == "Contracts",
                                                            Component.project_id == project_id(ctx.start, "LEGAL")))
    filed = [t for t in added_tickets(ctx, "LEGAL")]
    results = []
    for deal_id in p["missing"] + p["reviewed"]:
        account = ctx.start.get(Opportunity, deal_id).account
        about = [t for t in filed if t["account_id"] == account.id
                 or account.name.casefold() in (t["summary"] or "").casefold()]
        if deal_id in p["reviewed"]:
            results.append(guard(f"No second review was filed for {account.name} (its review is resolved)", not about,
                                 f"filed: {[t['key'] for t in about]}"))
            continue
        good = [t for t in about if t["type"] == "Service Request" and ctx.final.scalar(select(
            TicketComponent.ticket_id).where(TicketComponent.ticket_id == t["id"],
                                             TicketComponent.component_id == contracts)) is not None]
        results.append(check(f"A legal review of {account.name} was filed in LEGAL (a Service Request, component "
                             "Contracts)", len(good) == 1 == len(about), f"filed about it: {len(about)}, right: "
                                                                             f"{len(good)}", weight=2))
        allowed += allow_new_ticket(ctx, "LEGAL", "Service Request", component=contracts)
    return results


def _form_pool(session, p: dict, deal: Opportunity, listed: list[Opportunity]) -> list[Candidate]:
    """Amounts a reply could give instead of a deal's signed one: its CRM amount and the amounts of
    the rep's other deals."""
    cents = {d.amount_cents for d in listed if str(d.id) not in p["forms"]} | {deal.amount_cents}
    return [Candidate.money(c) for c in sorted(cents - {p["forms"][str(deal.id)][0]})]
