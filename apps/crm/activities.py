"""Activities (calls, emails, meetings, notes, tasks) on any record, and customer cases."""

from __future__ import annotations

from datetime import date

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from officegym import clock
from officegym.apps.org.models import Person
from officegym.apps.org.services import contains
from officegym.apps.tickets.lookups import resolve_ticket
from officegym.errors import Conflict, Forbidden, Invalid
from officegym.journal import journaled
from officegym.pagination import Page, paginate

from . import fields
from .access import require_edit, require_sales, resolve_owner, scope_of
from .accounts import query_text, sort_order
from .lookups import resolve_account, resolve_activity, resolve_case, resolve_contact, resolve_record
from .models import (ACTIVITY_KINDS, CASE_ORIGINS, CASE_PRIORITIES, CASE_STATUSES, TASK_STATUSES, Activity, Case)

CASE_SORTS = {"created": Case.created_at, "priority": Case.priority, "status": Case.status, "subject": Case.subject}
OPEN_CASE_STATUSES = ("New", "Working", "Escalated")


def list_activities(session: Session, actor: Person, record_type: str, record_id: int | str, kind: str | None = None,
                    offset: int = 0, limit: int = 50) -> Page[Activity]:
    """The activities logged on one record, newest first."""
    record = resolve_record(session, actor, record_type, record_id, for_activities=True)
    stmt = select(Activity).where(Activity.record_type == record_type.strip().lower(), Activity.record_id == record.id)
    if kind:
        stmt = stmt.where(Activity.kind == fields.choice(kind, ACTIVITY_KINDS, "kind"))
    return paginate(session, stmt.order_by(Activity.created_at.desc(), Activity.id.desc()), offset, limit)


def list_my_tasks(session: Session, actor: Person, status: str | None = "Open", offset: int = 0,
                  limit: int = 50) -> Page[Activity]:
    """The actor's tasks, soonest due first."""
    require_sales(session, actor, "keep CRM tasks")
    stmt = select(Activity).where(Activity.kind == "task", Activity.owner_id == actor.id)
    if status:
        stmt = stmt.where(Activity.status == fields.choice(status, TASK_STATUSES, "status"))
    return paginate(session, stmt.order_by(Activity.due_date, Activity.id), offset, limit)


@journaled("crm.log_activity")
def log_activity(session: Session, actor: Person, record_type: str, record_id: int | str, kind: str, subject: str,
                 body: str = "", due_date: str | date | None = None) -> Activity:
    """Log a call, email, meeting or note on a record the actor can see, or give them a task (open,
    with an optional due date)."""
    record = resolve_record(session, actor, record_type, record_id, for_activities=True)
    what = fields.choice(kind, ACTIVITY_KINDS, "kind")
    title = fields.text(subject, "Subject", 200, required=True)
    text = fields.text(body, "Body", 4000)
    due = fields.day(due_date, "Due date") if due_date not in (None, "") else None
    if due is not None and what != "task":
        raise Invalid("Only tasks have a due date; log the activity without one.")
    when = clock.advance(session)
    activity = Activity(kind=what, subject=title, body=text, record_type=record_type.strip().lower(),
                        record_id=record.id, owner_id=actor.id, due_date=due,
                        status="Open" if what == "task" else "Completed",
                        completed_at=None if what == "task" else when, created_at=when)
    session.add(activity)
    session.flush()
    return activity


@journaled("crm.complete_task")
def complete_task(session: Session, actor: Person, activity: int) -> Activity:
    """Mark an open task done (its owner or their manager)."""
    found = resolve_activity(session, actor, activity)
    if found.kind != "task":
        raise Invalid(f"Activity {found.id} is a {found.kind}, not a task.")
    if found.status == "Completed":
        raise Conflict(f"Task {found.id} is already completed.")
    if not scope_of(session, actor).can_edit(found.owner_id):
        raise Forbidden(f"Task {found.id} belongs to someone else; its owner completes it.")
    found.status, found.completed_at = "Completed", clock.advance(session)
    return found


def list_cases(session: Session, actor: Person, query: str = "", status: str | None = None,
               priority: str | None = None, account: int | str | None = None, owner: int | str | None = None,
               sort: str = "created", descending: bool = True, offset: int = 0, limit: int = 50) -> Page[Case]:
    """Cases the actor may see; `status` is a status name or "open" (anything not Closed)."""
    scope = require_sales(session, actor, "see cases")
    stmt = select(Case).where(scope.read_filter(Case.owner_id))
    stmt = stmt.order_by(*sort_order(CASE_SORTS, sort, descending, Case.id))
    term = query_text(query)
    if term:
        stmt = stmt.where(or_(contains(Case.subject, term), contains(Case.description, term)))
    if status:
        wanted = fields.choice(status, ("open",) + CASE_STATUSES, "status")
        stmt = stmt.where(Case.status.in_(OPEN_CASE_STATUSES if wanted == "open" else (wanted,)))
    if priority:
        stmt = stmt.where(Case.priority == fields.choice(priority, CASE_PRIORITIES, "priority"))
    if account not in (None, ""):
        stmt = stmt.where(Case.account_id == resolve_account(session, actor, account).id)
    if owner not in (None, ""):
        stmt = stmt.where(Case.owner_id == resolve_owner(session, owner).id)
    return paginate(session, stmt, offset, limit)


