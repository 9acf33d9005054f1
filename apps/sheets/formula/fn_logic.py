"""Logical and information functions: IF, IFS, AND, OR, NOT, XOR, IFERROR, IFNA, TRUE, FALSE, NA,
SWITCH, CHOOSE, ISBLANK, ISNUMBER, ISTEXT, ISLOGICAL, ISERROR, ISERR, ISNA.

Arguments arrive evaluated, so IF cannot skip its unused branch; that is harmless because errors
are values: an error in the branch not taken is never looked at.
"""

from __future__ import annotations

from .fn_common import OMITTED, describe, integer
from .values import CellError, Grid, compare, is_number, na, scalar, to_bool, value_error


def _condition(value, name: str) -> bool | CellError:
    """A truth value; a text that is not TRUE/FALSE is #VALUE! naming the function."""
    result = to_bool(scalar(value))
    if isinstance(result, CellError) and isinstance(value, str):
        return value_error(f"{name}: {result.detail}")
    return result


def if_(ctx, condition, then, otherwise=OMITTED):
    """IF: `then` when the condition is TRUE, else `otherwise` (FALSE when not given)."""
    test = _condition(condition, "IF")
    if isinstance(test, CellError):
        return test
    if test:
        return then
    return False if otherwise is OMITTED else otherwise


def ifs(ctx, *args):
    """IFS: the value after the first TRUE condition; #N/A when none is TRUE."""
    if len(args) % 2:
        return na(f"IFS needs condition/value pairs; got {len(args)} arguments.")
    for at in range(0, len(args), 2):
        test = _condition(args[at], "IFS")
        if isinstance(test, CellError):
            return test
        if test:
            return args[at + 1]
    return na("No condition in IFS was TRUE; add TRUE, value as the last pair for a default.")


def _logicals(name: str, args) -> list[bool] | CellError:
    """Truth values for AND/OR/XOR: ranges contribute TRUE/FALSE and numbers (text and empty cells
    are skipped); values passed directly must read as truth values."""
    found: list[bool] = []
    for arg in args:
        if isinstance(arg, Grid):
            for value in arg.values():
                if isinstance(value, CellError):
                    return value
                if isinstance(value, bool) or is_number(value):
                    found.append(bool(value))
        elif arg is not None:
            test = _condition(arg, name)
            if isinstance(test, CellError):
                return test
            found.append(test)
    if not found:
        return value_error(f"{name} found no TRUE/FALSE values or numbers among its arguments.")
    return found


def and_(ctx, *args):
    """AND: TRUE when every logical value is TRUE."""
    found = _logicals("AND", args)
    return found if isinstance(found, CellError) else all(found)


def or_(ctx, *args):
    """OR: TRUE when any logical value is TRUE."""
    found = _logicals("OR", args)
    return found if isinstance(found, CellError) else any(found)


def xor(ctx, *args):
    """XOR: TRUE when an odd number of logical values are TRUE."""
    found = _logicals("XOR", args)
    return found if isinstance(found, CellError) else sum(found) % 2 == 1


def not_(ctx, value):
    """NOT: the opposite truth value."""
    test = _condition(value, "NOT")
    return test if isinstance(test, CellError) else not test


def iferror(ctx, value, fallback):
    """IFERROR: the value, or the fallback when the value is any error."""
    return fallback if isinstance(value, CellError) else value


def ifna(ctx, value, fallback):
    """IFNA: the value, or the fallback when the value is #N/A."""
    return fallback if isinstance(value, CellError) and value.code == "#N/A" else value


def true_(ctx):
    """TRUE(): the value TRUE."""
    return True


def false_(ctx):
    """FALSE(): the value FALSE."""
    return False


def na_(ctx):
    """NA(): the #N/A error, to mark a value as not available."""
    return na("NA() marks this value as not available.")


def switch(ctx, expression, *cases):
    """SWITCH: the result paired with the first case equal to the expression, else the default."""
    subject = scalar(expression)
    if isinstance(subject, CellError):
        return subject
    for at in range(0, len(cases) - 1, 2):
        case = scalar(cases[at])
        if isinstance(case, CellError):
            return case
        # equal kind and value only: SWITCH(1, "1", …) does not match, text ignores case
        if compare(subject, case) == 0 and _same_kind(subject, case):
            return cases[at + 1]
    if len(cases) % 2:
        return cases[-1]
    return na(f"SWITCH found no case equal to {describe(subject)} and has no default.")


def _same_kind(left, right) -> bool:
    if left is None or right is None:
        return True  # an empty cell equals 0 and "" as compare() decides
    return isinstance(left, bool) == isinstance(right, bool) and isinstance(left, str) == isinstance(right, str)


def choose(ctx, index, *options):
    """CHOOSE: the option at a 1-based index."""
    at = integer(index)
    if isinstance(at, CellError):
        return at
    if not 1 <= at <= len(options):
        return value_error(f"CHOOSE index {at} is outside 1 to {len(options)}.")
    return options[at - 1]


def _is(name: str, test, doc: str):
    """An information function: TRUE when test(value) holds; ranges of several cells give FALSE
    (as implicit intersection failing would), except ISERROR/ISERR which see #VALUE!."""

    def check(ctx, value):
        return test(scalar(value))

    check.__name__, check.__doc__ = name.lower(), f"{name}: {doc}"
    return check


def _error_other_than_na(value) -> bool:
    return isinstance(value, CellError) and value.code != "#N/A"


SPECS = {
    "IF": (if_, 2, 3),
    "IFS": (ifs, 2, None),
    "AND": (and_, 1, None),
    "OR": (or_, 1, None),
    "XOR": (xor, 1, None),
    "NOT": (not_, 1, 1),
    "IFERROR": (iferror, 2, 2),
    "IFNA": (ifna, 2, 2),
    "TRUE": (true_, 0, 0),
    "FALSE": (false_, 0, 0),
    "NA": (na_, 0, 0),
    "SWITCH": (switch, 3, None),
    "CHOOSE": (choose, 2, None),
    "ISBLANK": (_is("ISBLANK", lambda value: value is None, "TRUE for an empty cell (not for \"\")."), 1, 1),
    "ISNUMBER": (_is("ISNUMBER", is_number, "TRUE for a number (dates included)."), 1, 1),
    "ISTEXT": (_is("ISTEXT", lambda value: isinstance(value, str), "TRUE for text."), 1, 1),
    "ISLOGICAL": (_is("ISLOGICAL", lambda value: isinstance(value, bool), "TRUE for TRUE or FALSE."), 1, 1),
    "ISERROR": (_is("ISERROR", lambda value: isinstance(value, CellError), "TRUE for any error."), 1, 1),
    "ISERR": (_is("ISERR", _error_other_than_na, "TRUE for any error except #N/A."), 1, 1),
    "ISNA": (_is("ISNA", lambda value: isinstance(value, CellError) and value.code == "#N/A", "TRUE for #N/A."), 1, 1),
}
