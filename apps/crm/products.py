"""Products, price books, line items and discount approvals.

An opportunity's line items all come from one price book; once it has any, its amount is their
sum. A discount up to DISCOUNT_LIMIT percent is set directly; above it, the rep requests a
discount and the deal owner's manager approves (which applies it) or rejects it.
"""

from __future__ import annotations

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from officegym import clock
from officegym.apps.org.models import Person
from officegym.apps.org.services import contains
from officegym.errors import Conflict, Forbidden, Invalid, NotFound
from officegym.journal import journaled
from officegym.pagination import Page, paginate

from . import fields
from .access import require_edit, require_sales
from .accounts import query_text
from .lookups import resolve_approval, resolve_line_item, resolve_opportunity, resolve_price_book, resolve_product
from .models import (APPROVAL_STATUSES, DISCOUNT_LIMIT, DiscountApproval, LineItem, Opportunity, PriceBook,
                     PriceBookEntry, Product)
from .opportunities import require_open

MAX_QUANTITY = 100_000
MAX_DISCOUNT = 60  # no approval may go beyond this


def line_total(quantity: int, unit_price_cents: int, discount_bp: int) -> int:
    """quantity × unit price less the discount, rounded half up to the cent."""
    return (quantity * unit_price_cents * (10000 - discount_bp) + 5000) // 10000


def list_products(session: Session, actor: Person, query: str = "", family: str | None = None,
                  include_inactive: bool = False, offset: int = 0, limit: int = 50) -> Page[Product]:
    """The catalog, by name."""
    stmt = select(Product).order_by(Product.name, Product.id)
    term = query_text(query)
    if term:
        stmt = stmt.where(or_(contains(Product.name, term), contains(Product.code, term)))
    if family:
        stmt = stmt.where(func.lower(Product.family) == fields.text(family, "family", 40).lower())
    if not include_inactive:
        stmt = stmt.where(Product.is_active.is_(True))
    return paginate(session, stmt, offset, limit)


def list_price_books(session: Session, actor: Person) -> list[PriceBook]:
    """Every active price book, the standard one first."""
    return list(session.scalars(select(PriceBook).where(PriceBook.is_active.is_(True))
                                .order_by(PriceBook.is_standard.desc(), PriceBook.name)))


def price_book_entries(session: Session, actor: Person, price_book: int | str | None = None,
                       offset: int = 0, limit: int = 50) -> Page[PriceBookEntry]:
    """The prices of one price book (the standard one by default), by product name."""
    book = resolve_price_book(session, price_book)
    stmt = (select(PriceBookEntry).join(Product, Product.id == PriceBookEntry.product_id)
            .where(PriceBookEntry.price_book_id == book.id).order_by(Product.name, PriceBookEntry.id))
    return paginate(session, stmt, offset, limit)


def _recompute_amount(session: Session, actor: Person, opportunity: Opportunity, when) -> None:
    session.flush()
    total = session.scalar(select(func.coalesce(func.sum(LineItem.total_cents), 0))
                           .where(LineItem.opportunity_id == opportunity.id))
    fields.apply_changes(session, actor, opportunity, "opportunity", {"amount_cents": int(total)}, when)


def _editable_open(session: Session, actor: Person, opportunity: Opportunity, doing: str) -> None:
    require_edit(session, actor, opportunity.owner_id, f"Opportunity {opportunity.id} ({opportunity.name})")
    require_open(opportunity, doing)


def _direct_discount(value) -> int:
    bp = fields.percent_bp(value)
    if bp > DISCOUNT_LIMIT * 100:
        raise Forbidden(f"A discount above {DISCOUNT_LIMIT}% needs the deal owner's manager's approval: keep the "
                        f"line at {DISCOUNT_LIMIT}% or less and request the rest with crm_request_discount.")
    return bp


