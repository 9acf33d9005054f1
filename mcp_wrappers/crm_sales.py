"""CRM tools, part 2: opportunities and the sales path, products and price books, line items and
discount approvals. Each tool calls one function of officegym.apps.crm.services."""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver import Context
from pydantic import Field

from officegym.apps.crm import presenters, schemas, services

from .base import Id, IdOrName, Limit, Offset, bounded, episode_call, page_of, tool
from .crm import Day, Descending, Money, NewOwner, OpportunityRef, Owner, OwnerFilter, Percent, Text, sort_by

STAGES = "Prospecting, Qualification, Proposal, Negotiation, Closed Won or Closed Lost"
TYPES = "New Business, Renewal or Upsell"
LineItemId = Annotated[Id, Field(description="Numeric id of the line item (crm_get_opportunity lists them)")]
ApprovalId = Annotated[Id, Field(description="Numeric id of the discount request (crm_list_discount_approvals)")]
Note = Text(500, "A note on the decision, shown to the requester")


# ---------------------------------------------------------------- opportunities

@tool(read_only=True)
def crm_list_opportunities(
    ctx: Context,
    query: Text(100, "Part of the opportunity name; empty for all") = "",
    stage: Text(20, f"Only this stage ({STAGES}), or open or closed", True) = None,
    owner: OwnerFilter = None,
    account: Annotated[IdOrName | None, Field(description="Only deals on this account (id or exact name)")] = None,
    close_from: Annotated[str | None, Field(max_length=40, description="Closing on or after, YYYY-MM-DD")] = None,
    close_to: Annotated[str | None, Field(max_length=40, description="Closing on or before, YYYY-MM-DD")] = None,
    sort: sort_by("name, amount, close_date, stage or created", "close_date") = "close_date",
    descending: Descending = False,
    offset: Offset = 0,
    limit: Limit = 50,
) -> schemas.OpportunityPage:
    """List the deals you may see (Sales only: yours and your team's), by name, stage, owner, account and close date."""
    with episode_call(ctx) as (session, actor):
        page = services.list_opportunities(session, actor, query, stage, owner, account, close_from, close_to, sort,
                                           descending, offset, limit)
        return presenters.page_out(schemas.OpportunityPage, presenters.opportunities_out(session, page.items), page)


@tool(read_only=True)
def crm_get_opportunity(ctx: Context, opportunity: OpportunityRef) -> schemas.OpportunityDetailOut:
    """Get a deal with its line items, pending discount requests and who approves discounts on it."""
    with episode_call(ctx) as (session, actor):
        found = services.get_opportunity(session, actor, opportunity)
        return presenters.opportunity_detail_out(session, actor, found)


@tool()
def crm_create_opportunity(
    ctx: Context,
    account: Annotated[IdOrName, Field(description="The account of the deal: numeric id or exact name")],
    name: Text(160, "Name of the deal"),
    close_date: Day,
    amount: Money = 0,
    stage: Text(20, "Open stage to start in: Prospecting (default), Qualification, Proposal or Negotiation") = (
        "Prospecting"),
    type: Text(20, f"Deal type: {TYPES}") = "New Business",
    next_step: Text(250, "The next step, in a few words") = "",
    competitor: Text(80, "Main competitor, if known") = "",
    description: Text(4000, "Longer description of the deal") = "",
    owner: Owner = None,
) -> schemas.OpportunityDetailOut:
    """Create an open opportunity on an account (Sales only)."""
    with episode_call(ctx) as (session, actor):
        made = services.create_opportunity(session, actor, account, name, close_date, amount, stage, type, next_step,
                                           competitor, description, owner)
        return presenters.opportunity_detail_out(session, actor, made)


