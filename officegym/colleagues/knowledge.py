"""What a colleague knows: the records a message names, who knows each one, and what they say.

A message names a ticket by its key, a deal or an account by its full name, and a person by their
full name or @handle. A colleague knows a record their work touches:
- a ticket: its reporter, its assignee and the assignee's manager;
- a deal or an account: its owner and the owner's manager;
- a person: that person, their manager and their teammates.
They say its current state, read from the database, followed by any note the task's story gave
them about it. About anything else they say "I don't know" and name who would: the ticket's
assignee (else its reporter), the owner of the deal or account, the person's manager.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sqlalchemy import func, literal, select
from sqlalchemy.orm import Session

from officegym.apps.crm.models import Account, Opportunity
from officegym.apps.org.models import Person, Team
from officegym.apps.tickets.models import Ticket

from .models import ColleagueNote

MAX_RECORDS = 4  # records one answer speaks about
# How a ticket key is written: not the start of a longer code (an invoice number, INV-2026-0166).
KEY_PATTERN = re.compile(r"(?<![\w-])[A-Z][A-Z0-9]{1,9}-\d{1,7}(?![\w-])")
_HANDLE = re.compile(r"(?<![\w@])@([a-z0-9][a-z0-9._-]{0,59})", re.IGNORECASE)


@dataclass
class Record:
    """A record a message names: its kind, its topic for notes ("ticket:IT-48") and the row."""

    kind: str
    topic: str
    label: str
    row: object
    at: int  # where the text names it first, so answers follow the message's order


def _spans(text: str, name: str) -> list[tuple[int, int]]:
    """Where `name` stands in `text` as whole words (case-insensitive)."""
    return [m.span() for m in re.finditer(r"(?<![\w])" + re.escape(name.lower()) + r"(?![\w])", text.lower())]


def named_at(text: str, name: str) -> int:
    """Where `name` stands in `text` as whole words (case-insensitive), or -1."""
    spans = _spans(text, name)
    return spans[0][0] if spans else -1


def standing_alone(text: str, names: list[str]) -> set[str]:
    """The names that stand somewhere in the text outside every longer name of `names` ("Barron-Fleming"
    inside "Barron-Fleming - Brasil" names the longer account only)."""
    spans = {name: _spans(text, name) for name in set(names)}
    longer = [(start, end) for found in spans.values() for start, end in found]
    return {name for name, found in spans.items()
            if any(not any(s <= start and end <= e and (e - s) > (end - start) for s, e in longer)
                   for start, end in found)}


def _by_name(session: Session, model, text: str) -> list:
    """Rows of `model` whose name the text contains (the database finds candidates; whole words decide)."""
    lowered = literal(text.lower())
    rows = session.scalars(select(model).where(func.length(model.name) >= 3,
                                               lowered.contains(func.lower(model.name), autoescape=False))
                           .order_by(model.id).limit(50))
    return [row for row in rows if named_at(text, row.name) >= 0]


def named_records(session: Session, text: str, skip_people: set[int]) -> list[Record]:
    """The records a message names, in the order it names them (at most MAX_RECORDS)."""
    found: list[Record] = []
    keys = list(dict.fromkeys(KEY_PATTERN.findall(text)))[:MAX_RECORDS * 2]
    for ticket in session.scalars(select(Ticket).where(Ticket.key.in_(keys))) if keys else []:
        found.append(Record("ticket", f"ticket:{ticket.key}", ticket.key, ticket, text.find(ticket.key)))
    deals, accounts = _by_name(session, Opportunity, text), _by_name(session, Account, text)
    alone = standing_alone(text, [row.name for row in deals + accounts])
    found += [Record("opportunity", f"opportunity:{d.id}", d.name, d, named_at(text, d.name))
              for d in deals if d.name in alone]
    found += [Record("account", f"account:{a.id}", a.name, a, named_at(text, a.name))
              for a in accounts if a.name in alone]
    handles = {h.lower() for h in _HANDLE.findall(text)}
    people = {p.id: p for p in _by_name(session, Person, text)}
    if handles:
        people.update({p.id: p for p in session.scalars(select(Person).where(func.lower(Person.handle).in_(handles)))})
    for person in people.values():
        if person.id not in skip_people:
            at = min(i for i in (named_at(text, person.name), text.lower().find("@" + person.handle.lower()))
                     if i >= 0)
            found.append(Record("person", f"person:{person.id}", person.name, person, at))
    return sorted(found, key=lambda r: (r.at, r.kind, r.topic))[:MAX_RECORDS]


def _manager_id(session: Session, person_id: int | None) -> int | None:
    return session.scalar(select(Person.manager_id).where(Person.id == person_id)) if person_id else None


def knows(session: Session, colleague: Person, record: Record) -> bool:
    """Whether the colleague's work touches the record (see the module's rules)."""
    row = record.row
    if record.kind == "ticket":
        return colleague.id in (row.reporter_id, row.assignee_id, _manager_id(session, row.assignee_id))
    if record.kind in ("opportunity", "account"):
        return colleague.id in (row.owner_id, _manager_id(session, row.owner_id))
    return colleague.id in (row.id, row.manager_id) or (row.team_id is not None and row.team_id == colleague.team_id)


def holder(session: Session, record: Record) -> Person | None:
    """Who would know the record: the ticket's assignee (else reporter), the owner, the person's manager."""
    row = record.row
    if record.kind == "ticket":
        return session.get(Person, row.assignee_id or row.reporter_id)
    if record.kind in ("opportunity", "account"):
        return session.get(Person, row.owner_id)
    return session.get(Person, row.manager_id) if row.manager_id else row


def _money(cents: int) -> str:
    return f"${cents // 100:,}"


def _handle(session: Session, person_id: int | None) -> str:
    person = session.get(Person, person_id) if person_id else None
    return f"@{person.handle}" if person else "nobody"


def state(session: Session, record: Record, amounts: bool = True, deals_filter=None) -> str:
    """One sentence on the record's current state: without a deal's amount unless `amounts`, and
    counting an account's open deals among those `deals_filter` (a condition on the owner column,
    or None to leave the count out) keeps."""
    row = record.row
    if record.kind == "ticket":
        due = f", due {row.due_date.isoformat()}" if getattr(row, "due_date", None) else ""
        return (f"{row.key} \"{row.summary}\" is {row.status} ({row.priority}), assigned to "
                f"{_handle(session, row.assignee_id)}{due}.")
    if record.kind == "opportunity":
        worth = f" at {_money(row.amount_cents)}" if amounts else ""
        if row.closed_at is not None:  # a closed deal: when it closed, and no next step
            return f"{row.name} is {row.stage}{worth}, closed on {row.closed_at.date().isoformat()}."
        step = f"; next step: {row.next_step}" if row.next_step else ""
        return f"{row.name} is in {row.stage}{worth}, closing {row.close_date.isoformat()}{step}."
    if record.kind == "account":
        owned = f"{row.name} ({row.industry}, {row.region}) is owned by {_handle(session, row.owner_id)}"
        if deals_filter is None:
            return owned + "."
        deals = session.scalar(select(func.count()).select_from(Opportunity).where(
            Opportunity.account_id == row.id, Opportunity.stage.not_in(("Closed Won", "Closed Lost")),
            deals_filter(Opportunity.owner_id)))
        return f"{owned} and has {deals} open deal{'s' if deals != 1 else ''} you can see."
    team = session.get(Team, row.team_id) if row.team_id else None
    where = f" on the {team.name} team" if team else ""
    boss = f", reports to {_handle(session, row.manager_id)}" if row.manager_id else ""
    return f"{row.name} (@{row.handle}) is {row.title}{where}{boss}, based in {row.location}."


def notes(session: Session, colleague: Person, record: Record) -> list[str]:
    """What the story told this colleague about the record, oldest first."""
    return list(session.scalars(select(ColleagueNote.text).where(ColleagueNote.person_id == colleague.id,
                                                                 ColleagueNote.topic == record.topic)
                                .order_by(ColleagueNote.id)))
