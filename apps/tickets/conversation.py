"""Comments, internal work notes, watchers and links between tickets.

- Anyone who sees a ticket comments on it; the first public comment by someone other than the
  reporter is the first response (it stops that SLA clock). When the reporter answers a ticket
  that is waiting on them, it goes back to In Progress.
- Work notes are internal: only the ticket's workers write and read them.
- People watch a ticket themselves; its workers may add or remove others.
- Links are made and removed by the workers of the ticket named first (in either reading); an
  incident is linked to the problem that causes it. Read for an actor, links to tickets the actor
  may not see are left out.
"""

from __future__ import annotations

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from officegym import clock
from officegym.apps.org.models import Person
from officegym.apps.org.services import resolve_person
from officegym.errors import Conflict, Invalid, NotFound
from officegym.journal import journaled
from officegym.pagination import Page, paginate
from officegym.values import text

from .access import can_see, can_see_notes, is_worker, require_note_writer, require_worker
from .history import apply_changes, note_change
from .lookups import resolve_ticket
from .models import LINK_KINDS, Comment, Link, Ticket, Watcher
from .sla import WAITING, paused_minutes


def list_comments(session: Session, actor: Person, key: str, offset: int = 0, limit: int = 50) -> Page[Comment]:
    """A ticket's comments, oldest first; work notes only for its workers."""
    ticket = resolve_ticket(session, actor, key)
    stmt = select(Comment).where(Comment.ticket_id == ticket.id).order_by(Comment.id)
    if not can_see_notes(session, actor, ticket):
        stmt = stmt.where(Comment.internal.is_(False))
    return paginate(session, stmt, offset, limit)


@journaled("tickets.add_comment")
def add_comment(session: Session, actor: Person, key: str, body: str) -> Comment:
    """A public comment, seen by the reporter and everyone who sees the ticket."""
    ticket = resolve_ticket(session, actor, key)
    cleaned = text(body, "Comment", 10000, required=True)
    when = clock.advance(session)
    comment = Comment(ticket_id=ticket.id, author_id=actor.id, body=cleaned, internal=False, created_at=when)
    session.add(comment)
    ticket.updated_at = when
    if actor.id != ticket.reporter_id and ticket.first_response_at is None and is_worker(session, actor, ticket):
        ticket.first_response_at = when
    if actor.id == ticket.reporter_id and ticket.status == WAITING:
        apply_changes(session, actor, ticket, {"status": "In Progress", "paused_minutes": paused_minutes(ticket, when),
                                               "paused_since": None}, when)
    session.flush()
    return comment


@journaled("tickets.add_work_note")
def add_work_note(session: Session, actor: Person, key: str, body: str) -> Comment:
    """An internal note for the people who work the ticket (or handed it over); the reporter never sees it."""
    ticket = resolve_ticket(session, actor, key)
    require_note_writer(session, actor, ticket)
    cleaned = text(body, "Work note", 10000, required=True)
    when = clock.advance(session)
    note = Comment(ticket_id=ticket.id, author_id=actor.id, body=cleaned, internal=True, created_at=when)
    session.add(note)
    ticket.updated_at = when
    session.flush()
    return note


def list_watchers(session: Session, actor: Person, key: str) -> list[Person]:
    """The people watching a ticket, by name."""
    ticket = resolve_ticket(session, actor, key)
    return list(session.scalars(select(Person).join(Watcher, Watcher.person_id == Person.id)
                                .where(Watcher.ticket_id == ticket.id).order_by(Person.name)))


def _watch_target(session: Session, actor: Person, ticket: Ticket, person) -> Person:
    if person in (None, ""):
        return actor
    target = resolve_person(session, person)
    if target.id != actor.id:
        require_worker(session, actor, ticket, "change the watchers of")
    return target


@journaled("tickets.watch_ticket")
def watch_ticket(session: Session, actor: Person, key: str, person: int | str | None = None) -> Person:
    """Start watching a ticket (yourself, or someone else if you work it)."""
    ticket = resolve_ticket(session, actor, key)
    target = _watch_target(session, actor, ticket, person)
    if session.get(Watcher, (ticket.id, target.id)) is not None:
        raise Conflict(f"{target.name} already watches {ticket.key}.")
    clock.advance(session)
    session.add(Watcher(ticket_id=ticket.id, person_id=target.id))
    return target


@journaled("tickets.unwatch_ticket")
def unwatch_ticket(session: Session, actor: Person, key: str, person: int | str | None = None) -> Person:
    """Stop watching a ticket (yourself, or someone else if you work it)."""
    ticket = resolve_ticket(session, actor, key)
    target = _watch_target(session, actor, ticket, person)
    found = session.get(Watcher, (ticket.id, target.id))
    if found is None:
        raise Conflict(f"{target.name} does not watch {ticket.key}.")
    clock.advance(session)
    session.delete(found)
    return target