@tool()
def crm_update_opportunity(
    ctx: Context,
    opportunity: OpportunityRef,
    name: Text(160, "New name; omit to keep", True) = None,
    amount: Annotated[Money | None, Field(description=(
        'New amount in dollars (120000 or "$120,000"); omit to keep. A deal with line items takes their sum'))] = None,
    close_date: Annotated[str | None, Field(max_length=40, description="New close date YYYY-MM-DD; omit to keep")] = None,
    type: Text(20, f"New type ({TYPES}); omit to keep", True) = None,
    next_step: Text(250, "New next step ('' clears it); omit to keep", True) = None,
    competitor: Text(80, "New competitor ('' clears it); omit to keep", True) = None,
    description: Text(4000, "New description ('' clears it); omit to keep", True) = None,
    account: Annotated[IdOrName | None, Field(description="Move to this account (id or exact name); omit to keep")] = None,
    owner: NewOwner = None,
) -> schemas.OpportunityDetailOut:
    """Change fields of an open deal you may edit; the stage moves with crm_move_opportunity_stage."""
    with episode_call(ctx) as (session, actor):
        changed = services.update_opportunity(session, actor, opportunity, name=name, amount=amount,
                                              close_date=close_date, type=type, next_step=next_step,
                                              competitor=competitor, description=description, account=account,
                                              owner=owner)
        return presenters.opportunity_detail_out(session, actor, changed)


@tool()
def crm_move_opportunity_stage(
    ctx: Context,
    opportunity: OpportunityRef,
    stage: Text(20, f"The stage to move to: {STAGES}"),
    loss_reason: Text(20, "For Closed Lost: Price, Competitor, No Budget, No Decision, Timing or Product Fit") = "",
    competitor: Text(80, "For Closed Lost with reason Competitor: who won the deal") = "",
) -> schemas.OpportunityDetailOut:
    """Move an open deal along the sales path: one stage forward (or back), Closed Won from Negotiation, or
    Closed Lost with a loss reason."""
    with episode_call(ctx) as (session, actor):
        moved = services.move_stage(session, actor, opportunity, stage, loss_reason, competitor)
        return presenters.opportunity_detail_out(session, actor, moved)


@tool()
def crm_reopen_opportunity(
    ctx: Context,
    opportunity: OpportunityRef,
    stage: Text(20, "Open stage to reopen into: Prospecting, Qualification, Proposal or Negotiation (default)") = (
        "Negotiation"),
) -> schemas.OpportunityDetailOut:
    """Reopen a closed (won or lost) deal into an open stage; its loss reason and close time are cleared."""
    with episode_call(ctx) as (session, actor):
        return presenters.opportunity_detail_out(session, actor, services.reopen(session, actor, opportunity, stage))


# ---------------------------------------------------------------- products and price books

@tool(read_only=True)
def crm_list_products(
    ctx: Context,
    query: Text(100, "Part of the product name or code; empty for all") = "",
    family: Text(40, "Only this product family", True) = None,
    include_inactive: Annotated[bool, Field(description="Also list products no longer sold")] = False,
    offset: Offset = 0,
    limit: Limit = 50,
) -> schemas.ProductPage:
    """List the product catalog by name, with each product's standard list price."""
    with episode_call(ctx) as (session, actor):
        page = services.list_products(session, actor, query, family, include_inactive, offset, limit)
        return presenters.page_out(schemas.ProductPage, presenters.products_out(session, page.items), page)


@tool(read_only=True)
def crm_list_price_books(ctx: Context, offset: Offset = 0, limit: Limit = 50) -> schemas.PriceBookPage:
    """List the active price books, the standard one first."""
    with episode_call(ctx) as (session, actor):
        page = page_of(services.list_price_books(session, actor), offset, limit)
        return presenters.page_out(schemas.PriceBookPage, presenters.price_books_out(page.items), page)


@tool(read_only=True)
def crm_list_price_book_entries(
    ctx: Context,
    price_book: Annotated[IdOrName | None, Field(description=(
        "The price book: numeric id or exact name; omit for the standard price book"))] = None,
    offset: Offset = 0,
    limit: Limit = 50,
) -> schemas.PriceBookEntryPage:
    """List the list prices of one price book, by product name."""
    with episode_call(ctx) as (session, actor):
        page = services.price_book_entries(session, actor, price_book, offset, limit)
        return presenters.page_out(schemas.PriceBookEntryPage, presenters.entries_out(session, page.items), page)


