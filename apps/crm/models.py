"""CRM tables: accounts, contacts, leads, opportunities, products and price books, line items,
discount approvals, activities, cases and the field history of every record.

Money is stored as whole cents (integers), so sums and discounts are exact and a world is the same
to the byte everywhere; services speak dollars with two decimals.
"""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import BigInteger, Boolean, Date, DateTime, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from officegym.db import Base

from .schema_triggers import TOTALS, pipeline_total_triggers

INDUSTRIES = ("Software", "Financial Services", "Healthcare", "Manufacturing", "Retail", "Education",
              "Government", "Media", "Logistics", "Energy", "Telecommunications", "Hospitality")
SIZES = ("1-50", "51-200", "201-1000", "1001-5000", "5000+")
REGIONS = ("North America", "EMEA", "APAC", "LATAM")

LEAD_SOURCES = ("Web", "Referral", "Event", "Cold Call", "Partner", "Inbound Call")
LEAD_STATUSES = ("New", "Working", "Qualified", "Unqualified", "Converted")

# The sales path and the win probability (percent) each stage implies.
OPEN_STAGES = ("Prospecting", "Qualification", "Proposal", "Negotiation")
CLOSED_STAGES = ("Closed Won", "Closed Lost")
STAGES = OPEN_STAGES + CLOSED_STAGES
STAGE_PROBABILITY = {"Prospecting": 10, "Qualification": 25, "Proposal": 50, "Negotiation": 75,
                     "Closed Won": 100, "Closed Lost": 0}
LOSS_REASONS = ("Price", "Competitor", "No Budget", "No Decision", "Timing", "Product Fit")
OPPORTUNITY_TYPES = ("New Business", "Renewal", "Upsell")

ACTIVITY_KINDS = ("call", "email", "meeting", "note", "task")
TASK_STATUSES = ("Open", "Completed")
RECORD_TYPES = ("account", "contact", "lead", "opportunity", "case")

CASE_STATUSES = ("New", "Working", "Escalated", "Closed")
CASE_PRIORITIES = ("Low", "Medium", "High", "Urgent")
CASE_ORIGINS = ("Email", "Phone", "Web", "Chat")

APPROVAL_STATUSES = ("Pending", "Approved", "Rejected")
# A discount above this percentage needs the owner's manager's approval.
DISCOUNT_LIMIT = 20


class Account(Base):
    """A customer or prospect company, optionally part of a parent account."""

    __tablename__ = "crm_account"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(160), unique=True)
    industry: Mapped[str] = mapped_column(String(40))
    size: Mapped[str] = mapped_column(String(12))
    region: Mapped[str] = mapped_column(String(20))
    website: Mapped[str] = mapped_column(String(160), default="")
    phone: Mapped[str] = mapped_column(String(40), default="")
    owner_id: Mapped[int] = mapped_column(ForeignKey("org_person.id"), index=True)
    parent_id: Mapped[int | None] = mapped_column(ForeignKey("crm_account.id"), index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime)

    parent: Mapped[Account | None] = relationship(remote_side=[id])

    def __repr__(self) -> str:
        return f"<Account {self.id} {self.name!r}>"


class Contact(Base):
    """A person at an account."""

    __tablename__ = "crm_contact"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("crm_account.id"), index=True)
    first_name: Mapped[str] = mapped_column(String(60))
    last_name: Mapped[str] = mapped_column(String(60), index=True)
    title: Mapped[str] = mapped_column(String(120), default="")
    email: Mapped[str] = mapped_column(String(160), default="", index=True)
    phone: Mapped[str] = mapped_column(String(40), default="")
    owner_id: Mapped[int] = mapped_column(ForeignKey("org_person.id"), index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime)

    account: Mapped[Account] = relationship()

    @property
    def name(self) -> str:
        """First and last name."""
        return f"{self.first_name} {self.last_name}"


class Lead(Base):
    """A prospective buyer not yet qualified; conversion turns it into a contact at an account
    (new or existing) and optionally an opportunity."""

    __tablename__ = "crm_lead"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    first_name: Mapped[str] = mapped_column(String(60))
    last_name: Mapped[str] = mapped_column(String(60), index=True)
    company: Mapped[str] = mapped_column(String(160), index=True)
    title: Mapped[str] = mapped_column(String(120), default="")
    email: Mapped[str] = mapped_column(String(160), default="")
    phone: Mapped[str] = mapped_column(String(40), default="")
    source: Mapped[str] = mapped_column(String(20))
    status: Mapped[str] = mapped_column(String(12), default="New", index=True)
    owner_id: Mapped[int] = mapped_column(ForeignKey("org_person.id"), index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime)
    converted_at: Mapped[datetime | None] = mapped_column(DateTime)
    converted_account_id: Mapped[int | None] = mapped_column(ForeignKey("crm_account.id"))
    converted_contact_id: Mapped[int | None] = mapped_column(ForeignKey("crm_contact.id"))
    converted_opportunity_id: Mapped[int | None] = mapped_column(ForeignKey("crm_opportunity.id"))

    @property
    def name(self) -> str:
        """First and last name."""
        return f"{self.first_name} {self.last_name}"


