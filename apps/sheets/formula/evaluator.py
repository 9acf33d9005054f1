"""Evaluate a syntax tree (parser.py) against a workbook's values.

The workbook is anything with `cell(sheet, row, col)`, `grid(sheet, area)`, `named(name)` and a
`ctx` carrying `today`; graph.Book is the one the services use. Errors are values: an operator
meeting an error passes it on, and functions decide for themselves (IFERROR catches them).
"""

from __future__ import annotations

import math

from . import library
from .values import CellError, compare, div0, name_error, num_error, scalar, to_number, to_text


def evaluate(node: tuple, book, sheet: str):
    """The value of a tree in a formula on `sheet`: a scalar, or a Grid for a bare range."""
    kind = node[0]
    if kind == "num" or kind == "str" or kind == "bool":
        return node[1]
    if kind == "ref":
        area = node[1]
        target = area.sheet or sheet
        if area.single:
            return book.cell(target, area.top, area.left)
        return book.grid(target, area)
    if kind == "bin":
        return _binary(node[1], evaluate(node[2], book, sheet), evaluate(node[3], book, sheet))
    if kind == "call":
        return library.call(node[1], book.ctx, [_argument(arg, book, sheet) for arg in node[2]])
    if kind == "neg" or kind == "pos" or kind == "pct":
        number = to_number(evaluate(node[1], book, sheet))
        if isinstance(number, CellError):
            return number
        return -number if kind == "neg" else (number / 100 if kind == "pct" else number)
    if kind == "err":
        return CellError(node[1], "The formula holds this error as written." if node[1] != "#REF!"
                         else "The formula refers to a deleted cell, row, column or sheet.")
    if kind == "name":
        area = book.named(node[1])
        if area is None:
            return name_error(f"Unknown name {node[1]}: define a named range or fix the spelling.")
        if area.single:
            return book.cell(area.sheet, area.top, area.left)
        return book.grid(area.sheet, area)
    if kind == "missing":
        return None
    raise ValueError(f"unknown node {kind}")


def _argument(node: tuple, book, sheet: str):
    """A function argument: a reference stays a range even when it is one cell, so that SUM(A1) on
    text gives 0 as SUM(A1:A1) does, while a typed value stays a value."""
    if node[0] == "missing":
        return None
    if node[0] == "ref" and node[1].single:
        return book.grid(node[1].sheet or sheet, node[1])
    return evaluate(node, book, sheet)


def final_value(value):
    """What a cell shows for a formula's result: a single value (a range of one cell gives its value)."""
    value = scalar(value)
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return num_error("The result is not a finite number.")
    if value is None:
        return 0.0  # a formula pointing at an empty cell shows 0, as in spreadsheets
    return value


def _binary(op: str, left, right):
    if op == "&":
        left, right = to_text(left), to_text(right)
        if isinstance(left, CellError):
            return left
        return right if isinstance(right, CellError) else left + right
    if op in ("=", "<>", "<", ">", "<=", ">="):
        left, right = scalar(left), scalar(right)
        if isinstance(left, CellError):
            return left
        if isinstance(right, CellError):
            return right
        order = compare(left, right)
        return {"=": order == 0, "<>": order != 0, "<": order < 0, ">": order > 0,
                "<=": order <= 0, ">=": order >= 0}[op]
    left, right = to_number(left), to_number(right)
    if isinstance(left, CellError):
        return left
    if isinstance(right, CellError):
        return right
    if op == "+":
        return left + right
    if op == "-":
        return left - right
    if op == "*":
        return left * right
    if op == "/":
        return div0("Division by zero: the divisor is 0 or empty.") if right == 0 else left / right
    return _power(left, right)


def _power(base: float, exponent: float):
    if base == 0 and exponent < 0:
        return div0("Zero raised to a negative power.")
    try:
        result = base ** exponent
    except OverflowError:
        return num_error("The power is too large.")
    if isinstance(result, complex):
        return num_error("A negative number raised to a fractional power has no real value.")
    return float(result)