# ---------------------------------------------------------------- line items

@tool()
def crm_add_line_item(
    ctx: Context,
    opportunity: OpportunityRef,
    product: Annotated[IdOrName, Field(description="The product: numeric id, code (PLT-PRO) or exact name")],
    quantity: bounded(1, 100_000, "How many units (1-100000)") = 1,
    discount: Percent = 0,
    price_book: Annotated[IdOrName | None, Field(description=(
        "Price book (id or exact name); omit for the deal's own, or the standard one"))] = None,
) -> schemas.LineItemResultOut:
    """Add a product to an open deal at its list price; discounts above 20% need crm_request_discount."""
    with episode_call(ctx) as (session, actor):
        item = services.add_line_item(session, actor, opportunity, product, quantity, discount, price_book)
        return presenters.line_item_result_out(session, actor, item)


@tool()
def crm_update_line_item(
    ctx: Context,
    line_item: LineItemId,
    quantity: Annotated[bounded(1, 100_000) | None, Field(description="New quantity; omit to keep")] = None,
    discount: Annotated[Percent | None, Field(description="New discount in percent, up to 20; omit to keep")] = None,
) -> schemas.LineItemResultOut:
    """Change the quantity or discount (up to 20%) of a line item on an open deal; the amount follows."""
    with episode_call(ctx) as (session, actor):
        item = services.update_line_item(session, actor, line_item, quantity, discount)
        return presenters.line_item_result_out(session, actor, item)


@tool(destructive=True)
def crm_remove_line_item(ctx: Context, line_item: LineItemId) -> schemas.OpportunityDetailOut:
    """Take a product off an open deal (its decided discount requests go with it); the amount follows."""
    with episode_call(ctx) as (session, actor):
        return presenters.opportunity_detail_out(session, actor, services.remove_line_item(session, actor, line_item))


# ---------------------------------------------------------------- discount approvals

@tool(read_only=True)
def crm_list_discount_approvals(
    ctx: Context,
    status: Text(10, "Only this status: Pending, Approved or Rejected", True) = None,
    mine: Annotated[bool, Field(description="Only requests waiting on your decision")] = False,
    offset: Offset = 0,
    limit: Limit = 50,
) -> schemas.ApprovalPage:
    """List the discount requests you made, must decide, or may see on deals, newest first."""
    with episode_call(ctx) as (session, actor):
        page = services.list_approvals(session, actor, status, mine, offset, limit)
        return presenters.page_out(schemas.ApprovalPage, presenters.approvals_out(session, page.items), page)


@tool()
def crm_request_discount(
    ctx: Context,
    line_item: LineItemId,
    discount: Annotated[Percent, Field(description="The discount wanted, in percent: above 20, at most 60")],
    reason: Text(500, "Why the customer needs it"),
) -> schemas.ApprovalOut:
    """Ask the deal owner's manager to approve a discount above 20% on one line item."""
    with episode_call(ctx) as (session, actor):
        return presenters.approvals_out(session, [services.request_discount(session, actor, line_item, discount,
                                                                         reason)])[0]


@tool()
def crm_approve_discount(ctx: Context, approval: ApprovalId, note: Note = "") -> schemas.ApprovalOut:
    """Approve a pending discount request (the deal owner's manager only); the discount is applied."""
    with episode_call(ctx) as (session, actor):
        return presenters.approvals_out(session, [services.approve_discount(session, actor, approval, note)])[0]


@tool()
def crm_reject_discount(ctx: Context, approval: ApprovalId, note: Note = "") -> schemas.ApprovalOut:
    """Reject a pending discount request (the deal owner's manager only); the line item keeps its discount."""
    with episode_call(ctx) as (session, actor):
        return presenters.approvals_out(session, [services.reject_discount(session, actor, approval, note)])[0]
