"""The sheets function library against results Excel and Google Sheets give: aggregates, conditional
aggregates, logic, the registry's refusals, and a sweep showing no function raises on odd input.
Lookup, text and date functions are in test_sheets_functions_more.py."""

from __future__ import annotations

from datetime import date
from types import SimpleNamespace

import pytest

from officegym.apps.sheets.formula import library
from officegym.apps.sheets.formula.criteria import matcher
from officegym.apps.sheets.formula.values import CellError, Grid, serial_of

CTX = SimpleNamespace(today=date(2026, 3, 16))
NA, DIV0, VALUE, NUM = (CellError(code, "an error from a cell") for code in ("#N/A", "#DIV/0!", "#VALUE!", "#NUM!"))


def run(name, *args):
    """The result of calling a function through the registry."""
    return library.call(name, CTX, list(args))


def col(*values):
    """A one-column range."""
    return Grid([[value] for value in values])


def row(*values):
    """A one-row range."""
    return Grid([list(values)])


def check(result, expected):
    """Errors compare by code; numbers approximately and always as floats; the rest exactly."""
    if isinstance(expected, CellError):
        assert isinstance(result, CellError) and result.code == expected.code, result
        assert result.detail, "every error says why"
    elif isinstance(expected, float):
        assert type(result) is float and result == pytest.approx(expected), result
    else:
        assert result == expected and type(result) is type(expected), result


MIXED = col(1.0, "2", True, None, 4.0)
REGIONS = col("East", "West", "east", "North", None)
AMOUNTS = col(10.0, 20.0, 30.0, "n/a", 50.0)


@pytest.mark.parametrize("name, args, expected", [
    ("SUM", (1.0, 2.0, 3.0), 6.0),
    ("SUM", ("3", True), 4.0),  # values typed directly are coerced
    ("SUM", ("abc",), VALUE),
    ("SUM", (MIXED,), 5.0),  # inside a range only numbers count
    ("SUM", (col(1.0, DIV0),), DIV0),
    ("SUM", (None, 2.0), 2.0),
    ("AVERAGE", (col(2.0, 4.0, "x", None),), 3.0),
    ("AVERAGE", (col("a", None),), DIV0),
    ("AVERAGE", (1.0, "3"), 2.0),
    ("MIN", (col(5.0, 3.0, "1"),), 3.0),
    ("MIN", (col("x", None),), 0.0),
    ("MAX", (col(-5.0, -3.0),), -3.0),
    ("MAX", (col(1.0, NA),), NA),
    ("COUNT", (col(1.0, "2", True, None, NA, 3.0),), 2.0),
    ("COUNT", ("3", "x", True), 2.0),
    ("COUNTA", (col(1.0, "", None, NA, False),), 4.0),
    ("COUNTBLANK", (col(None, "", 0.0, "x"),), 2.0),
    ("PRODUCT", (2.0, 3.0, col(4.0, "x")), 24.0),
    ("PRODUCT", (col(None),), 0.0),
    ("MEDIAN", (3.0, 1.0, 2.0), 2.0),
    ("MEDIAN", (col(1.0, 2.0, 3.0, 4.0),), 2.5),
    ("MEDIAN", (col("x"),), NUM),
    ("SUMPRODUCT", (col(1.0, 2.0, 3.0), col(4.0, 5.0, 6.0)), 32.0),
    ("SUMPRODUCT", (col(1.0, "x"), col(2.0, 3.0)), 2.0),
    ("SUMPRODUCT", (col(1.0, 2.0), col(1.0, 2.0, 3.0)), VALUE),
    ("ROUND", (2.5, 0.0), 3.0),
    ("ROUND", (-2.5, 0.0), -3.0),  # half away from zero, not to even
    ("ROUND", (2.675, 2.0), 2.68),
    ("ROUND", (1.005, 2.0), 1.01),
    ("ROUND", (1234.567, -2.0), 1200.0),
    ("ROUND", (0.5,), 1.0),
    ("ROUND", ("abc", 1.0), VALUE),
    ("ROUNDUP", (3.2, 0.0), 4.0),
    ("ROUNDUP", (-3.2, 0.0), -4.0),
    ("ROUNDUP", (3.14159, 3.0), 3.142),
    ("ROUNDDOWN", (3.99, 0.0), 3.0),
    ("ROUNDDOWN", (-3.99, 0.0), -3.0),
    ("ROUNDDOWN", (1234.5, -2.0), 1200.0),
    ("ABS", (-3.0,), 3.0),
    ("INT", (-3.5,), -4.0),
    ("INT", (3.9,), 3.0),
    ("MOD", (-3.0, 2.0), 1.0),
    ("MOD", (3.0, -2.0), -1.0),
    ("MOD", (10.0, 3.0), 1.0),
    ("MOD", (5.0, 0.0), DIV0),
    ("POWER", (2.0, 10.0), 1024.0),
    ("POWER", (-8.0, 1 / 3), NUM),
    ("POWER", (0.0, -1.0), DIV0),
    ("SQRT", (16.0,), 4.0),
    ("SQRT", (-1.0,), NUM),
])
def test_math(name, args, expected):
    check(run(name, *args), expected)


