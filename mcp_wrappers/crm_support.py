"""CRM tools, part 3: activities and tasks on any record, customer cases, and the read-only views
across records (pipeline report, search, field history). Each tool calls one function of
officegym.apps.crm.services."""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver import Context
from pydantic import Field, StringConstraints

from officegym.apps.crm import presenters, schemas, services

from .base import Id, IdOrName, Limit, Offset, episode_call, tool
from .crm import AccountRef, NewOwner, Owner, OwnerFilter, Text, sort_by

RecordType = Text(20, "The kind of record: account, contact, lead, opportunity or case")
RecordId = Annotated[IdOrName, Field(description=(
    "The record's numeric id (an account also by exact name, a contact or lead also by email)"))]
CaseId = Annotated[Id, Field(description="Numeric id of the case (crm_list_cases finds cases)")]
KINDS = "call, email, meeting, note or task"
PRIORITY = "Low, Medium, High or Urgent"
ORIGIN = "Email, Phone, Web or Chat"
ContactArg = Annotated[IdOrName | None, Field(description="A contact at the case's account (id or email)")]


# ---------------------------------------------------------------- activities and tasks

@tool(read_only=True)
def crm_list_activities(
    ctx: Context,
    record_type: RecordType,
    record_id: RecordId,
    kind: Text(10, f"Only this kind: {KINDS}", True) = None,
    offset: Offset = 0,
    limit: Limit = 50,
) -> schemas.ActivityPage:
    """List the calls, emails, meetings, notes and tasks logged on one record, newest first (Sales only)."""
    with episode_call(ctx) as (session, actor):
        page = services.list_activities(session, actor, record_type, record_id, kind, offset, limit)
        return presenters.page_out(schemas.ActivityPage, presenters.activities_out(session, page.items), page)


@tool(read_only=True)
def crm_list_my_tasks(
    ctx: Context,
    status: Text(10, "Open (default) or Completed; empty for both", True) = "Open",
    offset: Offset = 0,
    limit: Limit = 50,
) -> schemas.ActivityPage:
    """List your CRM tasks, soonest due first, with the record each is on."""
    with episode_call(ctx) as (session, actor):
        page = services.list_my_tasks(session, actor, status, offset, limit)
        return presenters.page_out(schemas.ActivityPage, presenters.activities_out(session, page.items), page)


@tool()
def crm_log_activity(
    ctx: Context,
    record_type: RecordType,
    record_id: RecordId,
    kind: Text(10, f"What happened: {KINDS} (a task stays open until completed)"),
    subject: Text(200, "One-line subject"),
    body: Text(4000, "Details, notes or minutes") = "",
    due_date: Annotated[str | None, Field(max_length=40, description="For a task only: due date YYYY-MM-DD")] = None,
) -> schemas.ActivityOut:
    """Log a call, email, meeting or note on a record you can see, or give yourself a task on it."""
    with episode_call(ctx) as (session, actor):
        logged = services.log_activity(session, actor, record_type, record_id, kind, subject, body, due_date)
        return presenters.activities_out(session, [logged])[0]


@tool()
def crm_complete_task(ctx: Context, activity: Annotated[Id, Field(description=(
        "Numeric id of the task (crm_list_my_tasks or crm_list_activities)"))]) -> schemas.ActivityOut:
    """Mark an open task done (its owner, or the owner's manager)."""
    with episode_call(ctx) as (session, actor):
        return presenters.activities_out(session, [services.complete_task(session, actor, activity)])[0]


# ---------------------------------------------------------------- cases

@tool(read_only=True)
def crm_list_cases(
    ctx: Context,
    query: Text(100, "Words of the subject or description; empty for all") = "",
    status: Text(10, "Only this status: New, Working, Escalated, Closed, or open for all but Closed", True) = None,
    priority: Text(10, f"Only this priority: {PRIORITY}", True) = None,
    account: Annotated[IdOrName | None, Field(description="Only cases of this account (id or exact name)")] = None,
    owner: OwnerFilter = None,
    sort: sort_by("created, priority, status or subject", "created") = "created",
    descending: Annotated[bool, Field(description="Largest or latest first (default true: newest cases first)")] = True,
    offset: Offset = 0,
    limit: Limit = 50,
) -> schemas.CasePage:
    """List the customer cases you may see (Sales only), by words, status, priority, account and owner."""
    with episode_call(ctx) as (session, actor):
        page = services.list_cases(session, actor, query, status, priority, account, owner, sort, descending,
                                   offset, limit)
        return presenters.page_out(schemas.CasePage, presenters.cases_out(session, page.items), page)