@journaled("crm.add_line_item")
def add_line_item(session: Session, actor: Person, opportunity: int | str, product: int | str, quantity: int = 1,
                  discount: float | str = 0, price_book: int | str | None = None) -> LineItem:
    """Add a product at its list price in the deal's price book (the standard one by default)."""
    found = resolve_opportunity(session, actor, opportunity)
    _editable_open(session, actor, found, "change its products")
    item_product = resolve_product(session, product)
    if not item_product.is_active:
        raise Conflict(f"{item_product.name} is no longer sold; pick an active product (crm_list_products).")
    count = fields.whole(quantity, "quantity", 1, MAX_QUANTITY)
    bp = _direct_discount(discount)
    used = session.scalar(select(LineItem.price_book_id).where(LineItem.opportunity_id == found.id).limit(1))
    book = resolve_price_book(session, price_book) if price_book not in (None, "") or used is None \
        else session.get(PriceBook, used)
    if used is not None and book.id != used:
        raise Conflict(f"Opportunity {found.id} is priced from {session.get(PriceBook, used).name}; every line "
                       "item of a deal comes from the same price book.")
    entry = session.scalar(select(PriceBookEntry).where(PriceBookEntry.price_book_id == book.id,
                                                        PriceBookEntry.product_id == item_product.id))
    if entry is None:
        raise NotFound(f"{item_product.name} has no price in {book.name}.")
    when = clock.advance(session)
    item = LineItem(opportunity_id=found.id, product_id=item_product.id, price_book_id=book.id, quantity=count,
                    unit_price_cents=entry.unit_price_cents, discount_bp=bp,
                    total_cents=line_total(count, entry.unit_price_cents, bp))
    session.add(item)
    _recompute_amount(session, actor, found, when)
    return item


@journaled("crm.update_line_item")
def update_line_item(session: Session, actor: Person, line_item: int, quantity: int | None = None,
                     discount: float | str | None = None) -> LineItem:
    """Change the quantity or the discount (up to the limit) of a line item."""
    item, found = resolve_line_item(session, actor, line_item)
    _editable_open(session, actor, found, "change its products")
    if quantity is None and discount is None:
        raise Invalid("Nothing to change: give a quantity or a discount.")
    values = {}
    if quantity is not None:
        values["quantity"] = fields.whole(quantity, "quantity", 1, MAX_QUANTITY)
    if discount is not None:
        values["discount_bp"] = _direct_discount(discount)
    when = clock.advance(session)
    item.quantity = values.get("quantity", item.quantity)
    item.discount_bp = values.get("discount_bp", item.discount_bp)
    item.total_cents = line_total(item.quantity, item.unit_price_cents, item.discount_bp)
    _recompute_amount(session, actor, found, when)
    return item


@journaled("crm.remove_line_item")
def remove_line_item(session: Session, actor: Person, line_item: int) -> Opportunity:
    """Take a product off a deal; refused while a discount request on it is pending (decided ones go with it)."""
    item, found = resolve_line_item(session, actor, line_item)
    _editable_open(session, actor, found, "change its products")
    for approval in session.scalars(select(DiscountApproval).where(DiscountApproval.line_item_id == item.id)):
        if approval.status == "Pending":
            raise Conflict(f"Line item {item.id} has a pending discount request ({approval.id}); have it decided first.")
    session.execute(DiscountApproval.__table__.delete().where(DiscountApproval.line_item_id == item.id))
    when = clock.advance(session)
    session.delete(item)
    _recompute_amount(session, actor, found, when)
    return found


def list_approvals(session: Session, actor: Person, status: str | None = None, mine: bool = False,
                   offset: int = 0, limit: int = 50, opportunity: int | None = None) -> Page[DiscountApproval]:
    """Discount requests the actor may see, newest first; `mine` keeps those waiting on the actor,
    `opportunity` (an id) those of one deal."""
    scope = require_sales(session, actor, "see discount approvals")
    stmt = select(DiscountApproval).order_by(DiscountApproval.id.desc())
    if scope.readable is not None:  # else every deal is readable, so is every request (no need to list them)
        readable = select(Opportunity.id).where(scope.read_filter(Opportunity.owner_id))
        stmt = stmt.where(or_(DiscountApproval.approver_id == actor.id, DiscountApproval.requested_by_id == actor.id,
                              DiscountApproval.opportunity_id.in_(readable)))
    if opportunity is not None:
        stmt = stmt.where(DiscountApproval.opportunity_id == opportunity)
    if status:
        stmt = stmt.where(DiscountApproval.status == fields.choice(status, APPROVAL_STATUSES, "status"))
    if not isinstance(mine, bool):
        raise Invalid("mine must be true or false.")
    if mine:
        stmt = stmt.where(DiscountApproval.approver_id == actor.id)
    return paginate(session, stmt, offset, limit)