@pytest.mark.parametrize("name, args, expected", [
    ("COUNTIF", (REGIONS, "east"), 2.0),  # text ignores case
    ("COUNTIF", (AMOUNTS, ">15"), 3.0),
    ("COUNTIF", (AMOUNTS, "<=20"), 2.0),
    ("COUNTIF", (REGIONS, "<>east"), 3.0),  # empty cells are "not east" too
    ("COUNTIF", (REGIONS, ""), 1.0),
    ("COUNTIF", (REGIONS, "<>"), 4.0),
    ("COUNTIF", (REGIONS, "*st"), 3.0),
    ("COUNTIF", (REGIONS, "?est"), 1.0),
    ("COUNTIF", (col("a*b", "axb"), "a~*b"), 1.0),
    ("COUNTIF", (col(1.0, "1", 2.0), 1.0), 2.0),  # numeric text counts as the number
    ("COUNTIF", (col(True, 1.0, False), True), 1.0),  # TRUE is not 1 here
    ("COUNTIF", (col(serial_of(date(2026, 3, 1)), serial_of(date(2026, 3, 20))), ">=2026-03-10"), 1.0),
    ("COUNTIF", (REGIONS, col("a", "b")), VALUE),
    ("SUMIF", (REGIONS, "east", AMOUNTS), 40.0),
    ("SUMIF", (AMOUNTS, ">15"), 100.0),
    ("SUMIF", (REGIONS, "North", AMOUNTS), 0.0),  # the matching amount is text
    ("SUMIF", (REGIONS, "West", col(1.0, DIV0)), DIV0),
    ("SUMIFS", (AMOUNTS, REGIONS, "*st", AMOUNTS, ">15"), 50.0),
    ("SUMIFS", (AMOUNTS, REGIONS, "east", col(1.0, 2.0), ">0"), VALUE),
    ("SUMIFS", (AMOUNTS, REGIONS, "east", AMOUNTS), NA),
    ("COUNTIFS", (REGIONS, "east", AMOUNTS, ">15"), 1.0),
    ("COUNTIFS", (REGIONS, "east", col(1.0), ">0"), VALUE),
    ("AVERAGEIF", (REGIONS, "east", AMOUNTS), 20.0),
    ("AVERAGEIF", (REGIONS, "South", AMOUNTS), DIV0),
    ("AVERAGEIF", (AMOUNTS, ">15"), 100.0 / 3),
    ("AVERAGEIFS", (AMOUNTS, REGIONS, "<>North"), 27.5),
    ("AVERAGEIFS", (AMOUNTS, REGIONS, "nowhere"), DIV0),
])
def test_conditional_aggregates(name, args, expected):
    check(run(name, *args), expected)


@pytest.mark.parametrize("criterion, value, expected", [
    ("", None, True), ("", "", True), ("=", "", False), ("=", None, True),
    ("<>", "", True), ("<>", None, False), (">5", "9", False), ("<b", "Apple", True),
    ("TRUE", True, True), ("5", 5.0, True), (5.0, True, False), ("#N/A", NA, True),
])
def test_criteria(criterion, value, expected):
    assert matcher(criterion)(value) is expected


