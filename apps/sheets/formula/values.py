"""Cell values as the engine sees them, and the coercions spreadsheet functions share.

A value is one of: None (an empty cell), float (numbers, dates as serial days), str, bool, or a
CellError. A range argument arrives as a Grid of such values. Errors are values, not exceptions:
they flow through formulas until a function such as IFERROR catches them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Iterator, Union

EPOCH = date(1899, 12, 30)  # serial day 0, as in Excel and Google Sheets (serial 1 is 1899-12-31)


@dataclass(frozen=True)
class CellError:
    """A spreadsheet error value such as #DIV/0!; `detail` says why, for people and agents."""

    code: str
    detail: str = field(default="", compare=False)

    def __str__(self) -> str:
        return self.code


ERROR_CODES = ("#DIV/0!", "#REF!", "#NAME?", "#VALUE!", "#N/A", "#NUM!", "#NULL!")


def div0(detail: str = "Division by zero.") -> CellError:
    """#DIV/0!"""
    return CellError("#DIV/0!", detail)


def ref_error(detail: str = "The reference points to a deleted cell or sheet.") -> CellError:
    """#REF!"""
    return CellError("#REF!", detail)


def name_error(detail: str) -> CellError:
    """#NAME? (unknown function or named range)."""
    return CellError("#NAME?", detail)


def value_error(detail: str) -> CellError:
    """#VALUE! (wrong type of argument)."""
    return CellError("#VALUE!", detail)


def na(detail: str = "No match found.") -> CellError:
    """#N/A (a lookup found nothing)."""
    return CellError("#N/A", detail)


def num_error(detail: str) -> CellError:
    """#NUM! (a number out of range)."""
    return CellError("#NUM!", detail)


Scalar = Union[None, float, str, bool, CellError]


@dataclass
class Grid:
    """The values of a rectangular range, row by row (dense: None for empty cells). Functions never
    change a Grid they are given: a Book hands out the grids it keeps between recalculations."""

    rows: list[list[Scalar]]
    # the range_entry.RangeEntry a Book keeps this grid in (its flat values, derived indexes), if any
    entry: object = field(default=None, compare=False, repr=False)

    @property
    def height(self) -> int:
        """Number of rows."""
        return len(self.rows)

    @property
    def width(self) -> int:
        """Number of columns."""
        return len(self.rows[0]) if self.rows else 0

    def values(self) -> Iterator[Scalar]:
        """Every value, row by row."""
        for row in self.rows:
            yield from row

    def flat(self) -> list[Scalar]:
        """Every value in a list, row by row (a kept grid's own list: read it, never change it)."""
        return self.entry.flat if self.entry is not None else [value for row in self.rows for value in row]

    def column(self, index: int) -> list[Scalar]:
        """The values of one column (0-based)."""
        return [row[index] for row in self.rows]


Value = Union[Scalar, Grid]


def is_number(value) -> bool:
    """A number proper (booleans are not numbers here, as in spreadsheets' ranges)."""
    return isinstance(value, float) or (isinstance(value, int) and not isinstance(value, bool))


def scalar(value: Value) -> Scalar:
    """A single value: a one-cell range gives its value; a larger range is #VALUE!."""
    if isinstance(value, Grid):
        if value.height == 1 and value.width == 1:
            return value.rows[0][0]
        return value_error("A range was given where a single value is expected.")
    return value


def parse_number(text: str) -> float | None:
    """The number a text spells (1,234.5, 12%, $5, -3e2), or None."""
    cleaned = text.strip().replace(",", "")
    percent = cleaned.endswith("%")
    cleaned = cleaned.rstrip("%").strip()
    negative = cleaned.startswith("-")
    cleaned = cleaned.lstrip("+-").lstrip("$€£").strip()
    if not cleaned or cleaned.lower() in ("inf", "infinity", "nan") or cleaned[0] in "+-":
        return None
    try:
        number = float(cleaned)
    except ValueError:
        return None
    if not math.isfinite(number):  # 1e999 overflows: a spreadsheet keeps such input as text
        return None
    number = -number if negative else number
    return number / 100 if percent else number


def to_number(value: Value) -> float | CellError:
    """A number for arithmetic: empty is 0, TRUE is 1, numeric text is read, other text is #VALUE!."""
    value = scalar(value)
    if value is None:
        return 0.0
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if is_number(value):
        return float(value)
    if isinstance(value, CellError):
        return value
    number = parse_number(value)
    if number is None:
        return value_error(f"Expected a number, got the text {value!r}.")
    return number


def format_general(number: float) -> str:
    """A number as the General format shows it: integers without a point, up to 15 significant digits."""
    if number == 0:
        return "0"
    if math.isinf(number) or math.isnan(number):
        return "#NUM!"
    if number.is_integer() and abs(number) < 1e15:
        return str(int(number))
    text = f"{number:.15g}"
    if "e" in text:
        mantissa, exponent = text.split("e")
        return f"{mantissa}E{'+' if int(exponent) >= 0 else '-'}{abs(int(exponent)):02d}"
    return text


def to_text(value: Value) -> str | CellError:
    """Text for & and text functions: empty is "", numbers in General format, TRUE/FALSE."""
    value = scalar(value)
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if is_number(value):
        return format_general(float(value))
    return value


def to_bool(value: Value) -> bool | CellError:
    """A truth value: empty is FALSE, numbers are TRUE unless 0, the texts TRUE/FALSE, else #VALUE!."""
    value = scalar(value)
    if value is None:
        return False
    if isinstance(value, bool):
        return value
    if is_number(value):
        return value != 0
    if isinstance(value, CellError):
        return value
    if value.strip().upper() in ("TRUE", "FALSE"):
        return value.strip().upper() == "TRUE"
    return value_error(f"Expected TRUE or FALSE, got the text {value!r}.")


def _kind_rank(value: Scalar) -> int:
    if value is None or is_number(value):
        return 0
    if isinstance(value, str):
        return 1
    return 2  # booleans sort after text, as in spreadsheets


def compare(left: Scalar, right: Scalar) -> int:
    """-1, 0 or 1 in spreadsheet order: numbers < text (case-insensitive) < booleans; empty acts as
    0 against numbers and "" against text."""
    if left is None:
        left = "" if isinstance(right, str) else (False if isinstance(right, bool) else 0.0)
    if right is None:
        right = "" if isinstance(left, str) else (False if isinstance(left, bool) else 0.0)
    a, b = _kind_rank(left), _kind_rank(right)
    if a != b:
        return -1 if a < b else 1
    if isinstance(left, str):
        left, right = left.lower(), right.lower()
    return (left > right) - (left < right)


def first_error(values) -> CellError | None:
    """The first error among values (scalars or grids), if any."""
    for value in values:
        if isinstance(value, CellError):
            return value
        if isinstance(value, Grid):
            for inner in value.values():
                if isinstance(inner, CellError):
                    return inner
    return None


def serial_of(day: date) -> float:
    """A date as serial days since 1899-12-30."""
    return float((day - EPOCH).days)


def date_of(serial: float) -> date | CellError:
    """The date of a serial day number (the fraction, a time of day, is dropped)."""
    if not 0 <= serial < 2958466:  # up to 9999-12-31
        return num_error(f"{format_general(serial)} is not a date serial number.")
    return EPOCH + timedelta(days=int(math.floor(serial)))
