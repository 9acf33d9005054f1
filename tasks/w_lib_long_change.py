"""A month-end marathon with a CRM change to come (difficulty 6), composed from the procedure library:

- `w.lib_long_month_end_change_to_come`: the owner of a team's pipeline workbook, out on Friday, asks an editor
  by DM for its month-end reconciliation, adding that a deal's owner is updating that deal in the CRM this
  morning and will be done by a stated time: the editor waits for it (the change comes during the episode, an
  event), reconciles every row of the Deals tab with the CRM (ReconcileWithChangeToCome: a SOPS Task per
  corrected row, closed deals' rows left alone), posts the corrected deals in #deals and tells the owner. An
  agent that reconciles at once leaves that deal's row behind the CRM;
- `w.lib_long_both_books_change_to_come`: the manager's month end of both workbooks the actor edits (the
  pipeline's Deals tab and the forecast's Closed Won rows, one post in #deals with the won total), with such a
  change to come on a pipeline deal."""

from __future__ import annotations

from dataclasses import replace

from officegym.apps.org.models import Person

from .common import named, spread
from .phrasing import request_instruction
from .procedures import Composed, DirectRequest, Plan, ReadRule, Reply
from .procedures.long_events import change_to_come
from .procedures.revenue import CORRECTED, RECONCILE, ReconcilePost
from .procedures.revenue_draws import PIPELINE, open_pages, pipeline_options, reconcile
from .registry import register
from .w_lib_marathon_more import MonthEndOfBothForTheManager

WHAT = {"Amount": "amount", "Expected close": "expected close date"}  # a drift's column, as the DM says it


@register
class MonthEndWithAChangeToCome(Composed):
    """Reconcile a team's pipeline workbook for its owner once a deal's owner has updated it in the CRM by the
    time the owner's DM states, post in #deals and tell the owner."""

    id, difficulty, kind, scale, split = "w.lib_long_month_end_change_to_come", 6, "workflow", "medium", "test"
    apps = ("crm", "sheets", "tickets", "chat")
    toolsets = ("chat", "crm.sales", "sheets.cells", "tickets.work")  # its apps hold over 100 tools
    rules, hard = (RECONCILE,), ("changed", "stale", "exception", "lookalike")
    summary = ("A team lead asks you to do the month-end reconciliation of their pipeline workbook once a deal's owner "
               "has updated it in the CRM by a stated time: wait for it, correct every row that disagrees with the "
               "CRM, leave closed deals' rows alone, a SOPS Task per corrected row, the post in #deals, then tell "
               "the lead.")

    def plan(self, session, rng, instance):
        options = [o for o in pipeline_options(session, self.split) if o[1] != o[0].owner_id]
        book, actor_id, deals = spread(options, instance)
        owner = session.get(Person, book.owner_id)
        tab, corrected, agreed = reconcile(session, rng, self.split, book, "Deals", actor_id, deals, PIPELINE,
                                           open_pages(deals))
        tab, deadline = change_to_come(session, rng, tab, {actor_id, owner.id})
        coming = tab.drifts[tab.coming]
        updater = session.get(Person, coming.by)
        text = (f"Hi, I'm out on Friday: could you do the month-end reconciliation of {book.title} for me today? "
                f"{updater.name} is updating the {WHAT[coming.column]} of {coming.name} in the CRM this morning and "
                f"will be done by {deadline}, so reconcile after that. Go by the handbook's procedure, and tell me "
                "when it's done.")
        post = ReconcilePost(f"Month-end reconciliation of {book.title} done for {owner.name}: I corrected the "
                             f"rows of {', '.join(corrected)} to match the CRM, and filed a SOPS Task for each.",
                             tuple(corrected), tuple(agreed), weight=9.0)
        reply = Reply(owner.id, owner.name, actor_id, f"@{owner.handle} done: I reconciled {book.title} with the CRM "
                      f"once {updater.name} had updated {coming.name}, corrected {len(corrected)} rows, filed a SOPS "
                      "Task for each and posted them in #deals.", False, CORRECTED + ("reconciled", "done"))
        return Plan(actor_id, request_instruction(rng, named(session, owner)),
                    [DirectRequest(owner.id, actor_id, text),
                     ReadRule.of(session, RECONCILE, "month-end reconciliation"), tab, post, reply])


@register
class BothBooksWithAChangeToCome(MonthEndOfBothForTheManager):
    """The manager's month end of both workbooks the actor edits (tasks.w_lib_marathon_more), once a deal's owner
    has updated it in the CRM by the time the manager's DM states: wait for it, reconcile the pipeline and the
    Closed Won rows, post once in #deals with the won total, then tell the manager."""

    id, split = "w.lib_long_both_books_change_to_come", "train"
    summary = ("Your manager asks by DM for the month end of both workbooks you edit, once a deal's owner has updated "
               "it in the CRM by a stated time: wait for it, reconcile your team's pipeline and your Closed Won rows "
               "of the month with the CRM, a SOPS Task per corrected row, one post in #deals with the won total, then "
               "tell them.")

    def plan(self, session, rng, instance):
        plan = super().plan(session, rng, instance)
        asked, tab = plan.procedures[0], plan.procedures[2]
        tab, deadline = change_to_come(session, rng, tab, {plan.actor_id, asked.requester})
        coming = tab.drifts[tab.coming]
        text = asked.text.replace(" Go by the handbook's procedure", (
            f" {session.get(Person, coming.by).name} is updating the {WHAT[coming.column]} of {coming.name} in the "
            f"CRM this morning and will be done by {deadline}, so reconcile after that. Go by the handbook's "
            "procedure"))
        return Plan(plan.actor_id, plan.instruction,
                    [replace(asked, text=text), plan.procedures[1], tab, *plan.procedures[3:]], plan.params)
