"""Finding CRM records by what an agent knows: an id, an exact name, an email or a product code.
Each resolver also applies the read rule of access.py, so a record outside the actor's reach is
refused with the reason."""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from officegym.apps.org.models import Person
from officegym.apps.org.services import get_by_id, numeric_id
from officegym.errors import Invalid, NotFound

from .access import require_read, require_sales
from .models import (RECORD_TYPES, Account, Activity, Case, Contact, DiscountApproval, Lead, LineItem,
                     Opportunity, PriceBook, Product)


def _ident(ref, what: str) -> int | None:
    if isinstance(ref, bool) or not isinstance(ref, (int, str)) or (isinstance(ref, str) and not ref.strip()):
        raise Invalid(f"Name {what} by its numeric id{' or exact name' if what != 'a record' else ''}, got {ref!r}.")
    return numeric_id(ref)


def _by_id(session: Session, model, ref, what: str, hint: str):
    ident = _ident(ref, what)
    if ident is None:
        raise Invalid(f"{what[0].upper()}{what[1:]} is named by its numeric id, got {ref!r}. {hint}")
    row = get_by_id(session, model, ident)
    if row is None:
        raise NotFound(f"No {what.split(' ', 1)[1]} has id {ident}. {hint}")
    return row


def _unique_by_name(session: Session, model, column, ref: str, what: str, hint: str):
    rows = list(session.scalars(select(model).where(func.lower(column) == ref.strip().lower()).limit(6)))
    if not rows:
        raise NotFound(f"No {what} is named {ref.strip()!r}. {hint}")
    if len(rows) > 1:
        ids = ", ".join(str(r.id) for r in rows)
        raise Invalid(f"Several {what}s are named {ref.strip()!r} (ids {ids}); name one by id.")
    return rows[0]


def resolve_account(session: Session, actor: Person, ref) -> Account:
    """An account by id or exact name (every employee may read accounts)."""
    hint = "Use crm_list_accounts or crm_search_records to find accounts."
    ident = _ident(ref, "an account")
    if ident is None:
        return _unique_by_name(session, Account, Account.name, ref, "account", hint)
    account = get_by_id(session, Account, ident)
    if account is None:
        raise NotFound(f"No account has id {ident}. {hint}")
    return account


def resolve_contact(session: Session, actor: Person, ref) -> Contact:
    """A contact by id or email (every employee may read contacts)."""
    hint = "Use crm_list_contacts to find contacts."
    ident = _ident(ref, "a contact")
    if ident is None:
        return _unique_by_name(session, Contact, Contact.email, ref, "contact with that email", hint)
    contact = get_by_id(session, Contact, ident)
    if contact is None:
        raise NotFound(f"No contact has id {ident}. {hint}")
    return contact


def _owned(session: Session, actor: Person, model, column, ref, what: str, hint: str):
    """A record of an owned type (lead, opportunity) by id or by a unique `column` value, which the
    actor may read."""
    require_sales(session, actor, f"work with {what}s")
    ident = _ident(ref, f"a{'n' if what[0] in 'aeiou' else ''} {what}")
    record = (_unique_by_name(session, model, column, ref, what, hint) if ident is None
              else get_by_id(session, model, ident))
    if record is None:
        raise NotFound(f"No {what} has id {ident}. {hint}")
    require_read(session, actor, record.owner_id, f"{what.capitalize()} {record.id} ({record.name})")
    return record


def resolve_lead(session: Session, actor: Person, ref) -> Lead:
    """A lead the actor may read, by id or email."""
    return _owned(session, actor, Lead, Lead.email, ref, "lead", "Use crm_list_leads to find leads.")


def resolve_opportunity(session: Session, actor: Person, ref) -> Opportunity:
    """An opportunity the actor may read, by id or exact name."""
    return _owned(session, actor, Opportunity, Opportunity.name, ref, "opportunity",
                  "Use crm_list_opportunities to find opportunities.")


def resolve_case(session: Session, actor: Person, ref) -> Case:
    """A case the actor may read, by id."""
    require_sales(session, actor, "work with cases")
    case = _by_id(session, Case, ref, "a case", "Use crm_list_cases to find cases.")
    require_read(session, actor, case.owner_id, f"Case {case.id} ({case.subject})")
    return case


def resolve_product(session: Session, ref) -> Product:
    """A product by id, code or exact name."""
    hint = "Use crm_list_products to see the catalog."
    ident = _ident(ref, "a product")
    if ident is not None:
        product = get_by_id(session, Product, ident)
        if product is None:
            raise NotFound(f"No product has id {ident}. {hint}")
        return product
    product = session.scalar(select(Product).where(func.lower(Product.code) == ref.strip().lower()))
    return product or _unique_by_name(session, Product, Product.name, ref, "product", hint)


def resolve_price_book(session: Session, ref) -> PriceBook:
    """A price book by id or exact name (None names the standard one)."""
    if ref is None or (isinstance(ref, str) and not ref.strip()):
        return session.scalar(select(PriceBook).where(PriceBook.is_standard.is_(True)))
    hint = "Use crm_list_price_books to see them."
    ident = _ident(ref, "a price book")
    if ident is None:
        return _unique_by_name(session, PriceBook, PriceBook.name, ref, "price book", hint)
    book = get_by_id(session, PriceBook, ident)
    if book is None:
        raise NotFound(f"No price book has id {ident}. {hint}")
    return book


def resolve_line_item(session: Session, actor: Person, ref) -> tuple[LineItem, Opportunity]:
    """A line item and its opportunity, which the actor may read."""
    item = _by_id(session, LineItem, ref, "a line item", "crm_get_opportunity lists an opportunity's line items.")
    return item, resolve_opportunity(session, actor, item.opportunity_id)


def resolve_approval(session: Session, actor: Person, ref) -> DiscountApproval:
    """A discount approval request the actor may read (as approver, requester or reader of the deal)."""
    approval = _by_id(session, DiscountApproval, ref, "an approval",
                      "Use crm_list_discount_approvals to see the requests.")
    if actor.id not in (approval.approver_id, approval.requested_by_id):
        resolve_opportunity(session, actor, approval.opportunity_id)
    return approval


def resolve_activity(session: Session, actor: Person, ref) -> Activity:
    """An activity whose record the actor may read."""
    activity = _by_id(session, Activity, ref, "an activity", "Use crm_list_activities to find activities.")
    resolve_record(session, actor, activity.record_type, activity.record_id, for_activities=True)
    return activity


def resolve_record(session: Session, actor: Person, record_type: str, ref, for_activities: bool = False):
    """Any CRM record by type and id; activities on accounts and contacts are for Sales only."""
    if not isinstance(record_type, str) or record_type.strip().lower() not in RECORD_TYPES:
        raise Invalid(f"record_type must be one of: {', '.join(RECORD_TYPES)}; got {record_type!r}.")
    kind = record_type.strip().lower()
    if for_activities:
        require_sales(session, actor, "see or log activities")
    resolver = {"account": resolve_account, "contact": resolve_contact, "lead": resolve_lead,
                "opportunity": resolve_opportunity, "case": resolve_case}[kind]
    return resolver(session, actor, ref)
