"""Sprints and boards.

A software project plans work in sprints: future ones are planned, one at a time is active
(started with dates), and completing it moves its unfinished tickets to another sprint or back
to the backlog. A board shows a project's tickets in columns by status: the active sprint's for
software projects (the open backlog when none is active), the open queue for service desks.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from officegym import clock
from officegym.apps.org.models import Person
from officegym.errors import Conflict, Invalid
from officegym.journal import journaled
from officegym.pagination import check_window
from officegym.values import day, text

from . import workflow
from .access import read_filter, require_lead, require_worker
from .history import apply_changes
from .lookups import resolve_project, resolve_sprint, resolve_ticket
from .models import Project, Sprint, Ticket
from .query import compile_query

BOARD_CARDS = 10  # cards per column shown at once: a board of a big team's sprint would be unreadable


@dataclass
class Column:
    """A board column: a status, one window of its tickets and `total`, how many it holds in all."""

    status: str
    tickets: list[Ticket] = field(default_factory=list)
    total: int = 0


@dataclass
class Board:
    """A project's board, for one sprint or for the open backlog/queue, showing cards `offset` to
    `offset + limit` of every column."""

    project: Project
    sprint: Sprint | None
    columns: list[Column]
    offset: int = 0
    limit: int = BOARD_CARDS

    @property
    def next_offset(self) -> int | None:
        """The offset showing the next cards of the columns that have more, or None."""
        more = any(c.total > self.offset + self.limit for c in self.columns)
        return self.offset + self.limit if more else None


def _software(project: Project) -> None:
    if project.is_service_desk:
        raise Invalid(f"{project.key} is a service desk; sprints belong to software projects.")


def list_sprints(session: Session, actor: Person, project: int | str) -> list[Sprint]:
    """A project's sprints in the order they were planned."""
    found = resolve_project(session, project)
    return list(session.scalars(select(Sprint).where(Sprint.project_id == found.id).order_by(Sprint.id)))


def active_sprint(session: Session, project: Project) -> Sprint | None:
    """The project's active sprint, if one is running."""
    return session.scalar(select(Sprint).where(Sprint.project_id == project.id, Sprint.state == "active"))


@journaled("tickets.create_sprint")
def create_sprint(session: Session, actor: Person, project: int | str, name: str, goal: str = "") -> Sprint:
    """Plan a future sprint (the project's lead or admins)."""
    found = resolve_project(session, project)
    _software(found)
    require_lead(actor, found, "plan sprints")
    cleaned = text(name, "Sprint name", 80, required=True)
    if session.scalar(select(Sprint.id).where(Sprint.project_id == found.id,
                                              func.lower(Sprint.name) == cleaned.lower())):
        raise Conflict(f"{found.key} already has a sprint called {cleaned!r}.")
    sprint = Sprint(project_id=found.id, name=cleaned, goal=text(goal, "Sprint goal", 250), state="future")
    clock.advance(session)
    session.add(sprint)
    session.flush()
    return sprint


@journaled("tickets.start_sprint")
def start_sprint(session: Session, actor: Person, project: int | str, sprint: int | str, end_date: str,
                 start_date: str | None = None) -> Sprint:
    """Start a future sprint; it runs from `start_date` (today by default) to `end_date`. One
    sprint at a time is active."""
    found = resolve_project(session, project)
    _software(found)
    require_lead(actor, found, "start sprints")
    chosen = resolve_sprint(session, found, sprint)
    if chosen.state != "future":
        raise Conflict(f"Sprint {chosen.name!r} is {chosen.state}; only a future sprint can start.")
    running = active_sprint(session, found)
    if running is not None:
        raise Conflict(f"Sprint {running.name!r} is still active in {found.key}; complete it first.")
    start = day(start_date, "Start date") if start_date not in (None, "") else clock.today(session).date()
    end = day(end_date, "End date")
    if end <= start:
        raise Invalid(f"A sprint ends after it starts: {start.isoformat()} to {end.isoformat()} is not a time box.")
    clock.advance(session)
    chosen.state, chosen.start_date, chosen.end_date = "active", start, end
    return chosen


