"""Event templates on deals: a Sales manager asks a deal's owner, by DM, to set the deal's amount,
and follows up while the owner works: the customer's side came back with another figure (the
amount to set changes) or confirmed it (the twin: it does not):
- `e.deal_amount_followup`: the follow-up comes at a simulated time;
- `e.deal_amount_correction`: the manager corrects the figure they gave (or re-checks it) right after
  the owner's first change;
- `e.deal_close_date_revoked`: the manager approved pushing a deal's close date, pending a
  sign-off; the approval is withdrawn (the date to set is an earlier one) or upheld (the twin)."""

from __future__ import annotations

from datetime import date, timedelta

from sqlalchemy import select

from officegym.apps.crm.models import DiscountApproval, Opportunity
from officegym.apps.org.models import Person
from officegym.graders.checks import check
from officegym.graders.statements import Candidate

from .base import Target, ToolCall
from .common import pick
from .crm import allow_deal, deal_lookalikes, deals_of, money, today
from .e_common import Correction, Drawn, FollowupTemplate, workday
from .registry import register
from .split import person_in
from .w_deals_common import date_said

SOURCES = ["their procurement team", "the customer's finance lead", "their CFO", "the customer's buying committee"]
STEPS = [250_000, 500_000, 750_000, 1_000_000, 1_500_000]  # cents a corrected figure moves by


class DealFollowup(FollowupTemplate):
    """A follow-up template whose record is a deal (`params["deal"]`), set by one field of
    crm_update_opportunity (`field`, given `tool_value(value)`)."""

    field = "amount"

    def tool_value(self, value):
        """A drawn value as crm_update_opportunity takes it."""
        return value

    def steps(self, inst, value):
        deal = inst.params["deal"]
        return [ToolCall("crm_get_opportunity", {"opportunity": deal}),
                ToolCall("crm_update_opportunity", {"opportunity": deal, self.field: self.tool_value(value)})]

    def record(self, start, inst):
        deal = start.get(Opportunity, inst.params["deal"])
        return Target("opportunity", deal.id, deal_lookalikes(start, deal, inst.actor_id))


@register
class DealAmountFollowup(DealFollowup):
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

    def tool_value(self, value):
        return value / 100

    def state_checks(self, ctx, inst):
        deal = ctx.final.get(Opportunity, inst.params["deal"])
        return [check(f"The amount of {deal.name} is {money(inst.params['final'])}, as finally agreed",
                      deal.amount_cents == inst.params["final"], f"it is {money(deal.amount_cents)}", weight=3)]

    def allowances(self, ctx, inst):
        return [allow_deal(inst.params["deal"], "amount_cents")]


@register
class DealAmountCorrection(Correction, DealAmountFollowup):
    id, split = "e.deal_amount_correction", "test"
    summary = "Set a deal's amount as its owner's manager asked, and fix it when they correct their figure."


APPROVAL_PENDING = ["I approved the customer's request for more time, but {source} still has to sign off on my "
                    "approval; if they don't, I'll withdraw it and tell you the date to use.",
                    "That's my approval of the customer's ask for more time; {source} may overrule it, in which case "
                    "I'll message you with the date we keep to.",
                    "I've said yes to the extension, pending {source}'s sign-off: if it doesn't come, my approval is "
                    "withdrawn and I'll send you the right date."]
REVOKED = ["I have to withdraw my approval on {thing}: {source} won't let it slip that far. Please use {new}, "
           "not {old}.",
           "Approval withdrawn on {thing}, sorry: {source} overruled me. Make it {new} instead of {old}.",
           "Scratch my approval on {thing}: {source} said no to {old}. {new} is the date to use."]
UPHELD = ["{source} signed off my approval on {thing}: {old} stands, go ahead with {old}.",
          "Good news on {thing}: {source} backed my approval, so {old} it is.",
          "My approval on {thing} holds, {source} agreed: please go with {old}."]
PUSHES = [21, 28, 35, 42]  # days an approved extension pushes a close date by
PULLS = [7, 10, 14]  # days a withdrawn approval pulls it back by


@register
class DealCloseDateRevoked(DealFollowup):
    id, apps, field = "e.deal_close_date_revoked", ("chat", "crm"), "close_date"
    pending, changed, confirmed = APPROVAL_PENDING, REVOKED, UPHELD
    summary = "Push a deal's close date as its owner's manager approved, unless they withdraw the approval."

    def draw(self, session, rng, instance, changes):
        deals = [d for d in deals_of(session, self.split, with_items=False) if person_in(self.split, d.owner_id)
                 and session.get(Person, d.owner_id).manager_id is not None]
        deal = pick(rng, deals)
        owner = session.get(Person, deal.owner_id)
        start = max(deal.close_date, today(session))
        first = workday(start + timedelta(days=pick(rng, PUSHES)))
        pulled = workday(first - timedelta(days=pick(rng, PULLS)))
        final = pulled if changes else first
        others = sorted({deal.close_date, first, pulled, workday(first + timedelta(days=7))} - {final})
        return Drawn(owner, session.get(Person, owner.manager_id), f"the close date of {deal.name}",
                     pick(rng, ["finance", "the VP of Sales", "the forecast review", "the deal desk"]),
                     f"move the close date of {deal.name} to {{value}}", first.isoformat(), final.isoformat(),
                     [d.isoformat() for d in others], {"deal": deal.id})

    def candidate(self, value):
        return date_said(date.fromisoformat(value))

    def state_checks(self, ctx, inst):
        deal = ctx.final.get(Opportunity, inst.params["deal"])
        return [check(f"{deal.name} closes on {inst.params['final']}, as finally agreed",
                      deal.close_date == date.fromisoformat(inst.params["final"]), f"it closes {deal.close_date}")]

    def allowances(self, ctx, inst):
        return [allow_deal(inst.params["deal"], "close_date")]
