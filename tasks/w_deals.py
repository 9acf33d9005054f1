"""Sales workflows, and the helpers the deal workflow modules share (w_deals_*): the discounts a
customer needs to match a competitor, set within the limit or requested (with a reason naming the
competitor, which only the colleague on the call knows) and decided by the deal owner's manager,
who answers when asked.

The other deal workflows: closing a signed deal through the deal desk (w_deals_close), getting a
deal ready for it (w_deals_prep), cleaning up a rep's past-due deals (w_deals_cleanup), a
customer's outage credit (w_deals_credit); the refusals are in w_deals_refusals."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from officegym import clock, colleagues
from officegym.apps.chat import services as chat
from officegym.apps.crm import services as crm
from officegym.apps.crm.models import (OPEN_STAGES, DiscountApproval, LineItem, Opportunity, PriceBook,
                                       PriceBookEntry, Product)
from officegym.apps.crm.products import line_total
from officegym.apps.org.models import Person
from officegym.graders.checks import Allow, check, guard, nothing_else_changed
from officegym.graders.statements import Candidate, says

from .base import Claim, Declaration, Ref, TaskInstance, TaskTemplate, Target, ToolCall
from .common import added_messages, allow_new_conversation, allow_posts, named, pick, spread
from .crm import COMPETITORS, allow_deal, deal_lookalikes, open_deals, sales_people
from .handbook import read_rule
from .registry import register
from .split import of_split, person_in

DISCOUNTS = "Discount and approval thresholds"


# ---------------------------------------------------------------- helpers shared by the deal workflows

def setup_of(*steps):
    """A setup made of steps run in order."""
    def run(session: Session) -> None:
        for step in steps:
            step(session)
    return run


def dm_step(author_id: int, other_id: int, text: str):
    """A setup step: `author` sends `other` a direct message, a little before now (whatever times the steps
    before it wrote at)."""
    def run(session: Session) -> None:
        clock.set_time(session, clock.company_now(session) - timedelta(minutes=25))
        author = session.get(Person, author_id)
        channel = chat.open_conversation(session, author, [other_id])
        chat.post_message(session, author, channel.id, text)
    return run


def note_step(person_id: int, kind: str, ref, text: str):
    """A setup step: a colleague learns something about a record (they say it when asked)."""
    def run(session: Session) -> None:
        colleagues.plant_note(session, session.get(Person, person_id), kind, ref, text)
    return run


def request_step(owner_id: int, item_id: int, discount: int, reason: str):
    """A setup step: the deal's owner requests a discount on a line item."""
    def run(session: Session) -> None:
        crm.request_discount(session, session.get(Person, owner_id), item_id, discount, reason)
    return run


def dm_name(*people_ids: int) -> str:
    """The stored name of the direct message between these people (usable as a channel argument)."""
    return "dm-" + "-".join(str(i) for i in sorted(people_ids))


def ask(handle: str, text: str, at: int) -> list[ToolCall]:
    """Reference steps from step number `at`: open the DM with a colleague, ask, read the answer."""
    return [ToolCall("chat_open_conversation", {"people": [f"@{handle}"]}),
            ToolCall("chat_post_message", {"channel": Ref(at, "id"), "text": text}),
            ToolCall("chat_list_messages", {"channel": Ref(at, "id"), "limit": 5})]


def pending_deals(session: Session) -> set[int]:
    """Deals with a discount request waiting on a decision."""
    return set(session.scalars(select(DiscountApproval.opportunity_id).where(DiscountApproval.status == "Pending")))


def managed_deals(session: Session, split: str, with_items: bool | None = None) -> list[Opportunity]:
    """Open deals of the split (uniquely named, without a pending discount request) whose owner is in
    the split and has a manager, by id."""
    pending = pending_deals(session)
    return [d for d in of_split(split, "opportunity", open_deals(session, with_items))
            if d.id not in pending and person_in(split, d.owner_id)
            and session.get(Person, d.owner_id).manager_id is not None]


def items_of(session: Session, deal_id: int) -> list[LineItem]:
    """A deal's line items, by id."""
    return list(session.scalars(select(LineItem).where(LineItem.opportunity_id == deal_id).order_by(LineItem.id)))


