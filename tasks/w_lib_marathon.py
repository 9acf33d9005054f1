"""Marathons of the month-end reconciliation (difficulty 6), composed from the procedure library
(tasks.procedures.revenue): an editor of a team's pipeline workbook brings every row of its Deals tab
back in line with the CRM, on their own or for the workbook's owner, who asks for it by direct message
(then a deal moves on in the CRM after the request, and the owner hears when it is done). Over the month
a teammate typed over amounts and dates (and said in #deals that one typed-over amount was right), owners
moved deals on in the CRM, and two deals closed lost: the editor corrects each disagreeing cell from the
CRM, files a SOPS Task per corrected row, leaves the closed deals' rows as they are and posts the
corrected deals in #deals."""

from __future__ import annotations

from dataclasses import replace

from officegym.apps.org.models import Person

from .common import named, spread
from .phrasing import goal_instruction, request_instruction
from .procedures import Composed, DirectRequest, Plan, ReadRule, Reply
from .procedures.revenue import CORRECTED, RECONCILE, ReconcilePost
from .procedures.revenue_draws import PIPELINE, open_pages, pipeline_options, reconcile
from .registry import register


@register
class PipelineMonthEnd(Composed):
    """Reconcile every row of a team's pipeline workbook with the CRM at month end."""

    id, difficulty, kind = "w.lib_marathon_pipeline_month_end", 6, "workflow"
    apps = ("crm", "sheets", "tickets", "chat")
    toolsets = ("chat", "crm.sales", "sheets.cells", "tickets.work")  # its apps hold over 100 tools
    scale, split, rules, hard = "medium", "train", (RECONCILE,), ("changed", "stale", "exception", "lookalike")
    summary = ("Month end: bring every row of a team's pipeline workbook in line with the CRM (the CRM wins over "
               "typed-over cells and over chat), leave closed deals' rows alone, file a SOPS Task per corrected row "
               "and post the corrected deals in #deals.")

    def plan(self, session, rng, instance):
        book, actor_id, deals = spread(pipeline_options(session, self.split), instance)
        tab, corrected, agreed = reconcile(session, rng, self.split, book, "Deals", actor_id, deals, PIPELINE,
                                           open_pages(deals))
        post = ReconcilePost(f"Month-end reconciliation of {book.title} done: I corrected the rows of "
                             f"{', '.join(corrected)} to match the CRM, and filed a SOPS Task for each.",
                             tuple(corrected), tuple(agreed))
        goal = (f"It's month end, and the \"{book.title}\" workbook is read on Friday: reconcile its Deals tab with "
                "the CRM as the handbook's month-end procedure says, record the work the way it asks and report in "
                "the channel it names.")
        return Plan(actor_id, goal_instruction(rng, goal),
                    [ReadRule.of(session, RECONCILE, "month-end reconciliation"), tab, post])


@register
class PipelineMonthEndForTheOwner(Composed):
    """The workbook's owner asks an editor to do the month end for them: reconcile every row of the Deals
    tab, post in #deals and tell the owner; one deal moved on in the CRM after they asked."""

    id, difficulty, kind = "w.lib_marathon_pipeline_for_owner", 6, "workflow"
    apps = ("crm", "sheets", "tickets", "chat")
    toolsets = ("chat", "crm.sales", "sheets.cells", "tickets.work")  # its apps hold over 100 tools
    scale, split, rules, hard = "medium", "test", (RECONCILE,), ("changed", "stale", "exception", "lookalike")
    summary = ("A team lead asks you to do the month-end reconciliation of their pipeline workbook: correct every row "
               "that disagrees with the CRM (a deal moved on after they asked), leave closed deals' rows alone, a SOPS "
               "Task per corrected row, the post in #deals, then tell them.")

    def plan(self, session, rng, instance):
        options = [o for o in pipeline_options(session, self.split) if o[1] != o[0].owner_id]
        book, actor_id, deals = spread(options, instance)
        owner, counts = session.get(Person, book.owner_id), {**PIPELINE, "crm_close": 3, "crm_amount": 4}
        tab, corrected, agreed = reconcile(session, rng, self.split, book, "Deals", actor_id, deals, counts,
                                           open_pages(deals))
        late = next(i for i, d in enumerate(tab.drifts) if d.how == "crm")
        tab = replace(tab, drifts=tuple(replace(d, late=i == late) for i, d in enumerate(tab.drifts)))
        text = (f"Hi, I'm out on Friday: could you do the month-end reconciliation of {book.title} for me? Go by "
                "the handbook's procedure, and tell me when it's done.")
        post = ReconcilePost(f"Month-end reconciliation of {book.title} done for {owner.name}: I corrected the "
                             f"rows of {', '.join(corrected)} to match the CRM, and filed a SOPS Task for each.",
                             tuple(corrected), tuple(agreed), weight=9.0)
        reply = Reply(owner.id, owner.name, actor_id, f"@{owner.handle} done: I reconciled {book.title} with the CRM, "
                      f"corrected {len(corrected)} rows, filed a SOPS Task for each and posted them in #deals.",
                      False, CORRECTED + ("reconciled", "done"))
        return Plan(actor_id, request_instruction(rng, named(session, owner)),
                    [DirectRequest(owner.id, actor_id, text),
                     ReadRule.of(session, RECONCILE, "month-end reconciliation"), tab, post, reply])
