"""Closing a signed deal through the deal desk: the legal review on the LEGAL desk holds the order
form legal approved and names the customer's signatory, who becomes a contact on the account; a
discount request still waits on the owner's manager and the order form's seat count differs from
the quote. The deal closes as won on its signing day, at the order form's amount, and the win goes
to #deals with what won it, which the colleague who ran the final demo knows. The manager asked for
it by DM: they decide the pending request when asked, and hear the amount it closed at. Also the helpers the
deal-desk templates share (w_deals_prep, and the refusal in w_deals_refusals)."""

from __future__ import annotations

from datetime import datetime, time, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from officegym import clock
from officegym.apps.crm.models import Contact, DiscountApproval, LineItem, Opportunity, Product
from officegym.apps.crm.products import line_total
from officegym.apps.org.models import Person
from officegym.apps.tickets import services as tickets
from officegym.apps.tickets.models import Ticket
from officegym.graders.checks import Allow, check, guard, nothing_else_changed
from officegym.graders.statements import Candidate, says

from .base import Claim, Declaration, TaskInstance, TaskTemplate, Target, ToolCall
from .common import added_messages, allow_posts, channel_named, member_ids, named, pick, spread, world_scan
from .crm import allow_deal, amounts_but, deal_lookalikes, money, open_deals, today
from .crm_closing import moves_to_won, won_along_the_path
from .decisions import reply_checks
from .handbook import read_rule
from .phrasing import request_instruction
from .registry import register
from .tickets_common import group_named, group_people, next_key
from .w_deals_common import (allow_asking, allow_new_line, ask, colleague_of, dm_name, dm_step, items_of,
                             managed_deals, new_line, new_product, note_step, request_step, rivals_known, said_in_dm,
                             setup_of)
from .w_people_replies import dm_reads

DESK = "Deal desk checklist before Closed Won"
# What won a deal, and the word a post must use to say it (none is a product's, a deal's or an account's name).
WHY = {"our Salesforce connector": "Salesforce", "the audit log export": "audit log",
       "the EU data residency": "data residency", "the sandbox environments": "sandbox",
       "the visual workflow builder": "workflow builder", "the offline mobile app": "mobile app"}
# New people at a customer: the buyer who signs.
FIRST = ["Dana", "Priya", "Marcus", "Elena", "Tomas", "Grace", "Jonah", "Aisha", "Victor", "Mei"]
LAST = ["Whitfield", "Okafor", "Lindqvist", "Moreau", "Haddad", "Castellano", "Brennan", "Takahashi"]
TITLES = ["VP Procurement", "Head of Purchasing", "Director of IT", "Chief Operating Officer"]


def desk_deals(session: Session, split: str, lines: int = 2) -> list[Opportunity]:
    """Deals of the split a rep can take through the deal desk: in Proposal or Negotiation, with `lines`
    line items or more within the limit, on an account no LEGAL ticket names yet, owned by someone in #deals."""
    def scan() -> tuple:
        reviewed = set(session.scalars(select(Ticket.account_id).where(Ticket.key.like("LEGAL-%"))))
        inside = member_ids(session, channel_named(session, "deals").id)
        return tuple(d.id for d in managed_deals(session, split)
                     if d.stage in ("Proposal", "Negotiation") and d.account_id not in reviewed and d.owner_id in inside
                     and len([i for i in items_of(session, d.id) if i.discount_bp <= 2000]) >= lines)
    return [session.get(Opportunity, i) for i in world_scan(session, ("desk deals", split, lines), scan)]


def with_contacts(session: Session, deals: list[Opportunity]) -> list[Opportunity]:
    """The deals whose account has a contact."""
    known = set(session.scalars(select(Contact.account_id)))
    return [d for d in deals if d.account_id in known]


def at(day, hour: int, minute: int = 0) -> datetime:
    """A moment of a day."""
    return datetime.combine(day, time(hour, minute))


def legal_review_step(owner_id: int, lawyer_id: int, account: str, filed, comment: str, resolved):
    """A setup step: the owner files a contract review in LEGAL (component Contracts) on `filed`; a
    lawyer takes it, comments, and resolves it on `resolved` (or leaves it in progress when None)."""
    def run(session: Session) -> None:
        owner, lawyer = session.get(Person, owner_id), session.get(Person, lawyer_id)
        clock.set_time(session, at(filed, 10, 20))
        ticket = tickets.create_ticket(session, owner, "LEGAL", "Service Request", f"Contract review: {account}",
                                       f"Please review the order form and MSA for {account} before signature.",
                                       components=["Contracts"], account=account)
        clock.set_time(session, at(filed + timedelta(days=1), 9, 40))
        tickets.assign_ticket(session, lawyer, ticket.key, lawyer.id, "Commercial Legal")
        tickets.transition_ticket(session, lawyer, ticket.key, "Start work")
        clock.set_time(session, at(resolved or filed + timedelta(days=3), 15, 5))
        tickets.add_comment(session, lawyer, ticket.key, comment)
        if resolved:
            tickets.transition_ticket(session, lawyer, ticket.key, "Resolve", "Fixed")
    return run


