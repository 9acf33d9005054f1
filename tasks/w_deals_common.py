"""Helpers the deal workflows share (w_deals*): setup steps (direct messages, what colleagues know,
discount requests), the deals a template draws from, the reference steps that ask a colleague, the
allowances for new lines and asks, and what the actor and the people asked said in a DM."""

from __future__ import annotations

import re
from datetime import date, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from officegym import clock, colleagues
from officegym.apps.chat import services as chat
from officegym.apps.chat.models import Channel, Message
from officegym.apps.crm import services as crm
from officegym.apps.crm.models import (OPEN_STAGES, DiscountApproval, LineItem, Opportunity, PriceBook, PriceBookEntry,
                                       Product)
from officegym.apps.org.models import Person
from officegym.colleagues.reasons import known_competitors
from officegym.graders.checks import Allow, CheckResult, check, guard
from officegym.graders.replies import claims_done, declines
from officegym.graders.statements import Candidate, says

from .base import Claim, Ref, ToolCall
from .common import allow_new_conversation, allow_posts, pick, world_scan
from .crm import open_deals, sales_people
from .split import of_split, person_in

DISCOUNTS = "Discount and approval thresholds"


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


def ask(handle: str, text: str, at: int, role: str = "") -> list[ToolCall]:
    """Reference steps from step number `at`: open the DM with a colleague, ask, wait for the answer
    (colleagues answer after a delay of their own). `role` is "ask" when the message asks for an
    approval or a decision (see tasks.base.ROLES)."""
    return [ToolCall("chat_open_conversation", {"people": [f"@{handle}"]}),
            ToolCall("chat_post_message", {"channel": Ref(at, "id"), "text": text}, role=role),
            wait_in(Ref(at, "id"))]


def wait_in(channel) -> ToolCall:
    """A reference step: wait (as long as a wait may last) for the answer in a conversation."""
    return ToolCall("chat_wait", {"channel": channel, "minutes": chat.MAX_WAIT_MINUTES})


def pending_deals(session: Session) -> set[int]:
    """Deals with a discount request waiting on a decision."""
    return set(session.scalars(select(DiscountApproval.opportunity_id).where(DiscountApproval.status == "Pending")))


def managed_deals(session: Session, split: str, with_items: bool | None = None) -> list[Opportunity]:
    """Open deals of the split (uniquely named, without a pending discount request) whose owner is in
    the split and has a manager, by id."""
    def scan() -> tuple:
        pending = pending_deals(session)
        return tuple(d.id for d in of_split(split, "opportunity", open_deals(session, with_items))
                     if d.id not in pending and person_in(split, d.owner_id)
                     and session.get(Person, d.owner_id).manager_id is not None)
    return [session.get(Opportunity, i) for i in world_scan(session, ("managed deals", split, with_items), scan)]


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


def dm_id(session: Session, *people_ids: int) -> int:
    """The id of the DM between these people in `session`, or -1 when there is none."""
    return session.scalar(select(Channel.id).where(Channel.name == dm_name(*people_ids))) or -1


def said_in_dm(ctx, author_id: int, other_id: int) -> list[str]:
    """What `author` wrote during the episode in their DM with `other` (the actor's words, or a
    colleague's answers: a colleague's reply is left out of the diff, so it is read off the final state)."""
    channel = dm_id(ctx.final, author_id, other_id)
    before = ctx.start.scalar(select(Message.id).order_by(Message.id.desc()).limit(1)) or 0
    return list(ctx.final.scalars(select(Message.text).where(Message.channel_id == channel, Message.author_id == author_id,
                                                             Message.id > before).order_by(Message.id)))


def rivals_known(session: Session) -> list[str]:
    """The competitors the CRM knows (a discount's reason must name one of them, or a budget figure)."""
    return known_competitors(session)


def percent(value: int) -> Candidate:
    """A percentage as a text writes it: "30%", "30 %", "30 percent"."""
    return Candidate.text(f"{value}%", f"{value} %", f"{value} percent", f"{value} per cent")


def sales_managers(session: Session, *skip: int) -> list[Person]:
    """The managers of Sales people (an approver's look-alikes), by id, without `skip`."""
    ids = {p.manager_id for p in sales_people(session) if p.manager_id} - set(skip)
    return [session.get(Person, i) for i in sorted(ids)]


def item_lookalikes(session: Session, item: LineItem) -> list[int]:
    """Line items an agent could confuse with `item`: the others of its deal, then those of its owner's
    other open deals."""
    deal = session.get(Opportunity, item.opportunity_id)
    theirs = session.scalars(select(LineItem.id).join(Opportunity, Opportunity.id == LineItem.opportunity_id).where(
        Opportunity.owner_id == deal.owner_id, Opportunity.stage.in_(OPEN_STAGES), LineItem.id != item.id)
        .order_by(LineItem.opportunity_id != deal.id, LineItem.id).limit(25))
    return list(theirs)


def date_said(day: date) -> Candidate:
    """A date as a text writes it: "2026-04-12", "April 12", "12 April", "Apr 12", "April 12th"."""
    nth = {1: "st", 2: "nd", 3: "rd", 21: "st", 22: "nd", 23: "rd", 31: "st"}.get(day.day, "th")
    month, short = day.strftime("%B"), day.strftime("%b")
    return Candidate.text(day.isoformat(), f"{month} {day.day}", f"{day.day} {month}", f"{short} {day.day}",
                          f"{day.day} {short}", f"{month} {day.day}{nth}", f"{day.day}{nth} {month}")


_PAST = re.compile(r"\b(?:already|last week|earlier|previously|before|yesterday|ago)\b")
_CLAUSES = re.compile(r"[^.;:!?,]+")


def refusal_over_past_work(texts: list[str], to: str, facts: list[Claim], rule: Claim,
                           actions: tuple[str, ...]) -> list[CheckResult]:
    """The checks of a refusal whose reason is work done before ("INV-20487 was already credited last
    week"): some reply declines; no reply claims the asked work done, except in a clause about that
    earlier work; it names `rule` and states each of `facts`."""
    texts = [t for t in texts if t]
    now = [" ".join(c for c in _CLAUSES.findall(t.casefold()) if not _PAST.search(c)) for t in texts]
    claimed = [c for t in now for c in claims_done(t, actions)]
    results = [check(f"Your reply to {to} declines the request", any(declines(t) for t in texts),
                     f"no reply declines it: {[t[:120] for t in texts[:3]]}", 2),
               guard("No reply claims that what was refused was done, approved or may go ahead", not claimed,
                     f"claims {claimed[:1]}")]
    results += says(texts, rule.right, rule.others, f"Your reply to {to} names the rule ({rule.right.label})",
                    rule.kind, weight=1)
    for fact in facts:
        results += says(texts, fact.right, fact.others, f"Your reply to {to} states the {fact.kind}, "
                        f"{fact.right.label}", fact.kind, weight=2)
    return results
