"""Month-end marathons of a salesperson's day (difficulty 6), composed from the procedure library:

- `w.lib_long_month_end_and_credits`: the month end of the team's pipeline workbook (ReconcileTab on its
  Deals tab, ReconcilePost in #deals) and, the same morning, Customer Success's DM listing five of the team's
  customers' credit requests (NotedCredit, each note naming its approver by the account's twelve-month total;
  one or two on an invoice credited already), answered by one reply naming the invoices not logged."""

from __future__ import annotations

from officegym.apps.org.models import Person

from .common import spread
from .phrasing import goal_instruction
from .procedures import Composed, Plan, ReadRule
from .procedures.credits import CREDITS
from .procedures.long import credit_batch, editors_with_accounts
from .procedures.revenue import RECONCILE, ReconcilePost
from .procedures.revenue_draws import PIPELINE, open_pages, reconcile
from .registry import register

CREDIT_COUNT = 5  # the credit requests of a month-end morning


@register
class MonthEndAndCredits(Composed):
    """Reconcile every row of the team's pipeline workbook with the CRM at month end, and log the five credit
    requests Customer Success sent the same morning, telling them which could not be logged."""

    id, difficulty, kind, scale, split = "w.lib_long_month_end_and_credits", 6, "workflow", "medium", "train"
    apps = ("crm", "sheets", "tickets", "chat", "org")
    toolsets = ("chat", "crm.sales", "crm_list_accounts", "crm_get_account", "crm_search_records",  # at most 100
                "crm_list_activities", "crm_log_activity", "crm_list_cases", "crm_get_case", "sheets.cells",
                "tickets.work")
    rules = (RECONCILE, CREDITS)
    hard = ("changed", "stale", "exception", "lookalike", "summed")
    summary = ("Month end: bring every row of your team's pipeline workbook in line with the CRM (a SOPS Task per "
               "corrected row, closed deals' rows left alone, the post in #deals), and log the five credit requests "
               "Customer Success sent you, each note naming its approver by the twelve-month total; log none on an "
               "invoice credited already, and tell Customer Success which.")

    def plan(self, session, rng, instance):
        book, actor_id, deals, accounts = spread(editors_with_accounts(session, self.split, CREDIT_COUNT), instance)
        actor = session.get(Person, actor_id)
        tab, corrected, agreed = reconcile(session, rng, self.split, book, "Deals", actor_id, deals, PIPELINE,
                                           open_pages(deals))
        post = ReconcilePost(f"Month-end reconciliation of {book.title} done: I corrected the rows of "
                             f"{', '.join(corrected)} to match the CRM, and filed a SOPS Task for each.",
                             tuple(corrected), tuple(agreed))
        batch = credit_batch(session, rng, actor, accounts, CREDIT_COUNT, 1 + instance % 2, set())
        goal = (f"It's month end and a busy morning. The \"{book.title}\" workbook is read on Friday: reconcile its "
                "Deals tab with the CRM as the handbook's month-end procedure says, record the work the way it asks "
                "and report in the channel it names. Customer Success has also written to you: read your messages "
                "and do what they ask.")
        return Plan(actor_id, goal_instruction(rng, goal, batch.asker.name),
                    [ReadRule.of(session, RECONCILE, "month-end reconciliation"), tab, post, batch.request,
                     ReadRule.of(session, CREDITS, "credit approval"), *batch.steps, batch.reply])
