"""A marathon of the month-end reconciliation over two workbooks (difficulty 6), composed from the
procedure library (tasks.procedures.revenue): a sales manager who edits both their team's pipeline
workbook and the sales forecast reconciles every row of the team's Deals tab and every row of the
forecast's Closed Won tab for the deals they can see that were won in the month being closed. Cells
were typed over in both, owners moved deals on in the CRM, a deal closed lost (its row is left alone),
and a teammate vouched in #deals for an amount they had typed. The post names every corrected deal and
gives the won total of the Closed Won rows reconciled, added up from the CRM."""

from __future__ import annotations

from .common import spread
from .crm import money
from .phrasing import goal_instruction
from .procedures import Composed, Plan, ReadRule
from .procedures.revenue import RECONCILE, ReconcilePost
from .procedures.revenue_draws import (forecast_options, month_closed, open_pages, reconcile, won_pages,
                                       won_total)
from .registry import register

OPEN = {"typed_amount": 3, "typed_close": 2, "crm_close": 2, "crm_amount": 1, "closed": 1}
WON = {"typed_amount": 4, "typed_closed_on": 3}


@register
class PipelineAndClosedWon(Composed):
    """Reconcile a team's pipeline tab and its manager's Closed Won rows of the month, then post once."""

    id, apps, difficulty, kind = "w.lib_marathon_pipeline_and_won", ("crm", "sheets", "tickets", "chat"), 6, "workflow"
    toolsets = ("chat", "crm.sales", "sheets.cells", "tickets.work")  # its apps hold over 100 tools
    scale, split, rules = "medium", "train", (RECONCILE,)
    hard = ("changed", "stale", "exception", "lookalike", "summed")
    summary = ("Month end for a sales manager: reconcile the team's pipeline workbook and the forecast's Closed Won "
               "rows of the month they can see with the CRM (the CRM wins; closed deals' rows stay), a SOPS Task per "
               "corrected row, and one post in #deals naming the corrected deals and the won total from the CRM.")

    def plan(self, session, rng, instance):
        forecast, book, actor_id, deals, won = spread(forecast_options(session, self.split, 8, 30), instance)
        month = month_closed(session)
        pipeline, fixed_open, agreed_open = reconcile(session, rng, self.split, book, "Deals", actor_id, deals, OPEN,
                                                      open_pages(deals), vouch=False)
        closed_won, fixed_won, agreed_won = reconcile(session, rng, self.split, forecast, "Closed Won", actor_id, won,
                                                      WON, won_pages(month))
        total = won_total(won)
        text = (f"Month-end reconciliation done. {book.title}: I corrected the rows of {', '.join(fixed_open)}. "
                f"{forecast.title}, Closed Won for {month:%B}: I corrected {', '.join(fixed_won)}; the {len(won)} "
                f"deals won in {month:%B} that I reconciled come to {money(total)} in the CRM. A SOPS Task is filed "
                "for each corrected row.")
        post = ReconcilePost(text, (*fixed_open, *fixed_won), (*agreed_open, *agreed_won), total,
                             won_total(won, closed_won.drifts), weight=19.0)
        goal = (f"It's month end. You edit both \"{book.title}\" and \"{forecast.title}\": reconcile your part of "
                f"each with the CRM (your team's Deals tab, and the Closed Won rows of {month:%B}, the month being "
                "closed), as the handbook's month-end procedure says, record the work the way it asks and report where "
                "it says.")
        return Plan(actor_id, goal_instruction(rng, goal),
                    [ReadRule.of(session, RECONCILE, "month-end reconciliation"), pipeline, closed_won, post])