class Opportunity(Base):
    """A deal with an account. `amount_cents` is the sum of the line items when there are any."""

    __tablename__ = "crm_opportunity"
    # Deals by stage and close date, covering what the pipeline report sums: it reads the index alone.
    __table_args__ = (Index("ix_crm_opportunity_stage_close", "stage", "close_date", "owner_id", "amount_cents",
                            "probability"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(160), index=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("crm_account.id"), index=True)
    owner_id: Mapped[int] = mapped_column(ForeignKey("org_person.id"), index=True)
    type: Mapped[str] = mapped_column(String(20), default="New Business")
    stage: Mapped[str] = mapped_column(String(20), default="Prospecting")
    amount_cents: Mapped[int] = mapped_column(Integer, default=0)
    close_date: Mapped[date] = mapped_column(Date)
    probability: Mapped[int] = mapped_column(Integer, default=10)
    next_step: Mapped[str] = mapped_column(String(250), default="")
    competitor: Mapped[str] = mapped_column(String(80), default="")
    loss_reason: Mapped[str] = mapped_column(String(20), default="")
    description: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(DateTime)
    closed_at: Mapped[datetime | None] = mapped_column(DateTime)

    account: Mapped[Account] = relationship()

    @property
    def is_closed(self) -> bool:
        """Closed Won and Closed Lost are final until reopened."""
        return self.stage in CLOSED_STAGES

    @property
    def amount(self) -> float:
        """The amount in dollars."""
        return self.amount_cents / 100

    def __repr__(self) -> str:
        return f"<Opportunity {self.id} {self.name!r} {self.stage}>"


class PipelineTotal(Base):
    """The deals of one owner in one stage, summed: kept by database triggers on crm_opportunity
    (schema_triggers.py), never written by code, so the pipeline report reads one row per owner
    and stage instead of every deal. Derived data: graders ignore it."""

    __tablename__ = TOTALS
    # "derived": filled by the triggers, so a copy of a world skips it; "triggers": their DDL.
    # Without a rowid, SQLite stores the rows in (owner, stage) order: a report by owner reads
    # them in one pass, with no second lookup per row.
    __table_args__ = {"info": {"derived": True, "triggers": pipeline_total_triggers}, "sqlite_with_rowid": False}
    owner_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    stage: Mapped[str] = mapped_column(String(20), primary_key=True)
    deals: Mapped[int] = mapped_column(Integer)
    amount_cents: Mapped[int] = mapped_column(BigInteger)
    weighted: Mapped[int] = mapped_column(BigInteger)  # sum of amount_cents x probability (percent)

    def __repr__(self) -> str:
        return f"<PipelineTotal owner={self.owner_id} {self.stage} deals={self.deals}>"


class Product(Base):
    """Something the company sells."""

    __tablename__ = "crm_product"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    code: Mapped[str] = mapped_column(String(24), unique=True)
    name: Mapped[str] = mapped_column(String(120), unique=True)
    family: Mapped[str] = mapped_column(String(40))
    description: Mapped[str] = mapped_column(String(250), default="")
    is_active: Mapped[bool] = mapped_column(Boolean, default=True)


class PriceBook(Base):
    """A named list of prices; one is the standard price book."""

    __tablename__ = "crm_price_book"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(80), unique=True)
    is_standard: Mapped[bool] = mapped_column(Boolean, default=False)
    is_active: Mapped[bool] = mapped_column(Boolean, default=True)


