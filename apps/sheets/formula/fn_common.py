"""Argument handling shared by the function library.

Functions receive evaluated arguments: scalars (None, float, str, bool, CellError) or Grids. These
helpers turn them into the numbers, integers, texts, truth values and dates a function needs, and
return a CellError (never raise) when an argument cannot be read.
"""

from __future__ import annotations

import math
import re
from datetime import date
from decimal import Decimal

from .values import (
    EPOCH, CellError, Grid, Scalar, Value, date_of, format_general, is_number, parse_number, scalar,
    serial_of, to_bool, to_number, to_text, value_error,
)

MAX_TEXT = 32767  # the longest text a cell may hold in Excel; longer results are #VALUE!


class _Omitted:
    """The default of an optional parameter the formula did not pass at all."""

    def __repr__(self) -> str:
        return "OMITTED"


OMITTED = _Omitted()


def number(value: Value) -> float | CellError:
    """A single finite number from an argument (empty 0, TRUE 1, numeric text read)."""
    result = to_number(value)
    if isinstance(result, float) and not math.isfinite(result):
        return CellError("#NUM!", "The number is too large to use.")
    return result


def integer(value: Value) -> int | CellError:
    """A whole number from an argument, truncated toward zero as spreadsheets do for counts."""
    result = number(value)
    if isinstance(result, CellError):
        return result
    return int(result)


def text(value: Value) -> str | CellError:
    """A text from an argument (numbers in General format, TRUE/FALSE, empty as "")."""
    return to_text(value)


def boolean(value: Value) -> bool | CellError:
    """A truth value from an argument."""
    return to_bool(value)


def cells(value: Value) -> Grid:
    """An argument as a Grid: a single value (a one-cell reference arrives as one) becomes 1x1."""
    return value if isinstance(value, Grid) else Grid([[value]])


def shape(grid: Grid) -> str:
    """A grid's size as people write it, e.g. 3x2 (rows x columns)."""
    return f"{grid.height}x{grid.width}"


def describe(value: Scalar) -> str:
    """A value quoted for an error detail."""
    if value is None:
        return "an empty cell"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if is_number(value):
        return format_general(float(value))
    return repr(str(value))


def numbers(args, name: str) -> list[float] | CellError:
    """The numbers SUM-like functions add up: inside ranges only numbers count (text, TRUE/FALSE and
    empty cells are skipped); a value passed directly is coerced, so "3" is 3 and "abc" is #VALUE!."""
    found: list[float] = []
    for arg in args:
        if isinstance(arg, Grid):
            if arg.entry is not None:  # a range the Book keeps: its numbers are read once per change
                error, kept = arg.entry.numbers()
                if error is not None:
                    return error
                found.extend(kept)
                continue
            for value in arg.values():
                if isinstance(value, CellError):
                    return value
                if is_number(value):
                    found.append(float(value))
        elif arg is not None:  # an empty cell or omitted argument adds nothing
            result = number(arg)
            if isinstance(result, CellError):
                if result.code == "#VALUE!" and isinstance(arg, str):
                    return value_error(f"{name}: {result.detail}")
                return result
            found.append(result)
    return found


def flat(args):
    """Every value of the arguments, ranges flattened row by row."""
    for arg in args:
        if isinstance(arg, Grid):
            yield from arg.values()
        else:
            yield arg


def decimal_of(value: float) -> Decimal:
    """A number as a Decimal at 15 significant digits, the precision spreadsheets compute and show
    with (so 0.1+0.2 rounds up to 0.3, not 0.4, and 2.675 rounds to 2.68)."""
    return Decimal(f"{value:.15g}")


def limit(result: str, name: str) -> str | CellError:
    """A text result, or #VALUE! when it is longer than a cell may hold."""
    if len(result) > MAX_TEXT:
        return value_error(f"{name} would make a text of {len(result)} characters; the limit is {MAX_TEXT}.")
    return result


_ISO_DATE = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})")
_US_DATE = re.compile(r"(\d{1,2})/(\d{1,2})/(\d{4})")


def parse_date_text(raw: str) -> float | None:
    """The serial of a date written as 2026-03-01 or 3/1/2026, or None."""
    cleaned = raw.strip()
    match = _ISO_DATE.fullmatch(cleaned)
    if match:
        year, month, day = (int(part) for part in match.groups())
    else:
        match = _US_DATE.fullmatch(cleaned)
        if not match:
            return None
        month, day, year = (int(part) for part in match.groups())
    try:
        found = date(year, month, day)
    except ValueError:  # 2026-02-30 is not a date
        return None
    return serial_of(found) if found >= EPOCH else None


def serial(value: Value) -> float | CellError:
    """A date serial from an argument: a number, or a text such as 2026-03-01, 3/1/2026 or 46082."""
    value = scalar(value)
    if isinstance(value, str):
        found = parse_date_text(value)
        if found is not None:
            return found
        found = parse_number(value)
        if found is None:
            return value_error(f"Expected a date, got the text {value!r}; write dates as 2026-03-01 or 3/1/2026.")
        return found
    return number(value)


def day_of(value: Value) -> date | CellError:
    """The calendar date of an argument (see serial); #NUM! for negative or too large serials."""
    found = serial(value)
    if isinstance(found, CellError):
        return found
    return date_of(found)
