"""Number formats as spreadsheets show them: General, fixed decimals, thousands, currency, percent,
scientific, text and dates/times; rounding half away from zero; named formats and refusals."""

from __future__ import annotations

from datetime import date

import pytest

from officegym.apps.sheets.formula.formats import NAMED_FORMATS, format_value, resolve_format
from officegym.apps.sheets.formula.values import CellError, serial_of

MARCH_1 = serial_of(date(2026, 3, 1))  # a Sunday


@pytest.mark.parametrize("value, pattern, shown", [
    (1234.5, "", "1234.5"),
    (1e20, "", "1E+20"),
    (0.1 + 0.2, "", "0.3"),
    (True, "", "TRUE"),
    ("abc", "", "abc"),
    (None, "", ""),
    (CellError("#N/A", "no match"), "", "#N/A"),
    (12.0, "General", "12"),
    (2.5, "0", "3"),
    (-2.5, "0", "-3"),  # half away from zero, not Python's half to even
    (0.5, "0", "1"),
    (1234.4, "0", "1234"),
    (2.675, "0.00", "2.68"),
    (1.005, "0.00", "1.01"),
    (-0.001, "0.00", "0.00"),
    (3.0, "0.00", "3.00"),
    (1234567.5, "#,##0", "1,234,568"),
    (999.4, "#,##0", "999"),
    (-1234.0, "#,##0", "-1,234"),
    (1234.5, "#,##0.00", "1,234.50"),
    (0.0, "#,##0.00", "0.00"),
    (1234.5, "$#,##0", "$1,235"),
    (-1234.0, "$#,##0.00", "-$1,234.00"),
    (0.005, "$#,##0.00", "$0.01"),
    (1234567.891, "$#,##0.00", "$1,234,567.89"),
    (0.125, "0%", "13%"),
    (0.256, "0.0%", "25.6%"),
    (1.0, "0.00%", "100.00%"),
    (-0.5, "0.00%", "-50.00%"),
    (12345.0, "0.00E+00", "1.23E+04"),
    (0.000123, "0.00E+00", "1.23E-04"),
    (0.0, "0.00E+00", "0.00E+00"),
    (9.999, "0.00E+00", "1.00E+01"),
    (-12345.0, "0.00E+00", "-1.23E+04"),
    (1.5e100, "0.00E+00", "1.50E+100"),
    (1234.5, "@", "1234.5"),
    ("x", "@", "x"),
    ("abc", "0.00", "abc"),  # text shows as it is under any pattern
    (False, "0.00", "FALSE"),
])
def test_numbers(value, pattern, shown):
    assert format_value(value, pattern) == shown


@pytest.mark.parametrize("value, pattern, shown", [
    (MARCH_1, "yyyy-mm-dd", "2026-03-01"),
    (MARCH_1, "mm/dd/yyyy", "03/01/2026"),
    (MARCH_1, "m/d/yyyy", "3/1/2026"),
    (MARCH_1, "d mmm yyyy", "1 Mar 2026"),
    (MARCH_1, "mmm yyyy", "Mar 2026"),
    (MARCH_1, "mmmm d, yyyy", "March 1, 2026"),
    (MARCH_1, "dddd", "Sunday"),
    (MARCH_1, "ddd, d mmm yy", "Sun, 1 Mar 26"),
    (MARCH_1, "dd.mm.yyyy", "01.03.2026"),
    (MARCH_1, "MM/DD/YYYY", "03/01/2026"),
    (serial_of(date(2025, 12, 31)), "mmmm", "December"),
    (MARCH_1 + 0.75, "yyyy-mm-dd hh:mm", "2026-03-01 18:00"),
    (0.5, "hh:mm", "12:00"),
    (0.75, "h:mm AM/PM", "6:00 PM"),
    (0.5 + 1 / 86400, "hh:mm:ss", "12:00:01"),
    (MARCH_1 + 0.9999999, "yyyy-mm-dd hh:mm:ss", "2026-03-02 00:00:00"),  # rounds to next midnight
    (MARCH_1 + 0.75, "yyyy-mm-dd", "2026-03-01"),  # the time of day is not shown
    (-1.0, "yyyy-mm-dd", "-1"),  # no such date: the number is shown
    ("soon", "yyyy-mm-dd", "soon"),
])
def test_dates(value, pattern, shown):
    assert format_value(value, pattern) == shown


@pytest.mark.parametrize("name, pattern", [
    ("general", ""), ("number", "#,##0.00"), ("currency", "$#,##0.00"), ("percent", "0.00%"),
    ("date", "yyyy-mm-dd"), ("text", "@"), ("Currency", "$#,##0.00"), (" Percent ", "0.00%"),
    ("0.0%", "0.0%"), ("$#,##0", "$#,##0"), ("d mmm yyyy", "d mmm yyyy"), ("0.00E+00", "0.00E+00"),
])
def test_resolve_format(name, pattern):
    assert resolve_format(name) == pattern


def test_named_formats_are_the_documented_ones():
    assert NAMED_FORMATS == {"general": "", "number": "#,##0.00", "currency": "$#,##0.00",
                             "percent": "0.00%", "date": "yyyy-mm-dd", "text": "@"}
    assert format_value(-1234.5, resolve_format("currency")) == "-$1,234.50"
    assert format_value(1234.5, resolve_format("number")) == "1,234.50"


@pytest.mark.parametrize("pattern", ["bogus", "0.00 kg", "yyy", "#,##", "--", "0.0.0", "%"])
def test_unknown_patterns_are_refused(pattern):
    with pytest.raises(ValueError, match="Unknown number format") as refusal:
        resolve_format(pattern)
    assert "currency" in str(refusal.value) and "0.00" in str(refusal.value)  # says what would work
    with pytest.raises(ValueError):
        format_value(1.0, pattern)
