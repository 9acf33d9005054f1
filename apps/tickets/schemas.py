"""Output models of the tickets app, shared by the MCP tools and the UI's JSON. The converters that
build them from the services' records are in presenters.py.

Times go out as ISO 8601 text on the company's simulated clock; people as id, name and @handle.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from officegym.apps.org.schemas import PersonBrief, Ref, page_model


class ComponentOut(BaseModel):
    """A part of a project that tickets are filed against."""

    id: int
    project: str = Field(description="Project key")
    name: str
    description: str
    lead: PersonBrief | None


class ProjectOut(BaseModel):
    """A software project or a service desk."""

    id: int
    key: str = Field(description="Prefix of its ticket keys, such as IT in IT-142")
    name: str
    kind: str = Field(description="software (Bug, Task, Story, Sub-task) or service_desk (Incident, Service "
                                  "Request, Problem; private requests with SLA clocks)")
    description: str
    lead: PersonBrief = Field(description="Administers the project: components and sprints")
    department: str = Field(description="Its people are the project's agents")
    created_at: str


class ProjectDetailOut(ProjectOut):
    """A project with its components, ticket types, statuses and the open tickets you can see."""

    types: list[str] = Field(description="Ticket types it takes")
    statuses: list[str] = Field(description="Workflow statuses of its tickets, in board order")
    components: list[ComponentOut]
    open_counts: dict[str, int] = Field(description="Open tickets you can see, per status")
    open_total: int


class GroupOut(BaseModel):
    """An assignment group: the people who work a queue."""

    id: int
    name: str
    description: str
    team: str | None = Field(description="The directory team it mirrors, if any")
    on_call: bool = Field(description="Whether it is paged for incidents")
    member_count: int


class GroupDetailOut(GroupOut):
    """An assignment group with its members (the people its tickets can be assigned to)."""

    members: list[PersonBrief]


class TicketBrief(BaseModel):
    """Another ticket, named on a link or as a sub-task."""

    key: str
    type: str
    summary: str
    status: str


class TicketOut(BaseModel):
    """A ticket as lists show it."""

    id: int
    key: str = Field(description="Project key and number, such as IT-142")
    project: str = Field(description="Project key")
    type: str
    summary: str
    status: str
    resolution: str = Field(description="Why it was resolved or closed; empty while open")
    priority: str = Field(description="Highest, High, Medium, Low or Lowest")
    reporter: PersonBrief
    assignee: PersonBrief | None
    group: str | None = Field(description="Assignment group name")
    sprint: str | None = Field(description="Sprint name; null in the backlog or outside software projects")
    parent: str | None = Field(description="Key of the parent of a sub-task")
    labels: list[str]
    story_points: int | None
    due_date: str | None
    created_at: str
    updated_at: str


class LinkOut(BaseModel):
    """A link between this ticket and another, read from this ticket."""

    kind: str = Field(description="How it reads from this ticket: blocks, is blocked by, duplicates, is "
                                  "duplicated by, relates to, is caused by, causes")
    ticket: TicketBrief
    created_at: str


class LinksOut(BaseModel):
    """A ticket's links after a link was made or removed."""

    ticket: TicketBrief
    links: list[LinkOut]


class TransitionOut(BaseModel):
    """A move the ticket can make from its status."""

    name: str = Field(description="Pass as `transition` to tickets_transition_ticket")
    to: str = Field(description="The status it leads to")
    resolutions: list[str] = Field(description="Resolutions it takes (one is required when not empty)")
    needs_assignee: bool


class SlaOut(BaseModel):
    """One SLA clock of a service-desk ticket, now."""

    name: str
    state: str = Field(description="running, paused, overdue (breached, still running), met or breached")
    target_minutes: int
    elapsed_minutes: int
    remaining_minutes: int = Field(description="Negative once breached")
    breached: bool
    due_at: str | None = Field(description="When it breaches if it keeps running; null once stopped or paused")


