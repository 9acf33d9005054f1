"""Criteria as COUNTIF, SUMIF, AVERAGEIF and their *IFS forms read them.

A criterion is a value (5, TRUE, "apple") meaning "equal to", or a text starting with an operator:
"<5", ">=10", "<>done", "=x". Text matches ignore case and may use wildcards (* any run, ? any one
character, ~ to escape either). "" matches empty cells (and cells holding ""), "=" only truly empty
cells, "<>" any non-empty cell. A criterion that reads as a number or a date (2026-03-01, 3/1/2026)
compares as a number, and for equality a cell holding numeric text counts as that number, as in
Excel. Numbers never match text criteria and TRUE/FALSE never match numbers.
"""

from __future__ import annotations

import operator
import re
from functools import lru_cache
from typing import Callable

from .fn_common import parse_date_text
from .range_entry import BLANK
from .values import ERROR_CODES, CellError, Grid, Scalar, is_number, parse_number, scalar

_OPERATORS = ("<=", ">=", "<>", "<", ">", "=")  # two-character operators first
_ORDER = {"<": operator.lt, ">": operator.gt, "<=": operator.le, ">=": operator.ge}


@lru_cache(maxsize=512)
def wildcard_regex(pattern: str) -> re.Pattern:
    """A case-insensitive regex for a spreadsheet wildcard pattern (* ? and ~ as escape)."""
    parts, escaped = [], False
    for char in pattern:
        if escaped:
            parts.append(re.escape(char))
            escaped = False
        elif char == "~":
            escaped = True
        elif char == "*":
            parts.append(".*")
        elif char == "?":
            parts.append(".")
        else:
            parts.append(re.escape(char))
    if escaped:  # a trailing ~ stands for itself
        parts.append(re.escape("~"))
    return re.compile("".join(parts), re.IGNORECASE | re.DOTALL)


def has_wildcards(pattern: str) -> bool:
    """Whether a text uses * ? or ~, so that it needs wildcard matching rather than equality."""
    return any(char in pattern for char in "*?~")


def text_equals(pattern: str, value: str) -> bool:
    """Case-insensitive equality of a cell text with a pattern that may hold wildcards."""
    if has_wildcards(pattern):
        return wildcard_regex(pattern).fullmatch(value) is not None
    return pattern.casefold() == value.casefold()


def matcher(criterion) -> Callable[[Scalar], bool]:
    """A predicate telling whether a cell value meets a COUNTIF-style criterion."""
    if isinstance(criterion, Grid):
        criterion = scalar(criterion)
    if criterion is None:
        return _blank_or_empty_text
    if isinstance(criterion, CellError):
        return _error_is(criterion.code)
    if isinstance(criterion, bool):
        return _bool_is(criterion)
    if is_number(criterion):
        return _number_equals(float(criterion))
    op, operand = _split(criterion)
    if operand == "":
        if op == "=":
            return lambda value: value is None
        if op == "<>":
            return lambda value: value is not None
        if op == "":
            return _blank_or_empty_text
    equal = _equality(operand)
    if op in ("", "="):
        return equal
    if op == "<>":
        return lambda value: not equal(value)
    return _ordering(_ORDER[op], operand)


def equality_keys(criterion) -> tuple | None:
    """For a criterion meaning "equal to" (no wildcards), the index keys (range_entry.filed_under) of
    exactly the cells `matcher(criterion)` accepts; None for any other criterion."""
    if isinstance(criterion, Grid):
        criterion = scalar(criterion)
    if criterion is None:
        return BLANK, ("s", "")
    if isinstance(criterion, CellError):
        return (("e", criterion.code),)
    if isinstance(criterion, bool):
        return (("b", criterion),)
    if is_number(criterion):
        return _number_keys(float(criterion))
    op, operand = _split(criterion)
    if operand == "":
        return (BLANK,) if op == "=" else ((BLANK, ("s", "")) if op == "" else None)
    if op not in ("", "="):
        return None
    meant = _operand(operand)
    if isinstance(meant, CellError):
        return (("e", meant.code),)
    if isinstance(meant, bool):
        return (("b", meant),)
    if isinstance(meant, float):
        return _number_keys(meant)
    return None if has_wildcards(meant) else (("s", meant.casefold()),)


def _number_keys(target: float) -> tuple | None:
    """A number matches numbers and numeric texts; NaN matches nothing, which a key cannot say."""
    return None if target != target else (("n", target), ("t", target))


def _split(criterion: str) -> tuple[str, str]:
    for op in _OPERATORS:
        if criterion.startswith(op):
            return op, criterion[len(op):]
    return "", criterion


def _operand(operand: str):
    """What an operand text stands for: a number (dates as serials), a truth value, an error or text."""
    found = parse_number(operand)
    if found is None:
        found = parse_date_text(operand)
    if found is not None:
        return found
    upper = operand.strip().upper()
    if upper in ("TRUE", "FALSE"):
        return upper == "TRUE"
    if upper in ERROR_CODES:
        return CellError(upper)
    return operand


def _equality(operand: str) -> Callable[[Scalar], bool]:
    meant = _operand(operand)
    if isinstance(meant, CellError):
        return _error_is(meant.code)
    if isinstance(meant, bool):
        return _bool_is(meant)
    if isinstance(meant, float):
        return _number_equals(meant)
    return lambda value: isinstance(value, str) and text_equals(meant, value)


def _ordering(compare, operand: str) -> Callable[[Scalar], bool]:
    meant = _operand(operand)
    if isinstance(meant, CellError):
        return lambda value: False
    if isinstance(meant, bool):
        return lambda value: isinstance(value, bool) and compare(value, meant)
    if isinstance(meant, float):
        # only numbers take part in < and >: text, TRUE/FALSE and empty cells never match
        return lambda value: is_number(value) and compare(float(value), meant)
    folded = meant.casefold()
    return lambda value: isinstance(value, str) and compare(value.casefold(), folded)


def _number_equals(target: float) -> Callable[[Scalar], bool]:
    def match(value: Scalar) -> bool:
        if is_number(value):
            return float(value) == target
        if isinstance(value, str):  # "5" in a cell counts as 5, as COUNTIF does
            return parse_number(value) == target
        return False

    return match


def _bool_is(target: bool) -> Callable[[Scalar], bool]:
    return lambda value: isinstance(value, bool) and value == target


def _error_is(code: str) -> Callable[[Scalar], bool]:
    return lambda value: isinstance(value, CellError) and value.code == code


def _blank_or_empty_text(value: Scalar) -> bool:
    return value is None or value == ""