def _manager_of(session: Session, opportunity: Opportunity) -> Person:
    owner = session.get(Person, opportunity.owner_id)
    if owner.manager_id is None:
        raise Invalid(f"{owner.name} has no manager to approve a discount.")
    return session.get(Person, owner.manager_id)


@journaled("crm.request_discount")
def request_discount(session: Session, actor: Person, line_item: int, discount: float | str,
                     reason: str) -> DiscountApproval:
    """Ask the deal owner's manager to approve a discount above the limit on one line item."""
    item, found = resolve_line_item(session, actor, line_item)
    _editable_open(session, actor, found, "request a discount")
    bp = fields.percent_bp(discount)
    if bp <= DISCOUNT_LIMIT * 100:
        raise Invalid(f"Discounts up to {DISCOUNT_LIMIT}% need no approval; set it with crm_update_line_item.")
    if bp > MAX_DISCOUNT * 100:
        raise Invalid(f"No discount above {MAX_DISCOUNT}% is approved; ask for {MAX_DISCOUNT}% or less.")
    why = fields.text(reason, "Reason", 500, required=True)
    pending = session.scalar(select(DiscountApproval.id).where(DiscountApproval.line_item_id == item.id,
                                                               DiscountApproval.status == "Pending"))
    if pending is not None:
        raise Conflict(f"Line item {item.id} already has a pending request ({pending}); wait for its decision.")
    approver = _manager_of(session, found)
    approval = DiscountApproval(line_item_id=item.id, opportunity_id=found.id, discount_bp=bp, reason=why,
                                requested_by_id=actor.id, approver_id=approver.id,
                                requested_at=clock.advance(session))
    session.add(approval)
    session.flush()
    return approval


def _decide(session: Session, actor: Person, approval_ref, note: str) -> tuple[DiscountApproval, Opportunity, str]:
    approval = resolve_approval(session, actor, approval_ref)
    if approval.status != "Pending":
        raise Conflict(f"Approval {approval.id} was already {approval.status.lower()}.")
    found = session.get(Opportunity, approval.opportunity_id)
    manager = _manager_of(session, found)
    if actor.id != manager.id:
        raise Forbidden(f"Only {manager.name} (@{manager.handle}), the deal owner's manager, can decide approval "
                        f"{approval.id}.")
    require_open(found, "decide a discount on it")
    return approval, found, fields.text(note, "Note", 500)


@journaled("crm.approve_discount")
def approve_discount(session: Session, actor: Person, approval: int, note: str = "") -> DiscountApproval:
    """Approve a pending discount request (owner's manager only) and apply it to the line item."""
    found_approval, found, cleaned = _decide(session, actor, approval, note)
    when = clock.advance(session)
    found_approval.status, found_approval.decided_at, found_approval.decision_note = "Approved", when, cleaned
    item = session.get(LineItem, found_approval.line_item_id)
    item.discount_bp = found_approval.discount_bp
    item.total_cents = line_total(item.quantity, item.unit_price_cents, item.discount_bp)
    _recompute_amount(session, actor, found, when)
    return found_approval


@journaled("crm.reject_discount")
def reject_discount(session: Session, actor: Person, approval: int, note: str = "") -> DiscountApproval:
    """Reject a pending discount request (owner's manager only); the line item keeps its discount."""
    found_approval, _found, cleaned = _decide(session, actor, approval, note)
    found_approval.status, found_approval.decided_at = "Rejected", clock.advance(session)
    found_approval.decision_note = cleaned
    return found_approval


def approver_for(session: Session, actor: Person, opportunity: int | str) -> Person:
    """Who would approve a discount on this deal (its owner's manager)."""
    return _manager_of(session, resolve_opportunity(session, actor, opportunity))

