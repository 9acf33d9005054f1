"""Output models of the CRM, shared by the MCP tools and the UI's JSON. The converters that build
them from the services' records live in presenters.py.

Money goes out in dollars with two decimals and discounts in percent; the tables keep cents and
hundredths of a percent.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from officegym.apps.org.schemas import PageFields, PersonBrief, Ref, page_model


class AccountOut(BaseModel):
    """A customer or prospect company."""

    id: int
    name: str
    industry: str
    size: str = Field(description="Employee band such as 201-1000")
    region: str
    website: str
    phone: str
    owner: PersonBrief
    parent: Ref | None = Field(description="The parent account, null for a top-level account")
    created_at: str


class ContactOut(BaseModel):
    """A person at an account."""

    id: int
    name: str
    first_name: str
    last_name: str
    title: str
    email: str
    phone: str
    account: Ref
    owner: PersonBrief
    created_at: str


class OpportunityOut(BaseModel):
    """A deal: where it stands on the sales path and what it is worth."""

    id: int
    name: str
    account: Ref
    owner: PersonBrief
    stage: str
    probability: int = Field(description="Win probability in percent, set by the stage")
    amount: float = Field(description="Dollars; the sum of the line items when it has any")
    close_date: str
    type: str
    next_step: str
    competitor: str
    loss_reason: str = Field(description="Why a Closed Lost deal was lost; empty otherwise")
    created_at: str
    closed_at: str | None
    has_line_items: bool = Field(description="When true the amount follows the line items")


class LineItemOut(BaseModel):
    """A product on a deal."""

    id: int
    opportunity_id: int
    product: Ref
    product_code: str
    price_book: Ref
    quantity: int
    unit_price: float = Field(description="List price in dollars")
    discount: float = Field(description="Discount in percent")
    total: float = Field(description="quantity × unit_price less the discount, in dollars")


class ApprovalOut(BaseModel):
    """A request for a discount above the limit, and its decision."""

    id: int
    opportunity: Ref
    line_item: LineItemOut | None
    discount: float = Field(description="Requested discount in percent")
    reason: str
    status: str = Field(description="Pending, Approved or Rejected")
    requested_by: PersonBrief
    approver: PersonBrief = Field(description="The deal owner's manager, who decides")
    requested_at: str
    decided_at: str | None
    decision_note: str


class OpportunityDetailOut(OpportunityOut):
    """A deal with its products, pending discount requests and who approves discounts."""

    description: str
    line_items: list[LineItemOut]
    pending_approvals: list[ApprovalOut]
    approver: PersonBrief | None = Field(description="Who approves discounts above the limit (the owner's manager)")


class LineItemResultOut(BaseModel):
    """A line item just added or changed, and its deal as it now stands."""

    line_item: LineItemOut
    opportunity: OpportunityDetailOut


class AccountDetailOut(AccountOut):
    """An account with its child accounts, contacts, the deals you can see and open cases."""

    children: list[Ref]
    contacts: list[ContactOut]
    opportunities: list[OpportunityOut] = Field(description="Deals on it you may see (none outside Sales)")
    opportunity_count: int = Field(description="How many such deals in all (at most 200 are listed)")
    open_case_count: int = Field(description="Open cases on it that you may see")


class LeadOut(BaseModel):
    """A prospective buyer; after conversion, where it went."""

    id: int
    name: str
    first_name: str
    last_name: str
    company: str
    title: str
    email: str
    phone: str
    source: str
    status: str
    owner: PersonBrief
    created_at: str
    converted_at: str | None
    converted_account: Ref | None
    converted_contact: Ref | None
    converted_opportunity: Ref | None


class ConversionOut(BaseModel):
    """A converted lead and the records it became."""

    lead: LeadOut
    account: AccountOut
    contact: ContactOut
    opportunity: OpportunityOut | None


class ProductOut(BaseModel):
    """Something the company sells."""

    id: int
    code: str
    name: str
    family: str
    description: str
    is_active: bool = Field(description="Inactive products can no longer be added to deals")
    standard_price: float | None = Field(description="List price in the standard price book, in dollars")


class PriceBookOut(BaseModel):
    """A named list of prices."""

    id: int
    name: str
    is_standard: bool
    is_active: bool


class PriceBookEntryOut(BaseModel):
    """The list price of one product in one price book."""

    id: int
    price_book: Ref
    product: Ref
    product_code: str
    product_is_active: bool
    unit_price: float = Field(description="Dollars")


class ActivityOut(BaseModel):
    """A call, email, meeting, note or task on a record."""

    id: int
    kind: str
    subject: str
    body: str
    record_type: str
    record_id: int
    record_name: str
    owner: PersonBrief
    status: str = Field(description="Open or Completed (only tasks are ever Open)")
    due_date: str | None
    created_at: str
    completed_at: str | None


class CaseOut(BaseModel):
    """A customer issue on an account."""

    id: int
    subject: str
    description: str
    account: Ref
    contact: Ref | None
    owner: PersonBrief
    status: str
    priority: str
    origin: str
    created_at: str
    closed_at: str | None
    ticket_key: str | None = Field(description="The ticket it was escalated to, if any")


class PipelineRowOut(BaseModel):
    """One group of the pipeline."""

    key: str = Field(description="Stage name, owner id or quarter (2026-Q1)")
    label: str
    count: int
    amount: float = Field(description="Sum of the amounts, dollars")
    weighted_amount: float = Field(description="Sum of amount × probability, dollars")


class PipelineOut(PageFields):
    """The pipeline report: one page of groups (`total` counts the groups) and the sums over all of them."""

    group_by: str
    stages: str
    quarter: str | None
    rows: list[PipelineRowOut] = Field(description="One page of groups")
    count: int = Field(description="Deals in every group")
    amount: float = Field(description="Sum of the amounts of every group, dollars")
    weighted_amount: float = Field(description="Sum of the weighted amounts of every group, dollars")


class SearchHitOut(BaseModel):
    """A record found by search."""

    record_type: str
    id: int
    title: str
    detail: str


class FieldChangeOut(BaseModel):
    """One change of one field of a record."""

    id: int
    field: str
    old_value: str
    new_value: str
    changed_by: PersonBrief
    changed_at: str


AccountPage = page_model("AccountPage", AccountOut, "accounts", __name__)
ContactPage = page_model("ContactPage", ContactOut, "contacts", __name__)
LeadPage = page_model("LeadPage", LeadOut, "leads", __name__)
OpportunityPage = page_model("OpportunityPage", OpportunityOut, "opportunities", __name__)
ProductPage = page_model("ProductPage", ProductOut, "products", __name__)
PriceBookPage = page_model("PriceBookPage", PriceBookOut, "price books", __name__)
PriceBookEntryPage = page_model("PriceBookEntryPage", PriceBookEntryOut, "price book entries", __name__)
ApprovalPage = page_model("ApprovalPage", ApprovalOut, "discount approval requests", __name__)
ActivityPage = page_model("ActivityPage", ActivityOut, "activities", __name__)
CasePage = page_model("CasePage", CaseOut, "cases", __name__)
SearchPage = page_model("SearchPage", SearchHitOut, "search hits", __name__)
HistoryPage = page_model("HistoryPage", FieldChangeOut, "field changes, newest first", __name__)
