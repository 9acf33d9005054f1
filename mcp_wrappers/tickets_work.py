"""Tickets tools, part 2: working one ticket — filing, reading, editing, assigning, moving it through
its workflow, comments and internal work notes, watchers, links, sprints and history.

Each tool calls one function of officegym.apps.tickets.services and presents the result with
officegym.apps.tickets.presenters. Part 1 (projects, groups, sprints, boards, search) is tickets.py.
"""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.server.mcpserver import Context
from pydantic import Field, StringConstraints

from officegym.apps.tickets import presenters, schemas, services

from .base import IdOrName, Int, Limit, Offset, episode_call, page_of, tool
from .tickets import ProjectRef, Text

Key = Annotated[str, Field(max_length=24, description="The ticket's key, such as IT-142 (tickets_search_tickets "
                                                      "finds tickets)")]
Names = Annotated[list[Annotated[str, StringConstraints(max_length=60)]], Field(max_length=30)]
Labels = Annotated[Names | None, Field(description=(
    'Labels: lowercase words of letters, digits and - _ . (at most 10), e.g. ["vpn", "customer-escalation"]'))]
Components = Annotated[Names | None, Field(description=(
    'Names of the project\'s components (tickets_get_project lists them), e.g. ["Contracts"]'))]
PRIORITY = "Highest, High, Medium, Low or Lowest (incidents take theirs from impact and urgency)"
LEVEL = "High, Medium or Low (incidents only; priority = impact x urgency)"
Body = Text(10000, "The text, at most 10,000 characters")
Someone = Annotated[IdOrName | None, Field(description=(
    "Whose watching to change: @handle, email, exact full name or id; omit for yourself (others only if you "
    "work the ticket)"))]


@tool(read_only=True)
def tickets_get_ticket(ctx: Context, key: Key) -> schemas.TicketDetailOut:
    """Get a ticket: its fields, labels, components, sub-tasks, links, watchers, the transitions available
    from its status and, in service desks, its SLA clocks."""
    with episode_call(ctx) as (session, actor):
        return presenters.ticket_detail_out(session, actor, services.get_ticket(session, actor, key))


@tool()
def tickets_create_ticket(
    ctx: Context,
    project: ProjectRef,
    type: Text(20, "Bug, Task, Story or Sub-task in software projects; Incident, Service Request or Problem in "
                   "service desks"),
    summary: Text(255, "One-line summary"),
    description: Text(10000, "What happened, what is needed, steps to reproduce") = "",
    priority: Text(10, f"Priority: {PRIORITY}; default Medium", True) = None,
    impact: Text(10, f"Impact: {LEVEL}; default Medium", True) = None,
    urgency: Text(10, f"Urgency: {LEVEL}; default Medium", True) = None,
    assignee: Annotated[IdOrName | None, Field(description=(
        "Assignee (a member of the group, or one of the project's agents): @handle, email, full name or id"))] = None,
    group: Annotated[IdOrName | None, Field(description="Assignment group: exact name or id")] = None,
    labels: Labels = None,
    components: Components = None,
    due_date: Annotated[str | None, Field(max_length=40, description="Due date, YYYY-MM-DD")] = None,
    parent: Annotated[str | None, Field(max_length=24, description=(
        "For a Sub-task: key of its parent bug, task or story in the same project"))] = None,
    account: Text(160, "Exact name of the CRM account (customer) it concerns", True) = None,
    story_points: Annotated[Int | None, Field(description="Estimate in story points, 0-100 (software work)")] = None,
) -> schemas.TicketDetailOut:
    """File a ticket in a project (anyone may; you are its reporter). Only the project's workers may also
    assign it while filing."""
    with episode_call(ctx) as (session, actor):
        made = services.create_ticket(session, actor, project, type, summary, description, priority, impact, urgency,
                                      assignee, group, labels, components, due_date, parent, account, story_points)
        return presenters.ticket_detail_out(session, actor, made)


@tool()
def tickets_update_ticket(
    ctx: Context,
    key: Key,
    summary: Text(255, "New summary; omit to keep", True) = None,
    description: Text(10000, "New description ('' clears it); omit to keep", True) = None,
    priority: Text(10, f"New priority: {PRIORITY}; omit to keep", True) = None,
    impact: Text(10, f"New impact: {LEVEL}; omit to keep", True) = None,
    urgency: Text(10, f"New urgency: {LEVEL}; omit to keep", True) = None,
    due_date: Annotated[str | None, Field(max_length=40, description=(
        "New due date YYYY-MM-DD ('' clears it); omit to keep"))] = None,
    labels: Annotated[Names | None, Field(description=(
        "The full new list of labels ([] clears them); omit to keep"))] = None,
    components: Annotated[Names | None, Field(description=(
        "The full new list of component names ([] clears them); omit to keep"))] = None,
    story_points: Annotated[Int | Literal[""] | None, Field(description=(
        "New estimate, 0-100 ('' clears it); omit to keep"))] = None,
    account: Text(160, "Exact name of the CRM account ('' clears it); omit to keep", True) = None,
) -> schemas.TicketDetailOut:
    """Change a ticket's fields (its workers only); give only what changes. Status moves with
    tickets_transition_ticket, people with tickets_assign_ticket."""
    with episode_call(ctx) as (session, actor):
        changed = services.update_ticket(session, actor, key, summary=summary, description=description,
                                         priority=priority, impact=impact, urgency=urgency, due_date=due_date,
                                         labels=labels, components=components, story_points=story_points,
                                         account=account)
        return presenters.ticket_detail_out(session, actor, changed)


