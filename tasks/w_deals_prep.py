"""Getting a deal ready for the deal desk before the customer signs: what the customer agreed on the
last call (the quantity of one product, a new buyer who replaces the old contact, the discount they
expect and the competitor behind it) is known only to the colleague who ran the call; the checklist
wants the deal's lines to match the order form, every discount request decided (the pending one
gave no competitor as its reason, so the manager rejects it and it is asked again with one), the
customer's primary contact on the account with a working email, and a legal review filed in LEGAL."""

from __future__ import annotations

from sqlalchemy import func, select

from officegym.apps.crm.models import Contact, DiscountApproval, LineItem, Opportunity, Product
from officegym.apps.crm.products import line_total
from officegym.apps.org.models import Person
from officegym.apps.tickets.models import Component, TicketComponent
from officegym.graders.checks import Allow, check, guard, nothing_else_changed
from officegym.graders.statements import Candidate

from .base import Claim, Declaration, Ref, TaskInstance, TaskTemplate, Target, ToolCall
from .common import named, pick, spread
from .crm import allow_deal, deal_lookalikes
from .decisions import reply_checks
from .handbook import read_rule
from .phrasing import goal_instruction
from .registry import register
from .split import of_split
from .tickets_common import added_tickets, allow_new_ticket, next_key, project_id
from .w_deals_common import (allow_asking, allow_new_line, ask, colleague_of, item_lookalikes, items_of, new_line,
                             new_product, note_step, request_step, rivals_known, said_in_dm, setup_of, wait_in)
from .w_deals_close import DESK, FIRST, LAST, buyer_added, desk_deals, new_buyer

# Reasons a hurried rep gives that name neither a competitor nor a budget: the manager rejects them.
VAGUE = ["Customer asked for it", "Requested by their procurement team", "They want more off before signing"]


