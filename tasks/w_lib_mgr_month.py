"""A rep's month end, composed from the overdue-review and credit procedures (imported by tasks.w_lib_mgr):

- `r.lib_mgr_month_end_credit` (a decision): the rep's manager asks for the review of their overdue deals
  before the month's forecast ("Overdue pipeline review": stale deals pushed or closed lost by stage, a Renewal
  always pushed, those just overdue left alone), and a Customer Success colleague asks them to log a customer's
  goodwill credit for approval and to say who approves it (the account's credits of twelve months added up, one
  of fifteen months ago left out). In one twin the account's notes show that invoice credited already: nothing
  is logged and the colleague is told why. The colleague's words are the same in both."""

from __future__ import annotations


from officegym.apps.org.models import Person

from .common import named, pick, spread
from .crm import today
from .decisions import twin_outcome
from .phrasing import request_instruction
from .procedures.compose_draws import Counted
from .procedures import DirectRequest, Plan, ReadRule, Reads
from .procedures.accounts_draws import overdue_deals, review_owners
from .procedures.accounts_pipeline import LOSSES, OVERDUE
from .procedures.credits import CREDITS, TIERS
from .registry import register
from .w_lib_accounts import OverdueReview, first_of_split, review_reply
from .w_lib_revenue_credits import asked_credit, credit_on, owned_accounts
from .w_support_refusals import customer_success_askers


@register
class MonthEndCredit(OverdueReview):
    """The overdue review before the forecast, and a customer's credit logged for approval unless that invoice
    was credited already."""

    id, kind, split = "r.lib_mgr_month_end_credit", "decision", "test"
    apps, toolsets = ("chat", "crm", "tickets"), ("chat", "crm.records", "crm.sales", "crm.service", "tickets.work")
    rules, hard = (OVERDUE, LOSSES, CREDITS), ("lookalike", "exception", "summed")
    summary = ("Your manager asks for your overdue-deal review before the forecast (stale deals pushed or closed lost "
               "by stage, a Renewal pushed, those just overdue left alone; reply naming the deals closed), and a "
               "Customer Success colleague for a customer's credit logged with the approver of its twelve-month "
               "total, or nothing when the notes show that invoice credited already.")

    def plan(self, session, rng, instance):
        refused = bool(twin_outcome(self.id, instance).refuse)
        accounts = owned_accounts(session, self.split)
        owners = [o for o in review_owners(session, self.split) if any(a.owner_id == o.id for a in accounts)]
        owner = spread(owners, instance)
        manager = session.get(Person, owner.manager_id)
        reviews = first_of_split(overdue_deals(session, rng, [owner], (rng.choice((1, 2)), 2, 2)), self.split)
        mine = [a for a in accounts if a.owner_id == owner.id]
        busy = {r.account_name for r in reviews}  # the credit on an account none of the reviewed deals is on, if any
        account = pick(rng, [a for a in mine if a.name not in busy] or mine)
        asker = pick(rng, [p for p in customer_success_askers(session) if p.id not in {owner.id, manager.id}])
        invoice = f"INV-{today(session).year}-{rng.randrange(100, 400):04d}"
        credit = credit_on(session, rng, owner, account, refused, invoice, band=TIERS[instance // 2 % len(TIERS)])
        credit, ask = asked_credit(asker, owner, account, credit, refused, " Finance closes the month on Friday.")
        text = (f"Hi @{owner.handle}, it's month end: before the forecast call could you do the review of your overdue "
                "deals as the handbook says, and tell me which ones you closed?")
        return Plan(owner.id, request_instruction(rng, f"{named(session, manager)} and {named(session, asker)}",
                                                  "each of them"),
                    [DirectRequest(manager.id, owner.id, text, minutes=70), DirectRequest(asker.id, owner.id, ask),
                     ReadRule.of(session, OVERDUE, "overdue pipeline review"),
                     ReadRule.of(session, LOSSES, "loss reasons closed lost"), Reads((self.listing(session, owner),)),
                     *reviews, review_reply(manager, owner, reviews),
                     ReadRule.of(session, CREDITS, "credit approval"), credit, Counted(1, 0)],
                    {"refused": refused})


__all__ = ["MonthEndCredit"]
