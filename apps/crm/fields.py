"""Parsing of CRM field values (money, percentages, dates, choices, text) and the field history.

Both surfaces hand raw values to the services: a form gives "$120,000", a tool gives 120000. Both
are parsed here, so the same input makes the same change wherever it comes from.
"""

from __future__ import annotations

import re
from datetime import date, datetime
from decimal import Decimal, InvalidOperation

from sqlalchemy.orm import Session

from officegym.apps.org.models import Person
from officegym.errors import Invalid
from officegym.values import choice, day, text, whole

from .models import FieldChange

__all__ = ["text", "choice", "day", "whole", "email", "phone", "money_cents", "percent_bp", "dollars",
           "apply_changes", "record_creation", "insert", "requested_changes"]

MAX_MONEY_CENTS = 10**12  # ten billion dollars
_MONEY = re.compile(r"^\$?\s*(\d{1,3}(,\d{3})+|\d+)(\.\d{1,2})?$")
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[a-z]{2,}$", re.IGNORECASE)
_PHONE = re.compile(r"^[0-9+().\-\s x]{5,40}$")


def email(value, what: str = "Email") -> str:
    """An email address, or empty."""
    cleaned = text(value, what, 160)
    if cleaned and not _EMAIL.match(cleaned):
        raise Invalid(f"{what} {cleaned!r} is not an email address (name@example.com).")
    return cleaned.lower()


def phone(value) -> str:
    """A phone number of digits, spaces and + ( ) - . x, or empty."""
    cleaned = text(value, "Phone", 40)
    if cleaned and not _PHONE.match(cleaned):
        raise Invalid(f"Phone {cleaned!r} may hold only digits, spaces and + ( ) - . x.")
    return cleaned




def money_cents(value, what: str = "Amount") -> int:
    """Dollars as a number or text such as "$120,000.50" -> whole cents (non-negative)."""
    if isinstance(value, bool) or value is None:
        raise Invalid(f"{what} must be a number of dollars, got {value!r}.")
    if isinstance(value, str):
        cleaned = value.strip().replace(" ", "")
        if not _MONEY.match(cleaned):
            raise Invalid(f"{what} {value!r} is not an amount of dollars such as 120000 or $120,000.50.")
        value = cleaned.lstrip("$").replace(",", "")
    try:
        dollars = Decimal(str(value))
    except InvalidOperation:
        raise Invalid(f"{what} must be a number of dollars, got {value!r}.") from None
    if not dollars.is_finite() or dollars < 0:
        raise Invalid(f"{what} must be zero or more, got {value!r}.")
    cents = dollars * 100
    if cents != cents.to_integral_value():
        raise Invalid(f"{what} has more than two decimals: {value!r}.")
    if cents > MAX_MONEY_CENTS:
        raise Invalid(f"{what} {value!r} is too large (at most $10,000,000,000).")
    return int(cents)


def percent_bp(value, what: str = "Discount") -> int:
    """A percentage 0-100 with at most two decimals -> hundredths of a percent."""
    if isinstance(value, str):
        value = value.strip().rstrip("%").strip()
    if isinstance(value, bool) or value is None or value == "":
        raise Invalid(f"{what} must be a percentage between 0 and 100, got {value!r}.")
    try:
        number = Decimal(str(value))
    except InvalidOperation:
        raise Invalid(f"{what} must be a percentage between 0 and 100, got {value!r}.") from None
    if not number.is_finite() or not 0 <= number <= 100:
        raise Invalid(f"{what} must be between 0 and 100 percent, got {value!r}.")
    bp = number * 100
    if bp != bp.to_integral_value():
        raise Invalid(f"{what} has more than two decimals: {value!r}.")
    return int(bp)






def dollars(cents: int) -> str:
    """Cents as "$1,234.50" for messages and history."""
    return f"${cents / 100:,.2f}"


def _shown(field: str, value) -> str:
    if value is None:
        return ""
    if field.endswith("_cents"):
        return dollars(value)
    if field.endswith("_bp"):
        return f"{value / 100:g}%"
    if isinstance(value, Person):
        return value.name
    if isinstance(value, (date, datetime)):
        return value.isoformat()
    return str(value)


def apply_changes(session: Session, actor: Person, record, record_type: str, changes: dict,
                  when: datetime) -> list[str]:
    """Set each changed attribute of `record` and write one history row per changed field.
    Returns the names of the fields that really changed."""
    changed: list[str] = []
    for field, new in changes.items():
        old = getattr(record, field)
        if old == new:
            continue
        setattr(record, field, new)
        if field == "owner_id":  # history names people, not ids
            old, new = session.get(Person, old), session.get(Person, new)
        label = field.removesuffix("_cents").removesuffix("_bp").removesuffix("_id")
        session.add(FieldChange(record_type=record_type, record_id=record.id, field=label,
                                old_value=_shown(field, old)[:500], new_value=_shown(field, new)[:500],
                                changed_by_id=actor.id, changed_at=when))
        changed.append(field)
    return changed


def record_creation(session: Session, actor: Person, record_type: str, record_id: int, when: datetime) -> None:
    """The first line of a record's history."""
    session.add(FieldChange(record_type=record_type, record_id=record_id, field="created", old_value="",
                            new_value="", changed_by_id=actor.id, changed_at=when))


def insert(session: Session, actor: Person, record, record_type: str, when: datetime):
    """Add a new record, give it its id and start its history."""
    session.add(record)
    session.flush()
    record_creation(session, actor, record_type, record.id, when)
    return record


def requested_changes(changes: dict, allowed: set[str], noun: str) -> dict:
    """The fields an update really sets (None means "leave as is"), refusing unknown ones and
    an update that sets nothing."""
    given = {key: value for key, value in changes.items() if value is not None}
    unknown = set(given) - allowed
    if unknown:
        raise Invalid(f"{noun} have no field {', '.join(sorted(unknown))}; they have {', '.join(sorted(allowed))}.")
    if not given:
        raise Invalid("Nothing to change: give at least one field.")
    return given
