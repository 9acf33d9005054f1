"""Converters from CRM records to the output models of schemas.py.

Presenters only read. They take whole pages at once and load related names (owners, accounts,
products) with one query per kind of relation, never one per row.
"""

from __future__ import annotations

from typing import Sequence

from sqlalchemy import select
from sqlalchemy.orm import Session

from officegym.apps.org.models import Person
from officegym.apps.org.presenters import page_fields, page_out, people_briefs, when
from officegym.errors import OfficeError

from . import services
from .models import (Account, Activity, Case, Contact, DiscountApproval, FieldChange, Lead, LineItem, Opportunity,
                     PriceBook, PriceBookEntry, Product)
from .schemas import (AccountDetailOut, AccountOut, ActivityOut, ApprovalOut, CaseOut, ContactOut, ConversionOut,
                      FieldChangeOut, LeadOut, LineItemOut, LineItemResultOut, OpportunityDetailOut, OpportunityOut,
                      PersonBrief, PipelineOut, PipelineRowOut, PriceBookEntryOut, PriceBookOut, ProductOut, Ref,
                      SearchHitOut)

__all__ = ["money", "page_out", "accounts_out", "account_detail_out", "contacts_out", "leads_out", "conversion_out",
           "opportunities_out", "opportunity_detail_out", "line_item_result_out", "line_items_out", "approvals_out",
           "products_out", "price_books_out", "entries_out", "activities_out", "cases_out", "pipeline_out",
           "hits_out", "history_out"]


def money(cents: int | None) -> float:
    """Whole cents as dollars with two decimals."""
    return round((cents or 0) / 100, 2)


_NAMES = {"account": (Account, Account.name), "contact": (Contact, Contact.first_name + " " + Contact.last_name),
          "lead": (Lead, Lead.first_name + " " + Lead.last_name), "opportunity": (Opportunity, Opportunity.name),
          "case": (Case, Case.subject), "price_book": (PriceBook, PriceBook.name)}


def _refs(session: Session, kind: str, ids) -> dict[int, Ref]:
    ids = {i for i in ids if i}
    if not ids:
        return {}
    model, name = _NAMES[kind]
    return {i: Ref(id=i, name=n) for i, n in session.execute(select(model.id, name).where(model.id.in_(ids)))}


def _products(session: Session, ids) -> dict[int, Product]:
    ids = set(ids)
    return {p.id: p for p in session.scalars(select(Product).where(Product.id.in_(ids)))} if ids else {}


def accounts_out(session: Session, accounts: Sequence[Account]) -> list[AccountOut]:
    """A page of accounts with owners and parents (two queries)."""
    owners = people_briefs(session, {a.owner_id for a in accounts})
    parents = _refs(session, "account", {a.parent_id for a in accounts})
    return [AccountOut(id=a.id, name=a.name, industry=a.industry, size=a.size, region=a.region, website=a.website,
                       phone=a.phone, owner=owners[a.owner_id], parent=parents.get(a.parent_id),
                       created_at=a.created_at.isoformat()) for a in accounts]


def account_detail_out(session: Session, actor: Person, account: Account) -> AccountDetailOut:
    """One account with children, contacts, and the deals and open cases the actor may see."""
    scope = services.scope_of(session, actor)
    contacts = services.list_contacts(session, actor, account=account.id, limit=200).items
    deals, deal_count, open_cases = [], 0, 0
    if scope.is_admin or scope.is_sales:
        page = services.list_opportunities(session, actor, account=account.id, limit=200)
        deals, deal_count = opportunities_out(session, page.items), page.total
        open_cases = services.list_cases(session, actor, status="open", account=account.id, limit=1).total
    children = [Ref(id=c.id, name=c.name) for c in services.child_accounts(session, actor, account.id)]
    return AccountDetailOut(**accounts_out(session, [account])[0].model_dump(), children=children,
                            contacts=contacts_out(session, contacts), opportunities=deals,
                            opportunity_count=deal_count, open_case_count=open_cases)


def contacts_out(session: Session, contacts: Sequence[Contact]) -> list[ContactOut]:
    """A page of contacts with their accounts and owners."""
    owners = people_briefs(session, {c.owner_id for c in contacts})
    accounts = _refs(session, "account", {c.account_id for c in contacts})
    return [ContactOut(id=c.id, name=c.name, first_name=c.first_name, last_name=c.last_name, title=c.title,
                       email=c.email, phone=c.phone, account=accounts[c.account_id], owner=owners[c.owner_id],
                       created_at=c.created_at.isoformat()) for c in contacts]


