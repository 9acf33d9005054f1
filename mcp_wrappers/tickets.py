"""Tickets tools, part 1: the argument types every tickets tool shares, then projects, components,
assignment groups, sprints, boards and ticket search.

Each tool calls one function of officegym.apps.tickets.services (where every rule lives, including
who may see and change what) and presents the result with officegym.apps.tickets.presenters. Part 2
(working one ticket: filing, editing, assigning, moving, comments, watchers, links, history) is
tickets_work.py.
"""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context
from pydantic import Field

from officegym.apps.tickets import presenters, schemas, services

from .base import IdOrName, Limit, Offset, PersonRef, bounded, episode_call, page_of, tool


def Text(limit: int, description: str, optional: bool = False) -> Any:
    """A text argument of at most `limit` characters (None allowed when optional)."""
    kind = str | None if optional else str
    return Annotated[kind, Field(max_length=limit, description=description)]


ProjectRef = Annotated[IdOrName, Field(description="The project: its key (such as IT or ENG), exact name or id")]
GroupRef = Annotated[IdOrName, Field(description="The assignment group: exact name (such as IT Support) or id")]
SprintRef = Annotated[IdOrName, Field(description="A sprint of the project: exact name or id (tickets_list_sprints)")]
Day = Annotated[str, Field(max_length=40, description="A date written YYYY-MM-DD")]
QUERY = (
    "A JQL-like query: clauses `field operator value` joined by AND, OR, NOT and parentheses, then an optional "
    "ORDER BY field [ASC|DESC], ... Fields: project, key, type, status, statusCategory (Done, \"To Do\", "
    "\"In Progress\"), resolution, priority, impact, urgency, assignee, reporter, group, labels, component, sprint, "
    "parent, watcher, summary, description, text, created, updated, resolved, due, account, points. Operators: "
    "= != ~ !~ (contains) < <= > >= IN (...) NOT IN (...) IS EMPTY, IS NOT EMPTY. Values: words, \"quoted text\", "
    "@handles, dates 2026-03-01 or -7d, and currentUser(), membersOf(\"IT Support\"), openSprints(), now(), "
    "startOfDay(), endOfDay(). Example: project = IT AND statusCategory != Done AND assignee = currentUser() "
    "ORDER BY priority DESC, created. Empty: every ticket you can see, newest first")


# ---------------------------------------------------------------- projects and components

@tool(read_only=True)
def tickets_list_projects(ctx: Context, offset: Offset = 0, limit: Limit = 50) -> schemas.ProjectPage:
    """List every project (software projects and service desks) by key, with its kind, lead and department."""
    with episode_call(ctx) as (session, actor):
        page = page_of(services.list_projects(session, actor), offset, limit)
        return presenters.page_out(schemas.ProjectPage, presenters.projects_out(session, page.items), page)


@tool(read_only=True)
def tickets_get_project(ctx: Context, project: ProjectRef) -> schemas.ProjectDetailOut:
    """Get a project with its components, ticket types, workflow statuses and open tickets per status."""
    with episode_call(ctx) as (session, actor):
        return presenters.project_detail_out(session, actor, services.get_project(session, actor, project))


@tool()
def tickets_create_project(
    ctx: Context,
    key: Text(10, "Key that prefixes its tickets: 2-10 capital letters and digits starting with a letter, e.g. OPS"),
    name: Text(80, "Project name, unique among projects"),
    kind: Text(20, "software (bugs, tasks, stories, sub-tasks) or service_desk (incidents, requests, problems)"),
    lead: PersonRef,
    description: Text(500, "What the project is for") = "",
) -> schemas.ProjectDetailOut:
    """Create a project (workspace admins only); its agents are the people of the lead's department."""
    with episode_call(ctx) as (session, actor):
        made = services.create_project(session, actor, key, name, kind, lead, description)
        return presenters.project_detail_out(session, actor, made)


@tool()
def tickets_update_project(
    ctx: Context,
    project: ProjectRef,
    name: Text(80, "New name; omit to keep", True) = None,
    description: Text(500, "New description ('' clears it); omit to keep", True) = None,
    lead: Annotated[IdOrName | None, Field(description=(
        "New lead: @handle, email, exact full name or numeric id; omit to keep"))] = None,
) -> schemas.ProjectDetailOut:
    """Rename a project, change its description or hand it to a new lead (its lead or admins); give only what
    changes."""
    with episode_call(ctx) as (session, actor):
        changed = services.update_project(session, actor, project, name=name, description=description, lead=lead)
        return presenters.project_detail_out(session, actor, changed)


