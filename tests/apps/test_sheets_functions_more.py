"""The sheets lookup, text and date functions against results Excel and Google Sheets give,
including the error each refusal must produce. The simulated date is Monday 2026-03-16."""

from __future__ import annotations

from datetime import date
from types import SimpleNamespace

import pytest
from test_sheets_functions import DIV0, NA, VALUE, check, col, row, run

from officegym.apps.sheets.formula import library
from officegym.apps.sheets.formula.values import CellError, Grid, serial_of

REF, NUM = CellError("#REF!"), CellError("#NUM!")
FRUIT = Grid([["Apple", 1.5, 10.0], ["banana", 0.5, 20.0], ["Cherry", 3.0, 30.0]])
BRACKETS = Grid([[0.0, "low"], [100.0, "mid"], [500.0, "high"]])
QUARTERS = Grid([["Q1", "Q2", "Q3"], [10.0, 20.0, 30.0]])


def day(year, month, day_of_month):
    """A date's serial number."""
    return serial_of(date(year, month, day_of_month))


@pytest.mark.parametrize("name, args, expected", [
    ("VLOOKUP", ("banana", FRUIT, 2.0, False), 0.5),
    ("VLOOKUP", ("BANANA", FRUIT, 3.0, 0.0), 20.0),
    ("VLOOKUP", ("b*", FRUIT, 2.0, False), 0.5),
    ("VLOOKUP", ("kiwi", FRUIT, 2.0, False), NA),
    ("VLOOKUP", ("Apple", FRUIT, 4.0, False), REF),
    ("VLOOKUP", ("Apple", FRUIT, 0.0, False), VALUE),
    ("VLOOKUP", (1.0, Grid([["1", "x"]]), 2.0, False), NA),  # the number 1 is not the text "1"
    ("VLOOKUP", (250.0, BRACKETS, 2.0), "mid"),  # approximate when omitted
    ("VLOOKUP", (500.0, BRACKETS, 2.0, True), "high"),
    ("VLOOKUP", (9999.0, BRACKETS, 2.0), "high"),
    ("VLOOKUP", (-1.0, BRACKETS, 2.0), NA),
    ("VLOOKUP", (DIV0, BRACKETS, 2.0), DIV0),
    ("HLOOKUP", ("Q2", QUARTERS, 2.0, False), 20.0),
    ("HLOOKUP", ("Q2", QUARTERS, 3.0, False), REF),
    ("XLOOKUP", ("b", col("a", "b", "c"), col(1.0, 2.0, 3.0)), 2.0),
    ("XLOOKUP", ("z", col("a", "b"), col(1.0, 2.0), "none"), "none"),
    ("XLOOKUP", ("z", col("a", "b"), col(1.0, 2.0)), NA),
    ("XLOOKUP", (25.0, col(10.0, 20.0, 30.0), col("a", "b", "c"), None, -1.0), "b"),
    ("XLOOKUP", (25.0, col(10.0, 20.0, 30.0), col("a", "b", "c"), None, 1.0), "c"),
    ("XLOOKUP", (20.0, col(30.0, 20.0, 10.0), col("a", "b", "c"), None, 1.0), "b"),
    ("XLOOKUP", ("c*", col("apple", "cherry"), col(1.0, 2.0), "no", 2.0), 2.0),
    ("XLOOKUP", ("c*", col("apple", "cherry"), col(1.0, 2.0), "no"), "no"),  # no wildcards in mode 0
    ("XLOOKUP", ("x", col("x", "y", "x"), col(1.0, 2.0, 3.0), None, 0.0, -1.0), 3.0),
    ("XLOOKUP", ("Q3", row("Q1", "Q2", "Q3"), row(10.0, 20.0, 30.0)), 30.0),
    ("XLOOKUP", ("a", col("a", "b"), col(1.0, 2.0, 3.0)), VALUE),
    ("XLOOKUP", ("a", FRUIT, col(1.0, 2.0, 3.0)), VALUE),
    ("XLOOKUP", ("a", col("a"), col(1.0), None, 5.0), VALUE),
    ("INDEX", (FRUIT, 2.0, 3.0), 20.0),
    ("INDEX", (FRUIT, 4.0, 1.0), REF),
    ("INDEX", (FRUIT, 1.0, 4.0), REF),
    ("INDEX", (FRUIT, -1.0, 1.0), VALUE),
    ("INDEX", (row("a", "b", "c"), 2.0), "b"),  # one row: the index runs along it
    ("INDEX", (col("a", "b", "c"), 3.0), "c"),
    ("INDEX", (FRUIT, 0.0, 2.0), Grid([[1.5], [0.5], [3.0]])),
    ("MATCH", ("banana", col("Apple", "banana", "Cherry"), 0.0), 2.0),
    ("MATCH", ("c?erry", col("Apple", "banana", "Cherry"), 0.0), 3.0),
    ("MATCH", (250.0, col(0.0, 100.0, 500.0)), 2.0),
    ("MATCH", (600.0, col(0.0, 100.0, 500.0), 1.0), 3.0),
    ("MATCH", (-5.0, col(0.0, 100.0, 500.0)), NA),
    ("MATCH", (50.0, col(100.0, 50.0, 10.0), -1.0), 2.0),
    ("MATCH", (60.0, col(100.0, 50.0, 10.0), -1.0), 1.0),
    ("MATCH", ("x", FRUIT, 0.0), NA),
    ("ROWS", (FRUIT,), 3.0),
    ("COLUMNS", (row(1.0, 2.0),), 2.0),
    ("ROWS", (5.0,), 1.0),
])
def test_lookup(name, args, expected):
    check(run(name, *args), expected)


