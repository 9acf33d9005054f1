"""What the operations workflows (the w_incidents_* modules) share: the On-call Rota workbook (one row
per week from Monday, one column per on-call group: who is on call when), production incidents and
the #incidents threads that announced them, and the impact, urgency and priority a message states.

The templates live in w_incidents_declare (declare an incident from a customer's report),
w_incidents_more (an incident's root-cause follow-up), w_incidents_rota (the Monday handover),
w_incidents_swap (swapping on-call weeks), w_incidents_desk (taking the next tickets of a service-desk
queue) and w_incidents_refusals."""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from officegym import clock
from officegym.apps.chat import services as chat
from officegym.apps.chat.models import Message
from officegym.apps.org.models import Person
from officegym.apps.sheets.formula.a1 import cell_text
from officegym.apps.sheets.models import Cell, Sheet, Workbook
from officegym.apps.tickets.models import Component, Group, Ticket, TicketComponent
from officegym.graders.checks import Allow

from .base import ToolCall
from .common import allow_posts, channel_named
from .tickets_common import group_named, group_people, project_id
from .w_people_replies import dm_name, dm_reads, dm_replies, dm_step

ROTA, ROTA_SHEET = "On-call Rota", "Rota"
EPOCH = date(1899, 12, 30)  # day 0 of the sheets app's date serials
SEVERITY, COMMUNICATION, HANDOVER = ("Incident severity: impact, urgency and priority", "Incident communication",
                                     "On-call handover")
LEVELS = ("High", "Medium", "Low")
PRIORITY_WORDS = ("Highest", "High", "Medium", "Low", "Lowest")


# ---------------------------------------------------------------- the rota

def monday_of(day: date) -> date:
    """The Monday that starts the week of `day`."""
    return day - timedelta(days=day.weekday())


def this_monday(session: Session) -> date:
    """The Monday of the company's current week."""
    return monday_of(clock.company_now(session).date())


def rota_sheet(session: Session) -> tuple[Workbook, Sheet]:
    """The On-call Rota workbook and its Rota sheet."""
    book_id, sheet_id = _rota_ids(session)
    return session.get(Workbook, book_id), session.get(Sheet, sheet_id)


def _rota_ids(session: Session) -> tuple[int, int]:
    """The ids of the rota workbook and of its Rota sheet (kept for the session: they never change)."""
    if "w_incidents.rota_sheet" not in session.info:
        book = session.scalar(select(Workbook.id).where(Workbook.title == ROTA))
        sheet = session.scalar(select(Sheet.id).where(Sheet.workbook_id == book, Sheet.name == ROTA_SHEET))
        session.info["w_incidents.rota_sheet"] = (book, sheet)
    return session.info["w_incidents.rota_sheet"]


def rota_layout(session: Session) -> tuple[dict[date, int], dict[str, int]]:
    """The rota's rows by the Monday they start (0-based) and its columns by group name (kept for the
    session: no task moves the rota's weeks or groups)."""
    if "w_incidents.rota" not in session.info:
        cells = list(session.scalars(select(Cell).where(Cell.sheet_id == _rota_ids(session)[1],
                                                        (Cell.col == 0) | (Cell.row == 0))))
        rows = {EPOCH + timedelta(days=int(c.number)): c.row for c in cells if c.col == 0 and c.kind == "n"}
        cols = {c.text: c.col for c in cells if c.row == 0 and c.col > 0 and c.text}
        session.info["w_incidents.rota"] = (rows, cols)
    return session.info["w_incidents.rota"]


def rota_ref(session: Session, group: str, monday: date) -> str:
    """The rota cell naming who is on call for `group` in the week of `monday`, as Rota!D11."""
    rows, cols = rota_layout(session)
    return f"{ROTA_SHEET}!{cell_text(rows[monday], cols[group])}"


def rota_name(session: Session, group: str, monday: date) -> str | None:
    """The name the rota gives for `group` in the week of `monday`."""
    rows, cols = rota_layout(session)
    if monday not in rows or group not in cols:
        return None
    return session.scalar(select(Cell.text).where(Cell.sheet_id == _rota_ids(session)[1], Cell.row == rows[monday],
                                                  Cell.col == cols[group]))


def on_call(session: Session, group: str, monday: date) -> Person | None:
    """The member of `group` the rota puts on call in the week of `monday`."""
    name = rota_name(session, group, monday)
    found = group_named(session, group)
    return next((p for p in group_people(session, found.id) if p.name == name), None) if found else None


