"""What a colleague may share, and where: the asker's own visibility (the services' read checks,
called as the asker) and the handbook's data-sharing rules for the place the reply is written.

- A record the asker's tools would not show them (a deal of another sales team, a private
  service-desk request, a ticket key that does not exist) is, for a colleague, a record nobody
  named: hidden and nonexistent records get the same reply, so keys cannot be enumerated.
- Deal amounts are discussed in #deals only (the handbook's "Data sharing: salaries and customer
  data"): elsewhere a colleague gives a deal's stage and dates, not its amount.
- A service-desk request is private: a colleague speaks of it only where everyone in the
  conversation may see it (a DM, typically), never in a channel.
- Outside Sales the CRM shows accounts and contacts only: a colleague asked about deals by someone
  outside Sales declines in those words.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from officegym.apps.chat.models import Channel, Membership
from officegym.apps.crm import services as crm
from officegym.apps.crm.access import scope_of
from officegym.apps.org import services as org
from officegym.apps.org.models import Person
from officegym.apps.tickets import services as tickets
from officegym.apps.tickets.models import Ticket
from officegym.errors import Forbidden, NotFound

from .knowledge import KEY_PATTERN, MAX_RECORDS, Record
from .wording import DEAL_WORDS, uses_any

DEALS_CHANNEL = "deals"
SHARING_ARTICLE = "Data sharing: salaries and customer data"


def may_see(session: Session, asker: Person, record: Record) -> bool:
    """Whether the asker's own tools show the record: the service read, called as the asker."""
    try:
        if record.kind == "ticket":
            tickets.get_ticket(session, asker, record.row.key)
        elif record.kind == "opportunity":
            crm.get_opportunity(session, asker, record.row.id)
        elif record.kind == "account":
            crm.get_account(session, asker, record.row.id)
        else:
            org.get_person(session, asker, record.row.id)
    except (NotFound, Forbidden):
        return False
    return True


def visible_records(session: Session, asker: Person, records: list[Record]) -> list[Record]:
    """The records of a message the asker may see (the others are as if never named)."""
    return [record for record in records if may_see(session, asker, record)]


def unseen_keys(session: Session, asker: Person, text: str) -> list[str]:
    """Ticket keys written in the text (the first MAX_RECORDS, whether they exist or not) that are not
    a ticket the asker sees: hidden and nonexistent alike, and never one the asker sees that the
    answer had no room to speak of."""
    keys = list(dict.fromkeys(KEY_PATTERN.findall(text)))[:MAX_RECORDS]
    named = [Record("ticket", f"ticket:{t.key}", t.key, t, 0)
             for t in session.scalars(select(Ticket).where(Ticket.key.in_(keys)))] if keys else []
    known = {r.row.key for r in visible_records(session, asker, named)}
    return [key for key in keys if key not in known]


def reads_deals(session: Session, asker: Person) -> bool:
    """Whether the CRM shows the asker any deal at all (Sales and admins)."""
    scope = scope_of(session, asker)
    return scope.is_admin or scope.is_sales


def asks_about_deals(text: str) -> bool:
    """Whether a message speaks of deals, by its words alone (whatever record it names)."""
    return uses_any(text, DEAL_WORDS)


def amounts_allowed(channel: Channel) -> bool:
    """Deal amounts are said in #deals only."""
    return channel.kind in ("public", "private") and channel.name == DEALS_CHANNEL


def private_ticket(record: Record) -> bool:
    """A service-desk request: private to its desk's workers, its reporter and its watchers."""
    return record.kind == "ticket" and bool(record.row.project.is_service_desk)


def everyone_here_sees(session: Session, channel: Channel, record: Record) -> bool:
    """Whether every member of a DM or group DM may see the record (channels never qualify: anyone
    may join or be invited later)."""
    if channel.kind not in ("dm", "group_dm"):
        return False
    members = session.scalars(select(Person).join(Membership, Membership.person_id == Person.id)
                              .where(Membership.channel_id == channel.id).order_by(Person.id))
    return all(may_see(session, member, record) for member in members)


def open_deal_filter(session: Session, asker: Person, owner_column):
    """The CRM's own read filter for the asker, to count only the deals they may see."""
    return scope_of(session, asker).read_filter(owner_column)
