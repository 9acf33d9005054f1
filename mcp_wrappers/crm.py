"""CRM tools, part 1: the argument types every CRM tool shares, then accounts, contacts and leads.

Each tool calls one function of officegym.apps.crm.services (where every rule lives, including who
may read and edit what) and presents the result with officegym.apps.crm.presenters. Part 2 (deals,
products, discounts) is crm_sales.py; part 3 (activities, cases, reports) is crm_support.py.
"""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context
from pydantic import BeforeValidator, Field, StringConstraints

from officegym.apps.crm import presenters, schemas, services

from .base import IdOrName, Limit, Offset, episode_call, tool


def _not_bool(value: Any) -> Any:
    # JSON true/false would otherwise pass as the numbers 1 and 0.
    if isinstance(value, bool):
        raise ValueError("expected a number or text, not true/false")
    return value


def Text(limit: int, description: str, optional: bool = False) -> Any:
    """A text argument of at most `limit` characters (None allowed when optional)."""
    kind = str | None if optional else str
    return Annotated[kind, Field(max_length=limit, description=description)]


NumberOrText = Annotated[float | Annotated[str, StringConstraints(max_length=40)], BeforeValidator(_not_bool)]
Money = Annotated[NumberOrText, Field(description='Dollars as a number (120000) or text such as "$120,000.50"')]
Percent = Annotated[NumberOrText, Field(description="A discount in percent, 0-100, up to two decimals (e.g. 15)")]
Day = Annotated[str, Field(max_length=40, description="A date written YYYY-MM-DD")]
AccountRef = Annotated[IdOrName, Field(description="The account: numeric id or exact name")]
ContactRef = Annotated[IdOrName, Field(description="The contact: numeric id or email address")]
LeadRef = Annotated[IdOrName, Field(description="The lead: numeric id or email address")]
OpportunityRef = Annotated[IdOrName, Field(description="The opportunity: numeric id or exact name")]
OwnerFilter = Annotated[IdOrName | None, Field(description=(
    "Only records owned by this person: @handle, email, full name or numeric id"))]
Owner = Annotated[IdOrName | None, Field(description=(
    "The owner, a Sales person: @handle, email, full name or id; omit for yourself. Managers may name their reports"))]
NewOwner = Annotated[IdOrName | None, Field(description=(
    "New owner (a Sales person you may assign to): @handle, email, full name or id; omit to keep"))]
Query = Text(100, "Part of the name (or email, website, company) to look for; empty for all")
Descending = Annotated[bool, Field(description="true to sort from the largest, latest or last first")]
INDUSTRY = "Industry: Software, Financial Services, Healthcare, Manufacturing, Retail, Education, ..."
SIZE = "Employee band: 1-50, 51-200, 201-1000, 1001-5000 or 5000+"
REGION = "Region: North America, EMEA, APAC or LATAM"
SOURCE = "Lead source: Web, Referral, Event, Cold Call, Partner or Inbound Call"


def sort_by(choices: str, default: str) -> Any:
    """A sort-column argument naming its choices."""
    return Annotated[str, Field(max_length=20, description=f"Sort by {choices} (default {default})")]


# ---------------------------------------------------------------- accounts

@tool(read_only=True)
def crm_list_accounts(
    ctx: Context,
    query: Query = "",
    industry: Text(40, f"Only this industry. {INDUSTRY}", True) = None,
    region: Text(20, f"Only this region. {REGION}", True) = None,
    owner: OwnerFilter = None,
    sort: sort_by("name, created, industry, region or size", "name") = "name",
    descending: Descending = False,
    offset: Offset = 0,
    limit: Limit = 50,
) -> schemas.AccountPage:
    """List customer accounts (everyone may), filtered by name or website, industry, region and owner."""
    with episode_call(ctx) as (session, actor):
        page = services.list_accounts(session, actor, query, industry, region, owner, sort, descending, offset, limit)
        return presenters.page_out(schemas.AccountPage, presenters.accounts_out(session, page.items), page)


@tool(read_only=True)
def crm_get_account(ctx: Context, account: AccountRef) -> schemas.AccountDetailOut:
    """Get an account with its parent, child accounts, contacts, the deals you may see and how many open cases it
    has (crm_list_cases lists them)."""
    with episode_call(ctx) as (session, actor):
        return presenters.account_detail_out(session, actor, services.get_account(session, actor, account))


