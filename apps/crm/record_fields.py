"""What the CRM pages show of a record: the form fields of each kind, the value each field holds as
the edit form prefills it (an owner as @handle, an account by name, never an internal number), and
the fields of the record page (details, highlights) with the inline edit each allows.

Only reads: every change goes through the services, from the views."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.orm import Session

from officegym.apps.org.models import Person
from officegym.apps.org.presenters import people_briefs

from . import services
from .fields import dollars
from .models import (CASE_ORIGINS, CASE_PRIORITIES, CASE_STATUSES, INDUSTRIES, LEAD_SOURCES, LEAD_STATUSES,
                     OPPORTUNITY_TYPES, REGIONS, SIZES)

OWNER = ("owner", "Owner (@handle)", None, False)
# Form fields per record kind: (name, label, options or None, required on create).
FORMS = {
    "account": [("name", "Account name", None, True), ("industry", "Industry", INDUSTRIES, False),
                ("size", "Employees", SIZES, False), ("region", "Region", REGIONS, False),
                ("website", "Website", None, False), ("phone", "Phone", None, False),
                ("parent", "Parent account (id or exact name)", None, False), OWNER],
    "contact": [("account", "Account (id or exact name)", None, True), ("first_name", "First name", None, True),
                ("last_name", "Last name", None, True), ("title", "Title", None, False),
                ("email", "Email", None, False), ("phone", "Phone", None, False), OWNER],
    "lead": [("first_name", "First name", None, True), ("last_name", "Last name", None, True),
             ("company", "Company", None, True), ("title", "Title", None, False), ("email", "Email", None, False),
             ("phone", "Phone", None, False), ("source", "Source", LEAD_SOURCES, False), OWNER],
    "opportunity": [("account", "Account (id or exact name)", None, True), ("name", "Opportunity name", None, True),
                    ("amount", "Amount (dollars)", None, False), ("close_date", "Close date (YYYY-MM-DD)", None, True),
                    ("type", "Type", OPPORTUNITY_TYPES, False), ("next_step", "Next step", None, False),
                    ("competitor", "Competitor", None, False), ("description", "Description", None, False), OWNER],
    "case": [("account", "Account (id or exact name)", None, True), ("subject", "Subject", None, True),
             ("description", "Description", None, False), ("priority", "Priority", CASE_PRIORITIES, False),
             ("origin", "Origin", CASE_ORIGINS, False), ("contact", "Contact (id or email)", None, False), OWNER],
}
EDIT_EXTRA = {"lead": [("status", "Status", tuple(s for s in LEAD_STATUSES if s != "Converted"), False)],
              "case": [("status", "Status", tuple(s for s in CASE_STATUSES if s != "Escalated"), False)]}
EDIT_SKIP = {"opportunity": {"account"}, "case": {"account"}}
# Text fields an edit may clear (a blank elsewhere means "leave as is").
CLEARABLE = ("next_step", "competitor", "description", "title", "website", "phone", "email")
PICKERS = {"owner": "people", "account": "accounts", "parent": "accounts"}
# Shown on the record page but changed by their own actions (the stage path, conversion, escalation).
READ_ONLY = {"opportunity": [("account", "Account"), ("stage", "Stage"), ("probability", "Probability"),
                             ("loss_reason", "Loss reason")],
             "case": [("account", "Account"), ("ticket_key", "Ticket")]}
HIGHLIGHTS = {"opportunity": ("owner", "stage", "amount", "close_date", "account"),
              "account": ("owner", "industry", "region", "size"),
              "contact": ("owner", "account", "title", "email"),
              "lead": ("owner", "status", "company", "source"),
              "case": ("owner", "status", "priority", "account")}


def edit_fields(kind: str) -> list[tuple]:
    """The fields of a kind's edit form."""
    return [f for f in FORMS[kind] if f[0] not in EDIT_SKIP.get(kind, ())] + EDIT_EXTRA.get(kind, [])


def short_label(label: str) -> str:
    """A form label without its hint: "Close date (YYYY-MM-DD)" -> "Close date"."""
    return label.split(" (")[0]


