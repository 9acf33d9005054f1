"""The field history of tickets: one row per changed field, written by the services."""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from officegym.apps.crm.models import Account
from officegym.apps.org.models import Person

from .models import Group, HistoryEntry, Sprint, Ticket

# Clock and sort bookkeeping that changes along with a visible field and needs no line of its own.
SILENT = {"paused_minutes", "paused_since", "resolved_at", "first_response_at", "priority_rank", "updated_at"}
# Fields whose history names a row rather than an id.
_NAMED = {"assignee_id": Person, "reporter_id": Person, "group_id": Group, "sprint_id": Sprint, "account_id": Account}


def _shown(session: Session, field: str, value) -> str:
    if value is None:
        return ""
    if field in _NAMED:
        row = session.get(_NAMED[field], value)
        return row.name if row is not None else str(value)
    if isinstance(value, (date, datetime)):
        return value.isoformat()
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value)
    return str(value)


def note_change(session: Session, actor: Person, ticket: Ticket, field: str, old, new, when: datetime) -> None:
    """One history row; ids of people and groups are written as their names."""
    session.add(HistoryEntry(ticket_id=ticket.id, field=field.removesuffix("_id"),
                             old_value=_shown(session, field, old)[:500], new_value=_shown(session, field, new)[:500],
                             changed_by_id=actor.id, changed_at=when))


def apply_changes(session: Session, actor: Person, ticket: Ticket, changes: dict, when: datetime) -> list[str]:
    """Set each changed column of the ticket, note it in the history and touch `updated_at`.
    Returns the names of the fields that really changed."""
    changed = []
    for field, new in changes.items():
        old = getattr(ticket, field)
        if old == new:
            continue
        setattr(ticket, field, new)
        if field not in SILENT:
            note_change(session, actor, ticket, field, old, new, when)
            changed.append(field)
    if changed:
        ticket.updated_at = when
    return changed


def ticket_history(session: Session, ticket: Ticket) -> list[HistoryEntry]:
    """Every history row of a ticket, oldest first."""
    return list(session.scalars(select(HistoryEntry).where(HistoryEntry.ticket_id == ticket.id)
                                .order_by(HistoryEntry.id)))