@tool()
def crm_create_account(
    ctx: Context,
    name: Text(160, "Company name, unique among accounts"),
    industry: Text(40, INDUSTRY) = "",
    size: Text(12, SIZE) = "",
    region: Text(20, REGION) = "",
    website: Text(160, "Website such as example.com") = "",
    phone: Text(40, "Phone number (digits, spaces, + ( ) - . x)") = "",
    parent: Annotated[IdOrName | None, Field(description="Parent account: numeric id or exact name")] = None,
    owner: Owner = None,
) -> schemas.AccountDetailOut:
    """Create an account (Sales only); you own it unless, as a manager, you name one of your reports."""
    with episode_call(ctx) as (session, actor):
        made = services.create_account(session, actor, name, industry, size, region, website, phone, parent, owner)
        return presenters.account_detail_out(session, actor, made)


@tool()
def crm_update_account(
    ctx: Context,
    account: AccountRef,
    name: Text(160, "New name; omit to keep", True) = None,
    industry: Text(40, f"New industry; omit to keep. {INDUSTRY}", True) = None,
    size: Text(12, f"New size; omit to keep. {SIZE}", True) = None,
    region: Text(20, f"New region; omit to keep. {REGION}", True) = None,
    website: Text(160, "New website ('' clears it); omit to keep", True) = None,
    phone: Text(40, "New phone ('' clears it); omit to keep", True) = None,
    parent: Annotated[IdOrName | None, Field(description=(
        "New parent account (id or exact name; '' makes it top-level); omit to keep"))] = None,
    owner: NewOwner = None,
) -> schemas.AccountDetailOut:
    """Change fields of an account you may edit (yours, or your reports' as a manager); give only what changes."""
    with episode_call(ctx) as (session, actor):
        changed = services.update_account(session, actor, account, name=name, industry=industry, size=size,
                                          region=region, website=website, phone=phone, parent=parent, owner=owner)
        return presenters.account_detail_out(session, actor, changed)


# ---------------------------------------------------------------- contacts

@tool(read_only=True)
def crm_list_contacts(
    ctx: Context,
    query: Text(100, "Part of the name, email or title to look for; empty for all") = "",
    account: Annotated[IdOrName | None, Field(description="Only contacts at this account (id or exact name)")] = None,
    owner: OwnerFilter = None,
    sort: sort_by("name, created or title", "name") = "name",
    descending: Descending = False,
    offset: Offset = 0,
    limit: Limit = 50,
) -> schemas.ContactPage:
    """List contacts (everyone may), by name, email or title, optionally at one account."""
    with episode_call(ctx) as (session, actor):
        page = services.list_contacts(session, actor, query, account, owner, sort, descending, offset, limit)
        return presenters.page_out(schemas.ContactPage, presenters.contacts_out(session, page.items), page)


@tool(read_only=True)
def crm_get_contact(ctx: Context, contact: ContactRef) -> schemas.ContactOut:
    """Get one contact with their account and owner."""
    with episode_call(ctx) as (session, actor):
        return presenters.contacts_out(session, [services.get_contact(session, actor, contact)])[0]


@tool()
def crm_create_contact(
    ctx: Context,
    account: AccountRef,
    first_name: Text(60, "First (given) name"),
    last_name: Text(60, "Last (family) name"),
    title: Text(120, "Job title, e.g. VP Finance") = "",
    email: Text(160, "Email address") = "",
    phone: Text(40, "Phone number") = "",
    owner: Owner = None,
) -> schemas.ContactOut:
    """Add a contact at an account (Sales only)."""
    with episode_call(ctx) as (session, actor):
        made = services.create_contact(session, actor, account, first_name, last_name, title, email, phone, owner)
        return presenters.contacts_out(session, [made])[0]


@tool()
def crm_update_contact(
    ctx: Context,
    contact: ContactRef,
    first_name: Text(60, "New first name; omit to keep", True) = None,
    last_name: Text(60, "New last name; omit to keep", True) = None,
    title: Text(120, "New title ('' clears it); omit to keep", True) = None,
    email: Text(160, "New email ('' clears it); omit to keep", True) = None,
    phone: Text(40, "New phone ('' clears it); omit to keep", True) = None,
    account: Annotated[IdOrName | None, Field(description="Move to this account (id or exact name); omit to keep")] = None,
    owner: NewOwner = None,
) -> schemas.ContactOut:
    """Change fields of a contact you may edit; give only what changes."""
    with episode_call(ctx) as (session, actor):
        changed = services.update_contact(session, actor, contact, first_name=first_name, last_name=last_name,
                                          title=title, email=email, phone=phone, account=account, owner=owner)
        return presenters.contacts_out(session, [changed])[0]


# ---------------------------------------------------------------- leads