@tool(read_only=True)
def crm_get_case(ctx: Context, case: CaseId) -> schemas.CaseOut:
    """Get one customer case with its account, contact, owner and escalation ticket."""
    with episode_call(ctx) as (session, actor):
        return presenters.cases_out(session, [services.get_case(session, actor, case)])[0]


@tool()
def crm_create_case(
    ctx: Context,
    account: AccountRef,
    subject: Text(200, "One-line summary of the issue"),
    description: Text(4000, "What the customer reported") = "",
    priority: Text(10, f"Priority: {PRIORITY} (default Medium)") = "Medium",
    origin: Text(10, f"How it came in: {ORIGIN} (default Email)") = "Email",
    contact: ContactArg = None,
    owner: Owner = None,
) -> schemas.CaseOut:
    """Open a customer case on an account, in status New (Sales only)."""
    with episode_call(ctx) as (session, actor):
        made = services.create_case(session, actor, account, subject, description, priority, origin, contact, owner)
        return presenters.cases_out(session, [made])[0]


@tool()
def crm_update_case(
    ctx: Context,
    case: CaseId,
    subject: Text(200, "New subject; omit to keep", True) = None,
    description: Text(4000, "New description; omit to keep", True) = None,
    priority: Text(10, f"New priority ({PRIORITY}); omit to keep", True) = None,
    origin: Text(10, f"New origin ({ORIGIN}); omit to keep", True) = None,
    contact: ContactArg = None,
    owner: NewOwner = None,
    status: Text(10, "New status: New, Working or Closed (escalate with crm_escalate_case); omit to keep",
                 True) = None,
) -> schemas.CaseOut:
    """Change a case you may edit, or its status (New, Working, Closed); give only what changes."""
    with episode_call(ctx) as (session, actor):
        changed = services.update_case(session, actor, case, subject=subject, description=description,
                                       priority=priority, origin=origin, contact=contact, owner=owner, status=status)
        return presenters.cases_out(session, [changed])[0]


@tool()
def crm_escalate_case(ctx: Context, case: CaseId, reason: Text(1000, "Why it needs escalating"),
                      ticket: Text(24, "Key of the ticket that tracks the work, such as ENG-42; omit if none",
                                   optional=True) = None) -> schemas.CaseOut:
    """Escalate a New or Working case (priority becomes at least High); the reason is logged as a note,
    and the case keeps the key of the ticket (tickets app) that tracks the work."""
    with episode_call(ctx) as (session, actor):
        return presenters.cases_out(session, [services.escalate_case(session, actor, case, reason, ticket)])[0]


# ---------------------------------------------------------------- reports, search, history

@tool(read_only=True)
def crm_get_pipeline_report(
    ctx: Context,
    group_by: Text(10, "Group the deals by stage (default), owner or quarter") = "stage",
    quarter: Annotated[str | None, Field(max_length=10, description=(
        "Only deals closing in this quarter, written 2026-Q1"))] = None,
    owner: OwnerFilter = None,
    stages: Text(10, "Which deals: open (default), closed or all") = "open",
    offset: Offset = 0,
    limit: Limit = 50,
) -> schemas.PipelineOut:
    """Report the deals you may see grouped by stage, owner (largest amount first) or close quarter:
    count, amount, weighted amount per group, a page of groups at a time, with the totals of all groups."""
    with episode_call(ctx) as (session, actor):
        report = services.pipeline_report(session, actor, group_by, quarter, owner, stages, offset, limit)
        return presenters.pipeline_out(report, group_by, stages, quarter)


@tool(read_only=True)
def crm_search_records(
    ctx: Context,
    query: Text(100, "Part of a name, email, company or subject"),
    record_types: Annotated[list[Annotated[str, StringConstraints(max_length=20)]] | None, Field(
        max_length=5, description="Only these kinds: account, contact, lead, opportunity, case; omit for all")] = None,
    offset: Offset = 0,
    limit: Limit = 20,
) -> schemas.SearchPage:
    """Search accounts, contacts, leads, opportunities and cases you may see by name, email or subject."""
    with episode_call(ctx) as (session, actor):
        page = services.search_records(session, actor, query, record_types, offset, limit)
        return presenters.page_out(schemas.SearchPage, presenters.hits_out(page.items), page)


@tool(read_only=True)
def crm_get_record_history(
    ctx: Context,
    record_type: RecordType,
    record_id: RecordId,
    offset: Offset = 0,
    limit: Limit = 50,
) -> schemas.HistoryPage:
    """Get who changed which field of a record, when, from what to what, newest first."""
    with episode_call(ctx) as (session, actor):
        page = services.record_history(session, actor, record_type, record_id, offset, limit)
        return presenters.page_out(schemas.HistoryPage, presenters.history_out(session, page.items), page)