def current_values(session: Session, actor: Person, kind: str, record) -> dict[str, str]:
    """Every form field of the record as its edit form prefills it."""
    values = {}
    for name, *_ in FORMS[kind] + EDIT_EXTRA.get(kind, []):
        if name == "amount":
            values[name] = f"{record.amount_cents / 100:.2f}"
        elif name == "owner":
            values[name] = "@" + people_briefs(session, {record.owner_id})[record.owner_id].handle
        elif name == "account":
            values[name] = record.account.name
        elif name == "parent":
            values[name] = record.parent.name if record.parent else ""
        elif name == "contact":
            values[name] = services.get_contact(session, actor, record.contact_id).email if record.contact_id else ""
        else:
            value = getattr(record, name, "")
            values[name] = "" if value is None else str(value)
    return values


def locked_fields(session: Session, kind: str, record) -> dict[str, str]:
    """Fields of `record` its forms show read-only, each with the reason: a deal's amount while line
    items make it up (the service refuses to set it then)."""
    if kind == "opportunity" and services.has_line_items(session, record):
        return {"amount": "sum of line items"}
    return {}


def same_value(name: str, typed: str, held: str) -> bool:
    """Whether a submitted field repeats what the record holds (an owner with or without its @)."""
    typed, held = typed.strip(), held.strip()
    if name == "owner":
        return typed.lstrip("@").lower() == held.lstrip("@").lower()
    return typed == held


@dataclass
class Shown:
    """One field of a record page: what it shows, where it links, and how it is edited inline."""

    name: str
    label: str
    text: str
    href: tuple | None = None  # (endpoint, values) for url_for
    handle: str = ""
    editable: bool = False
    value: str = ""
    options: tuple | None = None
    picker: str | None = None
    locked: str = ""  # why the field cannot be edited, though the record can

    @property
    def testid(self) -> str:
        """The field's test id: field-<label in kebab case>."""
        return "field-" + self.label.lower().replace(" ", "-")


def _shown(session: Session, kind: str, record, name: str, label: str) -> Shown:
    if name == "owner":
        person = people_briefs(session, {record.owner_id})[record.owner_id]
        return Shown(name, "Owner", person.name, ("org.person", {"ref": person.handle}), handle=person.handle)
    if name == "account":
        return Shown(name, label, record.account.name, ("crm.account", {"record_id": record.account_id}))
    if name == "parent":
        parent = record.parent
        return Shown(name, label, parent.name if parent else "",
                     ("crm.account", {"record_id": parent.id}) if parent else None)
    if name == "amount":
        return Shown(name, label, dollars(record.amount_cents))
    if name == "probability":
        return Shown(name, label, f"{record.probability}%")
    if name == "close_date":
        return Shown(name, label, record.close_date.isoformat())
    value = getattr(record, name, "")
    return Shown(name, label, "" if value is None else str(value))


def record_fields(session: Session, actor: Person, kind: str, record, editable: bool) -> dict[str, Shown]:
    """The record page's fields by name, in display order: editable ones carry their inline edit."""
    held = current_values(session, actor, kind, record)
    locked = locked_fields(session, kind, record) if editable else {}
    shown: dict[str, Shown] = {}
    later = [(name, label) for name, label in READ_ONLY.get(kind, []) if name != "account"]
    for name, label in READ_ONLY.get(kind, []):
        if name == "account":  # the record's account comes first, its stage and status after the fields
            shown[name] = _shown(session, kind, record, name, label)
    for name, label, options, _required in edit_fields(kind):
        field = _shown(session, kind, record, name, short_label(label))
        if name == "contact" and record.contact_id:
            contact = services.get_contact(session, actor, record.contact_id)
            field = Shown(name, "Contact", contact.name, ("crm.contact", {"record_id": contact.id}))
        field.editable, field.value, field.locked = editable and name not in locked, held.get(name, ""), \
            locked.get(name, "")
        field.options, field.picker = options, PICKERS.get(name)
        shown[name] = field
    for name, label in later:
        shown[name] = _shown(session, kind, record, name, label)
    return shown
