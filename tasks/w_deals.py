"""Sales workflows: the discounts a customer needs to beat a competitor, relayed by a colleague. The
discounts within the limit are set directly; the one above it is requested with a reason naming the
competitor, which only the colleague on the call knows (a competitor the CRM knows: the manager
approves nothing else, by the handbook), and decided by the deal owner's manager when asked. The
reply to the colleague reports what was set and who approved the request.

The other deal workflows: closing a signed deal through the deal desk (w_deals_close), getting a
deal ready for it (w_deals_prep), cleaning up a rep's past-due deals (w_deals_cleanup), a
customer's outage credit (w_deals_credit); the decisions are in w_deals_refusals. Their shared
helpers are in w_deals_common (`setup_of` is imported from here by other families too)."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from officegym.apps.crm.models import OPEN_STAGES, LineItem, Opportunity, Product
from officegym.apps.crm.products import line_total
from officegym.apps.org.models import Person
from officegym.graders.checks import Allow, check, guard, nothing_else_changed
from officegym.graders.statements import Candidate, says

from .base import Claim, Declaration, TaskInstance, TaskTemplate, Target, ToolCall
from .common import allow_posts, named, pick, spread
from .crm import allow_deal, deal_lookalikes
from .decisions import reply_checks
from .handbook import read_rule
from .phrasing import request_instruction
from .registry import register
from .split import of_split
from .w_deals_common import (DISCOUNTS, allow_asking, allow_new_line, ask, colleague_of, dm_id, dm_name, dm_step,
                             item_lookalikes, items_of, managed_deals, new_line, new_product, note_step, percent,
                             rivals_known, said_in_dm, sales_managers, setup_of)

__all__ = ["DISCOUNTS", "setup_of", "DiscountThroughManager"]
SETTLED = ("set", "added", "approved", "settled", "sorted")  # what a report of the discounts says was done


# ---------------------------------------------------------------- the discount a competitor forced

def _discount_setup(session: Session, split: str, rng, instance: int):
    """The deal, the line to discount directly, the line (of the split) to request a discount on, and the
    owner's other open deals on the account. The DM names the account and the two products, so no other
    of those deals has both."""
    choices, items, open_by = [], {}, {}
    for item in session.scalars(select(LineItem).order_by(LineItem.id)):
        items.setdefault(item.opportunity_id, []).append(item)
    for deal_id, account_id, owner_id in session.execute(select(Opportunity.id, Opportunity.account_id,
                                                                Opportunity.owner_id).where(
            Opportunity.stage.in_(OPEN_STAGES)).order_by(Opportunity.id)):
        open_by.setdefault((account_id, owner_id), []).append(deal_id)
    for deal in managed_deals(session, split, with_items=True):
        others = [o for o in open_by.get((deal.account_id, deal.owner_id), []) if o != deal.id]
        sold = [{x.product_id for x in items.get(o, [])} for o in others]
        lines = [i for i in items.get(deal.id, []) if i.discount_bp <= 2000]
        for asked in of_split(split, "line_item", lines):
            direct = [i for i in lines if i.product_id != asked.product_id
                      and not any({i.product_id, asked.product_id} <= products for products in sold)]
            if direct:
                choices.append((deal, asked, direct, others))
    deal, asked, direct, others = spread(choices, instance)
    return deal, pick(rng, direct), asked, others


@register
class DiscountThroughManager(TaskTemplate):
    """Two discounts a competitor forced: one set directly, one requested with a reason naming the
    competitor (learnt from the colleague on the call) and decided by the manager when asked; the
    reply to the colleague reports what was set and who approved."""

    id, apps, difficulty = "w.deal_discount_through_manager", ("chat", "crm", "org", "tickets"), 4
    toolsets = ("chat", "crm", "tickets.work")  # its apps hold over 100 tools
    kind, scale, split = "workflow", "medium", "train"
    rules = (DISCOUNTS,)
    summary = ("A colleague relays what a customer needs to beat a competitor: set the discounts within the limit, add "
               "the lines, learn the competitor from the colleague on the call, request the discount above the limit "
               "with a reason naming it (the manager approves no other reason), ask the manager to decide it, and "
               "report to the colleague what was set and who approved.")

    def sample(self, session, rng, instance):
        deal, direct, asked, others = _discount_setup(session, self.split, rng, instance)
        owner = session.get(Person, deal.owner_id)
        boss = session.get(Person, owner.manager_id)
        requester = colleague_of(session, rng, owner)
        witness = colleague_of(session, rng, owner, requester.id)
        low = pick(rng, [d for d in (10, 12, 15, 18, 20) if d * 100 != direct.discount_bp])
        high = pick(rng, [22, 25, 28, 30, 32, 35])
        rival = pick(rng, rivals_known(session))
        extra, price = new_product(session, rng, deal.id)
        units = pick(rng, [1, 2, 3, 5])
        more, more_price = new_product(session, rng, deal.id, extra.id)
        more_units, more_off = pick(rng, [2, 4, 6, 10]), pick(rng, [5, 8, 10, 15])
        account = deal.account.name
        text = (f"Hi @{owner.handle}, {account} called about the deal we're quoting them: a competitor quoted them "
                f"well under us (@{witness.handle} was on the call and saw their quote). To sign they need {low}% off "
                f"the {direct.product.name} line and {high}% off the {asked.product.name} line, and they want {units} "
                f"x {extra.name} added at list price and {more_units} x {more.name} at {more_off}% off. Can you sort it "
                "out and tell me when it's settled? I won't tell them anything until then.")
        heard = f"On the call they showed us {rival}'s quote for {account}: {rival} is well under our price."
        reason = f"Matching {rival}'s lower price to win the deal"
        dm = dm_name(owner.id, requester.id)
        steps = [ToolCall("chat_list_conversations", {"limit": 10}),
                 ToolCall("chat_list_messages", {"channel": dm, "limit": 5}),
                 *read_rule(session, DISCOUNTS, "discount approval"),
                 ToolCall("crm_list_opportunities", {"account": account, "owner": f"@{owner.handle}",
                                                     "stage": "open"}),
                 *[ToolCall("crm_get_opportunity", {"opportunity": i}) for i in sorted([deal.id, *others])],
                 ToolCall("crm_update_line_item", {"line_item": direct.id, "discount": low}),
                 ToolCall("crm_list_products", {"query": extra.name}),
                 ToolCall("crm_add_line_item", {"opportunity": deal.id, "product": extra.code, "quantity": units}),
                 ToolCall("crm_list_products", {"query": more.name}),
                 ToolCall("crm_add_line_item", {"opportunity": deal.id, "product": more.code, "quantity": more_units,
                                                "discount": more_off})]
        # The reason must name the competitor (the handbook): only the colleague on the call knows which one.
        steps += ask(witness.handle, f"Hi @{witness.handle}, which competitor's quote did {account} show on the call "
                                     f"about {deal.name}?", len(steps))
        steps += [ToolCall("crm_request_discount", {"line_item": asked.id, "discount": high, "reason": reason},
                           role="reason"),
                  ToolCall("org_get_person", {"person": f"@{boss.handle}"})]
        steps += ask(boss.handle, f"Hi @{boss.handle}, I requested {high}% off the {asked.product.name} line of "
                                  f"{deal.name} to match {rival}'s price. Could you decide it?", len(steps), role="ask")
        steps += [ToolCall("crm_get_opportunity", {"opportunity": deal.id}),
                  ToolCall("chat_post_message", {"channel": dm, "text": (
                      f"@{requester.handle} all settled on {deal.name}: {low}% off {direct.product.name} is set, "
                      f"{units} x {extra.name} added at list price and {more_units} x {more.name} at {more_off}% off, "
                      f"and @{boss.handle} approved {high}% off {asked.product.name}. You can tell them.")},
                           role="report")]
        return TaskInstance(
            self.id, instance, owner.id,
            request_instruction(rng, named(session, requester)),
            steps, {"deal": deal.id, "direct": direct.id, "asked": asked.id, "low": low, "high": high,
                    "rival": rival, "requester": requester.id, "boss": boss.id, "extra": extra.id, "units": units,
                    "price": price, "witness": witness.id, "more": more.id, "more_units": more_units,
                    "more_off": more_off, "more_price": more_price},
            setup=setup_of(note_step(witness.id, "opportunity", deal.id, heard),
                           note_step(witness.id, "account", deal.account_id, heard),
                           dm_step(requester.id, owner.id, text)))

    def declare(self, start, inst):
        p = inst.params
        deal = start.get(Opportunity, p["deal"])
        boss = start.get(Person, p["boss"])
        rivals = [Candidate.text(c) for c in rivals_known(start) if c != p["rival"]]
        said = {p["low"], p["high"], p["more_off"]}
        return Declaration([Target("line_item", p["asked"], item_lookalikes(start, start.get(LineItem, p["asked"]))),
                            Target("opportunity", deal.id, deal_lookalikes(start, deal, inst.actor_id))],
                           [Claim(Candidate.text(p["rival"]), rivals, "reason", "competitor"),
                            Claim(percent(p["high"]), [percent(n) for n in range(21, 51) if n not in said], "text",
                                  "discount approved"),
                            Claim(Candidate.person(boss), [Candidate.person(m) for m in sales_managers(
                                      start, boss.id, p["requester"], p["witness"])],
                                  "text", "approver")])

    def check(self, ctx, inst):
        p = inst.params
        rival, high, approver = self.declare(ctx.start, inst).claims
        direct, asked = ctx.start.get(LineItem, p["direct"]), ctx.start.get(LineItem, p["asked"])
        now_direct, now_asked = ctx.final.get(LineItem, p["direct"]), ctx.final.get(LineItem, p["asked"])
        requests = [r for r in ctx.diff.table("crm_discount_approval").added if r["line_item_id"] == asked.id]
        approved = [r for r in requests if r["status"] == "Approved" and r["discount_bp"] == p["high"] * 100]
        pending = [r for r in requests if r["status"] == "Pending"]
        totals = {i.id: i.total_cents for i in items_of(ctx.start, p["deal"])}
        totals[direct.id] = line_total(direct.quantity, direct.unit_price_cents, p["low"] * 100)
        totals[asked.id] = line_total(asked.quantity, asked.unit_price_cents, p["high"] * 100)
        amount = (sum(totals.values()) + p["units"] * p["price"]
                  + line_total(p["more_units"], p["more_price"], p["more_off"] * 100))
        requester, boss = ctx.start.get(Person, p["requester"]), ctx.start.get(Person, p["boss"])
        me, witness = ctx.start.get(Person, ctx.actor_id), ctx.start.get(Person, p["witness"])
        extra, more = ctx.start.get(Product, p["extra"]), ctx.start.get(Product, p["more"])
        added = (new_line(ctx, p["deal"], p["extra"], p["units"])
                 and new_line(ctx, p["deal"], p["more"], p["more_units"], p["more_off"] * 100))
        dm = dm_id(ctx.start, ctx.actor_id, requester.id)
        replies = said_in_dm(ctx, ctx.actor_id, requester.id)
        allowed = [Allow("crm_line_item", ("updated",), lambda row: row["id"] == direct.id
                         and row["discount_bp"] == p["low"] * 100, ("discount_bp", "total_cents")),
                   Allow("crm_line_item", ("updated",), lambda row: row["id"] == asked.id
                         and row["discount_bp"] == p["high"] * 100, ("discount_bp", "total_cents")),
                   Allow("crm_discount_approval", ("added",), lambda row: row["line_item_id"] == asked.id, limit=2),
                   allow_new_line(p["deal"], p["extra"], p["units"]),
                   allow_new_line(p["deal"], p["more"], p["more_units"], p["more_off"] * 100),
                   allow_deal(p["deal"], "amount_cents", where=lambda row: row["amount_cents"] == amount),
                   *allow_asking(ctx, [me, boss]),
                   *allow_asking(ctx, [me, witness], limit=2),
                   *allow_posts(ctx, dm, limit=2, mentions=3)]
        # The approval is read where it lives (the request the manager decided), the reason where the manager
        # read it, and the reply for what it reports: the approved discount and who approved it.
        return [check(f"The {direct.product.name} line is at {p['low']}% off, set directly",
                      now_direct is not None and now_direct.discount_bp == p["low"] * 100,
                      f"it is at {now_direct.discount_bp / 100 if now_direct else 'gone'}%"),
                check(f"A request for {p['high']}% off the {asked.product.name} line was approved by the manager",
                      approved and now_asked is not None and now_asked.discount_bp == p["high"] * 100,
                      f"requests: {[(r['discount_bp'] / 100, r['status']) for r in requests]}", weight=2),
                check(f"{p['units']} x {extra.name} were added to the deal at list price, and {p['more_units']} x "
                      f"{more.name} at {p['more_off']}% off", added, "those lines were not both added"),
                guard("No discount request is left pending", not pending, f"{len(pending)} still pending"),
                *says([r["reason"] for r in requests], rival.right, rival.others,
                      f"The request's reason names the competitor, {p['rival']}", rival.kind, weight=2),
                *reply_checks(replies, False, requester.name, [high, approver], actions=SETTLED, weight=2),
                nothing_else_changed(ctx.diff, allowed)]