@tool()
def tickets_assign_ticket(
    ctx: Context,
    key: Key,
    assignee: Annotated[IdOrName | None, Field(description=(
        "New assignee: @handle, email, full name or id ('' unassigns); omit to keep. Must be in the assignment "
        "group, or one of the project's agents when there is no group"))] = None,
    group: Annotated[IdOrName | None, Field(description=(
        "New assignment group: exact name or id ('' clears it); omit to keep"))] = None,
) -> schemas.TicketDetailOut:
    """Set a ticket's assignee and/or assignment group (its workers only). Assigning a New service ticket
    moves it to Assigned."""
    with episode_call(ctx) as (session, actor):
        assigned = services.assign_ticket(session, actor, key, assignee, group)
        return presenters.ticket_detail_out(session, actor, assigned)


@tool()
def tickets_transition_ticket(
    ctx: Context,
    key: Key,
    transition: Text(40, "The transition's name (tickets_get_ticket lists them, e.g. Start progress, Resolve, "
                         "Close, Reopen) or the status to move to"),
    resolution: Text(24, "Required by transitions that resolve: Done, Fixed, Workaround, Won't Do, Duplicate, "
                         "Cannot Reproduce or Cancelled, as the transition allows", True) = None,
    comment: Text(10000, "A public comment to add with the move", True) = None,
) -> schemas.TicketDetailOut:
    """Move a ticket along its workflow (its workers only), with a resolution when the move resolves it."""
    with episode_call(ctx) as (session, actor):
        moved = services.transition_ticket(session, actor, key, transition, resolution, comment)
        return presenters.ticket_detail_out(session, actor, moved)


@tool(read_only=True)
def tickets_list_comments(ctx: Context, key: Key, offset: Offset = 0, limit: Limit = 50) -> schemas.CommentPage:
    """List a ticket's comments, oldest first; its workers also see the internal work notes."""
    with episode_call(ctx) as (session, actor):
        page = services.list_comments(session, actor, key, offset, limit)
        return presenters.page_out(schemas.CommentPage, presenters.comments_out(session, page.items), page)


@tool()
def tickets_add_comment(ctx: Context, key: Key, body: Body) -> schemas.CommentOut:
    """Add a public comment, seen by the reporter and everyone who sees the ticket. A reply by the reporter
    to a ticket waiting on them puts it back In Progress."""
    with episode_call(ctx) as (session, actor):
        return presenters.comments_out(session, [services.add_comment(session, actor, key, body)])[0]


@tool()
def tickets_add_work_note(ctx: Context, key: Key, body: Body) -> schemas.CommentOut:
    """Add an internal work note (its workers, and whoever handed it over, only); the reporter never sees it."""
    with episode_call(ctx) as (session, actor):
        return presenters.comments_out(session, [services.add_work_note(session, actor, key, body)])[0]


@tool()
def tickets_watch_ticket(ctx: Context, key: Key, person: Someone = None) -> schemas.WatchersOut:
    """Start watching a ticket, or (if you work it) add someone else as a watcher."""
    with episode_call(ctx) as (session, actor):
        return presenters.watchers_out(session, key, services.watch_ticket(session, actor, key, person))


@tool(destructive=True)
def tickets_unwatch_ticket(ctx: Context, key: Key, person: Someone = None) -> schemas.WatchersOut:
    """Stop watching a ticket, or (if you work it) remove someone else from its watchers."""
    with episode_call(ctx) as (session, actor):
        return presenters.watchers_out(session, key, services.unwatch_ticket(session, actor, key, person))


LinkKind = Text(20, "How `key` relates to `other`: blocks, is blocked by, duplicates, is duplicated by, relates "
                    "to, is caused by (an incident by a problem) or causes")
Other = Annotated[str, Field(max_length=24, description="Key of the other ticket, such as IT-7")]


@tool()
def tickets_link_tickets(ctx: Context, key: Key, kind: LinkKind, other: Other) -> schemas.LinksOut:
    """Link two tickets (the workers of `key`): "IT-5 blocks IT-9", "IT-7 duplicates IT-3", ...;
    returns the links of `key`."""
    with episode_call(ctx) as (session, actor):
        services.link_tickets(session, actor, key, kind, other)
        return presenters.links_out(session, actor, key)


@tool(destructive=True)
def tickets_unlink_tickets(ctx: Context, key: Key, kind: LinkKind, other: Other) -> schemas.LinksOut:
    """Remove a link made with tickets_link_tickets (same reading of the kind); returns the links of `key`."""
    with episode_call(ctx) as (session, actor):
        services.unlink_tickets(session, actor, key, kind, other)
        return presenters.links_out(session, actor, key)


@tool()
def tickets_set_sprint(
    ctx: Context,
    key: Key,
    sprint: Annotated[IdOrName, Field(description=(
        "The active or a future sprint of the ticket's project (name or id); '' moves it to the backlog"))],
) -> schemas.TicketDetailOut:
    """Put a software ticket in a sprint or back in the backlog (its workers only)."""
    with episode_call(ctx) as (session, actor):
        return presenters.ticket_detail_out(session, actor, services.set_sprint(session, actor, key, sprint))


@tool(read_only=True)
def tickets_get_history(ctx: Context, key: Key, offset: Offset = 0, limit: Limit = 50) -> schemas.HistoryPage:
    """Get who changed which field of a ticket, when, from what to what, oldest first."""
    with episode_call(ctx) as (session, actor):
        page = page_of(services.get_history(session, actor, key), offset, limit)
        return presenters.page_out(schemas.HistoryPage, presenters.history_out(session, page.items), page)
