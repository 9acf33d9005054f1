"""Event templates on deals: a Sales manager asks a deal's owner, by DM, to set the deal's amount,
and follows up while the owner works: the customer's side came back with another figure (the
amount to set changes) or confirmed it (the twin: it does not)."""

from __future__ import annotations

from sqlalchemy import select

from officegym.apps.crm.models import DiscountApproval, Opportunity
from officegym.apps.org.models import Person
from officegym.graders.checks import check
from officegym.graders.statements import Candidate

from .base import Target, ToolCall
from .common import pick
from .crm import allow_deal, deal_lookalikes, deals_of, money
from .e_common import Drawn, FollowupTemplate
from .registry import register
from .split import person_in

SOURCES = ["their procurement team", "the customer's finance lead", "their CFO", "the customer's buying committee"]
STEPS = [250_000, 500_000, 750_000, 1_000_000, 1_500_000]  # cents a corrected figure moves by


@register
class DealAmountFollowup(FollowupTemplate):
    id, apps = "e.deal_amount_followup", ("chat", "crm")
    summary = "Set a deal's amount as its owner's manager asked, after their follow-up (which may change it)."

    def draw(self, session, rng, instance, changes):
        pending = set(session.scalars(select(DiscountApproval.opportunity_id).where(
            DiscountApproval.status == "Pending")))
        deals = [d for d in deals_of(session, self.split, with_items=False)
                 if d.id not in pending and person_in(self.split, d.owner_id)
                 and session.get(Person, d.owner_id).manager_id is not None]
        deal = pick(rng, deals)
        owner = session.get(Person, deal.owner_id)
        first = max(1_000_000, int(round(deal.amount_cents * rng.uniform(1.05, 1.3), -5)))
        step = pick(rng, STEPS)
        final = first - step if changes else first
        others = sorted({deal.amount_cents, first + step, first - step} - {final})
        return Drawn(owner, session.get(Person, owner.manager_id), f"the amount of {deal.name}", pick(rng, SOURCES),
                     f"set the amount of {deal.name} to {{value}}", first, final, others, {"deal": deal.id})

    def candidate(self, value):
        return Candidate.money(value)

    def steps(self, inst, value):
        deal = inst.params["deal"]
        return [ToolCall("crm_get_opportunity", {"opportunity": deal}),
                ToolCall("crm_update_opportunity", {"opportunity": deal, "amount": value / 100})]

    def record(self, start, inst):
        deal = start.get(Opportunity, inst.params["deal"])
        return Target("opportunity", deal.id, deal_lookalikes(start, deal, inst.actor_id))

    def state_checks(self, ctx, inst):
        deal = ctx.final.get(Opportunity, inst.params["deal"])
        return [check(f"The amount of {deal.name} is {money(inst.params['final'])}, as finally agreed",
                      deal.amount_cents == inst.params["final"], f"it is {money(deal.amount_cents)}", weight=3)]

    def allowances(self, ctx, inst):
        return [allow_deal(inst.params["deal"], "amount_cents")]
