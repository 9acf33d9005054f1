"""An event template on discount approvals, `e.discount_approval_revoked`: a deal owner asked their
manager to approve a discount above the limit on one line of a deal (the request is pending); the
manager writes, by DM, that they will decide it within the hour and that, if they cannot approve it,
the customer gets the standard discount (the limit, which needs no approval) instead. Then the
manager turns the request down (the owner must set the line's discount to the limit) or approves it
(the twin: the service applies the discount, and the owner only confirms). No message says which:
the request's status does, so the owner must look once the hour has passed."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import func, select

from officegym import clock
from officegym.apps.crm import services as crm
from officegym.apps.crm.models import DISCOUNT_LIMIT, DiscountApproval, LineItem
from officegym.apps.org.models import Person
from officegym.colleagues.events import Event
from officegym.graders.checks import Allow, check, guard
from officegym.graders.statements import Candidate

from .base import Target, ToolCall
from .common import pick
from .crm import allow_deal, deals_of
from .e_common import Drawn, FollowupTemplate
from .registry import register
from .split import in_split, person_in
from .w_deals_common import item_lookalikes

ASKED = [25, 30, 35, 40]  # percent a pending request asks for, above the limit
DECIDING = ["I'll decide your request within the hour: if I approve it, the discount is applied for you; if I "
            "have to turn it down, give them the standard {alt} instead, which needs no approval.",
            "Expect my decision on the request within the hour. Approved, it applies itself; turned down, set "
            "the line to the standard {alt} (no approval needed for that).",
            "{source} is reviewing it with me and I'll decide within the hour. If it's a no, give them the "
            "standard {alt} instead; if it's a yes, the request applies it."]
REASONS = ["Multi-year commitment; the customer asked for a better rate to sign this quarter.",
           "Competing offer on the table; the customer needs a sharper price to move forward.",
           "Volume expansion next year; the customer wants the rate to reflect it."]
NOTES = {"reject": ["Finance won't go past the standard discount this quarter.", "Margin is too thin on this one."],
         "approve": ["Approved: worth it for the commitment.", "Fine by me, go ahead."]}


def percent(value: int) -> Candidate:
    """A discount in whole percent, however a text writes it."""
    return Candidate.text(f"{value}%", f"{value} %", f"{value} percent")


@register
class DiscountApprovalRevoked(FollowupTemplate):
    id, apps, split = "e.discount_approval_revoked", ("chat", "crm"), "test"
    pending = DECIDING
    summary = "See that a customer gets the discount their deal's owner asked for, or the standard one if turned down."

    def draw(self, session, rng, instance, changes):
        pending = set(session.scalars(select(DiscountApproval.opportunity_id).where(
            DiscountApproval.status == "Pending")))
        items = [(d, i) for d in deals_of(session, self.split, with_items=True)
                 if d.id not in pending and person_in(self.split, d.owner_id)
                 and session.get(Person, d.owner_id).manager_id is not None
                 for i in crm.line_items(session, session.get(Person, d.owner_id), d.id)
                 if i.discount_bp < DISCOUNT_LIMIT * 100 and in_split(self.split, "line_item", i.id)]
        deal, item = pick(rng, items)
        owner = session.get(Person, deal.owner_id)
        manager = crm.approver_for(session, owner, deal.id)
        asked = pick(rng, ASKED)
        final = DISCOUNT_LIMIT if changes else asked
        approval = (session.scalar(select(func.max(DiscountApproval.id))) or 0) + 1
        drawn = Drawn(owner, manager, f"the {item.product.name} line of {deal.name}", "finance",
                      f"see that {deal.account.name} gets the discount you asked for on the {item.product.name} line "
                      f"of {deal.name} ({{value}})", asked, final,
                      sorted({item.discount_bp // 100, asked, DISCOUNT_LIMIT} - {final}),
                      {"deal": deal.id, "item": item.id, "approval": approval, "asked": asked,
                       "reason": pick(rng, REASONS), "note": pick(rng, NOTES["reject" if changes else "approve"])})
        drawn.alt = DISCOUNT_LIMIT
        return drawn

    def sample(self, session, rng, instance):
        inst = super().sample(session, rng, instance)
        follow_setup, p = inst.setup, inst.params

        def setup(s) -> None:  # the owner's request, made the day before the manager's message
            now = clock.company_now(s)
            clock.set_time(s, now - timedelta(hours=20))
            made = crm.request_discount(s, s.get(Person, inst.actor_id), p["item"], p["asked"], p["reason"])
            if made.id != p["approval"]:
                raise RuntimeError(f"the planted request got id {made.id}, not {p['approval']}")
            clock.set_time(s, now)
            follow_setup(s)
        inst.setup = setup
        return inst

    def follow_up(self, session, rng, inst, drawn, text, when):
        p = inst.params
        return [Event("reject_discount" if p["changes"] else "approve_discount", drawn.requester.id,
                      {"approval": p["approval"], "note": p["note"]}, **when)]

    def waiting(self, inst, dm):
        return [ToolCall("chat_wait", {"channel": dm, "minutes": 60})]

    def candidate(self, value):
        return percent(value)

    def steps(self, inst, value):
        reads = [ToolCall("crm_list_discount_approvals", {}),
                 ToolCall("crm_get_opportunity", {"opportunity": inst.params["deal"]})]
        if value == inst.params["asked"]:  # approved: the service applied it
            return reads
        return [*reads, ToolCall("crm_update_line_item", {"line_item": inst.params["item"], "discount": value})]

    def record(self, start, inst):
        return Target("line_item", inst.params["item"], item_lookalikes(start, start.get(LineItem, inst.params["item"])))

    def state_checks(self, ctx, inst):
        p = inst.params
        item = ctx.final.get(LineItem, p["item"])
        requirement = f"The {item.product.name} line has a discount of {p['final']}%, as the decision calls for"
        found = f"it has {item.discount_bp / 100:g}%"
        if p["changes"]:
            return [check(requirement, item.discount_bp == p["final"] * 100, found)]
        return [guard(requirement, item.discount_bp == p["final"] * 100, found)]  # the approval applied it

    def allowances(self, ctx, inst):
        p = inst.params
        if not p["changes"]:
            return []
        return [Allow("crm_line_item", ("updated",), lambda row: row["id"] == p["item"], ("discount_bp", "total_cents")),
                allow_deal(p["deal"], "amount_cents")]