@journaled("tickets.complete_sprint")
def complete_sprint(session: Session, actor: Person, project: int | str, sprint: int | str,
                    move_to: int | str | None = None) -> Sprint:
    """Complete the active sprint; unfinished tickets move to the future sprint `move_to`, or to the
    backlog when it is not given."""
    found = resolve_project(session, project)
    _software(found)
    require_lead(actor, found, "complete sprints")
    chosen = resolve_sprint(session, found, sprint)
    if chosen.state != "active":
        raise Conflict(f"Sprint {chosen.name!r} is {chosen.state}; only the active sprint can be completed.")
    target = resolve_sprint(session, found, move_to) if move_to not in (None, "") else None
    if target is not None and target.state != "future":
        raise Conflict(f"Unfinished work moves to a future sprint; {target.name!r} is {target.state}.")
    when = clock.advance(session)
    unfinished = session.scalars(select(Ticket).where(Ticket.sprint_id == chosen.id,
                                                      Ticket.status.not_in(workflow.DONE_STATUSES)))
    for ticket in list(unfinished):
        apply_changes(session, actor, ticket, {"sprint_id": target.id if target else None}, when)
    chosen.state = "closed"
    return chosen


@journaled("tickets.set_sprint")
def set_sprint(session: Session, actor: Person, key: str, sprint: int | str) -> Ticket:
    """Put a ticket in a future or active sprint of its project ("" moves it back to the backlog)."""
    ticket = resolve_ticket(session, actor, key)
    _software(ticket.project)
    require_worker(session, actor, ticket, "plan")
    target = resolve_sprint(session, ticket.project, sprint) if sprint != "" else None
    if target is not None and target.state == "closed":
        raise Conflict(f"Sprint {target.name!r} is closed; put the ticket in the active or a future sprint.")
    if (target.id if target else None) == ticket.sprint_id:
        raise Conflict(f"{ticket.key} is already {'in ' + repr(target.name) if target else 'in the backlog'}.")
    apply_changes(session, actor, ticket, {"sprint_id": target.id if target else None}, clock.advance(session))
    return ticket


def _totals(session: Session, stmt) -> dict[str, int]:
    """Tickets per status among those `stmt` selects."""
    rows = stmt.subquery()
    return dict(session.execute(select(rows.c.status, func.count()).group_by(rows.c.status)).all())


def get_board(session: Session, actor: Person, project: int | str, sprint: int | str | None = None,
              offset: int = 0, limit: int = BOARD_CARDS, query: str | None = None) -> Board:
    """The project's board: the given or the active sprint, else the open tickets (the backlog or
    queue); each column shows its cards from `offset`, at most `limit` of them, highest priority
    first, and counts them all. A `query` in the query language (such as `assignee = currentUser()`)
    keeps only the cards it matches; its ORDER BY is ignored, the board keeps its own order."""
    check_window(offset, limit)
    found = resolve_project(session, project)
    matching = compile_query(session, actor, query)[0] if query else None
    chosen = resolve_sprint(session, found, sprint) if sprint not in (None, "") else (
        None if found.is_service_desk else active_sprint(session, found))
    kinds = workflow.SERVICE_STATUSES if found.is_service_desk else workflow.SOFTWARE_STATUSES
    base = select(Ticket).where(Ticket.project_id == found.id, read_filter(session, actor))
    base = base.where(Ticket.sprint_id == chosen.id) if chosen else base.where(
        Ticket.status.not_in(workflow.DONE_STATUSES))
    if matching is not None:
        base = base.where(matching)
    totals = _totals(session, base)
    # One query per column, highest priority first, reading one window on the (sprint or project,
    # status, priority rank, number) indexes: a board of a huge sprint costs what a small one does.
    order = (Ticket.priority_rank.desc(), Ticket.number)
    columns = [Column(status, list(session.scalars(base.where(Ticket.status == status).order_by(*order)
                                                   .offset(offset).limit(limit)))
                      if totals.get(status, 0) > offset else [], totals.get(status, 0))
               for status in kinds if chosen is not None or workflow.is_open(status)]
    return Board(found, chosen, columns, offset, limit)