def leads_out(session: Session, leads: Sequence[Lead]) -> list[LeadOut]:
    """A page of leads with owners and, for converted ones, the records they became."""
    owners = people_briefs(session, {x.owner_id for x in leads})
    accounts = _refs(session, "account", {x.converted_account_id for x in leads})
    contacts = _refs(session, "contact", {x.converted_contact_id for x in leads})
    deals = _refs(session, "opportunity", {x.converted_opportunity_id for x in leads})
    return [LeadOut(id=x.id, name=x.name, first_name=x.first_name, last_name=x.last_name, company=x.company,
                    title=x.title, email=x.email, phone=x.phone, source=x.source, status=x.status,
                    owner=owners[x.owner_id], created_at=x.created_at.isoformat(), converted_at=when(x.converted_at),
                    converted_account=accounts.get(x.converted_account_id),
                    converted_contact=contacts.get(x.converted_contact_id),
                    converted_opportunity=deals.get(x.converted_opportunity_id)) for x in leads]


def conversion_out(session: Session, lead: Lead) -> ConversionOut:
    """A converted lead with the account, contact and opportunity it became."""
    deal = session.get(Opportunity, lead.converted_opportunity_id) if lead.converted_opportunity_id else None
    return ConversionOut(lead=leads_out(session, [lead])[0],
                         account=accounts_out(session, [session.get(Account, lead.converted_account_id)])[0],
                         contact=contacts_out(session, [session.get(Contact, lead.converted_contact_id)])[0],
                         opportunity=opportunities_out(session, [deal])[0] if deal else None)


def opportunities_out(session: Session, deals: Sequence[Opportunity]) -> list[OpportunityOut]:
    """A page of opportunities with accounts, owners and whether they have line items."""
    owners = people_briefs(session, {d.owner_id for d in deals})
    accounts = _refs(session, "account", {d.account_id for d in deals})
    ids = [d.id for d in deals]
    priced = set(session.scalars(select(LineItem.opportunity_id).where(LineItem.opportunity_id.in_(ids))
                                 .distinct())) if ids else set()
    return [OpportunityOut(id=d.id, name=d.name, account=accounts[d.account_id], owner=owners[d.owner_id],
                           stage=d.stage, probability=d.probability, amount=money(d.amount_cents),
                           close_date=d.close_date.isoformat(), type=d.type, next_step=d.next_step,
                           competitor=d.competitor, loss_reason=d.loss_reason, created_at=d.created_at.isoformat(),
                           closed_at=when(d.closed_at), has_line_items=d.id in priced) for d in deals]


def opportunity_detail_out(session: Session, actor: Person, deal: Opportunity) -> OpportunityDetailOut:
    """One opportunity with its line items, pending discount requests and discount approver."""
    items = services.line_items(session, actor, deal.id)
    pending = list(session.scalars(select(DiscountApproval).where(
        DiscountApproval.opportunity_id == deal.id, DiscountApproval.status == "Pending")
        .order_by(DiscountApproval.id)))
    try:
        boss = services.approver_for(session, actor, deal.id)
        approver = PersonBrief(id=boss.id, name=boss.name, handle=boss.handle)
    except OfficeError:  # an owner without a manager: nobody approves
        approver = None
    return OpportunityDetailOut(**opportunities_out(session, [deal])[0].model_dump(), description=deal.description,
                                line_items=line_items_out(session, items),
                                pending_approvals=approvals_out(session, pending), approver=approver)


def line_item_result_out(session: Session, actor: Person, item: LineItem) -> LineItemResultOut:
    """A line item and its whole deal."""
    deal = opportunity_detail_out(session, actor, session.get(Opportunity, item.opportunity_id))
    return LineItemResultOut(line_item=next(i for i in deal.line_items if i.id == item.id), opportunity=deal)


def line_items_out(session: Session, items: Sequence[LineItem]) -> list[LineItemOut]:
    """Line items with product and price book names."""
    products = _products(session, {i.product_id for i in items})
    books = _refs(session, "price_book", {i.price_book_id for i in items})
    return [LineItemOut(id=i.id, opportunity_id=i.opportunity_id,
                        product=Ref(id=i.product_id, name=products[i.product_id].name),
                        product_code=products[i.product_id].code, price_book=books[i.price_book_id],
                        quantity=i.quantity, unit_price=money(i.unit_price_cents), discount=i.discount_bp / 100,
                        total=money(i.total_cents)) for i in items]


def approvals_out(session: Session, approvals: Sequence[DiscountApproval]) -> list[ApprovalOut]:
    """Discount requests with their deal, line item and people."""
    people = people_briefs(session, {a.requested_by_id for a in approvals} | {a.approver_id for a in approvals})
    deals = _refs(session, "opportunity", {a.opportunity_id for a in approvals})
    ids = {a.line_item_id for a in approvals}
    items = {i.id: i for i in line_items_out(session, list(session.scalars(
        select(LineItem).where(LineItem.id.in_(ids)).order_by(LineItem.id))))} if ids else {}
    return [ApprovalOut(id=a.id, opportunity=deals[a.opportunity_id], line_item=items.get(a.line_item_id),
                        discount=a.discount_bp / 100, reason=a.reason, status=a.status,
                        requested_by=people[a.requested_by_id], approver=people[a.approver_id],
                        requested_at=a.requested_at.isoformat(), decided_at=when(a.decided_at),
                        decision_note=a.decision_note) for a in approvals]


