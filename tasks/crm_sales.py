"""CRM task templates about leads, products, discounts and cases: convert a lead, add products to
a deal, request a discount above the limit, decide a discount request as the manager, escalate a
customer's oldest urgent case."""

from __future__ import annotations

from sqlalchemy import func, select

from officegym.apps.crm import services as crm
from officegym.apps.crm.access import scope_of
from officegym.apps.crm.models import (DISCOUNT_LIMIT, OPEN_STAGES, Account, Case, DiscountApproval, LineItem,
                                       Opportunity, PriceBook, PriceBookEntry, Product)
from officegym.apps.crm.products import line_total
from officegym.apps.org.models import Person
from officegym.graders.checks import Allow, check, nothing_else_changed

from .base import Declaration, Ref, TaskInstance, TaskTemplate, Target, ToolCall
from .common import named, pick, spread
from .crm import (actable, allow_activity, allow_deal, deal_lookalikes, deals_of, editor, new_activities, open_deals,
                  quoted, reads_exactly, sales_managers, your)
from .crm_conversion import (conversion_checks, conversion_declaration, conversion_sample, conversion_steps,
                             conversion_text)
from .registry import register
from .split import in_split, person_in

DISCOUNT_REASONS = ["They signed a three-year commitment", "A competitor quoted them far lower",
                    "They are a reference customer for their industry",
                    "End-of-quarter deal brought forward by a month", "The purchase doubles their seat count",
                    "Budget was cut after their reorganisation"]
ESCALATION_REASONS = ["Customer is threatening to cancel the renewal", "Outage is blocking their month-end close",
                      "Their CIO emailed our CEO about it", "No response for over a week",
                      "Affects every user at the customer", "Data export has failed three times"]


@register
class ConvertLead(TaskTemplate):
    id, apps, difficulty = "crm.convert_lead", ("crm",), 2
    summary = "Convert a lead with an opportunity of a given amount and close date, sometimes into an existing account."

    def sample(self, session, rng, instance):
        lead, into, p = conversion_sample(session, rng, instance, self.split)
        text = conversion_text(lead, into, p)
        return TaskInstance(self.id, instance, lead.owner_id, f"{text[0].upper()}{text[1:]}. Change nothing else.",
                            [ToolCall("crm_list_leads", {"query": lead.last_name}), *conversion_steps(p)], p)

    def declare(self, start, inst):
        return conversion_declaration(start, inst.params)

    def check(self, ctx, inst):
        return conversion_checks(ctx, inst.params)


# ---------------------------------------------------------------- products and discounts

