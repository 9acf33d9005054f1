"""A loss-reasons template composed from the procedure library (tasks.procedures.deals_losses), imported by
tasks.w_lib_deals:

- `w.lib_deal_loss_review`: after the pipeline review, a rep's manager asks them by DM to close out five
  deals that look dead, as "Loss reasons for Closed Lost deals" says: the rep's own note on each says what
  happened; four close as Closed Lost with the reason that decided it (the competitor named, a follow-up
  task on the account for Timing, the gap in the description for Product Fit), each posted in #deals with
  its reason; the fifth is signing and stays open, and the reply names it."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from officegym.apps.crm.models import OPEN_STAGES, Opportunity
from officegym.apps.org.models import Person
from officegym.graders.statements import Candidate

from .base import Claim, ToolCall
from .common import channel_named, member_ids, named, pick
from .crm import today
from .phrasing import request_instruction
from .procedures import Composed, DirectRequest, Plan, ReadRule, Reads, Reply
from .procedures.deals_draws import visible_rivals
from .procedures.deals_losses import LOSSES, CloseLost, StillAlive
from .registry import register
from .w_deals_cleanup import GAPS
from .w_deals_common import managed_deals

REASONS = ("Competitor", "Price", "No Budget", "No Decision", "Timing", "Product Fit")
LOSS_TOOLS = ("chat", "crm.records", "crm.sales", "crm.service", "tickets.work")


def reviewed(session, split: str) -> list[tuple[Person, list[Opportunity]]]:
    """Reps of the split in #deals with five open deals of the split on five accounts, no request pending, by id."""
    inside = member_ids(session, channel_named(session, "deals").id)
    mine: dict[int, dict[int, Opportunity]] = {}
    for deal in managed_deals(session, split):
        mine.setdefault(deal.owner_id, {}).setdefault(deal.account_id, deal)
    return [(session.get(Person, o), list(d.values())[:5]) for o, d in sorted(mine.items())
            if o in inside and len(d) >= 5]


@register
class LossReview(Composed):
    """Close out the dead deals of a pipeline review with the loss reasons the rep's notes give."""

    id, kind, difficulty, split, scale = "w.lib_deal_loss_review", "workflow", 5, "test", "medium"
    apps, toolsets = ("chat", "crm", "tickets"), LOSS_TOOLS
    rules, hard = (LOSSES,), ("lookalike",)
    summary = ("Your manager asks you to close out five deals that look dead: by your notes, close four as Closed Lost "
               "with the reason that decided each (competitor, follow-up task, gap in the description as the handbook "
               "says), post each loss in #deals with its reason, and name the one still signing.")

    def plan(self, session, rng, instance):
        reps = reviewed(session, self.split)
        rep, deals = reps[instance % len(reps)]
        manager = session.get(Person, rep.manager_id)
        deals = rng.sample(deals, 5)
        extra = pick(rng, ("Timing", "Product Fit"))  # a loss that asks for more than its reason
        reasons, day = rng.sample([extra, *rng.sample([r for r in REASONS if r != extra], 3)], 4), today(session)
        others = [d.id for d in session.scalars(select(Opportunity).where(
            Opportunity.owner_id == rep.id, Opportunity.stage.in_(OPEN_STAGES),
            Opportunity.id.not_in([d.id for d in deals])).order_by(Opportunity.id))]
        work = []
        for k, (deal, reason) in enumerate(zip(deals, reasons)):
            when = day + timedelta(days=rng.randrange(190, 260)) if reason == "Timing" else None
            work.append(CloseLost(deal.id, deal.name, deal.account_id, deal.account.name, rep.id, reason, 3 + k,
                                  pick(rng, visible_rivals(session, rep)) if reason == "Competitor" else "",
                                  pick(rng, GAPS) if reason == "Product Fit" else "", when,
                                  tuple(sorted(others, key=lambda i: abs(i - deal.id))[:6])))
        alive = deals[4]
        signing = StillAlive(alive.id, alive.name, alive.account_id, alive.account.name, rep.id, "", 2,
                             when=day + timedelta(days=rng.randrange(5, 20)))
        work.insert(rng.randrange(1, 5), signing)
        text = (f"Hi @{rep.handle}, after the pipeline review these look dead: "
                f"{', '.join(d.name for d in sorted(deals, key=lambda d: d.name))}. Could you close out the ones that "
                "are lost as the handbook says (your notes on each say what happened), and tell me if any is still "
                "alive?")
        reply = Reply(manager.id, manager.name, rep.id, (
            f"@{manager.handle} closed the lost ones and posted them in #deals. {alive.name} is still alive: "
            f"{signing.text}"), False, ("closed", "posted", "done"), weight=6, fact_weight=4,
            facts=(Claim(Candidate.text(alive.name, alive.account.name), [], "text", "deal still alive"),))
        reads = Reads((ToolCall("crm_list_opportunities", {"owner": f"@{rep.handle}", "stage": "open"}),))
        return Plan(rep.id, request_instruction(rng, named(session, manager)),
                    [DirectRequest(manager.id, rep.id, text), ReadRule.of(session, LOSSES, "loss reason closed lost"),
                     reads, *work, reply])