@register
class DeskPrep(TaskTemplate):
    """A deal made ready for the deal desk before signature."""

    id, apps, difficulty = "w.deal_desk_prep", ("chat", "crm", "tickets"), 4
    toolsets = ("chat", "crm", "tickets.work")  # its apps hold over 100 tools
    kind, scale, split = "workflow", "medium", "train"
    rules = (DESK,)
    summary = ("Get a deal ready for the deal desk before signature: ask the colleague who ran the last call, fix the "
               "lines, add the new buyer as a contact, ask the manager to decide the pending discount (asked again "
               "with a reason naming the competitor once rejected), file the legal review in LEGAL, and tell the "
               "manager the review's key and the new contact.")

    def sample(self, session, rng, instance):
        choices = [(d, i) for d in desk_deals(session, self.split)
                   for i in of_split(self.split, "line_item", items_of(session, d.id))
                   if session.scalar(select(func.count()).select_from(Contact).where(Contact.account_id == d.account_id))]
        deal, item = spread(choices, instance)
        owner = session.get(Person, deal.owner_id)
        boss = session.get(Person, owner.manager_id)
        colleague = colleague_of(session, rng, owner)
        asked = pick(rng, [i for i in items_of(session, deal.id) if i.id != item.id and i.discount_bp <= 2000])
        high, rival = pick(rng, [22, 25, 28, 30, 32, 35]), pick(rng, rivals_known(session))
        first, last, title, email, old = new_buyer(session, rng, deal.account_id)
        quantity = item.quantity + pick(rng, [5, 10, 15, 20, -2, -4]) if item.quantity > 10 else \
            item.quantity + pick(rng, [1, 2, 3])
        account = deal.account.name
        key = next_key(session, "LEGAL")
        extra, price = new_product(session, rng, deal.id)
        units = pick(rng, [1, 2, 3, 5])
        heard = (f"On the last call they confirmed {quantity} x {item.product.name} and asked to add {units} x "
                 f"{extra.name} at list price; the rest of the quote stands, with {high}% off the "
                 f"{asked.product.name} line to match {rival}'s three-year price, which they keep waving at us. "
                 f"Their buyer is now {first} {last} ({email}), {title}: {old.name} has left {account}.")
        steps = [*read_rule(session, DESK, "Closed Won"),
                 ToolCall("crm_get_opportunity", {"opportunity": deal.id}),
                 ToolCall("crm_get_account", {"account": deal.account_id}),
                 ToolCall("tickets_search_tickets", {"query": f'project = LEGAL AND account = "{account}"'}),
                 ToolCall("tickets_get_project", {"project": "LEGAL"})]
        at = len(steps)
        # The pending request's reason names no competitor: the manager rejects it, and it is asked again.
        steps += ask(boss.handle, f"Hi @{boss.handle}, {deal.name} goes to the deal desk on Thursday: could you decide "
                                  f"my pending {high}% discount request on its {asked.product.name} line?", at, role="ask")
        steps += ask(colleague.handle, f"Hi @{colleague.handle}, where did the last call on {deal.name} land: "
                                       "quantities, the discount they expect, and who signs for them?", len(steps))
        steps += [ToolCall("crm_request_discount", {"line_item": asked.id, "discount": high,
                                                    "reason": f"Matching {rival}'s three-year price"}, role="reason"),
                  ToolCall("chat_post_message", {"channel": Ref(at, "id"), "text": (
                      f"@{boss.handle} fair point: I asked again for {high}% off the {asked.product.name} line of "
                      f"{deal.name}, now with the reason (matching {rival}'s three-year price). Could you decide it?")},
                           role="ask"),
                  wait_in(Ref(at, "id")),
                  ToolCall("crm_update_line_item", {"line_item": item.id, "quantity": quantity}),
                  ToolCall("crm_list_products", {"query": extra.name}),
                  ToolCall("crm_add_line_item", {"opportunity": deal.id, "product": extra.code, "quantity": units}),
                  ToolCall("crm_list_contacts", {"account": deal.account_id}),
                  ToolCall("crm_create_contact", {"account": deal.account_id, "first_name": first, "last_name": last,
                                                  "title": title, "email": email}),
                  ToolCall("tickets_create_ticket", {"project": "LEGAL", "type": "Service Request",
                                                     "summary": f"Contract review: {account}",
                                                     "description": f"Please review the order form for {deal.name} "
                                                                    "before signature.",
                                                     "components": ["Contracts"], "account": account}),
                  ToolCall("crm_get_opportunity", {"opportunity": deal.id}),
                  ToolCall("chat_post_message", {"channel": Ref(at, "id"), "text": (
                      f"@{boss.handle} {deal.name} is ready for the deal desk: {quantity} x {item.product.name} on the "
                      f"line, {units} x {extra.name} added, {first} {last} added as their contact, your approval of "
                      f"{high}% off {asked.product.name} on the deal, and the legal review filed as {key}.")},
                           role="report")]
        return TaskInstance(
            self.id, instance, owner.id,
            goal_instruction(rng, f"Your deal \"{deal.name}\" goes to the deal desk on Thursday, and the customer "
                             "signs right after. Get it ready per the handbook's deal desk checklist, as far as it can "
                             f"go before signature. {named(session, colleague)} ran the last call with the customer and "
                             "knows where things landed.", named(session, boss)),
            steps, {"deal": deal.id, "item": item.id, "quantity": quantity, "first": first, "last": last,
                    "email": email, "old": old.id, "colleague": colleague.id, "asked": asked.id, "high": high,
                    "boss": boss.id, "extra": extra.id, "units": units, "price": price, "key": key},
            setup=setup_of(request_step(owner.id, asked.id, high, pick(rng, VAGUE)),
                           note_step(colleague.id, "opportunity", deal.id, heard),
                           note_step(colleague.id, "account", deal.account_id, heard)))

    def declare(self, start, inst):
        p = inst.params
        deal = start.get(Opportunity, p["deal"])
        emails = list(start.scalars(select(Contact.email).where(Contact.account_id == deal.account_id)
                                    .order_by(Contact.id)))
        domain = p["email"].split("@")[1]
        others = emails + [f"{f.lower()}.{last.lower()}@{domain}" for f in FIRST for last in LAST[:2]]
        return Declaration([Target("line_item", p["item"], item_lookalikes(start, start.get(LineItem, p["item"]))),
                            Target("opportunity", deal.id, deal_lookalikes(start, deal, inst.actor_id))],
                           [Claim(Candidate.text(p["email"]), [Candidate.text(e) for e in dict.fromkeys(others)
                                                               if e != p["email"]], "email", "email"),
                            Claim(Candidate.text(p["key"]), [Candidate.pattern_of("another LEGAL key", r"legal-\d+")],
                                  "text", "legal review"),
                            Claim(Candidate.text(f"{p['first']} {p['last']}", p["email"]),
                                  [Candidate.text(f"{f} {la}") for f in FIRST for la in LAST
                                   if (f, la) != (p["first"], p["last"])], "text", "new contact")])

    def check(self, ctx, inst):
        p = inst.params
        _, key, buyer_named = self.declare(ctx.start, inst).claims
        boss = ctx.start.get(Person, p["boss"])
        deal = ctx.start.get(Opportunity, p["deal"])
        item = ctx.start.get(LineItem, p["item"])
        now = ctx.final.get(LineItem, item.id)
        asked = ctx.start.get(LineItem, p["asked"])
        amount = (deal.amount_cents - item.total_cents + line_total(p["quantity"], item.unit_price_cents, item.discount_bp)
                  - asked.total_cents + line_total(asked.quantity, asked.unit_price_cents, p["high"] * 100)
                  + p["units"] * p["price"])
        decided = list(ctx.final.scalars(select(DiscountApproval.status).where(
            DiscountApproval.line_item_id == asked.id).order_by(DiscountApproval.id)))
        now_asked = getattr(ctx.final.get(LineItem, asked.id), "discount_bp", None)
        buyer, contacts = buyer_added(ctx, deal.account_id, p["first"], p["last"], p["email"])
        contracts = ctx.start.scalar(select(Component.id).where(Component.name == "Contracts",
                                                                Component.project_id == project_id(ctx.start, "LEGAL")))
        filed = [t for t in added_tickets(ctx, "LEGAL") if t["type"] == "Service Request"
                 and t["account_id"] == deal.account_id]
        with_component = [t for t in filed if _has_component(ctx.final, t["id"], contracts)]
        person = ctx.start.get(Person, ctx.actor_id)
        quantity = getattr(now, "quantity", "no line")
        extra = ctx.start.get(Product, p["extra"]).name
        return [check(f"What the customer agreed is in the CRM: {p['quantity']} x {item.product.name} on the line, "
                      f"{p['units']} x {extra} added at list price, and {p['first']} {p['last']} ({p['email']}) as a "
                      f"contact on {deal.account.name}",
                      quantity == p["quantity"] and buyer and new_line(ctx, deal.id, p["extra"], p["units"]),
                      f"the line has {quantity}; contacts added: {contacts}", weight=3),
                guard(f"No contact is added at {deal.account.name} with an email other than the buyer's, {p['email']}",
                      all(e.casefold() == p["email"].casefold() for _, _, e in contacts), f"contacts added: {contacts}"),
                check(f"A legal review of {deal.account.name} was filed in LEGAL with the component Contracts",
                      len(with_component) == 1, f"LEGAL requests filed on the account: {len(filed)}"),
                guard("No discount request on the deal is left pending (the manager decides when asked)",
                      "Pending" not in decided, f"requests: {decided}"),
                check(f"{p['high']}% off the {asked.product.name} line was approved by the manager (the first reason "
                      "named neither a competitor nor a budget figure)",
                      decided[-1:] == ["Approved"] and now_asked == p["high"] * 100, f"requests: {decided}", weight=2),
                *reply_checks(said_in_dm(ctx, ctx.actor_id, boss.id), False, boss.name, [key, buyer_named],
                              actions=("ready", "filed", "added", "approved"), weight=3),
                nothing_else_changed(ctx.diff, [
                    Allow("crm_line_item", ("updated",), lambda row: row["id"] == item.id
                          and row["quantity"] == p["quantity"], ("quantity", "total_cents")),
                    Allow("crm_line_item", ("updated",), lambda row: row["id"] == asked.id
                          and row["discount_bp"] == p["high"] * 100, ("discount_bp", "total_cents")),
                    allow_new_line(deal.id, p["extra"], p["units"]),
                    allow_deal(deal.id, "amount_cents", where=lambda row: row["amount_cents"] == amount),
                    Allow("crm_contact", ("added",), lambda row: row["account_id"] == deal.account_id),
                    Allow("crm_discount_approval", ("updated",), lambda row: row["line_item_id"] == asked.id
                          and row["status"] != "Pending", ("status", "decided_at", "decision_note")),
                    Allow("crm_discount_approval", ("added",), lambda row: row["line_item_id"] == asked.id
                          and row["discount_bp"] == p["high"] * 100),
                    *allow_new_ticket(ctx, "LEGAL", "Service Request", account=deal.account_id, component=contracts),
                    *allow_asking(ctx, [person, ctx.start.get(Person, p["colleague"])], limit=2),
                    *allow_asking(ctx, [person, boss], limit=3)])]


def _has_component(session, ticket_id: int, component_id: int) -> bool:
    """Whether a ticket has a component."""
    return session.scalar(select(TicketComponent.ticket_id).where(TicketComponent.ticket_id == ticket_id,
                                                                  TicketComponent.component_id == component_id)) is not None