@pytest.mark.parametrize("name, args, expected", [
    ("TEXT", (1234.567, "#,##0.00"), "1,234.57"),
    ("TEXT", (0.256, "0.0%"), "25.6%"),
    ("TEXT", (46082.0, "yyyy-mm-dd"), "2026-03-01"),
    ("TEXT", ("3", "0.00"), "3.00"),  # numeric text is formatted as a number
    ("TEXT", ("2026-03-01", "d mmm yyyy"), "1 Mar 2026"),
    ("TEXT", ("abc", "0.00"), "abc"),
    ("TEXT", (True, "0"), "TRUE"),
    ("TEXT", (5.0, "bogus"), VALUE),
    ("TEXT", (-1.0, "yyyy"), VALUE),
    ("CONCAT", ("a", row("b", "c"), 1.0), "abc1"),
    ("CONCAT", ("a", NA), NA),
    ("CONCATENATE", ("a", 1.5, True), "a1.5TRUE"),
    ("CONCATENATE", (row("b", "c"),), VALUE),
    ("TEXTJOIN", (", ", True, col("a", None, "", "b")), "a, b"),
    ("TEXTJOIN", ("-", False, col("a", None, "b")), "a--b"),
    ("LEFT", ("Hello",), "H"),
    ("LEFT", ("Hello", 3.0), "Hel"),
    ("LEFT", ("Hi", 10.0), "Hi"),
    ("LEFT", ("Hello", -1.0), VALUE),
    ("RIGHT", ("Hello",), "o"),
    ("RIGHT", ("Hello", 2.0), "lo"),
    ("RIGHT", ("Hello", 0.0), ""),
    ("MID", ("Hello", 2.0, 3.0), "ell"),
    ("MID", ("Hello", 10.0, 2.0), ""),
    ("MID", ("Hello", 0.0, 1.0), VALUE),
    ("LEN", ("Hello",), 5.0),
    ("LEN", (12.5,), 4.0),
    ("LEN", (None,), 0.0),
    ("UPPER", ("abc",), "ABC"),
    ("LOWER", ("ABC",), "abc"),
    ("PROPER", ("hello wORLD",), "Hello World"),
    ("PROPER", ("o'neil-smith 2nd",), "O'Neil-Smith 2Nd"),
    ("TRIM", ("  a   b  ",), "a b"),
    ("SUBSTITUTE", ("a-b-c", "-", "+"), "a+b+c"),
    ("SUBSTITUTE", ("a-b-c", "-", "+", 2.0), "a-b+c"),
    ("SUBSTITUTE", ("a-b-c", "-", "+", 5.0), "a-b-c"),
    ("SUBSTITUTE", ("Aa", "a", "x"), "Ax"),
    ("SUBSTITUTE", ("a-b", "-", "+", 0.0), VALUE),
    ("FIND", ("l", "Hello"), 3.0),
    ("FIND", ("l", "Hello", 4.0), 4.0),
    ("FIND", ("L", "Hello"), VALUE),  # case-sensitive
    ("FIND", ("o", "Hello", 0.0), VALUE),
    ("SEARCH", ("L", "Hello"), 3.0),
    ("SEARCH", ("?o", "Hello"), 4.0),
    ("SEARCH", ("h*l", "Hello", 1.0), 1.0),
    ("SEARCH", ("z", "Hello"), VALUE),
    ("VALUE", ("1,234.5",), 1234.5),
    ("VALUE", ("12%",), 0.12),
    ("VALUE", ("2026-03-01",), 46082.0),
    ("VALUE", ("abc",), VALUE),
    ("REPT", ("ab", 3.0), "ababab"),
    ("REPT", ("a", -1.0), VALUE),
    ("REPT", ("ab", 20000.0), VALUE),  # longer than a cell may hold
    ("EXACT", ("a", "A"), False),
    ("EXACT", (1.0, "1"), True),
])
def test_text(name, args, expected):
    check(run(name, *args), expected)


