"""A revenue-operations workflow over the sheets, the CRM, the tickets app and chat: bring a rep's
rows of their team's pipeline workbook back in line with the CRM (some cells a teammate typed over,
some rows stale since the CRM moved on), file a ticket per corrected deal where the deal desk takes
questions (or comment on the one open already), tell the teammate which rows they had changed, and post the
corrected deals where deal amounts may be discussed. The post reports the corrections (read for the
outcome it states: a post saying nothing was corrected fails) and the message to the teammate is a note
that must name the rows they had typed over."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from officegym.apps.crm import services as crm
from officegym.apps.crm.models import OPEN_STAGES, STAGE_PROBABILITY, LineItem, Opportunity
from officegym.apps.org.models import Person
from officegym.apps.sheets import services as sheets
from officegym.apps.tickets import services as tickets
from officegym.apps.tickets import workflow
from officegym.apps.tickets.models import Ticket
from officegym.graders.checks import check, nothing_else_changed
from officegym.graders.sheets import allow_workbook_cells, cells_guard
from officegym.graders.replies import report_reply
from officegym.graders.statements import Candidate, says

from .base import Claim, Declaration, Ref, TaskInstance, TaskTemplate, Target, ToolCall
from .common import added_messages, allow_new_conversation, allow_posts, channel_named, pick, spread
from .crm import open_deals
from .handbook import read_rule
from .registry import register
from .sheets import a1
from .tickets_common import (added_tickets, allow_comment, allow_new_ticket, allow_ticket, first_response, new_comments,
                             project_id, same_text)
from .split import of_split
from .w_revenue_common import (LOOKALIKES, agrees, at, crm_values, drifted, editor_ids, layout, listed_deals,
                               rep_options)

MISMATCH = "Pipeline mismatch: {deal}"
CORRECTED = ("corrected", "fixed", "updated", "put back", "brought back", "realigned", "synced", "reconciled")

KINDS = ("sheet_amount", "sheet_close", "sheet_stage", "crm_amount", "crm_stage", "crm_close")
TYPED = ("sheet_amount", "sheet_close", "sheet_stage")  # the drifts a teammate typed into the sheet
COLUMN = {"sheet_amount": "Amount", "sheet_close": "Expected close", "sheet_stage": "Stage", "crm_amount": "Amount",
          "crm_stage": "Stage", "crm_close": "Expected close"}
LATER = timedelta(days=45)  # how far a close date moves (typed over in the sheet, or pushed in the CRM)


def _kind_of(p: dict, deal_id: int) -> str:
    """How a drifted deal drifts, by the instance's plan."""
    return next(kind for kind, planned in p["plan"].items() if planned == deal_id)


def grown(cents: int) -> int:
    """The amount (cents) a deal is raised to in the CRM by the setup."""
    return (round(cents / 100 * 1.15 / 500) * 500 + 500) * 100


def typed_stage(stage: str) -> str:
    """The stage a teammate typed over a row's: the next open stage (the one before, from Negotiation)."""
    at = OPEN_STAGES.index(stage)
    return OPEN_STAGES[at + 1 if at + 1 < len(OPEN_STAGES) else at - 1]


def _drift_plan(rng, deals: list[Opportunity], first: Opportunity, itemised: set[int]) -> dict[str, int] | None:
    """Which deal drifts how: an amount, a close date and a stage typed over in the sheet; an amount (a
    deal without line items), a stage (a deal before Negotiation) and a close date changed in the CRM
    since. The first target takes the first kind it suits."""
    suits = {"sheet_amount": lambda d: True, "sheet_close": lambda d: True, "sheet_stage": lambda d: True,
             "crm_close": lambda d: True, "crm_amount": lambda d: d.id not in itemised,
             "crm_stage": lambda d: d.stage != "Negotiation"}
    kinds = list(KINDS)
    rng.shuffle(kinds)
    left = [d for d in deals if d.id != first.id]
    rng.shuffle(left)
    plan = {}
    for deal in [first] + left:
        kind = next((k for k in kinds if k not in plan and suits[k](deal)), None)
        if kind is not None:
            plan[kind] = deal.id
    return plan if len(plan) == len(kinds) and first.id in plan.values() else None


