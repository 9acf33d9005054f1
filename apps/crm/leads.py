"""Leads and their conversion into an account, a contact and (optionally) an opportunity.

Conversion is all-or-nothing: every input is checked before the first row is written, and the
caller's transaction rolls back on any error, so a refused conversion leaves no partial records.
"""

from __future__ import annotations

from datetime import date, timedelta

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from officegym import clock
from officegym.apps.org.models import Person
from officegym.apps.org.services import contains
from officegym.errors import Conflict, Invalid
from officegym.journal import journaled
from officegym.pagination import Page, paginate

from . import fields
from .access import require_edit, require_sales, resolve_owner
from .accounts import query_text, sort_order
from .lookups import resolve_account, resolve_lead
from .models import (INDUSTRIES, LEAD_SOURCES, LEAD_STATUSES, OPEN_STAGES, REGIONS, SIZES, STAGE_PROBABILITY,
                     Account, Contact, Lead, Opportunity)

LEAD_SORTS = {"name": Lead.last_name, "company": Lead.company, "created": Lead.created_at, "status": Lead.status}
OPEN_LEAD_STATUSES = ("New", "Working", "Qualified")


def list_leads(session: Session, actor: Person, query: str = "", status: str | None = None,
               source: str | None = None, owner: int | str | None = None, sort: str = "created",
               descending: bool = True, offset: int = 0, limit: int = 50) -> Page[Lead]:
    """Leads the actor may see whose name, company or email contains `query`."""
    scope = require_sales(session, actor, "see leads")
    stmt = select(Lead).where(scope.read_filter(Lead.owner_id))
    stmt = stmt.order_by(*sort_order(LEAD_SORTS, sort, descending, Lead.id))
    term = query_text(query)
    if term:
        full = Lead.first_name + " " + Lead.last_name
        stmt = stmt.where(or_(contains(full, term), contains(Lead.company, term), contains(Lead.email, term)))
    if status:
        stmt = stmt.where(Lead.status == fields.choice(status, LEAD_STATUSES, "status"))
    if source:
        stmt = stmt.where(Lead.source == fields.choice(source, LEAD_SOURCES, "source"))
    if owner not in (None, ""):
        stmt = stmt.where(Lead.owner_id == resolve_owner(session, owner).id)
    return paginate(session, stmt, offset, limit)


def get_lead(session: Session, actor: Person, lead: int | str) -> Lead:
    """One lead by id or email."""
    return resolve_lead(session, actor, lead)


def _values(values: dict) -> dict:
    out: dict = {}
    for key, label, limit in (("first_name", "First name", 60), ("last_name", "Last name", 60),
                              ("company", "Company", 160)):
        if key in values:
            out[key] = fields.text(values[key], label, limit, required=True)
    if "title" in values:
        out["title"] = fields.text(values["title"], "Title", 120)
    if "email" in values:
        out["email"] = fields.email(values["email"])
    if "phone" in values:
        out["phone"] = fields.phone(values["phone"])
    if "source" in values:
        out["source"] = fields.choice(values["source"], LEAD_SOURCES, "source")
    if "status" in values:
        status = fields.choice(values["status"], LEAD_STATUSES, "status")
        if status == "Converted":
            raise Invalid("A lead becomes Converted only by converting it (crm_convert_lead).")
        out["status"] = status
    return out


@journaled("crm.create_lead")
def create_lead(session: Session, actor: Person, first_name: str, last_name: str, company: str, source: str = "Web",
                title: str = "", email: str = "", phone: str = "", owner: int | str | None = None) -> Lead:
    """A new lead in status New."""
    require_sales(session, actor, "create leads")
    owner_person = resolve_owner(session, owner, actor, assigning=True)
    values = _values({"first_name": first_name, "last_name": last_name, "company": company, "source": source,
                      "title": title, "email": email, "phone": phone})
    when = clock.advance(session)
    return fields.insert(session, actor, Lead(**values, status="New", owner_id=owner_person.id, created_at=when),
                         "lead", when)