def read_rota() -> list[ToolCall]:
    """The reads that find who is on call: the workbook by title, then the whole rota."""
    return [ToolCall("sheets_list_workbooks", {"query": "Rota"}),
            ToolCall("sheets_read_range", {"workbook": ROTA, "range": f"{ROTA_SHEET}!A1:J21"})]


def on_call_groups(session: Session) -> list[Group]:
    """The engineering on-call groups, by id."""
    return list(session.scalars(select(Group).where(Group.on_call.is_(True)).order_by(Group.id)))


# ---------------------------------------------------------------- incidents and their threads

def production_id(session: Session) -> int:
    """The id of the IT project's Production component."""
    return session.scalar(select(Component.id).where(Component.project_id == project_id(session, "IT"),
                                                     Component.name == "Production"))


def production_incidents(session: Session) -> list[Ticket]:
    """Production incidents of the IT project, by id."""
    return list(session.scalars(select(Ticket).join(TicketComponent, TicketComponent.ticket_id == Ticket.id)
                                .where(TicketComponent.component_id == production_id(session),
                                       Ticket.type == "Incident").order_by(Ticket.id)))


def incident_thread(session: Session, key: str) -> Message | None:
    """The top-level #incidents message that announced a ticket (the oldest naming its key)."""
    channel = channel_named(session, "incidents")
    rows = session.scalars(select(Message).where(Message.channel_id == channel.id, Message.thread_parent_id.is_(None),
                                                 Message.text.contains(key)).order_by(Message.id))
    return next((m for m in rows if re.search(rf"(?<![\w-]){re.escape(key)}(?!\d)", m.text)), None)


def levels_stated(text: str) -> dict[str, str]:
    """The impact, urgency and priority a message states ("Impact High, urgency Low, so priority
    Medium", "High impact", "priority: Low"), the first of each, lower-cased."""
    found = {}
    for what, words in (("impact", LEVELS), ("urgency", LEVELS), ("priority", PRIORITY_WORDS)):
        values = "|".join(w.lower() for w in sorted(words, key=len, reverse=True))
        match = re.search(rf"\b{what}\W{{0,3}}(?:is\s+|of\s+)?({values})\b|\b({values})\s+{what}\b", text.lower())
        if match:
            found[what] = match.group(1) or match.group(2)
    return found


def filing_extras(ticket_id: int | None) -> list[Allow]:
    """What filing a ticket may harmlessly bring along, which the handbook neither asks nor forbids: its
    labels and watchers (the reporter, the account owner)."""
    return [Allow("tickets_label", ("added",), lambda row: row["ticket_id"] == ticket_id, limit=10),
            Allow("tickets_watcher", ("added",), lambda row: row["ticket_id"] == ticket_id, limit=3)]


def asked_by_dm(requester_id: int, actor_id: int, text: str, before):
    """Setup: `before` runs, then the requester asks the actor for the work by direct message, a few
    minutes before the company's "now"."""
    return dm_step(requester_id, actor_id, text, before, minutes=5)


def request_reads(actor_id: int, requester_id: int) -> list[ToolCall]:
    """The reads that find the request in the direct messages."""
    return dm_reads(dm_name(actor_id, requester_id))


def report_step(actor_id: int, requester_id: int, text: str) -> ToolCall:
    """The reply that tells whoever asked, in their DM, what was done."""
    return ToolCall("chat_post_message", {"channel": dm_name(actor_id, requester_id), "text": text}, role="report")


def requester_replies(ctx, requester_id: int) -> tuple[list[str], list[Allow]]:
    """The actor's replies to whoever asked, in their DM, and the allowance of one."""
    dm, texts = dm_replies(ctx, requester_id)
    return texts, (allow_posts(ctx, dm, limit=1) if dm else [])


def posted_at(session: Session, author: Person, channel_id: int, text: str, when: datetime,
              thread: int | None = None) -> Message:
    """Setup: a message posted at a time of the story's choosing."""
    clock.set_time(session, when)
    return chat.post_message(session, author, channel_id, text, thread_parent_id=thread)


__all__ = ["monday_of", "this_monday", "rota_sheet", "rota_layout", "rota_ref", "rota_name", "on_call", "read_rota",
           "on_call_groups", "production_id", "production_incidents", "incident_thread", "levels_stated",
           "filing_extras", "asked_by_dm", "request_reads", "report_step", "requester_replies", "posted_at"]