@tool()
def tickets_create_component(
    ctx: Context,
    project: ProjectRef,
    name: Text(60, "Component name, unique in the project"),
    description: Text(250, "What part of the project it covers") = "",
    lead: Annotated[IdOrName | None, Field(description=(
        "Its lead: @handle, email, exact full name or numeric id; omit for none"))] = None,
) -> schemas.ComponentOut:
    """Add a component to a project (its lead or admins); tickets are then filed against it by name."""
    with episode_call(ctx) as (session, actor):
        made = services.create_component(session, actor, project, name, description, lead)
        return presenters.components_out(session, [made])[0]


# ---------------------------------------------------------------- assignment groups

@tool(read_only=True)
def tickets_list_groups(ctx: Context, offset: Offset = 0, limit: Limit = 50) -> schemas.GroupPage:
    """List the assignment groups (the queues that work tickets) by name, with member counts."""
    with episode_call(ctx) as (session, actor):
        page = page_of(services.list_groups(session, actor), offset, limit)
        return presenters.page_out(schemas.GroupPage, presenters.groups_out(session, page.items), page)


@tool(read_only=True)
def tickets_get_group(ctx: Context, group: GroupRef) -> schemas.GroupDetailOut:
    """Get an assignment group with its members: the people its tickets can be assigned to."""
    with episode_call(ctx) as (session, actor):
        return presenters.group_detail_out(session, actor, services.get_group(session, actor, group))


# ---------------------------------------------------------------- search

@tool(read_only=True)
def tickets_search_tickets(
    ctx: Context,
    query: Text(2000, QUERY) = "",
    offset: Offset = 0,
    limit: Limit = 50,
) -> schemas.TicketPage:
    """Search the tickets you can see with a query such as
    `project = IT AND status = "In Progress" AND assignee = currentUser() ORDER BY priority DESC`."""
    with episode_call(ctx) as (session, actor):
        page = services.search_tickets(session, actor, query, offset, limit)
        return presenters.page_out(schemas.TicketPage, presenters.tickets_out(session, page.items), page)


# ---------------------------------------------------------------- sprints and boards

@tool(read_only=True)
def tickets_list_sprints(ctx: Context, project: ProjectRef, offset: Offset = 0,
                         limit: Limit = 50) -> schemas.SprintPage:
    """List a software project's sprints in the order they were planned, with their state and ticket counts."""
    with episode_call(ctx) as (session, actor):
        page = page_of(services.list_sprints(session, actor, project), offset, limit)
        return presenters.page_out(schemas.SprintPage, presenters.sprints_out(session, page.items), page)


@tool()
def tickets_create_sprint(
    ctx: Context,
    project: ProjectRef,
    name: Text(80, "Sprint name, unique in the project, e.g. ENG Sprint 14"),
    goal: Text(250, "What the sprint should achieve") = "",
) -> schemas.SprintOut:
    """Plan a future sprint in a software project (its lead or admins)."""
    with episode_call(ctx) as (session, actor):
        return presenters.sprints_out(session, [services.create_sprint(session, actor, project, name, goal)])[0]


@tool()
def tickets_start_sprint(
    ctx: Context,
    project: ProjectRef,
    sprint: SprintRef,
    end_date: Day,
    start_date: Annotated[str | None, Field(max_length=40, description=(
        "First day, YYYY-MM-DD; omit for today"))] = None,
) -> schemas.SprintOut:
    """Start a future sprint (its project's lead or admins); only one sprint of a project is active at a time."""
    with episode_call(ctx) as (session, actor):
        started = services.start_sprint(session, actor, project, sprint, end_date, start_date)
        return presenters.sprints_out(session, [started])[0]


@tool()
def tickets_complete_sprint(
    ctx: Context,
    project: ProjectRef,
    sprint: SprintRef,
    move_to: Annotated[IdOrName | None, Field(description=(
        "A future sprint (name or id) that takes the unfinished tickets; omit to send them to the backlog"))] = None,
) -> schemas.SprintOut:
    """Complete the active sprint (its project's lead or admins); unfinished tickets move to `move_to` or to the
    backlog."""
    with episode_call(ctx) as (session, actor):
        return presenters.sprints_out(session, [services.complete_sprint(session, actor, project, sprint, move_to)])[0]


@tool(read_only=True)
def tickets_get_board(
    ctx: Context,
    project: ProjectRef,
    sprint: Annotated[IdOrName | None, Field(description=(
        "The sprint to show (name or id); omit for the active sprint, or the open backlog/queue"))] = None,
    offset: Offset = 0,
    limit: bounded(1, 200, "Cards per column (1-200)") = services.BOARD_CARDS,
    query: Text(2000, "Keep only the cards this query matches, e.g. `assignee = currentUser()` "
                      "(its ORDER BY is ignored)") = "",
) -> schemas.BoardOut:
    """Get a project's board: tickets in columns by status, highest priority first, for a sprint or the
    open backlog or service queue; every column shows `limit` cards from `offset` and counts them all."""
    with episode_call(ctx) as (session, actor):
        return presenters.board_out(session, services.get_board(session, actor, project, sprint, offset, limit,
                                                             query or None))
