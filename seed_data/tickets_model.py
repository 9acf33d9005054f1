"""The tickets app's records as the world builder draws them, before they are numbered and
inserted: assignment groups, projects, tickets, and the `Tickets` that chat, sheets and the
handbook talk about."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime


@dataclass
class GroupRec:
    """An assignment group and its members."""

    id: int
    name: str
    member_ids: list[int]
    on_call: bool
    team_id: int | None = None
    description: str = ""


@dataclass
class ProjectRec:
    """A project and the ids of its components by name."""

    id: int
    key: str
    name: str
    kind: str
    lead_id: int
    dept: str
    description: str
    components: dict[str, int] = field(default_factory=dict)
    agents: list[int] = field(default_factory=list)  # the department's people


@dataclass
class TicketRec:
    """A generated ticket before insertion; `number` and `id` are given once all are built."""

    project: ProjectRec
    type: str
    summary: str
    description: str
    status: str
    priority: str
    reporter_id: int
    created_at: datetime
    assignee_id: int | None = None
    group_id: int | None = None
    resolution: str = ""
    impact: str = ""
    urgency: str = ""
    component: str | None = None
    labels: list[str] = field(default_factory=list)
    account_id: int | None = None
    sprint_id: int | None = None
    story_points: int | None = None
    due_date: date | None = None
    first_response_at: datetime | None = None
    resolved_at: datetime | None = None
    paused_since: datetime | None = None
    parent: "TicketRec | None" = None
    comments: list[tuple[int, str, bool, datetime]] = field(default_factory=list)
    watchers: list[int] = field(default_factory=list)
    case_id: int | None = None
    number: int = 0
    id: int = 0
    account_name: str = ""  # the account of a customer-reported production incident
    # Field changes after creation, (field, old, new, by, at), when the world keeps full histories
    events: list[tuple[str, str, str, int, datetime]] = field(default_factory=list)

    @property
    def key(self) -> str:
        """IT-12 once numbered."""
        return f"{self.project.key}-{self.number}"

    @property
    def updated_at(self) -> datetime:
        """The last thing that happened to it."""
        times = [self.created_at, self.first_response_at, self.resolved_at, self.paused_since]
        times += [c[3] for c in self.comments] + [e[4] for e in self.events]
        return max(t for t in times if t is not None)


@dataclass
class Tickets:
    """What the tickets app holds, as chat (and task authors) need it."""

    projects: dict[str, ProjectRec]
    groups: dict[str, GroupRec]
    tickets: list[TicketRec]
    links: list[tuple[TicketRec, TicketRec, str]]
    sprints: list[tuple[int, str, str, str]]  # (id, project key, name, state)

    def production_incidents(self) -> list[TicketRec]:
        """Incidents on the Production component, oldest first."""
        return [t for t in self.tickets if t.type == "Incident" and t.component == "Production"]
