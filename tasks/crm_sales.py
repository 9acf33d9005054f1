"""CRM task templates about leads, products, discounts and cases: convert a lead, add products to
a deal, request a discount above the limit, decide a discount request as the manager, escalate a
customer's oldest urgent case."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from officegym.apps.crm import services as crm
from officegym.apps.crm.models import (DISCOUNT_LIMIT, Account, Case, Contact, DiscountApproval, Lead, LineItem,
                                       Opportunity, PriceBook, PriceBookEntry, Product)
from officegym.apps.org.models import Person
from officegym.graders.checks import Allow, check, nothing_else_changed

from .base import Ref, TaskInstance, TaskTemplate, ToolCall
from .common import contains_text, pick
from .crm import allow_activity, allow_deal, can_read, editor, money, new_activities, open_deals, same_text, today, your
from .registry import register

PURPOSES = ["Platform Rollout", "Analytics Add-on", "Pilot", "Enterprise Upgrade", "Team Expansion", "First Order"]
DISCOUNT_REASONS = [("They signed a three-year commitment", "three-year commitment"),
                    ("A competitor quoted them far lower", "competitor quoted"),
                    ("They are a reference customer for their industry", "reference customer"),
                    ("End-of-quarter deal brought forward by a month", "end-of-quarter"),
                    ("The purchase doubles their seat count", "doubles their seat count"),
                    ("Budget was cut after their reorganisation", "budget was cut")]
ESCALATION_REASONS = [("Customer is threatening to cancel the renewal", "cancel the renewal"),
                      ("Outage is blocking their month-end close", "month-end close"),
                      ("Their CIO emailed our CEO about it", "emailed our CEO"),
                      ("No response for over a week", "over a week"),
                      ("Affects every user at the customer", "every user"),
                      ("Data export has failed three times", "failed three times")]


# ---------------------------------------------------------------- lead conversion (also used by x_crm)

def conversion_sample(session, rng):
    """A convertible lead, its owner, and what the conversion must create."""
    leads = list(session.scalars(select(Lead).where(Lead.status.in_(("New", "Working", "Qualified")))
                                 .order_by(Lead.id)))
    lead = pick(rng, leads)
    into = None
    if rng.random() < 0.3:
        accounts = [a for a in session.scalars(select(Account).order_by(Account.id)) if a.name != lead.company]
        into = pick(rng, accounts)
    company = into.name if into else lead.company
    params = {"lead": lead.id, "into": into.id if into else None, "amount": rng.randint(8, 240) * 2500 * 100,
              "close": (today(session) + timedelta(days=rng.randint(14, 150))).isoformat(),
              "name": f"{company} - {pick(rng, PURPOSES)}"}
    return lead, into, params


def conversion_steps(p: dict) -> list[ToolCall]:
    """The reference conversion."""
    args = {"lead": p["lead"], "opportunity_name": p["name"], "amount": p["amount"] / 100, "close_date": p["close"]}
    return [ToolCall("crm_convert_lead", {**args, "account": p["into"]} if p["into"] else args)]


def conversion_text(lead, into, p: dict) -> str:
    """What to do, in words."""
    where = (f"into the existing account {into.name} (they were acquired by it)" if into
             else "into a new account for their company")
    return (f"convert the lead {lead.name} of {lead.company} {where}, with an opportunity named \"{p['name']}\" "
            f"of {money(p['amount'])} closing on {p['close']}")


def conversion_checks(ctx, p: dict) -> list:
    """The lead is converted into the right account with the right contact and opportunity."""
    lead = ctx.final.get(Lead, p["lead"])
    start_lead = ctx.start.get(Lead, p["lead"])
    account = ctx.final.get(Account, lead.converted_account_id) if lead.converted_account_id else None
    right_account = account is not None and (account.id == p["into"] if p["into"] else
                                             account.name == start_lead.company
                                             and ctx.start.get(Account, account.id) is None)
    contact = ctx.final.get(Contact, lead.converted_contact_id) if lead.converted_contact_id else None
    deal = ctx.final.get(Opportunity, lead.converted_opportunity_id) if lead.converted_opportunity_id else None
    good_deal = (deal is not None and deal.amount_cents == p["amount"] and deal.close_date.isoformat() == p["close"]
                 and same_text(deal.name, p["name"]) and deal.owner_id == start_lead.owner_id)
    new_account_id = account.id if account is not None else -1
    allowed = [Allow("crm_lead", ("updated",), lambda row: row["id"] == p["lead"]),
               Allow("crm_contact", ("added",), lambda row: row["email"] == start_lead.email),
               Allow("crm_opportunity", ("added",), lambda row: row["account_id"] == new_account_id)]
    if not p["into"]:
        allowed.append(Allow("crm_account", ("added",), lambda row: row["name"] == start_lead.company))
    where = ctx.start.get(Account, p["into"]).name if p["into"] else f"a new account named {start_lead.company}"
    return [check("The lead is converted", lead.status == "Converted", f"its status is {lead.status}", weight=2),
            check(f"It was converted into {where}", right_account,
                  f"converted into {account.name if account else 'nothing'}"),
            check("Its contact has the lead's name and email", contact is not None
                  and contact.email == start_lead.email and contact.last_name == start_lead.last_name,
                  "no such contact"),
            check(f"The new opportunity is \"{p['name']}\", {money(p['amount'])}, closing {p['close']}", good_deal,
                  f"found {(deal.name, deal.amount, str(deal.close_date)) if deal else 'no opportunity'}", weight=2),
            nothing_else_changed(ctx.diff, allowed)]


@register
class ConvertLead(TaskTemplate):
    id, apps, difficulty = "crm.convert_lead", ("crm",), 2
    summary = "Convert a lead with an opportunity of a given amount and close date, sometimes into an existing account."

    def sample(self, session, rng, instance):
        lead, into, p = conversion_sample(session, rng)
        text = conversion_text(lead, into, p)
        return TaskInstance(self.id, instance, lead.owner_id, f"{text[0].upper()}{text[1:]}.", conversion_steps(p), p)

    def check(self, ctx, inst):
        return conversion_checks(ctx, inst.params)


# ---------------------------------------------------------------- products and discounts

@register
class AddProducts(TaskTemplate):
    id, apps, difficulty = "crm.add_products", ("crm",), 2
    summary = "Add a number of units of a product to a deal at a discount within the limit."

    def sample(self, session, rng, instance):
        deal = pick(rng, open_deals(session))
        actor, owner = editor(session, rng, deal.owner_id), session.get(Person, deal.owner_id)
        on_deal = set(session.scalars(select(LineItem.product_id).where(LineItem.opportunity_id == deal.id)))
        book = session.scalar(select(LineItem.price_book_id).where(LineItem.opportunity_id == deal.id).limit(1)) \
            or session.scalar(select(PriceBook.id).where(PriceBook.is_standard))
        priced = set(session.scalars(select(PriceBookEntry.product_id).where(PriceBookEntry.price_book_id == book)))
        product = pick(rng, [p for p in session.scalars(select(Product).where(Product.is_active.is_(True))
                                                        .order_by(Product.id))
                             if p.id not in on_deal and p.id in priced])
        quantity, discount = rng.randint(1, 60), pick(rng, [0, 5, 10, 12, 15, 20])
        off = f"at a {discount}% discount" if discount else "at list price"
        book_name = session.get(PriceBook, book).name
        return TaskInstance(
            self.id, instance, actor.id,
            f"Add {quantity} × {product.name} to {your(actor, owner)} opportunity \"{deal.name}\", {off}, priced "
            f"from the {book_name}.",
            [ToolCall("crm_add_line_item", {"opportunity": deal.id, "product": product.code, "quantity": quantity,
                                            "discount": discount, "price_book": book})],
            {"deal": deal.id, "product": product.id, "quantity": quantity, "discount": discount, "book": book})

    def check(self, ctx, inst):
        p = inst.params
        added = [r for r in ctx.diff.table("crm_line_item").added if r["opportunity_id"] == p["deal"]]
        right = [r for r in added if r["product_id"] == p["product"] and r["quantity"] == p["quantity"]
                 and r["discount_bp"] == p["discount"] * 100 and r["price_book_id"] == p["book"]]
        product = ctx.start.get(Product, p["product"])
        return [check(f"The deal has a new {product.name} line", added, "no new line item on the deal"),
                check(f"It is {p['quantity']} units at {p['discount']}% off", len(right) == 1 and len(added) == 1,
                      f"new lines: {[(r['product_id'], r['quantity'], r['discount_bp'] / 100) for r in added]}",
                      weight=2),
                nothing_else_changed(ctx.diff, [
                    Allow("crm_line_item", ("added",), lambda row: row["opportunity_id"] == p["deal"]),
                    allow_deal(p["deal"], "amount_cents")])]


def discountable(session) -> list[LineItem]:
    """Line items of open deals whose owner has a manager and which have no pending request."""
    pending = set(session.scalars(select(DiscountApproval.opportunity_id).where(DiscountApproval.status == "Pending")))
    deals = {d.id: d for d in open_deals(session, with_items=True) if d.id not in pending
             and session.get(Person, d.owner_id).manager_id is not None}
    items = session.scalars(select(LineItem).where(LineItem.opportunity_id.in_(sorted(deals))).order_by(LineItem.id))
    return [i for i in items if i.discount_bp <= DISCOUNT_LIMIT * 100]


@register
class RequestDiscount(TaskTemplate):
    id, apps, difficulty = "crm.request_discount", ("crm",), 2
    summary = "Request a discount above the limit on one product of a deal, with the reason."

    def sample(self, session, rng, instance):
        item = pick(rng, discountable(session))
        deal = session.get(Opportunity, item.opportunity_id)
        actor, owner = editor(session, rng, deal.owner_id, 0.85), session.get(Person, deal.owner_id)
        discount = pick(rng, [22, 25, 28, 30, 32, 35, 40])
        reason, key = pick(rng, DISCOUNT_REASONS)
        return TaskInstance(
            self.id, instance, actor.id,
            f"The customer on {your(actor, owner)} opportunity \"{deal.name}\" needs {discount}% off its "
            f"{item.product.name} line. Request that discount for approval, giving the reason \"{reason}\".",
            [ToolCall("crm_request_discount", {"line_item": item.id, "discount": discount, "reason": reason})],
            {"item": item.id, "discount": discount, "key": key})

    def check(self, ctx, inst):
        p = inst.params
        added = [r for r in ctx.diff.table("crm_discount_approval").added if r["line_item_id"] == p["item"]]
        right = [r for r in added if r["discount_bp"] == p["discount"] * 100 and r["status"] == "Pending"]
        explained = [r for r in right if contains_text(r["reason"], p["key"])]
        return [check("A discount request was made on that product line", added, "no new request on it"),
                check(f"It asks for {p['discount']}%", right, f"requests: {[r['discount_bp'] / 100 for r in added]}",
                      weight=2),
                check("It gives the customer's reason", explained, f"reasons: {[r['reason'] for r in right][:2]}"),
                nothing_else_changed(ctx.diff, [Allow("crm_discount_approval", ("added",),
                                                      lambda row: row["line_item_id"] == p["item"])])]


def _request(owner_id: int, item_id: int, discount: int, reason: str):
    def run(session):
        crm.request_discount(session, session.get(Person, owner_id), item_id, discount, reason)
    return run


@register
class ApproveDiscount(TaskTemplate):
    id, apps, difficulty = "crm.approve_discount", ("crm",), 1
    summary = "As the manager, approve a pending discount request if it is within a threshold, else reject it."

    def sample(self, session, rng, instance):
        item = pick(rng, discountable(session))
        deal = session.get(Opportunity, item.opportunity_id)
        owner = session.get(Person, deal.owner_id)
        discount, threshold = pick(rng, [22, 25, 28, 30, 32, 35, 40]), pick(rng, [25, 30, 35])
        reason, _key = pick(rng, DISCOUNT_REASONS)
        approve = discount <= threshold
        return TaskInstance(
            self.id, instance, owner.manager_id,
            f"{owner.name} asked you to approve a discount on the opportunity \"{deal.name}\". Approve the "
            f"request if it is {threshold}% or less; otherwise reject it.",
            [ToolCall("crm_get_opportunity", {"opportunity": deal.id}),
             ToolCall("crm_approve_discount" if approve else "crm_reject_discount",
                      {"approval": Ref(0, "pending_approvals.0.id")})],
            {"item": item.id, "discount": discount, "approve": approve},
            setup=_request(owner.id, item.id, discount, reason))

    def check(self, ctx, inst):
        p = inst.params
        approval = ctx.start.scalar(select(DiscountApproval).where(DiscountApproval.line_item_id == p["item"],
                                                                   DiscountApproval.status == "Pending"))
        now = ctx.final.get(DiscountApproval, approval.id)
        wanted = "Approved" if p["approve"] else "Rejected"
        allowed = [Allow("crm_discount_approval", ("updated",), lambda row: row["id"] == approval.id,
                         ("status", "decided_at", "decision_note"))]
        if p["approve"]:
            allowed += [Allow("crm_line_item", ("updated",), lambda row: row["id"] == p["item"],
                              ("discount_bp", "total_cents")), allow_deal(approval.opportunity_id, "amount_cents")]
        return [check(f"The request is {wanted.lower()}", now.status == wanted, f"it is {now.status}", weight=2),
                nothing_else_changed(ctx.diff, allowed)]


# ---------------------------------------------------------------- cases

def _urgent_cases(session, account_id: int) -> list[Case]:
    return list(session.scalars(select(Case).where(Case.account_id == account_id, Case.status.in_(("New", "Working")),
                                                   Case.priority.in_(("High", "Urgent")))
                                .order_by(Case.created_at, Case.id)))


@register
class EscalateCase(TaskTemplate):
    id, apps, difficulty = "crm.escalate_case", ("crm",), 2
    split = "test"
    summary = "Escalate an account's oldest New or Working case of High or Urgent priority, with a reason."

    def sample(self, session, rng, instance):
        accounts = sorted({c.account_id for c in session.scalars(select(Case).where(
            Case.status.in_(("New", "Working")), Case.priority.in_(("High", "Urgent"))))})
        for _ in range(200):
            account = session.get(Account, pick(rng, accounts))
            cases = _urgent_cases(session, account.id)
            actor = editor(session, rng, cases[0].owner_id)
            if all(can_read(session, actor, c.owner_id) for c in cases):
                break
        reason, key = pick(rng, ESCALATION_REASONS)
        return TaskInstance(
            self.id, instance, actor.id,
            f"Escalate the oldest case of {account.name} that is New or Working with High or Urgent priority. "
            f"Give the reason \"{reason}\".",
            [ToolCall("crm_escalate_case", {"case": cases[0].id, "reason": reason})],
            {"account": account.id, "key": key})

    def check(self, ctx, inst):
        p = inst.params
        target = _urgent_cases(ctx.start, p["account"])[0]
        now = ctx.final.get(Case, target.id)
        notes = [a for a in new_activities(ctx, "case", target.id) if contains_text(a["body"], p["key"])
                 or contains_text(a["subject"], p["key"])]
        return [check(f"Case {target.id} (\"{target.subject}\") is Escalated", now.status == "Escalated",
                      f"it is {now.status}", weight=2),
                check("The escalation gives the reason", notes, "no note on the case gives the reason"),
                nothing_else_changed(ctx.diff, [
                    Allow("crm_case", ("updated",), lambda row: row["id"] == target.id, ("status", "priority")),
                    allow_activity("case", target.id)])]

