"""Arithmetic and aggregate functions: SUM, AVERAGE, MIN, MAX, COUNT, COUNTA, COUNTBLANK, PRODUCT,
MEDIAN, SUMPRODUCT, ROUND, ROUNDUP, ROUNDDOWN, ABS, INT, MOD, POWER, SQRT.

Aggregates follow spreadsheet rules: inside ranges only numbers count, values passed directly are
coerced ("3" is 3, TRUE is 1, "abc" is #VALUE!), and an error anywhere is the result.
"""

from __future__ import annotations

import math
from decimal import ROUND_DOWN, ROUND_HALF_UP, ROUND_UP, Decimal, localcontext

from .fn_common import OMITTED, cells, decimal_of, flat, integer, number, numbers, parse_date_text, shape
from .values import CellError, Grid, div0, format_general, first_error, is_number, num_error, parse_number, value_error


def sum_(ctx, *args):
    """SUM: the total of the numbers."""
    found = numbers(args, "SUM")
    return found if isinstance(found, CellError) else math.fsum(found)


def average(ctx, *args):
    """AVERAGE: the mean of the numbers; #DIV/0! when there are none."""
    found = numbers(args, "AVERAGE")
    if isinstance(found, CellError):
        return found
    if not found:
        return div0("AVERAGE found no numbers to average.")
    return math.fsum(found) / len(found)


def min_(ctx, *args):
    """MIN: the smallest number, 0 when there are none."""
    found = numbers(args, "MIN")
    return found if isinstance(found, CellError) else (min(found) if found else 0.0)


def max_(ctx, *args):
    """MAX: the largest number, 0 when there are none."""
    found = numbers(args, "MAX")
    return found if isinstance(found, CellError) else (max(found) if found else 0.0)


def product(ctx, *args):
    """PRODUCT: the numbers multiplied together, 0 when there are none (as in Excel)."""
    found = numbers(args, "PRODUCT")
    if isinstance(found, CellError):
        return found
    return math.prod(found) if found else 0.0


def median(ctx, *args):
    """MEDIAN: the middle number (the mean of the middle two for an even count)."""
    found = numbers(args, "MEDIAN")
    if isinstance(found, CellError):
        return found
    if not found:
        return num_error("MEDIAN found no numbers.")
    ordered, middle = sorted(found), len(found) // 2
    return ordered[middle] if len(found) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def count(ctx, *args):
    """COUNT: how many numbers; values passed directly count when they read as numbers."""
    total = 0
    for arg in args:
        if isinstance(arg, Grid):
            total += sum(1 for value in arg.values() if is_number(value))
        elif is_number(arg) or isinstance(arg, bool):
            total += 1
        elif isinstance(arg, str) and (parse_number(arg) is not None or parse_date_text(arg) is not None):
            total += 1
    return float(total)


def counta(ctx, *args):
    """COUNTA: how many values are not empty (errors and "" count)."""
    return float(sum(1 for value in flat(args) if value is not None))


def countblank(ctx, area):
    """COUNTBLANK: how many cells are empty or hold ""."""
    return float(sum(1 for value in cells(area).values() if value is None or value == ""))


def sumproduct(ctx, *arrays):
    """SUMPRODUCT: multiply same-sized ranges cell by cell and add up; text and empties count as 0."""
    grids = [cells(array) for array in arrays]
    for grid in grids[1:]:
        if (grid.height, grid.width) != (grids[0].height, grids[0].width):
            return value_error(f"SUMPRODUCT needs ranges of the same size; got {shape(grids[0])} and {shape(grid)}.")
    error = first_error(grids)
    if error is not None:
        return error
    columns = zip(*(list(grid.values()) for grid in grids))
    return math.fsum(math.prod(float(v) if is_number(v) else 0.0 for v in column) for column in columns)


def _rounder(name: str, mode: str):
    def rounded(ctx, value, digits=OMITTED):
        amount = number(value)
        if isinstance(amount, CellError):
            return amount
        places = 0 if digits is OMITTED else integer(digits)
        if isinstance(places, CellError):
            return places
        places = max(-400, min(400, places))  # beyond these every float is already settled
        with localcontext() as context:
            context.prec = 1000
            step = Decimal(1).scaleb(-places)
            return float(decimal_of(amount).quantize(step, rounding=mode))

    rounded.__name__ = name.lower()
    rounded.__doc__ = f"{name}: a number rounded to a number of digits (negative digits round left of the point)."
    return rounded


round_ = _rounder("ROUND", ROUND_HALF_UP)  # half away from zero: ROUND(-2.5, 0) is -3
roundup = _rounder("ROUNDUP", ROUND_UP)  # away from zero
rounddown = _rounder("ROUNDDOWN", ROUND_DOWN)  # toward zero


def abs_(ctx, value):
    """ABS: the number without its sign."""
    amount = number(value)
    return amount if isinstance(amount, CellError) else abs(amount)


def int_(ctx, value):
    """INT: the number rounded down to a whole number (INT(-3.5) is -4)."""
    amount = number(value)
    return amount if isinstance(amount, CellError) else float(math.floor(amount))


def sqrt(ctx, value):
    """SQRT: the square root; #NUM! for a negative number."""
    amount = number(value)
    if isinstance(amount, CellError):
        return amount
    if amount < 0:
        return num_error(f"SQRT of a negative number ({format_general(amount)}) has no real value.")
    return math.sqrt(amount)


def mod(ctx, dividend, divisor):
    """MOD: the remainder, with the sign of the divisor (MOD(-3, 2) is 1)."""
    left, right = number(dividend), number(divisor)
    if isinstance(left, CellError):
        return left
    if isinstance(right, CellError):
        return right
    if right == 0:
        return div0("MOD by zero.")
    return left % right  # Python's % already takes the divisor's sign


def power(ctx, base, exponent):
    """POWER: base raised to exponent (0^0 is 1, as the ^ operator gives)."""
    left, right = number(base), number(exponent)
    if isinstance(left, CellError):
        return left
    if isinstance(right, CellError):
        return right
    if left == 0 and right < 0:
        return div0("POWER: zero raised to a negative power.")
    if left < 0 and not right.is_integer():
        return num_error("POWER: a negative number raised to a fractional power has no real value.")
    try:
        return float(left ** right)
    except OverflowError:
        return num_error("POWER: the result is too large.")


SPECS = {
    "SUM": (sum_, 1, None),
    "AVERAGE": (average, 1, None),
    "MIN": (min_, 1, None),
    "MAX": (max_, 1, None),
    "PRODUCT": (product, 1, None),
    "MEDIAN": (median, 1, None),
    "COUNT": (count, 1, None),
    "COUNTA": (counta, 1, None),
    "COUNTBLANK": (countblank, 1, 1),
    "SUMPRODUCT": (sumproduct, 1, None),
    "ROUND": (round_, 1, 2),
    "ROUNDUP": (roundup, 1, 2),
    "ROUNDDOWN": (rounddown, 1, 2),
    "ABS": (abs_, 1, 1),
    "INT": (int_, 1, 1),
    "SQRT": (sqrt, 1, 1),
    "MOD": (mod, 2, 2),
    "POWER": (power, 2, 2),
}