@register
class AddProducts(TaskTemplate):
    id, apps, difficulty = "crm.add_products", ("crm",), 2
    summary = "Add a number of units of a product to a deal at a discount within the limit."

    def sample(self, session, rng, instance):
        deal = pick(rng, deals_of(session, self.split))
        actor, owner = editor(session, rng, deal.owner_id, split=self.split), session.get(Person, deal.owner_id)
        on_deal = set(session.scalars(select(LineItem.product_id).where(LineItem.opportunity_id == deal.id)))
        book = session.scalar(select(LineItem.price_book_id).where(LineItem.opportunity_id == deal.id).limit(1)) \
            or session.scalar(select(PriceBook.id).where(PriceBook.is_standard))
        priced = set(session.scalars(select(PriceBookEntry.product_id).where(PriceBookEntry.price_book_id == book)))
        product = pick(rng, [p for p in session.scalars(select(Product).where(Product.is_active.is_(True))
                                                        .order_by(Product.id))
                             if p.id not in on_deal and p.id in priced])
        quantity, discount = rng.randint(1, 60), pick(rng, [0, 5, 10, 12, 15, 20])
        off = f"at a {discount}% discount" if discount else "at list price"
        return TaskInstance(
            self.id, instance, actor.id,
            f"Add {quantity} × {product.name} to {your(session, actor, owner)} opportunity \"{deal.name}\", {off}, "
            "as one new line item priced from the same price book as its other lines (the standard price book if it "
            "has none yet). Change nothing else.",
            [ToolCall("crm_list_opportunities", {"query": deal.name, "owner": f"@{owner.handle}"}),
             ToolCall("crm_get_opportunity", {"opportunity": deal.id}),
             ToolCall("crm_list_price_books", {}),
             ToolCall("crm_add_line_item", {"opportunity": deal.id, "product": product.code, "quantity": quantity,
                                            "discount": discount, "price_book": book})],
            {"deal": deal.id, "product": product.id, "quantity": quantity, "discount": discount, "book": book})

    def declare(self, start, inst):
        deal = start.get(Opportunity, inst.params["deal"])
        return Declaration([Target("opportunity", deal.id, deal_lookalikes(start, deal, inst.actor_id))])

    def check(self, ctx, inst):
        p = inst.params
        deal = self.declare(ctx.start, inst).targets[0].ref
        added = [r for r in ctx.diff.table("crm_line_item").added if r["opportunity_id"] == deal]
        right = [r for r in added if r["product_id"] == p["product"] and r["quantity"] == p["quantity"]
                 and r["discount_bp"] == p["discount"] * 100 and r["price_book_id"] == p["book"]]
        product = ctx.start.get(Product, p["product"])
        price = ctx.start.scalar(select(PriceBookEntry.unit_price_cents).where(
            PriceBookEntry.price_book_id == p["book"], PriceBookEntry.product_id == p["product"]))
        amount = sum(ctx.start.scalars(select(LineItem.total_cents).where(LineItem.opportunity_id == deal))) \
            + line_total(p["quantity"], price, p["discount"] * 100)
        return [check(f"The deal has a new {product.name} line", added, "no new line item on the deal"),
                check(f"It is {p['quantity']} units at {p['discount']}% off", right,
                      f"new lines: {[(r['product_id'], r['quantity'], r['discount_bp'] / 100) for r in added]}",
                      weight=2),
                nothing_else_changed(ctx.diff, [
                    Allow("crm_line_item", ("added",), lambda row: row["opportunity_id"] == deal),
                    allow_deal(deal, "amount_cents", where=lambda row: row["amount_cents"] == amount)])]


def discountable(session, split: str | None = None, actor=None) -> list[LineItem]:
    """Line items of open deals whose owner has a manager and which have no pending request (of
    `split` only, when given, on deals whose `actor(deal)` is of the split too)."""
    pending = set(session.scalars(select(DiscountApproval.opportunity_id).where(DiscountApproval.status == "Pending")))
    deals = {d.id: d for d in open_deals(session, with_items=True) if d.id not in pending
             and session.get(Person, d.owner_id).manager_id is not None
             and (split is None or actor(d))}
    items = session.scalars(select(LineItem).where(LineItem.opportunity_id.in_(sorted(deals))).order_by(LineItem.id))
    return [i for i in items if i.discount_bp <= DISCOUNT_LIMIT * 100
            and (split is None or in_split(split, "line_item", i.id))]


