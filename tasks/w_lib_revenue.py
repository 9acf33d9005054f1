"""Revenue operations composed from the procedure library (tasks.procedures.revenue).

`w.lib_revenue_closed_won_month`: an editor of the sales forecast reconciles the Closed Won rows of the
month being closed that they can see: amounts and dates a colleague typed over (one of them vouched for
in #deals) go back to the CRM's, a SOPS Task per corrected row, and one post in #deals naming the
corrected deals and the won total of the rows reconciled, added up from the CRM (not the tab's figures).

`r.lib_revenue_vouched_amount`: a rep asks an editor of their team's pipeline workbook to type a deal's
new amount into it, saying the CRM has it. In one twin the rep did change the deal in the CRM yesterday:
the editor corrects the row from the CRM, files the Task, posts in #deals and tells the rep. In the other
the CRM still has the old amount: the editor changes nothing and replies naming the deal and the
month-end article (only the deal record counts). The rep's message is the same in both; the replies
give no figure, since the handbook keeps deal amounts to #deals."""

from __future__ import annotations

from officegym.apps.crm.models import OPEN_STAGES
from officegym.apps.org.models import Person
from officegym.graders.statements import Candidate

from .base import Claim, ToolCall
from .common import named, spread
from .crm import money
from .decisions import twin_outcome
from .phrasing import goal_instruction, request_instruction
from .procedures import Composed, DirectRequest, Plan, ReadRule, Reply
from .procedures.revenue import CORRECTED, RECONCILE, ReconcilePost, ReconcileTab
from .procedures.revenue_draws import (drift_of, forecast_options, month_closed, pipeline_options, reconcile,
                                       won_pages, won_total)
from .procedures.revenue_requests import CheckFigure, request_row, stage_drifts, vouched_drift
from .registry import register

WON = {"typed_amount": 4, "typed_closed_on": 3}


@register
class ClosedWonMonth(Composed):
    """Reconcile the month's Closed Won rows one can see with the CRM, and post the won total."""

    id, apps, difficulty, kind = "w.lib_revenue_closed_won_month", ("crm", "sheets", "tickets", "chat"), 5, "workflow"
    toolsets = ("chat", "crm.sales", "sheets.cells", "tickets.work")  # its apps hold over 100 tools
    scale, split, rules, hard = "medium", "train", (RECONCILE,), ("stale", "lookalike", "summed")
    summary = ("Month end on the sales forecast: correct the Closed Won rows of the month you can see from the CRM "
               "(not from what a colleague says in chat), a SOPS Task per corrected row, and one post in #deals naming "
               "them and the won total added up from the CRM.")

    def plan(self, session, rng, instance):
        forecast, _book, actor_id, _deals, won = spread(forecast_options(session, self.split, 8), instance)
        month = month_closed(session)
        tab, corrected, agreed = reconcile(session, rng, self.split, forecast, "Closed Won", actor_id, won, WON,
                                           won_pages(month))
        total = won_total(won)
        post = ReconcilePost(f"Closed Won reconciliation for {month:%B} done on {forecast.title}: I corrected the rows "
                             f"of {', '.join(corrected)} to match the CRM (a SOPS Task for each). The {len(won)} deals "
                             f"won in {month:%B} that I reconciled come to {money(total)} in the CRM.",
                             tuple(corrected), tuple(agreed), total, won_total(won, tab.drifts))
        goal = (f"{month:%B} is being closed, and \"{forecast.title}\" is read on Friday: reconcile the Closed Won "
                f"rows of {month:%B} that are yours to reconcile with the CRM, as the handbook's month-end procedure "
                "says, record the work the way it asks and report where it says.")
        return Plan(actor_id, goal_instruction(rng, goal),
                    [ReadRule.of(session, RECONCILE, "month-end reconciliation"), tab, post])


