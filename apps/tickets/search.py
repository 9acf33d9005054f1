"""Ticket search with the query language of query.py, a ticket's history and its SLA clocks."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from officegym import clock
from officegym.apps.org.models import Person
from officegym.pagination import Page, check_window, paginate

from .access import read_filter
from .history import ticket_history
from .lookups import resolve_ticket
from .models import HistoryEntry, Ticket
from .query import compile_query
from .sla import SlaClock, sla_clocks


def search_tickets(session: Session, actor: Person, query: str = "", offset: int = 0, limit: int = 50) -> Page[Ticket]:
    """Tickets the actor sees that match a query such as
    `project = IT AND status != Done AND assignee = currentUser() ORDER BY priority DESC`."""
    check_window(offset, limit)
    condition, order = compile_query(session, actor, query or "")
    stmt = select(Ticket).where(read_filter(session, actor)).where(condition).order_by(*order)
    return paginate(session, stmt, offset, limit)


def get_history(session: Session, actor: Person, key: str) -> list[HistoryEntry]:
    """Every change of a ticket's fields, oldest first."""
    return ticket_history(session, resolve_ticket(session, actor, key))


def get_sla(session: Session, actor: Person, key: str) -> list[SlaClock]:
    """The ticket's SLA clocks now (none outside service desks)."""
    return sla_clocks(resolve_ticket(session, actor, key), clock.now(session))