@register
class RequestDiscount(TaskTemplate):
    id, apps, difficulty = "crm.request_discount", ("crm",), 2
    summary = "Request a discount above the limit on one product of a deal, with the reason."

    def sample(self, session, rng, instance):
        item = pick(rng, discountable(session, self.split, lambda d: actable(session, self.split, d.owner_id)))
        deal = session.get(Opportunity, item.opportunity_id)
        actor, owner = editor(session, rng, deal.owner_id, 0.85, self.split), session.get(Person, deal.owner_id)
        discount, reason = pick(rng, [22, 25, 28, 30, 32, 35, 40]), pick(rng, DISCOUNT_REASONS)
        return TaskInstance(
            self.id, instance, actor.id,
            f"The customer on {your(session, actor, owner)} opportunity \"{deal.name}\" needs {discount}% off its "
            f"{item.product.name} line. Request that discount for approval once, giving the reason \"{reason}\" "
            "word for word, and change nothing else.",
            [ToolCall("crm_list_opportunities", {"query": deal.name, "owner": f"@{owner.handle}"}),
             ToolCall("crm_get_opportunity", {"opportunity": deal.id}),
             ToolCall("crm_request_discount", {"line_item": item.id, "discount": discount, "reason": reason})],
            {"item": item.id, "discount": discount, "reason": reason})

    def declare(self, start, inst):
        p = inst.params
        item = start.get(LineItem, p["item"])
        deal = start.get(Opportunity, item.opportunity_id)
        siblings = start.scalars(select(LineItem.id).where(LineItem.opportunity_id == deal.id, LineItem.id != item.id))
        mine = start.scalars(select(LineItem.id).join(Opportunity, Opportunity.id == LineItem.opportunity_id).where(
            Opportunity.owner_id == deal.owner_id, Opportunity.stage.in_(OPEN_STAGES), LineItem.id != item.id,
            LineItem.discount_bp <= DISCOUNT_LIMIT * 100).order_by(LineItem.id).limit(25))
        return Declaration([Target("line_item", item.id, list(dict.fromkeys([*siblings, *mine]))[:25])],
                           [quoted(DISCOUNT_REASONS, p["reason"], "reason", "reason")])

    def check(self, ctx, inst):
        p = inst.params
        declared = self.declare(ctx.start, inst)
        item = declared.targets[0].ref
        added = [r for r in ctx.diff.table("crm_discount_approval").added if r["line_item_id"] == item]
        right = [r for r in added if r["discount_bp"] == p["discount"] * 100 and r["status"] == "Pending"]
        return [check(f"A request for {p['discount']}% off that product line is pending", right,
                      f"requests on it: {[r['discount_bp'] / 100 for r in added]}", weight=2),
                *reads_exactly([r["reason"] for r in added], declared.claims[0], f"Its reason reads \"{p['reason']}\""),
                nothing_else_changed(ctx.diff, [Allow("crm_discount_approval", ("added",),
                                                      lambda row: row["line_item_id"] == item)])]


def _request(owner_id: int, item_id: int, discount: int, reason: str, earlier: list[tuple] = (),
             later: list[tuple] = ()):
    """A setup step: the owner asks for a discount on the line item, after the `earlier` requests
    (owner id, item id, discount, reason) of colleagues and before the `later` ones."""
    def run(session):
        for requester, other, percent, why in earlier:
            crm.request_discount(session, session.get(Person, requester), other, percent, why)
        crm.request_discount(session, session.get(Person, owner_id), item_id, discount, reason)
        for requester, other, percent, why in later:
            crm.request_discount(session, session.get(Person, requester), other, percent, why)
    return run


def _earlier_requests(session, rng, split: str, item: LineItem) -> list[tuple]:
    """Colleagues' requests on other deals that come first, as many as it takes (none, often) for
    the request a task plants to get an id of the task's split (requests get ids in turn)."""
    following = (session.scalar(select(func.max(DiscountApproval.id))) or 0) + 1
    count = next(k for k in range(64) if in_split(split, "approval", following + k))
    others = list({i.opportunity_id: i for i in discountable(session) if i.opportunity_id != item.opportunity_id}
                  .values())
    return [(session.get(Opportunity, i.opportunity_id).owner_id, i.id, pick(rng, [22, 25, 28, 30]),
             pick(rng, DISCOUNT_REASONS)) for i in rng.sample(others, count)]


def _later_requests(session, rng, item: LineItem, manager_id: int, taken: list[tuple]) -> list[tuple]:
    """Two requests on other deals that come after the task's, to the same manager when their team
    has other deals to discount (so that the task's request is not the newest one waiting)."""
    skip = {item.opportunity_id} | {session.get(LineItem, t[1]).opportunity_id for t in taken}
    others = list({i.opportunity_id: i for i in discountable(session) if i.opportunity_id not in skip}.values())
    same = [i for i in others if session.get(Person, session.get(Opportunity, i.opportunity_id).owner_id)
            .manager_id == manager_id]
    chosen = rng.sample(same, min(2, len(same)))
    chosen += rng.sample([i for i in others if i not in chosen], 2 - len(chosen))
    return [(session.get(Opportunity, i.opportunity_id).owner_id, i.id, pick(rng, [22, 25, 28, 30]),
             pick(rng, DISCOUNT_REASONS)) for i in chosen]