def colleague_of(session: Session, rng, owner: Person, *skip: int) -> Person:
    """A Sales colleague of the owner (a teammate when there is one), neither the owner nor `skip`."""
    sales = [p for p in sales_people(session) if p.id not in (owner.id, owner.manager_id, *skip)]
    return pick(rng, [p for p in sales if p.team_id == owner.team_id] or sales)


def new_product(session: Session, rng, deal_id: int, *skip: int) -> tuple[Product, int]:
    """An active product not yet on the deal (nor in `skip`), priced in the deal's price book, and its unit
    price in cents."""
    lines = items_of(session, deal_id)
    book = lines[0].price_book_id if lines else session.scalar(select(PriceBook.id).where(PriceBook.is_standard))
    prices = dict(session.execute(select(PriceBookEntry.product_id, PriceBookEntry.unit_price_cents)
                                  .where(PriceBookEntry.price_book_id == book)).all())
    on_deal = {i.product_id for i in lines}
    product = pick(rng, [q for q in session.scalars(select(Product).where(Product.is_active.is_(True))
                                                    .order_by(Product.id)) if q.id in prices and q.id not in on_deal | set(skip)])
    return product, prices[product.id]


def allow_new_line(deal_id: int, product_id: int, quantity: int, discount_bp: int = 0) -> Allow:
    """Allow one new line item on a deal: this product, this quantity, at this discount (list price: 0)."""
    return Allow("crm_line_item", ("added",), lambda row: row["opportunity_id"] == deal_id
                 and row["product_id"] == product_id and row["quantity"] == quantity
                 and row["discount_bp"] == discount_bp)


def new_line(ctx, deal_id: int, product_id: int, quantity: int, discount_bp: int = 0) -> bool:
    """Whether the episode added that line to the deal, at that discount (list price: 0)."""
    return any(allow_new_line(deal_id, product_id, quantity, discount_bp).permits("added", row)
               for row in ctx.diff.table("crm_line_item").added)


def allow_asking(ctx, people: list[Person], limit: int = 3) -> list[Allow]:
    """Allow the actor's DM with one colleague (opened if need be) and `limit` messages in it."""
    channel, opened = allow_new_conversation(ctx, people)
    return opened + (allow_posts(ctx, channel.id, limit=limit, mentions=3) if channel is not None else [])


# ---------------------------------------------------------------- the discount a competitor forced

def _discount_setup(session: Session, split: str, rng, instance: int):
    """The deal, the line to discount directly, the line (of the split) to request a discount on, and the
    owner's other open deals on the account. The DM names the account and the two products, so no other
    of those deals has both."""
    choices = []
    for deal in managed_deals(session, split, with_items=True):
        others = list(session.scalars(select(Opportunity.id).where(
            Opportunity.account_id == deal.account_id, Opportunity.owner_id == deal.owner_id,
            Opportunity.stage.in_(OPEN_STAGES), Opportunity.id != deal.id).order_by(Opportunity.id)))
        sold = [{x.product_id for x in items_of(session, o)} for o in others]
        lines = [i for i in items_of(session, deal.id) if i.discount_bp <= 2000]
        for asked in of_split(split, "line_item", lines):
            direct = [i for i in lines if i.product_id != asked.product_id
                      and not any({i.product_id, asked.product_id} <= products for products in sold)]
            if direct:
                choices.append((deal, asked, direct, others))
    deal, asked, direct, others = spread(choices, instance)
    return deal, pick(rng, direct), asked, others


def item_lookalikes(session: Session, item: LineItem) -> list[int]:
    """Line items an agent could confuse with `item`: the others of its deal, then those of its owner's
    other open deals."""
    deal = session.get(Opportunity, item.opportunity_id)
    theirs = session.scalars(select(LineItem.id).join(Opportunity, Opportunity.id == LineItem.opportunity_id).where(
        Opportunity.owner_id == deal.owner_id, Opportunity.stage.in_(OPEN_STAGES), LineItem.id != item.id)
        .order_by(LineItem.opportunity_id != deal.id, LineItem.id).limit(25))
    return list(theirs)