class TicketDetailOut(TicketOut):
    """A ticket with everything needed to work it."""

    description: str
    impact: str = Field(description="High, Medium or Low for incidents; empty otherwise")
    urgency: str = Field(description="High, Medium or Low for incidents; empty otherwise")
    account: Ref | None = Field(description="The CRM account it concerns")
    components: list[str]
    sub_tasks: list[TicketBrief]
    links: list[LinkOut]
    watchers: list[PersonBrief]
    transitions: list[TransitionOut] = Field(description="Moves available from the current status")
    sla: list[SlaOut] = Field(description="SLA clocks (service desks only)")
    can_work: bool = Field(description="Whether you may edit, assign, move and add work notes to it")
    comment_count: int = Field(description="Comments you can read (tickets_list_comments)")
    first_response_at: str | None
    resolved_at: str | None


class CommentOut(BaseModel):
    """A public comment or an internal work note."""

    id: int
    ticket: str = Field(description="Ticket key")
    author: PersonBrief
    body: str
    internal: bool = Field(description="true for a work note, seen by the ticket's workers only")
    created_at: str


class WatchersOut(BaseModel):
    """Who watches a ticket after a change of its watchers."""

    ticket: str = Field(description="Ticket key")
    person: PersonBrief = Field(description="The person who started or stopped watching")
    watching: bool = Field(description="Whether that person watches the ticket now")
    watchers: list[PersonBrief]


class HistoryEntryOut(BaseModel):
    """One change of one field of a ticket."""

    id: int
    field: str
    old_value: str
    new_value: str
    changed_by: PersonBrief
    changed_at: str


class SprintOut(BaseModel):
    """A time box of a software project's board."""

    id: int
    project: str = Field(description="Project key")
    name: str
    goal: str
    state: str = Field(description="future, active or closed")
    start_date: str | None
    end_date: str | None
    ticket_count: int = Field(description="Tickets in it")
    open_count: int = Field(description="Of those, not finished")


class ColumnOut(BaseModel):
    """A board column: the tickets in one status."""

    status: str
    total: int = Field(description="Tickets in this status, all of them (the board lists one window of them)")
    tickets: list[TicketOut] = Field(description="Highest priority first, from the board's offset")


class BoardOut(BaseModel):
    """A project's board: a sprint's tickets, or the open backlog or queue, by status."""

    project: str = Field(description="Project key")
    sprint: SprintOut | None = Field(description="The sprint shown; null for the open backlog or queue")
    columns: list[ColumnOut]
    offset: int = Field(description="Cards skipped at the top of every column")
    next_offset: int | None = Field(description=(
        "Pass as `offset` to see the next cards of the columns that have more; null when every column is shown "
        "to its end"))


class ArticleOut(BaseModel):
    """A knowledge base article (a policy or runbook of the company handbook), without its body."""

    number: str = Field(description="Such as KB0010001; names the article in tickets_get_article")
    title: str
    category: str
    owner: PersonBrief = Field(description="Keeps it current; only they or an admin change it")
    version: int = Field(description="Its newest version (the one shown)")
    updated_at: str


class ArticleVersionOut(BaseModel):
    """One version of an article: who wrote it, when and why."""

    version: int
    author: PersonBrief
    note: str
    created_at: str


class ArticleDetailOut(ArticleOut):
    """An article with its title, category and body as of one version (the newest unless another
    was asked for) and its whole history."""

    shown_version: int = Field(description="The version whose title, category and body these are")
    body: str
    created_at: str
    versions: list[ArticleVersionOut] = Field(description="Every version, newest first")


ProjectPage = page_model("ProjectPage", ProjectOut, "projects", __name__)
GroupPage = page_model("GroupPage", GroupOut, "assignment groups", __name__)
TicketPage = page_model("TicketPage", TicketOut, "tickets", __name__)
CommentPage = page_model("CommentPage", CommentOut, "comments, oldest first", __name__)
HistoryPage = page_model("HistoryPage", HistoryEntryOut, "field changes, oldest first", __name__)
SprintPage = page_model("SprintPage", SprintOut, "sprints", __name__)
ArticlePage = page_model("ArticlePage", ArticleOut, "knowledge base articles", __name__)