def _after_setup(session, plan: dict[str, int]) -> dict[int, dict[str, object]]:
    """What the CRM says of each drifted deal once the setup ran: the columns to write, as typed."""
    fixes = {}
    for kind, deal_id in plan.items():
        deal = session.get(Opportunity, deal_id)
        if kind == "sheet_amount":
            fixes[deal_id] = {"Amount": deal.amount_cents / 100}
        elif kind == "sheet_close":
            fixes[deal_id] = {"Expected close": deal.close_date.isoformat()}
        elif kind == "sheet_stage":
            fixes[deal_id] = {"Stage": deal.stage}
        elif kind == "crm_amount":
            fixes[deal_id] = {"Amount": grown(deal.amount_cents) / 100}
        elif kind == "crm_close":
            fixes[deal_id] = {"Expected close": (deal.close_date + LATER).isoformat()}
        else:
            stage = OPEN_STAGES[OPEN_STAGES.index(deal.stage) + 1]
            fixes[deal_id] = {"Stage": stage, "Probability": STAGE_PROBABILITY[stage] / 100}
    return fixes


def _plant_drift(book_id: int, tab: str, owner_id: int, typist_id: int, plan: dict[str, int], decoy: int | None):
    """The setup: two days ago a teammate typed over an amount, a close date and a stage of the rep's rows;
    yesterday the rep moved a deal on, raised another's amount and pushed a third's close date in the
    CRM only, and the teammate filed a mismatch ticket for the pushed one; a teammate raised a deal of
    theirs in both places (a correct edit the rep leaves alone)."""
    def run(session) -> None:
        typist, rep = session.get(Person, typist_id), session.get(Person, owner_id)
        _, cols, rows = layout(session, book_id, tab)
        typo, late, staged = (session.get(Opportunity, plan[k]) for k in TYPED)
        at(session, 2, 16, 5)
        sheets.write_cells(session, typist, book_id, [
            {"cell": a1(tab, rows[typo.name], cols["Amount"]), "value": typo.amount_cents // 100 * 10 + 5},
            {"cell": a1(tab, rows[late.name], cols["Expected close"]), "value": (late.close_date + LATER).isoformat()},
            {"cell": a1(tab, rows[staged.name], cols["Stage"]), "value": typed_stage(staged.stage)}])
        at(session, 1, 11, 20)
        moved = session.get(Opportunity, plan["crm_stage"])
        crm.move_stage(session, rep, moved.id, OPEN_STAGES[OPEN_STAGES.index(moved.stage) + 1])
        raised = session.get(Opportunity, plan["crm_amount"])
        crm.update_opportunity(session, rep, raised.id, amount=grown(raised.amount_cents) / 100)
        pushed = session.get(Opportunity, plan["crm_close"])
        crm.update_opportunity(session, rep, pushed.id, close_date=(pushed.close_date + LATER).isoformat())
        at(session, 1, 14, 5)
        tickets.create_ticket(session, typist, "SOPS", "Task", MISMATCH.format(deal=pushed.name),
                              f"The {tab} tab shows another expected close than the CRM for {pushed.name}.")
        if decoy is not None:
            deal = session.get(Opportunity, decoy)
            mate = session.get(Person, deal.owner_id)
            at(session, 1, 15, 40)
            crm.update_opportunity(session, mate, deal.id, amount=grown(deal.amount_cents) / 100)
            sheets.write_cells(session, mate, book_id, [{"cell": a1(tab, rows[deal.name], cols["Amount"]),
                                                         "value": deal.amount_cents / 100}])
    return run


def _drawn(session, rng, split: str, instance: int):
    """The instance's rep (spread over the options) with a drift plan that fits their deals."""
    options = rep_options(session, split, lambda listed: len(listed) >= LOOKALIKES + 3)
    itemised = set(session.scalars(select(LineItem.opportunity_id)))
    start = options.index(spread(options, instance))
    for book, tab, actor_id, listed in options[start:] + options[:start]:
        firsts = of_split(split, "opportunity", listed)
        for first in firsts[instance % len(firsts):] + firsts[:instance % len(firsts)]:
            plan = _drift_plan(rng, listed, first, itemised)
            if plan:
                return book, tab, actor_id, first, plan, itemised
    raise RuntimeError("no rep's deals can drift in this world")


@register
class PipelineDrift(TaskTemplate):
    id, apps, difficulty = "w.revenue_pipeline_drift", ("crm", "sheets", "tickets", "chat", "org"), 4
    toolsets = ("chat", "crm.sales", "sheets.cells", "tickets.work")  # its apps hold over 100 tools
    kind, scale, split = "workflow", "medium", "train"
    rules = ("Deal desk checklist before Closed Won", "Data sharing: salaries and customer data")
    summary = ("Correct your rows of the team's pipeline workbook from the CRM, file a deal-desk ticket per deal "
               "corrected (or comment on the open one), tell the teammate who typed over them, and post the corrected "
               "deals where deal amounts may be discussed.")

    def sample(self, session, rng, instance):
        book, tab, actor_id, first, plan, itemised = _drawn(session, rng, self.split, instance)
        actor = session.get(Person, actor_id)
        first_id = first.id
        _, cols, rows = layout(session, book.id, tab)
        width = chr(ord("A") + max(cols.values()))
        mates = [d for d in open_deals(session) if d.owner_id not in (actor_id, book.owner_id)
                 and d.name in rows and d.id not in itemised and d.owner_id in editor_ids(session, book)]
        decoy = pick(rng, mates).id if mates else None
        typist = book.owner_id if book.owner_id != actor_id else pick(rng, sorted(editor_ids(session, book) - {actor_id}))
        fixes = _after_setup(session, plan)
        deals = {i: session.get(Opportunity, i) for i in sorted(fixes)}
        amount = {i: round(fixes[i].get("Amount", d.amount_cents / 100) * 100) for i, d in deals.items()}
        cells = [{"cell": a1(tab, rows[d.name], cols[f]), "value": v} for i, d in deals.items()
                 for f, v in fixes[i].items()]
        post = "Pipeline corrected from the CRM: " + "; ".join(
            f"{d.name} at {Candidate.money(amount[i]).label}" for i, d in deals.items()) + "."
        typed = [session.get(Opportunity, plan[k]).name for k in TYPED]
        wide = f"{tab}!A1:{width}{len(rows) + 1}"
        someone = session.get(Person, typist)
        steps = [ToolCall("org_get_person", {"person": f"@{actor.handle}"}),
                 *read_rule(session, "Deal desk checklist before Closed Won", "deal desk questions"),
                 *read_rule(session, "Data sharing: salaries and customer data", "where to discuss deal amounts"),
                 ToolCall("sheets_list_workbooks", {"query": "Pipeline"}),
                 ToolCall("sheets_read_range", {"workbook": book.id, "range": wide}),
                 ToolCall("crm_list_opportunities", {"owner": f"@{actor.handle}", "stage": "open", "limit": 200}),
                 ToolCall("sheets_list_revisions", {"workbook": book.id, "limit": 20}),
                 ToolCall("tickets_search_tickets", {"query": 'project = SOPS AND summary ~ "Pipeline mismatch" AND '
                                                              'statusCategory != Done', "limit": 50}),
                 ToolCall("sheets_write_cells", {"workbook": book.id, "cells": cells}),
                 *[ToolCall("tickets_create_ticket", {
                     "project": "SOPS", "type": "Task", "summary": MISMATCH.format(deal=d.name),
                     "description": f"The {tab} tab of {book.title} disagreed with the CRM on "
                                    f"{', '.join(fixes[i]).lower()}; corrected from the CRM."})
                   for i, d in deals.items() if i != plan["crm_close"]],
                 ToolCall("tickets_add_comment", {"key": Ref(9, "items.0.key"), "body": (
                     f"Corrected: the {tab} tab now shows the CRM's expected close for "
                     f"{deals[plan['crm_close']].name}.")}),
                 ToolCall("sheets_read_range", {"workbook": book.id, "range": wide}),
                 ToolCall("chat_open_conversation", {"people": [f"@{someone.handle}"]})]
        steps += [ToolCall("chat_post_message", {"channel": Ref(len(steps) - 1, "id"), "text": (
                     f"Hi @{someone.handle}, FYI: you had typed over my rows of {typed[0]}, {typed[1]} and "
                     f"{typed[2]} in {book.title}; I put them back to what the CRM says.")}, role="note"),
                 ToolCall("chat_post_message", {"channel": "deals", "text": post}, role="report")]
        return TaskInstance(
            self.id, instance, actor.id,
            f"Friday's forecast call reads the \"{book.title}\" workbook, and the rows of your deals on its {tab} tab "
            "have drifted from the CRM. The CRM is the source of truth: correct every cell of your rows that "
            "disagrees with it (stage, amount, expected close, probability), and change nothing else in the workbook. "
            "For each deal you corrected, file one Task in the project where the deal desk takes questions (see the "
            f"handbook) with the summary \"{MISMATCH.format(deal='<deal name>')}\", unless that project already has "
            "an open one for the deal: then comment on that one that the row now agrees with the CRM. Tell whoever "
            "typed over your rows, in a direct message, which of your deals they had changed. Then post one message "
            "where the handbook says deal amounts are discussed, naming each deal you corrected and its amount in the "
            "CRM.",
            steps, {"workbook": book.id, "tab": tab, "first": first_id, "plan": plan, "decoy": decoy,
                    "typist": typist, "channel": channel_named(session, "deals").id},
            setup=_plant_drift(book.id, tab, actor_id, typist, plan, decoy))

    def declare(self, start, inst):
        """The first drifted deal (the rep's other listed deals are its look-alikes) and one of its
        cells; the post names it and gives its CRM amount."""
        p = inst.params
        first = start.get(Opportunity, p["first"])
        listed = listed_deals(start, p["workbook"], p["tab"], inst.actor_id)
        wrong = drifted(start, p["workbook"], p["tab"], inst.actor_id)
        right = [d for d in listed if d.id not in wrong]
        _, cols, rows = layout(start, p["workbook"], p["tab"])
        beside = [a1(p["tab"], rows[d.name], cols["Amount"]) for d in right[:5]]
        near = sorted((d.id for d in listed if d.id != first.id), key=lambda i: (abs(i - first.id), i))[:LOOKALIKES]
        return Declaration([Target("opportunity", first.id, sorted(near)),
                            Target("cell", a1(p["tab"], rows[first.name], cols[COLUMN[_kind_of(p, first.id)]]), beside,
                                   {"workbook": p["workbook"]})],
                           [Claim(Candidate.text(first.name), [Candidate.text(d.name) for d in right], "text", "deal"),
                            Claim(Candidate.money(first.amount_cents), _amount_pool(start, p, first, right), "text",
                                  "amount")])

    def check(self, ctx, inst):
        p = inst.params
        wrong = drifted(ctx.start, p["workbook"], p["tab"], ctx.actor_id)
        right = [d for d in listed_deals(ctx.start, p["workbook"], p["tab"], ctx.actor_id) if d.id not in wrong]
        _, cols, rows = layout(ctx.start, p["workbook"], p["tab"])
        after = layout(ctx.final, p["workbook"], p["tab"])[0]
        filed = [r["summary"] for r in added_tickets(ctx, "SOPS") if r["type"] == "Task"]
        posts = [r["text"] for r in added_messages(ctx, ctx.actor_id) if r["channel_id"] == p["channel"]
                 and r["thread_parent_id"] is None]
        results, ranges, allowed = [], [], allow_posts(ctx, p["channel"], None)
        typist, actor = ctx.start.get(Person, p["typist"]), ctx.start.get(Person, ctx.actor_id)
        dm, opened = allow_new_conversation(ctx, [actor, typist])
        told = [r["text"] for r in added_messages(ctx, ctx.actor_id) if dm is not None and r["channel_id"] == dm.id]
        allowed += opened + (allow_posts(ctx, dm.id, limit=2) if dm is not None else [])
        typed = [p["plan"][k] for k in TYPED]
        untouched = [Candidate.text(d.name) for d in right]  # naming the other corrected deals is no error
        for deal_id in typed:
            name = ctx.start.get(Opportunity, deal_id).name
            results += says(told, Candidate.text(name), untouched, f"Your message to {typist.name} names {name}",
                            "deal", weight=3)
        already = {r.summary.casefold(): r for r in ctx.start.scalars(select(Ticket).where(
            Ticket.project_id == project_id(ctx.start, "SOPS")).order_by(Ticket.id)) if workflow.is_open(r.status)}
        for deal in [ctx.start.get(Opportunity, i) for i in sorted(wrong)]:
            fixed = [f for f in wrong[deal.id] if agrees(after.get((rows[deal.name], cols[f])), crm_values(deal)[f])]
            summary = MISMATCH.format(deal=deal.name)
            ranges += [a1(p["tab"], rows[deal.name], cols[f]) for f in wrong[deal.id]]
            if summary.casefold() not in already:
                allowed += allow_new_ticket(ctx, "SOPS", "Task", summary)
                results.append(check(f"A SOPS Task \"{summary}\" was filed", any(same_text(s, summary) for s in filed),
                                     f"tasks filed: {filed[:5]}"))
            else:  # an open ticket for it already: a comment there, no ticket more
                open_one = already[summary.casefold()]
                allowed += [allow_comment(ctx, open_one.id, None, internal=False, limit=2),
                            allow_ticket(open_one.id, *first_response(open_one, ctx.actor_id))]
                results.append(check(f"You commented on {open_one.key}, the open \"{summary}\"",
                                     new_comments(ctx, open_one.id, internal=False), "no comment of yours there"))
            results += [check(f"{deal.name}'s row agrees with the CRM ({', '.join(wrong[deal.id])})",
                              len(fixed) == len(wrong[deal.id]), f"still wrong: {set(wrong[deal.id]) - set(fixed)}",
                              weight=2),
                        *says(posts, Candidate.text(deal.name), [Candidate.text(d.name) for d in right],
                              f"The #deals post names {deal.name}", "deal", weight=3),
                        *says(posts, Candidate.money(deal.amount_cents), _amount_pool(ctx.start, p, deal, right),
                              f"The #deals post gives {deal.name}'s CRM amount", "amount", weight=4)]
        # what the messages tell weighs about three times the work: corrected rows reported as "ok" earn a quarter
        results += report_reply(posts, "The #deals post says the rows were corrected", CORRECTED, weight=8)
        return results + [cells_guard(ctx, p["workbook"], ranges),
                          nothing_else_changed(ctx.diff, allowed + allow_workbook_cells(ctx, p["workbook"]))]


def _amount_pool(session, p: dict, deal: Opportunity, right: list[Opportunity]) -> list[Candidate]:
    """Amounts a post could give instead of a deal's CRM amount: what the sheet shows for it, and the
    amounts of the rep's deals that did not drift."""
    cells, cols, rows = layout(session, p["workbook"], p["tab"])
    shown = cells.get((rows[deal.name], cols["Amount"]))
    cents = {round(shown * 100)} if isinstance(shown, (int, float)) else set()
    cents |= {d.amount_cents for d in right}
    return [Candidate.money(c) for c in sorted(cents - {deal.amount_cents})]