@journaled("crm.update_lead")
def update_lead(session: Session, actor: Person, lead: int | str, **changes) -> Lead:
    """Change fields of an unconverted lead: names, company, title, email, phone, source, status, owner."""
    found = resolve_lead(session, actor, lead)
    require_edit(session, actor, found.owner_id, f"Lead {found.id} ({found.name})")
    changes = fields.requested_changes(changes, {"first_name", "last_name", "company", "title", "email", "phone",
                                                 "source", "status", "owner"}, "Leads")
    if found.status == "Converted":
        raise Conflict(f"Lead {found.id} was converted; edit its contact {found.converted_contact_id} instead.")
    values = _values(changes)
    if changes.get("owner") not in (None, ""):
        values["owner_id"] = resolve_owner(session, changes["owner"], actor, assigning=True).id
    fields.apply_changes(session, actor, found, "lead", values, clock.advance(session))
    return found


def _new_account(session: Session, lead: Lead, industry: str, size: str, region: str) -> dict:
    clash = session.scalar(select(Account.id).where(func.lower(Account.name) == lead.company.lower()))
    if clash is not None:
        raise Conflict(f"An account named {lead.company!r} already exists (id {clash}); convert into it with "
                       f"account={clash}.")
    return {"name": lead.company,
            "industry": fields.choice(industry, INDUSTRIES, "industry") if industry else "",
            "size": fields.choice(size, SIZES, "size") if size else "",
            "region": fields.choice(region, REGIONS, "region") if region else ""}


@journaled("crm.convert_lead")
def convert_lead(session: Session, actor: Person, lead: int | str, account: int | str | None = None,
                 create_opportunity: bool = True, opportunity_name: str = "", amount: float | str = 0,
                 close_date: str | date | None = None, stage: str = "Qualification", industry: str = "",
                 size: str = "", region: str = "") -> Lead:
    """Convert a lead: a contact from its person, at `account` (an existing one) or at a new
    account named after its company, and optionally an opportunity (closing in 90 days unless
    `close_date` is given). All or nothing."""
    found = resolve_lead(session, actor, lead)
    require_edit(session, actor, found.owner_id, f"Lead {found.id} ({found.name})")
    if found.status == "Converted":
        raise Conflict(f"Lead {found.id} was already converted (contact {found.converted_contact_id}).")
    if found.status == "Unqualified":
        raise Conflict(f"Lead {found.id} is Unqualified; set it to Working or Qualified before converting it.")
    if not isinstance(create_opportunity, bool):
        raise Invalid("create_opportunity must be true or false.")
    existing = resolve_account(session, actor, account) if account not in (None, "") else None
    new_account = _new_account(session, found, industry, size, region) if existing is None else None
    opportunity_values = None
    if create_opportunity:
        start = fields.choice(stage, OPEN_STAGES, "stage")
        company = existing.name if existing else found.company
        opportunity_values = {
            "name": fields.text(opportunity_name, "Opportunity name", 160) or f"{company} - New Business",
            "amount_cents": fields.money_cents(amount), "stage": start, "probability": STAGE_PROBABILITY[start],
            "close_date": fields.day(close_date, "Close date") if close_date not in (None, "")
            else (clock.today(session) + timedelta(days=90)).date()}
    # Everything is valid: write.
    when = clock.advance(session)
    if existing is None:
        existing = fields.insert(session, actor, Account(**new_account, owner_id=found.owner_id, created_at=when),
                                 "account", when)
    contact = fields.insert(session, actor, Contact(
        account_id=existing.id, first_name=found.first_name, last_name=found.last_name, title=found.title,
        email=found.email, phone=found.phone, owner_id=found.owner_id, created_at=when), "contact", when)
    opportunity_id = None
    if opportunity_values is not None:
        opportunity_id = fields.insert(session, actor, Opportunity(
            account_id=existing.id, owner_id=found.owner_id, created_at=when, **opportunity_values),
            "opportunity", when).id
    fields.apply_changes(session, actor, found, "lead", {
        "status": "Converted", "converted_at": when, "converted_account_id": existing.id,
        "converted_contact_id": contact.id, "converted_opportunity_id": opportunity_id}, when)
    return found