@pytest.mark.parametrize("name, args, expected", [
    ("IF", (True, "y", "n"), "y"),
    ("IF", (0.0, 1.0, 2.0), 2.0),
    ("IF", (False, 1.0), False),  # no else: FALSE
    ("IF", ("abc", 1.0, 2.0), VALUE),
    ("IF", (DIV0, 1.0, 2.0), DIV0),
    ("IF", ("TRUE", 1.0, 2.0), 1.0),
    ("IFS", (False, 1.0, True, 2.0), 2.0),
    ("IFS", (False, 1.0), NA),
    ("IFS", (True, 1.0, False), NA),
    ("AND", (True, 1.0), True),
    ("AND", (True, 0.0), False),
    ("AND", (col(True, "x", None),), True),  # text and empty cells in ranges are skipped
    ("AND", (col("x", None),), VALUE),
    ("AND", (True, NA), NA),
    ("OR", (False, col(0.0, 2.0)), True),
    ("OR", (False, False), False),
    ("OR", ("abc",), VALUE),
    ("XOR", (True, True), False),
    ("XOR", (True, False, True, True), True),
    ("NOT", (True,), False),
    ("NOT", (0.0,), True),
    ("NOT", ("x",), VALUE),
    ("IFERROR", (DIV0, "bad"), "bad"),
    ("IFERROR", (5.0, "bad"), 5.0),
    ("IFNA", (NA, 0.0), 0.0),
    ("IFNA", (DIV0, 0.0), DIV0),
    ("TRUE", (), True),
    ("FALSE", (), False),
    ("NA", (), NA),
    ("ISBLANK", (None,), True),
    ("ISBLANK", ("",), False),
    ("ISNUMBER", (1.0,), True),
    ("ISNUMBER", ("1",), False),
    ("ISTEXT", ("a",), True),
    ("ISTEXT", (1.0,), False),
    ("ISLOGICAL", (True,), True),
    ("ISERROR", (NA,), True),
    ("ISERROR", (0.0,), False),
    ("ISNA", (NA,), True),
    ("ISNA", (VALUE,), False),
    ("ISERR", (NA,), False),
    ("SWITCH", (2.0, 1.0, "one", 2.0, "two"), "two"),
    ("SWITCH", (3.0, 1.0, "one", "other"), "other"),
    ("SWITCH", (3.0, 1.0, "one"), NA),
    ("SWITCH", ("B", "a", 1.0, "b", 2.0), 2.0),
    ("SWITCH", (1.0, "1", "text", "number"), "number"),  # 1 is not "1"
    ("CHOOSE", (2.0, "a", "b", "c"), "b"),
    ("CHOOSE", (2.9, "a", "b", "c"), "b"),
    ("CHOOSE", (4.0, "a", "b"), VALUE),
    ("CHOOSE", (0.0, "a"), VALUE),
])
def test_logic(name, args, expected):
    check(run(name, *args), expected)


def test_omitted_branch_is_empty():
    """IF(A1,,2): the omitted branch is an empty value, which a cell shows as 0."""
    assert run("IF", True, None, 2.0) is None


@pytest.mark.parametrize("name, args, detail", [
    ("FOO", (1.0,), "Unknown function FOO."),
    ("IF", (True,), "IF takes 2 to 3 arguments; got 1."),
    ("XLOOKUP", (1.0,) * 7, "XLOOKUP takes 3 to 6 arguments; got 7."),
    ("NOT", (True, True), "NOT takes 1 argument; got 2."),
    ("TODAY", (1.0,), "TODAY takes no arguments; got 1."),
    ("SUM", (), "SUM takes at least 1 argument; got 0."),
    ("TRUE", (1.0,), "TRUE takes no arguments; got 1."),
])
def test_refusals(name, args, detail):
    result = run(name, *args)
    assert isinstance(result, CellError)
    assert result.code == ("#NAME?" if name == "FOO" else "#N/A")
    assert result.detail == detail


def test_names_are_case_insensitive():
    assert run("sum", 1.0, 2.0) == 3.0


def test_registry_is_consistent():
    for name, spec in library.FUNCTIONS.items():
        assert name == name.upper()
        assert spec.max_args is None or spec.min_args <= spec.max_args
        assert spec.fn.__doc__, f"{name} has no docstring"


ODD_VALUES = [None, 0.0, -1.0, 1e308, "abc", "", True, CellError("#REF!", "a deleted reference"), Grid([[1.0, "x"], [None, True]])]


def test_no_function_raises_on_odd_input():
    """Every function with every odd value in every argument position returns a value."""
    for name, spec in library.FUNCTIONS.items():
        counts = range(spec.min_args, (spec.max_args if spec.max_args is not None else spec.min_args + 2) + 1)
        for count in counts:
            for position in range(count):
                for odd in ODD_VALUES:
                    args = [1.0] * count
                    args[position] = odd
                    result = run(name, *args)
                    assert result is None or isinstance(result, (float, str, bool, CellError, Grid)), (name, args)
