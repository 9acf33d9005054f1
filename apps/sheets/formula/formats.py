"""Number formats: how a cell value is shown, and what TEXT() produces.

A pattern is "" (General), "@" (text), a number pattern ([$] then 0 or #,##0, optional .00…,
optional % or E+00), or a date/time pattern made of yyyy yy mmmm mmm mm m dddd ddd dd d hh h mm ss
AM/PM with separators (- / space , . :). Numbers round half away from zero at 15 significant
digits, as spreadsheets do, never with Python's round-half-even. Text, TRUE/FALSE and errors show
as they are whatever the pattern.
"""

from __future__ import annotations

import math
import re
from decimal import ROUND_HALF_UP, Decimal, localcontext
from functools import lru_cache

from .fn_common import decimal_of
from .values import CellError, Scalar, date_of, format_general

NAMED_FORMATS = {
    "general": "",
    "number": "#,##0.00",
    "currency": "$#,##0.00",
    "percent": "0.00%",
    "date": "yyyy-mm-dd",
    "text": "@",
}

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December")
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")

_NUMBER = re.compile(r"(?P<currency>\$?)(?P<integer>#,##0|0)(?:\.(?P<decimals>0+))?"
                     r"(?P<suffix>%|E\+(?P<exponent>0+))?")
_DATE_TOKEN = re.compile(r"yyyy|yy|mmmm|mmm|mm|m|dddd|ddd|dd|d|hh|h|ss|s|am/pm|[-/ ,.:]", re.IGNORECASE)
_SEPARATORS = "-/ ,.:"


def format_value(value: Scalar, pattern: str) -> str:
    """How a value shows under a number format pattern; ValueError for a pattern not understood."""
    spec = _parse(pattern)
    if spec is None:
        raise ValueError(_unknown(pattern))
    if value is None:
        return ""
    if isinstance(value, CellError):
        return value.code
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, str):
        return value
    number = float(value)
    if not math.isfinite(number):
        return "#NUM!"
    kind = spec[0]
    if kind == "general" or kind == "text":
        return format_general(number)
    if kind == "number":
        return _format_number(number, *spec[1:])
    shown = _format_date(number, spec[1])
    # a serial before 1899-12-30 or after 9999 is no date: show the number rather than a wrong day
    return format_general(number) if shown is None else shown


def resolve_format(name_or_pattern: str) -> str:
    """The pattern for a format name (general, number, currency, percent, date, text) or a pattern
    itself; ValueError naming the accepted forms when neither."""
    named = NAMED_FORMATS.get(name_or_pattern.strip().lower())
    if named is not None:
        return named
    if _parse(name_or_pattern) is None:
        raise ValueError(_unknown(name_or_pattern))
    return name_or_pattern


def is_date_pattern(pattern: str) -> bool:
    """Whether a pattern shows dates or times (so that only valid date serials fit it)."""
    spec = _parse(pattern)
    return spec is not None and spec[0] == "date"


def _unknown(pattern: str) -> str:
    names = ", ".join(NAMED_FORMATS)
    return (f"Unknown number format {pattern!r}: use one of {names}, or a pattern such as 0, 0.00, "
            f"#,##0.00, $#,##0.00, 0%, 0.00%, 0.00E+00, @, yyyy-mm-dd, mm/dd/yyyy, d mmm yyyy, hh:mm.")


@lru_cache(maxsize=256)
def _parse(pattern: str):
    """("general",) ("text",) ("number", currency, grouping, decimals, suffix, exponent digits)
    ("date", tokens) or None."""
    if pattern == "" or pattern.lower() == "general":
        return ("general",)
    if pattern == "@":
        return ("text",)
    match = _NUMBER.fullmatch(pattern)
    if match:
        suffix = match["suffix"] or ""
        exponent = len(match["exponent"]) if match["exponent"] else 0
        return ("number", bool(match["currency"]), match["integer"] == "#,##0",
                len(match["decimals"] or ""), "E" if exponent else suffix, exponent)
    tokens, at = [], 0
    while at < len(pattern):
        token = _DATE_TOKEN.match(pattern, at)
        if token is None:
            return None
        tokens.append(token.group())
        at = token.end()
    if all(token in _SEPARATORS for token in tokens):
        return None
    return ("date", _minutes(tokens))