def get_case(session: Session, actor: Person, case: int | str) -> Case:
    """One case by id."""
    return resolve_case(session, actor, case)


def _case_values(session: Session, actor: Person, values: dict, account_id: int | None) -> dict:
    out: dict = {}
    if "subject" in values:
        out["subject"] = fields.text(values["subject"], "Subject", 200, required=True)
    if "description" in values:
        out["description"] = fields.text(values["description"], "Description", 4000)
    if "priority" in values:
        out["priority"] = fields.choice(values["priority"], CASE_PRIORITIES, "priority")
    if "origin" in values:
        out["origin"] = fields.choice(values["origin"], CASE_ORIGINS, "origin")
    if values.get("contact") not in (None, ""):
        contact = resolve_contact(session, actor, values["contact"])
        if contact.account_id != account_id:
            raise Invalid(f"{contact.name} works at another account; a case's contact is from its own account.")
        out["contact_id"] = contact.id
    return out


@journaled("crm.create_case")
def create_case(session: Session, actor: Person, account: int | str, subject: str, description: str = "",
                priority: str = "Medium", origin: str = "Email", contact: int | str | None = None,
                owner: int | str | None = None) -> Case:
    """Open a new case for a customer account."""
    require_sales(session, actor, "open cases")
    if account in (None, ""):
        raise Invalid("A case belongs to an account: name it by id or exact name.")
    found_account = resolve_account(session, actor, account)
    owner_person = resolve_owner(session, owner, actor, assigning=True)
    values = _case_values(session, actor, {"subject": subject, "description": description, "priority": priority,
                                           "origin": origin, "contact": contact}, found_account.id)
    when = clock.advance(session)
    return fields.insert(session, actor, Case(account_id=found_account.id, owner_id=owner_person.id, status="New",
                                              created_at=when, **values), "case", when)


@journaled("crm.update_case")
def update_case(session: Session, actor: Person, case: int | str, **changes) -> Case:
    """Change a case: subject, description, priority, origin, contact, owner, or status (New,
    Working, Closed; Escalated only through escalate_case). Closing stamps the close time."""
    found = resolve_case(session, actor, case)
    require_edit(session, actor, found.owner_id, f"Case {found.id}")
    changes = fields.requested_changes(changes, {"subject", "description", "priority", "origin", "contact", "owner",
                                                 "status"}, "Cases")
    values = _case_values(session, actor, changes, found.account_id)
    when = clock.advance(session)
    if "status" in changes:
        status = fields.choice(changes["status"], CASE_STATUSES, "status")
        if status == "Escalated":
            raise Invalid("Escalate a case with crm_escalate_case, which records the reason.")
        values["status"] = status
        values["closed_at"] = when if status == "Closed" else None
    if changes.get("owner") not in (None, ""):
        values["owner_id"] = resolve_owner(session, changes["owner"], actor, assigning=True).id
    fields.apply_changes(session, actor, found, "case", values, when)
    return found


@journaled("crm.escalate_case")
def escalate_case(session: Session, actor: Person, case: int | str, reason: str, ticket: str | None = None) -> Case:
    """Escalate an open case (raising it to High priority at least); the reason is logged as a note.
    `ticket` names the tickets-app ticket (such as ENG-42) that now tracks the work; it must exist
    and be visible to the actor."""
    found = resolve_case(session, actor, case)
    require_edit(session, actor, found.owner_id, f"Case {found.id}")
    why = fields.text(reason, "Reason", 1000, required=True)
    if found.status in ("Escalated", "Closed"):
        raise Conflict(f"Case {found.id} is {found.status}; only a New or Working case is escalated.")
    values = {"status": "Escalated"}
    if ticket not in (None, ""):
        values["ticket_key"] = resolve_ticket(session, actor, ticket).key
    when = clock.advance(session)
    if CASE_PRIORITIES.index(found.priority) < CASE_PRIORITIES.index("High"):
        values["priority"] = "High"
    fields.apply_changes(session, actor, found, "case", values, when)
    body = why + (f" (ticket {values['ticket_key']})" if "ticket_key" in values else "")
    session.add(Activity(kind="note", subject="Escalated", body=body, record_type="case", record_id=found.id,
                         owner_id=actor.id, status="Completed", created_at=when, completed_at=when))
    return found