@tool(read_only=True)
def crm_list_leads(
    ctx: Context,
    query: Text(100, "Part of the name, company or email to look for; empty for all") = "",
    status: Text(20, "Only this status: New, Working, Qualified, Unqualified or Converted", True) = None,
    source: Text(20, f"Only this source. {SOURCE}", True) = None,
    owner: OwnerFilter = None,
    sort: sort_by("name, company, created or status", "created") = "created",
    descending: Annotated[bool, Field(description="Largest or latest first (default true: newest leads first)")] = True,
    offset: Offset = 0,
    limit: Limit = 50,
) -> schemas.LeadPage:
    """List the leads you may see (Sales only: yours and your team's), by name, company, status and source."""
    with episode_call(ctx) as (session, actor):
        page = services.list_leads(session, actor, query, status, source, owner, sort, descending, offset, limit)
        return presenters.page_out(schemas.LeadPage, presenters.leads_out(session, page.items), page)


@tool(read_only=True)
def crm_get_lead(ctx: Context, lead: LeadRef) -> schemas.LeadOut:
    """Get one lead; a converted lead names the account, contact and opportunity it became."""
    with episode_call(ctx) as (session, actor):
        return presenters.leads_out(session, [services.get_lead(session, actor, lead)])[0]


@tool()
def crm_create_lead(
    ctx: Context,
    first_name: Text(60, "First (given) name"),
    last_name: Text(60, "Last (family) name"),
    company: Text(160, "The lead's company"),
    source: Text(20, SOURCE) = "Web",
    title: Text(120, "Job title, e.g. VP Finance") = "",
    email: Text(160, "Email address") = "",
    phone: Text(40, "Phone number") = "",
    owner: Owner = None,
) -> schemas.LeadOut:
    """Create a lead in status New (Sales only)."""
    with episode_call(ctx) as (session, actor):
        made = services.create_lead(session, actor, first_name, last_name, company, source, title, email, phone, owner)
        return presenters.leads_out(session, [made])[0]


@tool()
def crm_update_lead(
    ctx: Context,
    lead: LeadRef,
    first_name: Text(60, "New first name; omit to keep", True) = None,
    last_name: Text(60, "New last name; omit to keep", True) = None,
    company: Text(160, "New company; omit to keep", True) = None,
    title: Text(120, "New title ('' clears it); omit to keep", True) = None,
    email: Text(160, "New email ('' clears it); omit to keep", True) = None,
    phone: Text(40, "New phone ('' clears it); omit to keep", True) = None,
    source: Text(20, f"New source; omit to keep. {SOURCE}", True) = None,
    status: Text(20, "New status: New, Working, Qualified or Unqualified (convert with crm_convert_lead)",
                 True) = None,
    owner: NewOwner = None,
) -> schemas.LeadOut:
    """Change fields or the status of an unconverted lead you may edit; give only what changes."""
    with episode_call(ctx) as (session, actor):
        changed = services.update_lead(session, actor, lead, first_name=first_name, last_name=last_name,
                                       company=company, title=title, email=email, phone=phone, source=source,
                                       status=status, owner=owner)
        return presenters.leads_out(session, [changed])[0]


@tool()
def crm_convert_lead(
    ctx: Context,
    lead: LeadRef,
    account: Annotated[IdOrName | None, Field(description=(
        "Convert into this existing account (id or exact name); omit to create an account named after the "
        "lead's company"))] = None,
    create_opportunity: Annotated[bool, Field(description="Also create an opportunity (default true)")] = True,
    opportunity_name: Text(160, 'Name of the new opportunity; empty for "<company> - New Business"') = "",
    amount: Money = 0,
    close_date: Annotated[str | None, Field(max_length=40, description=(
        "Close date of the new opportunity, YYYY-MM-DD; omit for 90 days from today"))] = None,
    stage: Text(20, "Open stage of the new opportunity: Prospecting, Qualification (default), Proposal or "
                    "Negotiation") = "Qualification",
    industry: Text(40, f"Industry of a new account. {INDUSTRY}") = "",
    size: Text(12, f"Size of a new account. {SIZE}") = "",
    region: Text(20, f"Region of a new account. {REGION}") = "",
) -> schemas.ConversionOut:
    """Convert a lead into a contact at a new or existing account, and optionally an opportunity; all or nothing."""
    with episode_call(ctx) as (session, actor):
        converted = services.convert_lead(session, actor, lead, account, create_opportunity, opportunity_name,
                                          amount, close_date, stage, industry, size, region)
        return presenters.conversion_out(session, converted)