class PriceBookEntry(Base):
    """The list price of one product in one price book."""

    __tablename__ = "crm_price_book_entry"
    __table_args__ = (UniqueConstraint("price_book_id", "product_id"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    price_book_id: Mapped[int] = mapped_column(ForeignKey("crm_price_book.id"), index=True)
    product_id: Mapped[int] = mapped_column(ForeignKey("crm_product.id"), index=True)
    unit_price_cents: Mapped[int] = mapped_column(Integer)

    product: Mapped[Product] = relationship()
    price_book: Mapped[PriceBook] = relationship()


class LineItem(Base):
    """A product on an opportunity: quantity × list price, less a discount (percent, up to two
    decimals, stored in hundredths of a percent)."""

    __tablename__ = "crm_line_item"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    opportunity_id: Mapped[int] = mapped_column(ForeignKey("crm_opportunity.id"), index=True)
    product_id: Mapped[int] = mapped_column(ForeignKey("crm_product.id"))
    price_book_id: Mapped[int] = mapped_column(ForeignKey("crm_price_book.id"))
    quantity: Mapped[int] = mapped_column(Integer)
    unit_price_cents: Mapped[int] = mapped_column(Integer)
    discount_bp: Mapped[int] = mapped_column(Integer, default=0)  # 1250 = 12.50 %
    total_cents: Mapped[int] = mapped_column(Integer)

    product: Mapped[Product] = relationship()

    @property
    def discount(self) -> float:
        """The discount in percent."""
        return self.discount_bp / 100


class DiscountApproval(Base):
    """A request to discount a line item above the limit, decided by the owner's manager."""

    __tablename__ = "crm_discount_approval"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    line_item_id: Mapped[int] = mapped_column(ForeignKey("crm_line_item.id"), index=True)
    opportunity_id: Mapped[int] = mapped_column(ForeignKey("crm_opportunity.id"), index=True)
    discount_bp: Mapped[int] = mapped_column(Integer)
    reason: Mapped[str] = mapped_column(String(500))
    status: Mapped[str] = mapped_column(String(10), default="Pending", index=True)
    requested_by_id: Mapped[int] = mapped_column(ForeignKey("org_person.id"))
    approver_id: Mapped[int] = mapped_column(ForeignKey("org_person.id"), index=True)
    requested_at: Mapped[datetime] = mapped_column(DateTime)
    decided_at: Mapped[datetime | None] = mapped_column(DateTime)
    decision_note: Mapped[str] = mapped_column(String(500), default="")

    @property
    def discount(self) -> float:
        """The requested discount in percent."""
        return self.discount_bp / 100


class Activity(Base):
    """A call, email, meeting, note or task logged on any CRM record."""

    __tablename__ = "crm_activity"
    __table_args__ = (Index("ix_crm_activity_record", "record_type", "record_id"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(10))
    subject: Mapped[str] = mapped_column(String(200))
    body: Mapped[str] = mapped_column(Text, default="")
    record_type: Mapped[str] = mapped_column(String(12))
    record_id: Mapped[int] = mapped_column(Integer)
    owner_id: Mapped[int] = mapped_column(ForeignKey("org_person.id"), index=True)
    due_date: Mapped[date | None] = mapped_column(Date)
    status: Mapped[str] = mapped_column(String(10), default="Completed")
    created_at: Mapped[datetime] = mapped_column(DateTime)
    completed_at: Mapped[datetime | None] = mapped_column(DateTime)


class Case(Base):
    """A customer issue on an account; `ticket_key` will name the tickets-app ticket an escalation
    becomes, once that app exists (None until then)."""

    __tablename__ = "crm_case"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    subject: Mapped[str] = mapped_column(String(200))
    description: Mapped[str] = mapped_column(Text, default="")
    account_id: Mapped[int] = mapped_column(ForeignKey("crm_account.id"), index=True)
    contact_id: Mapped[int | None] = mapped_column(ForeignKey("crm_contact.id"))
    owner_id: Mapped[int] = mapped_column(ForeignKey("org_person.id"), index=True)
    status: Mapped[str] = mapped_column(String(10), default="New", index=True)
    priority: Mapped[str] = mapped_column(String(10), default="Medium")
    origin: Mapped[str] = mapped_column(String(10), default="Email")
    created_at: Mapped[datetime] = mapped_column(DateTime)
    closed_at: Mapped[datetime | None] = mapped_column(DateTime)
    ticket_key: Mapped[str | None] = mapped_column(String(24))

    account: Mapped[Account] = relationship()


class FieldChange(Base):
    """Who changed which field of which record, when, from what to what. Written by the services
    alongside each change; graders treat it as bookkeeping (it mirrors changes they already see)."""

    __tablename__ = "crm_field_history"
    __table_args__ = (Index("ix_crm_field_history_record", "record_type", "record_id", "id"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    record_type: Mapped[str] = mapped_column(String(12))
    record_id: Mapped[int] = mapped_column(Integer)
    field: Mapped[str] = mapped_column(String(40))
    old_value: Mapped[str] = mapped_column(String(500), default="")
    new_value: Mapped[str] = mapped_column(String(500), default="")
    changed_by_id: Mapped[int] = mapped_column(ForeignKey("org_person.id"))
    changed_at: Mapped[datetime] = mapped_column(DateTime)