@register
class ApproveDiscount(TaskTemplate):
    id, apps, difficulty = "crm.approve_discount", ("crm",), 1
    split = "test"  # the deal owner's manager decides: in the small world, the sales director of the test split
    summary = "As the manager, approve a pending discount request if it is within a threshold, else reject it."

    def sample(self, session, rng, instance):
        manager_in = lambda d: person_in(self.split, session.get(Person, d.owner_id).manager_id)  # noqa: E731
        item = pick(rng, discountable(session, self.split, manager_in))
        deal = session.get(Opportunity, item.opportunity_id)
        owner = session.get(Person, deal.owner_id)
        discount, threshold = pick(rng, [22, 25, 28, 30, 32, 35, 40]), pick(rng, [25, 30, 35])
        approve = discount <= threshold
        earlier = _earlier_requests(session, rng, self.split, item)
        return TaskInstance(
            self.id, instance, owner.manager_id,
            f"{named(session, owner)} asked you to approve a discount on the opportunity \"{deal.name}\". "
            f"Approve the request if it is {threshold}% or less; otherwise reject it. Change nothing else.",
            [ToolCall("crm_get_opportunity", {"opportunity": deal.id}),
             ToolCall("crm_approve_discount" if approve else "crm_reject_discount",
                      {"approval": Ref(0, "pending_approvals.0.id")})],
            {"item": item.id, "discount": discount, "approve": approve},
            setup=_request(owner.id, item.id, discount, pick(rng, DISCOUNT_REASONS), earlier,
                           _later_requests(session, rng, item, owner.manager_id, earlier)))

    def declare(self, start, inst):
        pending = list(start.scalars(select(DiscountApproval).where(DiscountApproval.status == "Pending")
                                     .order_by(DiscountApproval.id)))
        target = next(a for a in pending if a.line_item_id == inst.params["item"])
        others = sorted((a for a in pending if a.id != target.id),
                        key=lambda a: (a.approver_id != inst.actor_id, -a.id))
        deal = start.get(Opportunity, target.opportunity_id)
        return Declaration([Target("approval", target.id, [a.id for a in others][:25]),
                            Target("opportunity", deal.id, deal_lookalikes(start, deal, inst.actor_id))])

    def check(self, ctx, inst):
        p = inst.params
        approval = ctx.start.get(DiscountApproval, self.declare(ctx.start, inst).targets[0].ref)
        now = ctx.final.get(DiscountApproval, approval.id)
        wanted = "Approved" if p["approve"] else "Rejected"
        allowed = [Allow("crm_discount_approval", ("updated",), lambda row: row["id"] == approval.id,
                         ("status", "decided_at", "decision_note"))]
        if p["approve"]:  # approving applies the discount to the line, and the line's total to the deal
            item = ctx.start.get(LineItem, approval.line_item_id)
            total = line_total(item.quantity, item.unit_price_cents, approval.discount_bp)
            amount = ctx.start.get(Opportunity, approval.opportunity_id).amount_cents - item.total_cents + total
            allowed += [Allow("crm_line_item", ("updated",), lambda row: row["id"] == item.id
                              and row["discount_bp"] == approval.discount_bp and row["total_cents"] == total,
                              ("discount_bp", "total_cents")),
                        allow_deal(approval.opportunity_id, "amount_cents",
                                   where=lambda row: row["amount_cents"] == amount)]
        status = now.status if now is not None else "gone (its product line was removed)"
        return [check(f"The request is {wanted.lower()}", status == wanted, f"it is {status}", weight=2),
                nothing_else_changed(ctx.diff, allowed)]


# ---------------------------------------------------------------- cases

def _can_read(session, actor: Person, owner_id: int) -> bool:
    """Whether the actor sees records owned by `owner_id`."""
    scope = scope_of(session, actor)
    return (scope.is_admin or scope.is_sales) and scope.can_read(owner_id)


