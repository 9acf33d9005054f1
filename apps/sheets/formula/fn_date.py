"""Date functions: TODAY, DATE, DATEVALUE, YEAR, MONTH, DAY, EOMONTH, EDATE, WEEKDAY, DATEDIF,
NETWORKDAYS, DAYS.

Dates are serial day numbers (values.serial_of). Arguments may also be texts such as 2026-03-01
or 3/1/2026. TODAY reads the simulated company date from ctx.today, never the wall clock.
"""

from __future__ import annotations

import calendar
from datetime import date

from .fn_common import OMITTED, day_of, flat, integer, parse_date_text, text
from .values import EPOCH, CellError, num_error, serial_of, value_error

_LAST = date(9999, 12, 31)


def today(ctx):
    """TODAY: the current (simulated) date as a serial number."""
    return serial_of(ctx.today)


def _month_start(year: int, month: int) -> date | CellError:
    """The first day of a month counted from any year and month (month 14 is February next year)."""
    total = year * 12 + (month - 1)
    year, month = divmod(total, 12)
    if not 1 <= year <= 9999:
        return num_error(f"The year {year} is outside the dates a spreadsheet holds (1900 to 9999).")
    return date(year, month + 1, 1)


def _serial(day_number: int, name: str) -> float | CellError:
    """A date given as a proleptic ordinal, checked against the serial range."""
    if not EPOCH.toordinal() <= day_number <= _LAST.toordinal():
        return num_error(f"{name}: the result is outside the dates a spreadsheet holds (1900 to 9999).")
    return serial_of(date.fromordinal(day_number))


def date_(ctx, year, month, day):
    """DATE: a date from year, month and day; months and days overflow into the next ones."""
    parts = [integer(part) for part in (year, month, day)]
    for part in parts:
        if isinstance(part, CellError):
            return part
    year, month, day = parts
    if not 0 <= year <= 9999:
        return num_error(f"DATE year must be from 0 to 9999; got {year}.")
    if year < 1900:  # as in Excel: DATE(26, 1, 1) is 1926-01-01
        year += 1900
    start = _month_start(year, month)
    return start if isinstance(start, CellError) else _serial(start.toordinal() + day - 1, "DATE")


def datevalue(ctx, value):
    """DATEVALUE: the serial of a date written as text (2026-03-01 or 3/1/2026)."""
    source = text(value)
    if isinstance(source, CellError):
        return source
    found = parse_date_text(source)
    if found is None:
        return value_error(f"DATEVALUE cannot read {source!r} as a date; write 2026-03-01 or 3/1/2026.")
    return found


def year_(ctx, value):
    """YEAR: the year of a date."""
    found = day_of(value)
    return found if isinstance(found, CellError) else float(found.year)


def month_(ctx, value):
    """MONTH: the month of a date, 1 to 12."""
    found = day_of(value)
    return found if isinstance(found, CellError) else float(found.month)


def day_(ctx, value):
    """DAY: the day of the month of a date, 1 to 31."""
    found = day_of(value)
    return found if isinstance(found, CellError) else float(found.day)


def _shifted(name: str, start, months, month_end: bool):
    begin, step = day_of(start), integer(months)
    for part in (begin, step):
        if isinstance(part, CellError):
            return part
    first = _month_start(begin.year, begin.month + step)
    if isinstance(first, CellError):
        return first
    last = calendar.monthrange(first.year, first.month)[1]
    # EDATE keeps the day of month, falling back to the month's last day (Jan 31 + 1 month = Feb 28)
    day = last if month_end else min(begin.day, last)
    return _serial(first.replace(day=day).toordinal(), name)


def eomonth(ctx, start, months):
    """EOMONTH: the last day of the month a number of months from start."""
    return _shifted("EOMONTH", start, months, month_end=True)


def edate(ctx, start, months):
    """EDATE: the same day of the month a number of months from start."""
    return _shifted("EDATE", start, months, month_end=False)


def weekday(ctx, value, kind=OMITTED):
    """WEEKDAY: day of the week as a number; type 1 Sunday=1, 2 Monday=1, 3 Monday=0, 11-17 as Excel."""
    day, style = day_of(value), 1 if kind is OMITTED else integer(kind)
    for part in (day, style):
        if isinstance(part, CellError):
            return part
    monday_based = day.weekday()  # Monday is 0
    if style == 1:
        return float((monday_based + 1) % 7 + 1)
    if style == 2:
        return float(monday_based + 1)
    if style == 3:
        return float(monday_based)
    if 11 <= style <= 17:  # 11: week starts Monday ... 17: week starts Sunday
        return float((monday_based - (style - 11)) % 7 + 1)
    return num_error(f"WEEKDAY type must be 1, 2, 3 or 11 to 17; got {style}.")


def datedif(ctx, start, end, unit):
    """DATEDIF: whole years ("Y"), months ("M"), days ("D") or months past the years ("YM") between dates."""
    begin, finish, which = day_of(start), day_of(end), text(unit)
    for part in (begin, finish, which):
        if isinstance(part, CellError):
            return part
    if begin > finish:
        return num_error("DATEDIF needs the start date on or before the end date.")
    which = which.strip().upper()
    months = (finish.year - begin.year) * 12 + finish.month - begin.month
    if finish.day < begin.day:  # the last month is not complete yet
        months -= 1
    if which == "D":
        return float((finish - begin).days)
    if which == "M":
        return float(months)
    if which == "Y":
        return float(months // 12)
    if which == "YM":
        return float(months % 12)
    return num_error(f"DATEDIF unit must be \"Y\", \"M\", \"D\" or \"YM\"; got {which!r}.")


def _weekdays(first: date, last: date) -> int:
    """Monday-to-Friday days from first to last inclusive (first <= last)."""
    weeks, extra = divmod((last - first).days + 1, 7)
    start = first.weekday()
    return weeks * 5 + sum(1 for i in range(extra) if (start + i) % 7 < 5)


def networkdays(ctx, start, end, holidays=OMITTED):
    """NETWORKDAYS: working days (Monday to Friday, minus holidays) from start to end inclusive."""
    begin, finish = day_of(start), day_of(end)
    for part in (begin, finish):
        if isinstance(part, CellError):
            return part
    sign = 1 if begin <= finish else -1
    first, last = min(begin, finish), max(begin, finish)
    off = set()
    for value in ([] if holidays is OMITTED else flat([holidays])):
        if value is None:
            continue
        holiday = day_of(value)
        if isinstance(holiday, CellError):
            return holiday
        if first <= holiday <= last and holiday.weekday() < 5:
            off.add(holiday)
    return float(sign * (_weekdays(first, last) - len(off)))


def days(ctx, end, start):
    """DAYS: the number of days from start to end."""
    finish, begin = day_of(end), day_of(start)
    for part in (finish, begin):
        if isinstance(part, CellError):
            return part
    return float((finish - begin).days)


SPECS = {
    "TODAY": (today, 0, 0),
    "DATE": (date_, 3, 3),
    "DATEVALUE": (datevalue, 1, 1),
    "YEAR": (year_, 1, 1),
    "MONTH": (month_, 1, 1),
    "DAY": (day_, 1, 1),
    "EOMONTH": (eomonth, 2, 2),
    "EDATE": (edate, 2, 2),
    "WEEKDAY": (weekday, 1, 2),
    "DATEDIF": (datedif, 3, 3),
    "NETWORKDAYS": (networkdays, 2, 3),
    "DAYS": (days, 2, 2),
}
