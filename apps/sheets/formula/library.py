"""The function registry the evaluator calls: name -> implementation and how many arguments it takes.

Every function is called as fn(ctx, *args) with evaluated arguments (scalars, or Grids for ranges;
an omitted argument is None) and returns a value; bad input gives a CellError, never an exception.
The implementations live in the fn_* modules, each listing its functions in SPECS.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

from . import fn_conditional, fn_date, fn_logic, fn_lookup, fn_math, fn_text
from .values import Value, is_number, na, name_error, num_error


@dataclass(frozen=True)
class FunctionSpec:
    """One spreadsheet function: its implementation and its argument count limits."""

    fn: Callable
    min_args: int
    max_args: int | None  # None: any number


def _registry() -> dict[str, FunctionSpec]:
    registry: dict[str, FunctionSpec] = {}
    for module in (fn_math, fn_conditional, fn_logic, fn_lookup, fn_text, fn_date):
        for name, (fn, least, most) in module.SPECS.items():
            assert name not in registry, f"{name} is defined twice"
            registry[name] = FunctionSpec(fn, least, most)
    return registry


FUNCTIONS: dict[str, FunctionSpec] = _registry()


def arity(name: str, spec: FunctionSpec) -> str:
    """How many arguments a function takes, in words: "IF takes 2 to 3 arguments"."""
    least, most = spec.min_args, spec.max_args
    if most is None:
        return f"{name} takes at least {least} argument{'s' if least != 1 else ''}"
    if least == most:
        if least == 0:
            return f"{name} takes no arguments"
        return f"{name} takes {least} argument{'s' if least != 1 else ''}"
    return f"{name} takes {least} to {most} arguments"


def call(name: str, ctx, args: list[Value]):
    """The value of a function call; #NAME? for an unknown function, #N/A for a wrong argument count."""
    key = name.upper()
    spec = FUNCTIONS.get(key)
    if spec is None:
        return name_error(f"Unknown function {key}.")
    given = len(args)
    if given < spec.min_args or (spec.max_args is not None and given > spec.max_args):
        return na(f"{arity(key, spec)}; got {given}.")
    try:
        result = spec.fn(ctx, *args)
    except OverflowError:  # a float too large for an integer or a date; not a crash
        return num_error(f"{key}: a number is too large.")
    if is_number(result):
        result = float(result)
        if not math.isfinite(result):
            return num_error(f"{key}: the result is not a finite number.")
    return result

