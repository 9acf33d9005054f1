"""Parsing of plain field values shared by every app: text, choices, dates and whole numbers.

Both surfaces hand raw values to the services (a form gives "12", a tool gives 12); parsing them
here means the same input makes the same change wherever it comes from.
"""

from __future__ import annotations

from datetime import date, datetime

from officegym.errors import Invalid


def text(value, what: str, limit: int, required: bool = False) -> str:
    """Stripped text of at most `limit` characters (non-empty when required)."""
    if value is None:
        value = ""
    if not isinstance(value, str):
        raise Invalid(f"{what} must be text, got {type(value).__name__}.")
    cleaned = value.strip()
    if required and not cleaned:
        raise Invalid(f"{what} is required.")
    if len(cleaned) > limit:
        raise Invalid(f"{what} is {len(cleaned)} characters; the limit is {limit}.")
    return cleaned


def choice(value, allowed: tuple[str, ...], what: str) -> str:
    """One of `allowed`, matched without regard to case."""
    if isinstance(value, str):
        for option in allowed:
            if option.lower() == value.strip().lower():
                return option
    raise Invalid(f"{what} must be one of: {', '.join(allowed)}; got {value!r}.")


def day(value, what: str = "Date") -> date:
    """A date given as a date or as text YYYY-MM-DD."""
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        try:
            parsed = date.fromisoformat(value.strip())
        except ValueError:
            parsed = None
        if parsed is not None and 2000 <= parsed.year <= 2100:
            return parsed
    raise Invalid(f"{what} must be a date written YYYY-MM-DD (2000-2100), got {value!r}.")


def whole(value, what: str, low: int, high: int) -> int:
    """A whole number between low and high (digits in text are accepted)."""
    if isinstance(value, str) and value.strip().isdecimal():
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise Invalid(f"{what} must be a whole number from {low} to {high}, got {value!r}.")
    return value