@register
class VouchedAmount(Composed):
    """Type a deal's new amount into the pipeline workbook when the CRM has it; refuse when only the
    request says so."""

    id, apps, difficulty, kind = "r.lib_revenue_vouched_amount", ("crm", "sheets", "tickets", "chat"), 4, "decision"
    toolsets = ("chat", "crm.sales", "sheets.cells", "tickets.work")  # its apps hold over 100 tools
    scale, split, rules, hard = "medium", "test", (RECONCILE,), ("changed", "lookalike", "stale")
    summary = ("A rep asks you to type their deal's new amount into the team's pipeline workbook, saying the CRM has "
               "it: correct the row from the CRM (Task, post, reply) when it does; when the CRM still has the old "
               "amount, change nothing and reply naming the deal and the month-end article (no figure outside #deals).")

    def plan(self, session, rng, instance):
        refused = bool(twin_outcome(self.id, instance).refuse)
        book, actor_id, deals = spread(pipeline_options(session, self.split), instance)
        tab, drift = vouched_drift(session, rng, self.split, book, actor_id, deals, refused)
        rep = session.get(Person, drift.by)
        text = (f"Hi, the amount of {drift.name} is {money(round(drift.right * 100))} now, it's in the CRM. Could you "
                f"put it in {book.title}? I can't get to the sheet today.")
        request = DirectRequest(rep.id, actor_id, text)
        rule = ReadRule.of(session, RECONCILE, "month-end reconciliation")
        if refused:
            check = CheckFigure(book.id, book.title, tab.area, drift, tab.deals)
            others = [Candidate.text(d.name) for d in deals if d.id != drift.deal]
            reply = Reply(rep.id, rep.name, actor_id, (
                f"@{rep.handle} I can't change the row of {drift.name} in {book.title}: the CRM still has its old "
                f"amount, and the handbook's {RECONCILE} says only the deal record counts. Update the deal in the "
                "CRM first, and the row follows it."), True, ("changed", "updated", "typed", "put"),
                RECONCILE, (Claim(Candidate.text(drift.name), others, "text", "deal"),), tuple(check.work()),
                weight=1)
            return Plan(actor_id, request_instruction(rng, named(session, rep)),
                        [request, rule, check, reply], {"refused": True})
        post = ReconcilePost(f"Reconciliation of {book.title}: I corrected the row of {drift.name} to match the CRM "
                             "(a SOPS Task is filed).", (drift.name,),
                             tuple(d.name for d in deals if d.id != drift.deal))
        reply = Reply(rep.id, rep.name, actor_id, f"@{rep.handle} done: I corrected {drift.name} in {book.title} to "
                      "match the CRM, filed the SOPS Task and posted it in #deals.", False, CORRECTED)
        return Plan(actor_id, request_instruction(rng, named(session, rep)),
                    [request, rule, tab, post, reply], {"refused": False})


@register
class MovedOnRow(Composed):
    """Update a deal's row after it moved to the next stage; leave it alone, as the month-end article says,
    when the deal closed."""

    id, apps, difficulty, kind = "r.lib_revenue_moved_on_row", ("crm", "sheets", "tickets", "chat"), 4, "decision"
    toolsets = ("chat", "crm.sales", "sheets.cells", "tickets.work")  # its apps hold over 100 tools
    scale, split, rules, hard = "medium", "train", (RECONCILE,), ("changed", "lookalike", "exception")
    summary = ("A rep says their deal moved on in the CRM and asks you to update its row in the team's pipeline "
               "workbook: when it moved to the next open stage, correct the stage and probability (Task, post, reply); "
               "when it closed lost, leave the row, replying that the month-end article leaves closed deals' rows.")

    def plan(self, session, rng, instance):
        refused = bool(twin_outcome(self.id, instance).refuse)
        book, actor_id, deals = spread(pipeline_options(session, self.split), instance)
        deal, row, beside, cols, area = request_row(session, rng, self.split, book, actor_id, deals,
                                                   lambda d: d.stage in OPEN_STAGES[:-1])
        rep = session.get(Person, deal.owner_id)
        text = (f"Hi, {deal.name} moved on in the CRM yesterday. Could you update its row in {book.title}? I can't "
                "get to the sheet today.")
        request = DirectRequest(rep.id, actor_id, text)
        rule = ReadRule.of(session, RECONCILE, "month-end reconciliation")
        instruction = request_instruction(rng, named(session, rep))
        others = tuple(d.id for d in deals if d.id != deal.id)
        if refused:
            closed = drift_of("closed", deal, "Deals", row, cols, actor_id, beside)
            check = CheckFigure(book.id, book.title, area, closed, (deal.id, *others), "exception", (
                ToolCall("sheets_write_cells", {"workbook": book.id, "cells": [{"cell": closed.cell,
                                                                                 "value": "Closed Lost"}]}),))
            reply = Reply(rep.id, rep.name, actor_id, (
                f"@{rep.handle} I can't update the row of {deal.name} in {book.title}: the deal is Closed Lost in the "
                f"CRM, and the handbook's {RECONCILE} leaves a closed deal's row as it is (the Friday refresh drops "
                "it)."), True, ("updated", "changed", "corrected", "marked"), RECONCILE,
                (Claim(Candidate.text("Closed Lost", "closed lost", "closed as lost", "lost"), [], "text",
                       "deal's stage"),), tuple(check.work()), weight=1)
            return Plan(actor_id, instruction, [request, rule, check, reply], {"refused": True})
        tab = ReconcileTab(book.id, book.title, "Deals", area, (deal.id, *others),
                           stage_drifts(deal, "Deals", row, cols, beside))
        moved = tab.drifts[0].right
        post = ReconcilePost(f"Reconciliation of {book.title}: I corrected the row of {deal.name} to match the CRM "
                             "(a SOPS Task is filed).", (deal.name,), tuple(d.name for d in deals if d.id != deal.id))
        reply = Reply(rep.id, rep.name, actor_id, f"@{rep.handle} done: I updated {deal.name} in {book.title} to "
                      f"{moved}, as the CRM has it, filed the SOPS Task and posted it in #deals.", False,
                      ("updated", "corrected"), facts=(Claim(Candidate.text(moved), [Candidate.text(s) for s in
                                                                                    OPEN_STAGES if s != moved]),))
        return Plan(actor_id, instruction, [request, rule, tab, post, reply], {"refused": False})