def products_out(session: Session, products: Sequence[Product]) -> list[ProductOut]:
    """Products with their list price in the standard price book."""
    ids = [p.id for p in products]
    prices = dict(session.execute(select(PriceBookEntry.product_id, PriceBookEntry.unit_price_cents)
                                  .join(PriceBook, PriceBook.id == PriceBookEntry.price_book_id)
                                  .where(PriceBook.is_standard.is_(True), PriceBookEntry.product_id.in_(ids))).all()) \
        if ids else {}
    return [ProductOut(id=p.id, code=p.code, name=p.name, family=p.family, description=p.description,
                       is_active=p.is_active, standard_price=money(prices[p.id]) if p.id in prices else None)
            for p in products]


def price_books_out(books: Sequence[PriceBook]) -> list[PriceBookOut]:
    """Price books."""
    return [PriceBookOut(id=b.id, name=b.name, is_standard=b.is_standard, is_active=b.is_active) for b in books]


def entries_out(session: Session, entries: Sequence[PriceBookEntry]) -> list[PriceBookEntryOut]:
    """Price book entries with product and book names."""
    products = _products(session, {e.product_id for e in entries})
    books = _refs(session, "price_book", {e.price_book_id for e in entries})
    return [PriceBookEntryOut(id=e.id, price_book=books[e.price_book_id],
                              product=Ref(id=e.product_id, name=products[e.product_id].name),
                              product_code=products[e.product_id].code,
                              product_is_active=products[e.product_id].is_active,
                              unit_price=money(e.unit_price_cents)) for e in entries]


def activities_out(session: Session, activities: Sequence[Activity]) -> list[ActivityOut]:
    """Activities with the name of the record each is on (one query per record type)."""
    owners = people_briefs(session, {a.owner_id for a in activities})
    names: dict[tuple[str, int], str] = {}
    for kind in {a.record_type for a in activities}:
        for i, ref in _refs(session, kind, {a.record_id for a in activities if a.record_type == kind}).items():
            names[kind, i] = ref.name
    return [ActivityOut(id=a.id, kind=a.kind, subject=a.subject, body=a.body, record_type=a.record_type,
                        record_id=a.record_id, record_name=names.get((a.record_type, a.record_id), ""),
                        owner=owners[a.owner_id], status=a.status, due_date=when(a.due_date),
                        created_at=a.created_at.isoformat(), completed_at=when(a.completed_at))
            for a in activities]


def cases_out(session: Session, cases: Sequence[Case]) -> list[CaseOut]:
    """Cases with their accounts, contacts and owners."""
    owners = people_briefs(session, {c.owner_id for c in cases})
    accounts = _refs(session, "account", {c.account_id for c in cases})
    contacts = _refs(session, "contact", {c.contact_id for c in cases})
    return [CaseOut(id=c.id, subject=c.subject, description=c.description, account=accounts[c.account_id],
                    contact=contacts.get(c.contact_id), owner=owners[c.owner_id], status=c.status,
                    priority=c.priority, origin=c.origin, created_at=c.created_at.isoformat(),
                    closed_at=when(c.closed_at), ticket_key=c.ticket_key) for c in cases]


def pipeline_out(report: services.PipelineReport, group_by: str, stages: str, quarter: str | None) -> PipelineOut:
    """A page of pipeline groups with the totals over all of them, in dollars."""
    out = [PipelineRowOut(key=r.key, label=r.label, count=r.count, amount=money(r.amount_cents),
                          weighted_amount=money(r.weighted_cents)) for r in report.page.items]
    return PipelineOut(group_by=group_by.strip().lower(), stages=stages.strip().lower(), quarter=quarter or None,
                       rows=out, count=report.count, amount=money(report.amount_cents),
                       weighted_amount=money(report.weighted_cents), **page_fields(report.page))


def hits_out(hits: Sequence[services.SearchHit]) -> list[SearchHitOut]:
    """Search hits."""
    return [SearchHitOut(record_type=h.record_type, id=h.id, title=h.title, detail=h.detail) for h in hits]


def history_out(session: Session, changes: Sequence[FieldChange]) -> list[FieldChangeOut]:
    """Field changes with who made them."""
    people = people_briefs(session, {c.changed_by_id for c in changes})
    return [FieldChangeOut(id=c.id, field=c.field, old_value=c.old_value, new_value=c.new_value,
                           changed_by=people[c.changed_by_id], changed_at=c.changed_at.isoformat())
            for c in changes]