URGENT = ("High", "Urgent")
# The priorities a question names, in its words: each world has few accounts with urgent cases.
PRIORITY_BANDS = {URGENT: "High or Urgent priority", ("Medium", *URGENT): "Medium, High or Urgent priority"}


def _urgent_cases(session, account_id: int, priorities=URGENT) -> list[Case]:
    """An account's New or Working cases of these priorities, oldest first."""
    return list(session.scalars(select(Case).where(Case.account_id == account_id, Case.status.in_(("New", "Working")),
                                                   Case.priority.in_(tuple(priorities)))
                                .order_by(Case.created_at, Case.id)))


@register
class EscalateCase(TaskTemplate):
    id, apps, difficulty = "crm.escalate_case", ("crm",), 2
    split = "test"
    summary = "Escalate an account's oldest New or Working case of High or Urgent (or Medium) priority, with a reason."

    def sample(self, session, rng, instance):
        def acting(cases):  # who of the split may escalate the oldest case and reads all of them
            owner = session.get(Person, cases[0].owner_id)
            return [p for p in [owner, *sales_managers(session, owner)] if person_in(self.split, p.id)
                    and all(_can_read(session, p, c.owner_id) for c in cases)]

        options = []  # (account, priorities) whose oldest case is of the split
        for band in PRIORITY_BANDS:
            accounts = sorted({c.account_id for c in session.scalars(select(Case).where(
                Case.status.in_(("New", "Working")), Case.priority.in_(band)))})
            options += [(a, band) for a in accounts if acting(_urgent_cases(session, a, band))
                        and in_split(self.split, "case", _urgent_cases(session, a, band)[0].id)]
        (account_id, band), reason = spread([(o, r) for o in options for r in ESCALATION_REASONS], instance)
        account, cases = session.get(Account, account_id), _urgent_cases(session, account_id, band)
        for _ in range(200):
            actor = editor(session, rng, cases[0].owner_id, split=self.split)
            if actor in acting(cases):
                break
        return TaskInstance(
            self.id, instance, actor.id,
            f"Escalate the oldest case of {account.name} that is New or Working with {PRIORITY_BANDS[band]}, "
            f"giving the reason \"{reason}\" word for word. Change nothing else.",
            [ToolCall("crm_list_cases", {"account": account.name, "status": "open", "sort": "created",
                                         "descending": False}),
             ToolCall("crm_escalate_case", {"case": cases[0].id, "reason": reason})],
            {"account": account.id, "reason": reason, "priorities": list(band)})

    def declare(self, start, inst):
        p = inst.params
        target, *urgent = _urgent_cases(start, p["account"], p.get("priorities", URGENT))
        scope = scope_of(start, start.get(Person, inst.actor_id))  # the look-alikes the actor could escalate
        others = start.scalars(select(Case).where(Case.id != target.id, Case.status.in_(("New", "Working")))
                               .order_by(Case.account_id != p["account"], Case.id))
        found = [c.id for c in [*urgent, *others] if scope.can_edit(c.owner_id)]
        return Declaration([Target("case", target.id, list(dict.fromkeys(found))[:25])],
                           [quoted(ESCALATION_REASONS, p["reason"], "reason", "reason")])

    def check(self, ctx, inst):
        declared = self.declare(ctx.start, inst)
        target = ctx.start.get(Case, declared.targets[0].ref)
        now = ctx.final.get(Case, target.id)
        notes = [a["body"] for a in new_activities(ctx, "case", target.id, "note")]
        return [check(f"Case {target.id} (\"{target.subject}\") is Escalated", now.status == "Escalated",
                      f"it is {now.status}", weight=2),
                *reads_exactly(notes, declared.claims[0],
                               f"The escalation gives the reason \"{inst.params['reason']}\""),
                nothing_else_changed(ctx.diff, [
                    Allow("crm_case", ("updated",), lambda row: row["id"] == target.id, ("status",)),
                    allow_activity("case", target.id, "note", ctx.actor_id)])]