def lawyer(session: Session, rng) -> Person:
    """A member of Commercial Legal."""
    return pick(rng, group_people(session, group_named(session, "Commercial Legal").id))


def new_buyer(session: Session, rng, account_id: int) -> tuple[str, str, str, str, Contact]:
    """A new person at the account (first and last name, title, email at the domain its contacts use) and
    one of its contacts, by id; the name is no contact's there yet."""
    contacts = list(session.scalars(select(Contact).where(Contact.account_id == account_id).order_by(Contact.id)))
    taken = {(c.first_name, c.last_name) for c in contacts}
    first, last = pick(rng, [(f, la) for f in FIRST for la in LAST if (f, la) not in taken])
    old = pick(rng, contacts)
    domain = old.email.rsplit("@", 1)[1] if "@" in old.email else "example.com"
    return first, last, pick(rng, TITLES), f"{first.lower()}.{last.lower()}@{domain}", old


def buyer_added(ctx, account_id: int, first: str, last: str, email: str) -> tuple[bool, list]:
    """Whether exactly one contact with this name and email was added at the account, and the contacts added
    there."""
    fold = str.casefold
    added = [r for r in ctx.diff.table("crm_contact").added if r["account_id"] == account_id]
    same = [r for r in added if fold(r["email"]) == fold(email) and fold(r["first_name"]) == fold(first)
            and fold(r["last_name"]) == fold(last)]
    return len(same) == 1, [(r["first_name"], r["last_name"], r["email"]) for r in added]


def form_line(item: LineItem, quantity: int, discount_bp: int) -> str:
    """One line of an order form as a lawyer writes it."""
    off = f"at {discount_bp / 100:g}% off" if discount_bp else "at list price"
    return f"- {quantity} x {item.product.name} {off}"