@pytest.mark.parametrize("name, args, expected", [
    ("TODAY", (), day(2026, 3, 16)),
    ("DATE", (2026.0, 3.0, 1.0), 46082.0),
    ("DATE", (2026.0, 14.0, 1.0), day(2027, 2, 1)),
    ("DATE", (2026.0, 1.0, 0.0), day(2025, 12, 31)),
    ("DATE", (2026.0, 0.0, 1.0), day(2025, 12, 1)),
    ("DATE", (2026.0, 2.0, 30.0), day(2026, 3, 2)),
    ("DATE", (26.0, 1.0, 1.0), day(1926, 1, 1)),
    ("DATE", (-1.0, 1.0, 1.0), NUM),
    ("DATE", (10000.0, 1.0, 1.0), NUM),
    ("DATEVALUE", ("3/1/2026",), 46082.0),
    ("YEAR", ("2026-03-01",), 2026.0),
    ("MONTH", ("3/1/2026",), 3.0),
    ("DAY", (day(2026, 3, 15),), 15.0),
    ("YEAR", ("abc",), VALUE),
    ("YEAR", (-1.0,), NUM),
    ("EOMONTH", ("2026-01-15", 1.0), day(2026, 2, 28)),
    ("EOMONTH", (day(2026, 1, 31), -1.0), day(2025, 12, 31)),
    ("EOMONTH", (day(2024, 1, 10), 1.0), day(2024, 2, 29)),
    ("EDATE", (day(2026, 1, 31), 1.0), day(2026, 2, 28)),
    ("EDATE", (day(2026, 3, 15), -3.0), day(2025, 12, 15)),
    ("WEEKDAY", (day(2026, 3, 16),), 2.0),  # a Monday
    ("WEEKDAY", (day(2026, 3, 16), 2.0), 1.0),
    ("WEEKDAY", (day(2026, 3, 16), 3.0), 0.0),
    ("WEEKDAY", (day(2026, 3, 15), 2.0), 7.0),  # a Sunday
    ("WEEKDAY", (day(2026, 3, 16), 11.0), 1.0),
    ("WEEKDAY", (day(2026, 3, 16), 5.0), NUM),
    ("DATEDIF", (day(2020, 5, 15), day(2026, 3, 16), "Y"), 5.0),
    ("DATEDIF", (day(2020, 5, 15), day(2026, 3, 16), "M"), 70.0),
    ("DATEDIF", (day(2020, 5, 15), day(2026, 3, 16), "YM"), 10.0),
    ("DATEDIF", ("2026-03-01", "2026-03-16", "D"), 15.0),
    ("DATEDIF", (day(2026, 1, 31), day(2026, 2, 28), "M"), 0.0),
    ("DATEDIF", (day(2026, 3, 16), day(2026, 3, 1), "D"), NUM),
    ("DATEDIF", (day(2026, 3, 1), day(2026, 3, 16), "W"), NUM),
    ("NETWORKDAYS", (day(2026, 3, 2), day(2026, 3, 13)), 10.0),
    ("NETWORKDAYS", (day(2026, 3, 2), day(2026, 3, 13), col(day(2026, 3, 4), day(2026, 3, 7))), 9.0),
    ("NETWORKDAYS", (day(2026, 3, 13), day(2026, 3, 2)), -10.0),
    ("NETWORKDAYS", (day(2026, 3, 7), day(2026, 3, 8)), 0.0),
    ("NETWORKDAYS", ("2026-03-02", "x"), VALUE),
    ("DAYS", ("2026-03-16", "2026-03-01"), 15.0),
    ("DAYS", (day(2026, 3, 1), day(2026, 3, 16)), -15.0),
])
def test_dates(name, args, expected):
    check(run(name, *args), expected)


def test_today_follows_the_simulated_clock():
    assert library.call("TODAY", SimpleNamespace(today=date(2031, 1, 2)), []) == day(2031, 1, 2)
