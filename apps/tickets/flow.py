"""Moving tickets through their workflow (workflow.py holds the statuses and transitions).

Beyond the transition table:
- a resolution that says the work was done (Done, Fixed, Workaround) needs every ticket that
  blocks this one and every sub-task finished first;
- closing a ticket that blocks open work without doing it (Won't Do, Cancelled, ...) is refused,
  because the blocked work would be stranded: remove the link or finish the work;
- the resolution Duplicate needs a "duplicates" link to the original;
- waiting on the customer pauses the resolution SLA clock; resolving stops it, reopening restarts it
  without counting the time the ticket spent resolved.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from officegym import clock
from officegym.apps.org.models import Person
from officegym.errors import Conflict, Invalid
from officegym.journal import journaled
from officegym.values import text

from . import workflow
from .access import require_worker
from .history import apply_changes
from .lookups import resolve_ticket
from .models import Comment, Link, Ticket
from .sla import WAITING, paused_minutes
from .workflow import Transition


def available_transitions(session: Session, actor: Person, key: str) -> list[Transition]:
    """The transitions the ticket can take from its status."""
    ticket = resolve_ticket(session, actor, key)
    return workflow.available(ticket.type, ticket.status)


def _pick(ticket: Ticket, wanted) -> Transition:
    if not isinstance(wanted, str) or not wanted.strip():
        raise Invalid("Name the transition (such as 'Start progress') or the status to move to.")
    options = workflow.available(ticket.type, ticket.status)
    name = wanted.strip().lower()
    for transition in options:
        if transition.name.lower() == name:
            return transition
    listed = "; ".join(f"'{t.name}' → {t.target}" for t in options) or "none"
    if any(t.name.lower() == name for t in workflow.transitions(ticket.type)):
        raise Conflict(f"{ticket.key} is {ticket.status}; '{wanted.strip()}' is not available from there. "
                       f"Available: {listed}.")
    by_target = [t for t in options if t.target.lower() == name]
    if len(by_target) == 1:
        return by_target[0]
    if by_target:
        raise Invalid(f"Several transitions lead to {by_target[0].target}: {listed}. Name the transition.")
    raise Conflict(f"{ticket.key} is {ticket.status}; {wanted!r} is not a transition from there. "
                   f"Available: {listed}.")


def blockers(session: Session, ticket: Ticket) -> list[Ticket]:
    """Tickets that block this one (links "X blocks ticket")."""
    return list(session.scalars(select(Ticket).join(Link, Link.source_id == Ticket.id)
                                .where(Link.target_id == ticket.id, Link.kind == "blocks").order_by(Ticket.key)))


def blocked_work(session: Session, ticket: Ticket) -> list[Ticket]:
    """Tickets this one blocks."""
    return list(session.scalars(select(Ticket).join(Link, Link.target_id == Ticket.id)
                                .where(Link.source_id == ticket.id, Link.kind == "blocks").order_by(Ticket.key)))


def _open_keys(tickets: list[Ticket]) -> str:
    return ", ".join(f"{t.key} ({t.status})" for t in tickets if workflow.is_open(t.status))


def _check_resolution(session: Session, ticket: Ticket, resolution: str) -> None:
    if resolution in workflow.FIXING_RESOLUTIONS:
        open_blockers = _open_keys(blockers(session, ticket))
        if open_blockers:
            raise Conflict(f"{ticket.key} is blocked by {open_blockers}; finish the blocking work first, or remove "
                           "the link if it no longer blocks.")
        open_subtasks = _open_keys(list(session.scalars(select(Ticket).where(Ticket.parent_id == ticket.id))))
        if open_subtasks:
            raise Conflict(f"{ticket.key} has open sub-tasks: {open_subtasks}; finish or close them first.")
    else:
        stranded = _open_keys(blocked_work(session, ticket))
        if stranded:
            raise Conflict(f"{ticket.key} blocks open work: {stranded}. Closing it as {resolution} would leave that "
                           "work blocked; remove the 'blocks' link first or resolve it as done.")
    if resolution == "Duplicate":
        original = session.scalar(select(Link.id).where(Link.source_id == ticket.id, Link.kind == "duplicates"))
        if original is None:
            raise Conflict(f"Link {ticket.key} to the ticket it duplicates first (tickets_link_tickets with kind "
                           "'duplicates'), then close it as Duplicate.")


@journaled("tickets.transition_ticket")
def transition_ticket(session: Session, actor: Person, key: str, transition: str, resolution: str | None = None,
                      comment: str | None = None) -> Ticket:
    """Move a ticket along its workflow by transition name (or target status), with a resolution
    when the transition resolves it and an optional public comment."""
    ticket = resolve_ticket(session, actor, key)
    require_worker(session, actor, ticket, "move")
    move = _pick(ticket, transition)
    chosen = ""
    if len(move.resolutions) == 1 and resolution in (None, ""):
        resolution = move.resolutions[0]  # the only resolution a transition allows needs no saying
    if move.resolutions:
        if resolution in (None, ""):
            raise Invalid(f"'{move.name}' needs a resolution: one of {', '.join(move.resolutions)}.")
        chosen = next((r for r in move.resolutions if r.lower() == str(resolution).strip().lower()), "")
        if not chosen:
            raise Invalid(f"'{move.name}' takes the resolution {', '.join(move.resolutions)}; got {resolution!r}.")
        _check_resolution(session, ticket, chosen)
    elif resolution not in (None, ""):
        raise Invalid(f"'{move.name}' does not set a resolution; leave it out.")
    if move.needs_assignee and ticket.assignee_id is None:
        raise Conflict(f"Assign {ticket.key} to someone before '{move.name}' (tickets_assign_ticket).")
    note = text(comment, "Comment", 10000) if comment is not None else ""
    when = clock.advance(session)
    changes: dict = {"status": move.target}
    if ticket.status == WAITING:
        changes["paused_minutes"] = paused_minutes(ticket, when)
        changes["paused_since"] = None
    if move.target == WAITING:
        changes["paused_since"] = when
    if move.resolutions:
        changes.update(resolution=chosen, resolved_at=when)
    if move.name == "Reopen":  # the time it spent resolved does not count against its resolution SLA
        resolved_for = int((when - ticket.resolved_at).total_seconds() // 60) if ticket.resolved_at else 0
        changes.update(resolution="", resolved_at=None, paused_minutes=ticket.paused_minutes + resolved_for)
    apply_changes(session, actor, ticket, changes, when)
    if note:
        session.add(Comment(ticket_id=ticket.id, author_id=actor.id, body=note, internal=False, created_at=when))
        if ticket.first_response_at is None and actor.id != ticket.reporter_id:
            ticket.first_response_at = when
    return ticket