@register
class CloseSignedDeal(TaskTemplate):
    """A signed deal taken through the deal desk checklist and closed as won."""

    id, apps, difficulty = "w.deal_close_signed", ("chat", "crm", "tickets"), 4
    toolsets = ("chat", "crm", "tickets.work")  # its apps hold over 100 tools
    kind, scale, split = "workflow", "medium", "train"
    rules = (DESK,)
    summary = ("A manager asks to close a signed deal as won: per the deal desk checklist, ask the manager to decide the "
               "pending discount, match the lines to the order form on the legal review, add the signatory as a "
               "contact, close on the signing day, post the win in #deals with what won it (a colleague knows), and "
               "report the amount to the manager.")

    def sample(self, session, rng, instance):
        deal = spread(with_contacts(session, desk_deals(session, self.split)), instance)
        owner = session.get(Person, deal.owner_id)
        boss = session.get(Person, owner.manager_id)
        demo = colleague_of(session, rng, owner)
        first, last, title, email, _ = new_buyer(session, rng, deal.account_id)
        lines = items_of(session, deal.id)
        asked, seats = rng.sample([i for i in lines if i.discount_bp <= 2000], 2)
        high, rival = pick(rng, [22, 25, 28, 30, 32, 35]), pick(rng, rivals_known(session))
        quantity = seats.quantity + pick(rng, [-5, -3, -2, 2, 4, 5, 10, 15, 20]) if seats.quantity > 5 else \
            seats.quantity + pick(rng, [1, 2])
        signed = today(session) - timedelta(days=pick(rng, [d for d in range(1, 7)
                                                             if today(session) - timedelta(days=d) != deal.close_date]))
        form = {i.id: (quantity if i.id == seats.id else i.quantity, high * 100 if i.id == asked.id else i.discount_bp)
                for i in lines}
        extra, price = new_product(session, rng, deal.id)
        units = pick(rng, [1, 2, 3, 5])
        total = sum(line_total(q, i.unit_price_cents, d) for i, (q, d) in zip(lines, form.values())) + units * price
        comment = "\n".join([f"Reviewed the order form for {deal.account.name}; it is fine to sign as written:",
                             *[form_line(i, *form[i.id]) for i in lines],
                             f"- {units} x {extra.name} at list price (new on the order form)",
                             f"Order form total: {money(total)}.",
                             f"Their signatory is {first} {last}, {title} ({email}), the primary contact for the "
                             "contract from now on."])
        why, who = pick(rng, sorted(WHY)), lawyer(session, rng)
        key = next_key(session, "LEGAL")
        dm = dm_name(owner.id, boss.id)
        steps = [*dm_reads(dm), *read_rule(session, DESK, "Closed Won"),
                 ToolCall("crm_get_opportunity", {"opportunity": deal.id}),
                 ToolCall("crm_get_account", {"account": deal.account.name}),
                 ToolCall("tickets_search_tickets", {"query": f'project = LEGAL AND account = "{deal.account.name}"'}),
                 ToolCall("tickets_get_ticket", {"key": key}),
                 ToolCall("tickets_list_comments", {"key": key}),
                 ToolCall("crm_list_contacts", {"account": deal.account_id}),
                 ToolCall("crm_create_contact", {"account": deal.account_id, "first_name": first, "last_name": last,
                                                 "title": title, "email": email}),
                 ToolCall("crm_update_line_item", {"line_item": seats.id, "quantity": quantity}),
                 ToolCall("crm_list_products", {"query": extra.name}),
                 ToolCall("crm_add_line_item", {"opportunity": deal.id, "product": extra.code, "quantity": units})]
        steps += ask(boss.handle, f"Hi @{boss.handle}, {deal.name} is signed: could you decide my pending {high}% "
                                  f"discount request on its {asked.product.name} line?", len(steps), role="ask")
        steps += ask(demo.handle, f"Hi @{demo.handle}, {deal.name} is signed! You ran the final demo: what won "
                                  f"{deal.account.name} over?", len(steps))
        steps += [ToolCall("crm_update_opportunity", {"opportunity": deal.id, "close_date": signed.isoformat()}),
                  ToolCall("crm_get_opportunity", {"opportunity": deal.id}),
                  *moves_to_won(deal.id, deal.stage),
                  ToolCall("chat_post_message", {"channel": "deals", "text": (
                      f"Closed Won: {deal.account.name} signed {deal.name} for {money(total)}. What won it: {why}.")},
                           role="note"),
                  ToolCall("chat_post_message", {"channel": dm, "text": (
                      f"@{boss.handle} Done: {deal.name} is Closed Won at {money(total)}, the order form's amount, "
                      f"closed on {signed.isoformat()}, and the win is posted in #deals.")}, role="report")]
        return TaskInstance(
            self.id, instance, owner.id,
            request_instruction(rng, named(session, boss)),
            steps, {"deal": deal.id, "asked": asked.id, "seats": seats.id, "quantity": quantity, "high": high,
                    "signed": signed.isoformat(), "total": total, "boss": boss.id, "extra": extra.id, "units": units,
                    "price": price, "why": why, "demo": demo.id, "first": first, "last": last, "email": email},
            setup=setup_of(request_step(owner.id, asked.id, high, f"Matching {rival}'s three-year price"),
                           note_step(demo.id, "opportunity", deal.id, f"What won {deal.account.name} over was {why}."),
                           note_step(demo.id, "account", deal.account_id, f"What won them over was {why}."),
                           legal_review_step(owner.id, who.id, deal.account.name, signed - timedelta(days=9),
                                             comment, signed - timedelta(days=1)),
                           dm_step(boss.id, owner.id, (
                               f"@{owner.handle} {deal.account.name} signed the order form for {deal.name} on "
                               f"{signed.isoformat()}! Please close it as won. @{demo.handle} ran the final demo and "
                               "knows what won them over."))))

    def declare(self, start, inst):
        p = inst.params
        deal = start.get(Opportunity, p["deal"])
        theirs = [d for d in open_deals(start) if d.owner_id == deal.owner_id and d.id != deal.id]
        accounts = sorted({d.account.name for d in theirs} - {deal.account.name})
        lines = items_of(start, deal.id)
        partial = [sum(line_total(p["quantity"] if i.id == p["seats"] and seated else i.quantity, i.unit_price_cents,
                                  p["high"] * 100 if i.id == p["asked"] and off else i.discount_bp) for i in lines)
                   + added * p["units"] * p["price"] for seated in (0, 1) for off in (0, 1) for added in (0, 1)]
        amounts = [deal.amount_cents, *partial, *(d.amount_cents for d in theirs)]
        return Declaration([Target("opportunity", deal.id, deal_lookalikes(start, deal, inst.actor_id)),
                            Target("line_item", p["seats"], [i.id for i in items_of(start, deal.id)
                                                             if i.id != p["seats"]])],
                           [Claim(Candidate.text(deal.account.name), [Candidate.text(a) for a in accounts], "text",
                                  "account"),
                            Claim(Candidate.money(p["total"]), amounts_but(amounts, p["total"]), "text", "amount"),
                            Claim(Candidate.text(p["why"], WHY[p["why"]]),
                                  [Candidate.text(w, word) for w, word in WHY.items() if w != p["why"]], "text",
                                  "what won it")])

    def check(self, ctx, inst):
        p = inst.params
        declared = self.declare(ctx.start, inst)
        account, amount, why = declared.claims
        deal, now = ctx.start.get(Opportunity, p["deal"]), ctx.final.get(Opportunity, p["deal"])
        seats = ctx.start.get(LineItem, p["seats"])
        requests = list(ctx.final.scalars(select(DiscountApproval.status).where(
            DiscountApproval.line_item_id == p["asked"])))
        deals_id = channel_named(ctx.start, "deals").id
        posts = [m["text"] for m in added_messages(ctx, ctx.actor_id) if m["channel_id"] == deals_id]
        boss = ctx.start.get(Person, p["boss"])
        pending = "Pending" in requests or not requests
        me = ctx.start.get(Person, ctx.actor_id)
        buyer, contacts = buyer_added(ctx, deal.account_id, p["first"], p["last"], p["email"])
        allowed = [allow_deal(deal.id, "stage", "probability", "closed_at", "close_date", "amount_cents"),
                   Allow("crm_line_item", ("updated",), lambda row: row["id"] == seats.id
                         and row["quantity"] == p["quantity"], ("quantity", "total_cents")),
                   allow_new_line(deal.id, p["extra"], p["units"]),
                   Allow("crm_line_item", ("updated",), lambda row: row["id"] == p["asked"]
                         and row["discount_bp"] == p["high"] * 100, ("discount_bp", "total_cents")),
                   Allow("crm_contact", ("added",), lambda row: row["account_id"] == deal.account_id),
                   Allow("crm_discount_approval", ("updated",), lambda row: row["line_item_id"] == p["asked"]
                         and row["status"] != "Pending", ("status", "decided_at", "decision_note")),
                   *allow_asking(ctx, [me, boss], limit=2),
                   *allow_asking(ctx, [me, ctx.start.get(Person, p["demo"])], limit=2),
                   *allow_posts(ctx, deals_id, None, limit=1, mentions=3)]
        return [check("The deal is Closed Won", now.stage == "Closed Won", f"it is {now.stage}", weight=2),
                check(f"Its close date is the signing day, {p['signed']}", now.close_date.isoformat() == p["signed"],
                      f"it is {now.close_date}"),
                check(f"Its amount matches the order form to the cent, {money(p['total'])}",
                      now.amount_cents == p["total"], f"it is {money(now.amount_cents)}", weight=2),
                check(f"The lines match the order form: {p['quantity']} x {seats.product.name}, and {p['units']} x "
                      f"{ctx.start.get(Product, p['extra']).name} added at list price",
                      getattr(ctx.final.get(LineItem, seats.id), "quantity", None) == p["quantity"]
                      and new_line(ctx, deal.id, p["extra"], p["units"]), "they do not"),
                guard(f"The pending {p['high']}% discount request was decided (by the manager, asked) before the deal "
                      "closed", not pending, "it is still pending"),
                check(f"The signatory, {p['first']} {p['last']} ({p['email']}), is a contact on {deal.account.name}",
                      buyer, f"contacts added there: {contacts}"),
                # the post and the report outweigh the work: a won deal reported as "ok" earns a quarter
                *says(posts, account.right, account.others, f"The #deals post names {deal.account.name}", "account",
                      weight=2),
                *says(posts, amount.right, amount.others, f"The #deals post gives the amount, {money(p['total'])}",
                      "amount", weight=4),
                *says(posts, why.right, why.others, f"The #deals post says what won it, {p['why']}", "what won it",
                      weight=4),
                *reply_checks(said_in_dm(ctx, ctx.actor_id, boss.id), False, boss.name, [amount],
                              actions=("closed", "closed won", "won"), weight=10),
                won_along_the_path(ctx, deal.id),
                nothing_else_changed(ctx.diff, allowed)]