def link_kind(kind) -> tuple[str, bool]:
    """(kind, swapped) from a kind's name or either of its readings: "blocks" is ("blocks", False),
    "is blocked by" is ("blocks", True), meaning the other ticket is the link's source."""
    if isinstance(kind, str):
        wanted = kind.strip().lower().replace("_", " ")
        for name, (outward, inward) in LINK_KINDS.items():
            if wanted in (name.replace("_", " "), outward):
                return name, False
            if wanted == inward:
                return name, True
    readings = sorted({reading for pair in LINK_KINDS.values() for reading in pair})
    raise Invalid(f"Link kind must be one of: {', '.join(readings)}; got {kind!r}.")


def links_of(session: Session, ticket: Ticket, actor: Person | None = None) -> list[tuple[str, Ticket, Link]]:
    """(how it reads from this ticket, the other ticket, the link) for every link of a ticket; given
    the actor, only links to tickets the actor may see (a private request stays private)."""
    rows = []
    for link in session.scalars(select(Link).where(Link.source_id == ticket.id).order_by(Link.id)):
        rows.append((LINK_KINDS[link.kind][0], session.get(Ticket, link.target_id), link))
    for link in session.scalars(select(Link).where(Link.target_id == ticket.id).order_by(Link.id)):
        rows.append((LINK_KINDS[link.kind][1], session.get(Ticket, link.source_id), link))
    return [r for r in rows if actor is None or can_see(session, actor, r[1])]


def _ends(session: Session, actor: Person, key: str, kind, other: str) -> tuple[str, Ticket, Ticket, Ticket]:
    ticket = resolve_ticket(session, actor, key)
    require_worker(session, actor, ticket, "link")
    other_ticket = resolve_ticket(session, actor, other)
    if other_ticket.id == ticket.id:
        raise Invalid(f"A ticket cannot be linked to itself ({ticket.key}).")
    name, swapped = link_kind(kind)
    source, target = (other_ticket, ticket) if swapped else (ticket, other_ticket)
    return name, source, target, ticket


@journaled("tickets.link_tickets")
def link_tickets(session: Session, actor: Person, key: str, kind: str, other: str) -> Link:
    """Link `key` to `other`: "IT-5 blocks IT-9", "IT-7 duplicates IT-3", "relates to", or an
    incident "is caused by" a problem; the inward readings ("is blocked by") work too."""
    name, source, target, ticket = _ends(session, actor, key, kind, other)
    if session.scalar(select(Link.id).where(Link.source_id == source.id, Link.target_id == target.id,
                                            Link.kind == name)) \
            or (name == "relates" and session.scalar(select(Link.id).where(
                Link.source_id == target.id, Link.target_id == source.id, Link.kind == name))):
        raise Conflict(f"{source.key} {LINK_KINDS[name][0]} {target.key} already.")
    if name != "relates" and session.scalar(select(Link.id).where(Link.source_id == target.id,
                                                                  Link.target_id == source.id, Link.kind == name)):
        raise Conflict(f"{target.key} already {LINK_KINDS[name][0]} {source.key}; a link cannot go both ways.")
    if name == "caused_by" and (source.type != "Incident" or target.type != "Problem"):
        raise Invalid(f"'is caused by' links an incident to the problem behind it; {source.key} is a {source.type} "
                      f"and {target.key} a {target.type}.")
    when = clock.advance(session)
    link = Link(source_id=source.id, target_id=target.id, kind=name, created_by_id=actor.id, created_at=when)
    session.add(link)
    note_change(session, actor, source, "link", None, f"{LINK_KINDS[name][0]} {target.key}", when)
    note_change(session, actor, target, "link", None, f"{LINK_KINDS[name][1]} {source.key}", when)
    source.updated_at = target.updated_at = when
    session.flush()
    return link


@journaled("tickets.unlink_tickets")
def unlink_tickets(session: Session, actor: Person, key: str, kind: str, other: str) -> None:
    """Remove a link made by link_tickets (same reading of the kind)."""
    name, source, target, _ticket = _ends(session, actor, key, kind, other)
    found = session.scalars(select(Link).where(Link.source_id == source.id, Link.target_id == target.id,
                                               Link.kind == name)).first()
    if found is None and name == "relates":
        found = session.scalars(select(Link).where(Link.source_id == target.id, Link.target_id == source.id,
                                                   Link.kind == name)).first()
    if found is None:
        raise NotFound(f"There is no link {source.key} {LINK_KINDS[name][0]} {target.key}.")
    when = clock.advance(session)
    session.execute(delete(Link).where(Link.id == found.id))
    note_change(session, actor, source, "link", f"{LINK_KINDS[name][0]} {target.key}", None, when)
    note_change(session, actor, target, "link", f"{LINK_KINDS[name][1]} {source.key}", None, when)