@register
class DiscountThroughManager(TaskTemplate):
    """Two discounts a competitor forced: one set directly, one requested and decided by the manager."""

    id, apps, difficulty = "w.deal_discount_through_manager", ("chat", "crm", "org", "tickets"), 4
    toolsets = ("chat", "crm", "tickets.work")  # its apps hold over 100 tools
    kind, scale, split = "workflow", "medium", "train"
    rules = (DISCOUNTS,)
    summary = ("A colleague relays what a customer needs to beat a competitor: set the discounts within the limit, add "
               "the lines, learn the competitor from the colleague on the call, request the discount above the limit "
               "with a reason naming it, get the manager's decision, reply.")

    def sample(self, session, rng, instance):
        deal, direct, asked, others = _discount_setup(session, self.split, rng, instance)
        owner = session.get(Person, deal.owner_id)
        boss = session.get(Person, owner.manager_id)
        requester = colleague_of(session, rng, owner)
        witness = colleague_of(session, rng, owner, requester.id)
        low = pick(rng, [d for d in (10, 12, 15, 18, 20) if d * 100 != direct.discount_bp])
        high = pick(rng, [22, 25, 28, 30, 32, 35])
        rival = pick(rng, COMPETITORS)
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
        steps += [ToolCall("crm_request_discount", {"line_item": asked.id, "discount": high, "reason": reason}),
                  ToolCall("org_get_person", {"person": f"@{boss.handle}"})]
        steps += ask(boss.handle, f"Hi @{boss.handle}, I requested {high}% off the {asked.product.name} line of "
                                  f"{deal.name} to match {rival}'s price. Could you decide it?", len(steps))
        steps += [ToolCall("crm_get_opportunity", {"opportunity": deal.id}),
                  ToolCall("chat_post_message", {"channel": dm, "text": (
                      f"@{requester.handle} all settled on {deal.name}: {low}% off {direct.product.name} is set, "
                      f"{units} x {extra.name} added at list price and {more_units} x {more.name} at {more_off}% off, "
                      f"and @{boss.handle} approved {high}% off {asked.product.name}. You can tell them.")})]
        return TaskInstance(
            self.id, instance, owner.id,
            f"{named(session, requester)} sent you a direct message about one of your deals. Handle it the way the "
            "handbook says, and reply to them in that DM once it is all settled. Change nothing else.",
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
        return Declaration([Target("line_item", p["asked"], item_lookalikes(start, start.get(LineItem, p["asked"]))),
                            Target("opportunity", deal.id, deal_lookalikes(start, deal, inst.actor_id))],
                           [Claim(Candidate.text(p["rival"]), [Candidate.text(c) for c in COMPETITORS
                                                               if c != p["rival"]], "reason", "competitor")])

    def check(self, ctx, inst):
        p = inst.params
        claim = self.declare(ctx.start, inst).claims[0]
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
        replies = [m for m in added_messages(ctx, ctx.actor_id) if m["channel_id"] == _dm_id(ctx, requester)]
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
                   *allow_posts(ctx, _dm_id(ctx, requester), limit=2, mentions=3)]
        return [check(f"The {direct.product.name} line is at {p['low']}% off, set directly",
                      now_direct is not None and now_direct.discount_bp == p["low"] * 100,
                      f"it is at {now_direct.discount_bp / 100 if now_direct else 'gone'}%", weight=2),
                check(f"A request for {p['high']}% off the {asked.product.name} line was approved by the manager",
                      approved and now_asked is not None and now_asked.discount_bp == p["high"] * 100,
                      f"requests: {[(r['discount_bp'] / 100, r['status']) for r in requests]}", weight=2),
                check(f"{p['units']} x {extra.name} were added to the deal at list price, and {p['more_units']} x "
                      f"{more.name} at {p['more_off']}% off", added, "those lines were not both added"),
                guard("No discount request is left pending", not pending, f"{len(pending)} still pending"),
                *says([r["reason"] for r in requests], claim.right, claim.others,
                      f"The request's reason names the competitor, {p['rival']}", claim.kind, weight=1),
                check(f"You replied to {requester.name} in their DM", replies, "no reply in that DM"),
                nothing_else_changed(ctx.diff, allowed)]


def _dm_id(ctx, person: Person) -> int:
    """The id of the actor's DM with a person (planted by the setup), or -1."""
    from officegym.apps.chat.models import Channel
    return ctx.start.scalar(select(Channel.id).where(Channel.name == dm_name(ctx.actor_id, person.id))) or -1