def _minutes(tokens: list[str]) -> tuple[str, ...]:
    """Mark m/mm tokens that mean minutes (after an hour or before seconds) as "min"/"mmin"."""
    fields = [i for i, token in enumerate(tokens) if token not in _SEPARATORS]
    marked = [token.lower() if token.lower() != "am/pm" else token for token in tokens]
    for place, i in enumerate(fields):
        if marked[i] not in ("m", "mm"):
            continue
        before = marked[fields[place - 1]] if place > 0 else ""
        after = marked[fields[place + 1]] if place + 1 < len(fields) else ""
        if before in ("h", "hh") or after in ("s", "ss"):
            marked[i] = "min" if marked[i] == "m" else "mmin"
    return tuple(marked)


def _format_number(number: float, currency: bool, grouping: bool, decimals: int, suffix: str,
                   exponent: int) -> str:
    amount = decimal_of(abs(number))
    with localcontext() as context:
        context.prec = 1000  # room for every digit of the largest float
        if suffix == "%":
            amount *= 100
        if suffix == "E":
            body = _scientific(amount, decimals, exponent)
            rounded_zero = amount == 0
        else:
            rounded = amount.quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP)
            rounded_zero = rounded == 0
            body = f"{rounded:,.{decimals}f}" if grouping else f"{rounded:.{decimals}f}"
    sign = "-" if number < 0 and not rounded_zero else ""  # -0.001 shows as 0.00, not -0.00
    return f"{sign}{'$' if currency else ''}{body}{'%' if suffix == '%' else ''}"


def _scientific(amount: Decimal, decimals: int, digits: int) -> str:
    step = Decimal(1).scaleb(-decimals)
    power = 0 if amount == 0 else amount.adjusted()
    mantissa = amount.scaleb(-power).quantize(step, rounding=ROUND_HALF_UP)
    if mantissa >= 10:  # 9.999 at two decimals rounds up to 10.00: move to the next power
        power += 1
        mantissa = amount.scaleb(-power).quantize(step, rounding=ROUND_HALF_UP)
    return f"{mantissa:.{decimals}f}E{'-' if power < 0 else '+'}{abs(power):0{digits}d}"


def _format_date(number: float, tokens: tuple[str, ...]) -> str | None:
    day = date_of(number)
    if isinstance(day, CellError):
        return None
    seconds = math.floor((number - math.floor(number)) * 86400 + 0.5)
    if seconds >= 86400:  # 23:59:59.6 rounds to the next midnight
        day = date_of(math.floor(number) + 1)
        if isinstance(day, CellError):
            return None
        seconds = 0
    hour, minute, second = seconds // 3600, seconds // 60 % 60, seconds % 60
    twelve = any(token.lower() == "am/pm" for token in tokens)
    clock_hour = (hour % 12 or 12) if twelve else hour
    shown = {
        "yyyy": f"{day.year:04d}", "yy": f"{day.year % 100:02d}",
        "mmmm": MONTHS[day.month - 1], "mmm": MONTHS[day.month - 1][:3],
        "mm": f"{day.month:02d}", "m": str(day.month),
        "dddd": WEEKDAYS[day.weekday()], "ddd": WEEKDAYS[day.weekday()][:3],
        "dd": f"{day.day:02d}", "d": str(day.day),
        "hh": f"{clock_hour:02d}", "h": str(clock_hour),
        "mmin": f"{minute:02d}", "min": str(minute), "ss": f"{second:02d}", "s": str(second),
    }
    parts = []
    for token in tokens:
        if token.lower() == "am/pm":
            marker = "AM" if hour < 12 else "PM"
            parts.append(marker if token[0].isupper() else marker.lower())
        else:
            parts.append(shown.get(token, token))
    return "".join(parts)
