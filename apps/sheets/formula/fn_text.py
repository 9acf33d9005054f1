"""Text functions: TEXT, CONCAT, CONCATENATE, TEXTJOIN, LEFT, RIGHT, MID, LEN, UPPER, LOWER,
PROPER, TRIM, SUBSTITUTE, FIND, SEARCH, VALUE, REPT, EXACT.

Numbers become text in General format (1.0 is "1"); positions are 1-based; results longer than a
cell may hold (32,767 characters) are #VALUE! rather than a memory problem.
"""

from __future__ import annotations

import re

from . import formats
from .criteria import wildcard_regex
from .fn_common import MAX_TEXT, OMITTED, boolean, flat, integer, limit, parse_date_text, text
from .values import CellError, date_of, format_general, is_number, parse_number, scalar, value_error


def _texts(*values):
    """Texts of several arguments, or the first error among them."""
    found = []
    for value in values:
        result = text(value)
        if isinstance(result, CellError):
            return result
        found.append(result)
    return found


def text_(ctx, value, pattern):
    """TEXT: a value shown with a number format pattern, e.g. TEXT(0.25, "0%") is "25%"."""
    value, code = scalar(value), text(pattern)
    for part in (value, code):
        if isinstance(part, CellError):
            return part
    if isinstance(value, str):  # numeric or date text is formatted as the number it spells
        read = parse_number(value)
        read = parse_date_text(value) if read is None else read
        value = value if read is None else read
    try:
        if is_number(value) and formats.is_date_pattern(code) and isinstance(date_of(value), CellError):
            return value_error(f"TEXT: {format_general(value)} is not a date serial, so {code!r} cannot show it.")
        return formats.format_value(value, code)
    except ValueError as problem:
        return value_error(f"TEXT: {problem}")


def concat(ctx, *args):
    """CONCAT: every value joined, ranges included."""
    parts = _texts(*flat(args))
    return parts if isinstance(parts, CellError) else limit("".join(parts), "CONCAT")


def concatenate(ctx, *args):
    """CONCATENATE: the single values joined (a range of several cells is #VALUE!)."""
    parts = _texts(*args)
    return parts if isinstance(parts, CellError) else limit("".join(parts), "CONCATENATE")


def textjoin(ctx, delimiter, ignore_empty, *args):
    """TEXTJOIN: the values joined with a delimiter, optionally skipping empty ones."""
    parts = _texts(delimiter, *flat(args))
    skip = boolean(ignore_empty)
    for result in (parts, skip):
        if isinstance(result, CellError):
            return result
    joined = [part for part in parts[1:] if part != "" or not skip]
    return limit(parts[0].join(joined), "TEXTJOIN")


def _count(value, name: str, default: int = 1) -> int | CellError:
    """A character count argument: default when omitted, #VALUE! when negative."""
    found = default if value is OMITTED else integer(value)
    if isinstance(found, int) and found < 0:
        return value_error(f"{name} cannot take a negative number of characters ({found}).")
    return found


def left(ctx, value, characters=OMITTED):
    """LEFT: the first characters of a text (one by default)."""
    source, size = text(value), _count(characters, "LEFT")
    for part in (source, size):
        if isinstance(part, CellError):
            return part
    return source[:size]


def right(ctx, value, characters=OMITTED):
    """RIGHT: the last characters of a text (one by default)."""
    source, size = text(value), _count(characters, "RIGHT")
    for part in (source, size):
        if isinstance(part, CellError):
            return part
    return source[len(source) - size:] if size < len(source) else source


def mid(ctx, value, start, characters):
    """MID: characters from a 1-based start position."""
    source, begin, size = text(value), integer(start), _count(characters, "MID")
    for part in (source, begin, size):
        if isinstance(part, CellError):
            return part
    if begin < 1:
        return value_error(f"MID start must be at least 1; got {begin}.")
    return source[begin - 1:begin - 1 + size]


def _one_text(fn):
    """A function of one text argument; an error argument is the result."""

    def apply(ctx, value):
        source = text(value)
        return source if isinstance(source, CellError) else fn(source)

    apply.__name__, apply.__doc__ = fn.__name__, fn.__doc__
    return apply


def length(source: str) -> float:
    """LEN: the number of characters."""
    return float(len(source))


def upper(source: str) -> str:
    """UPPER: the text in capitals."""
    return source.upper()


def lower(source: str) -> str:
    """LOWER: the text in small letters."""
    return source.lower()


def proper(source: str) -> str:
    """PROPER: capitalise each letter that follows a non-letter, lower-case the rest."""
    result, previous_letter = [], False
    for char in source:
        result.append(char.lower() if previous_letter else char.upper())
        previous_letter = char.isalpha()
    return "".join(result)


def trim(source: str) -> str:
    """TRIM: drop leading and trailing spaces and collapse runs of spaces inside to one."""
    return re.sub(" {2,}", " ", source).strip(" ")


def substitute(ctx, value, old, new, instance=OMITTED):
    """SUBSTITUTE: replace every occurrence of old (or only the n-th) with new; case-sensitive."""
    parts = _texts(value, old, new)
    which = None if instance is OMITTED else integer(instance)
    for part in (parts, which):
        if isinstance(part, CellError):
            return part
    source, old, new = parts
    if which is not None and which < 1:
        return value_error(f"SUBSTITUTE instance must be at least 1; got {which}.")
    if old == "":
        return source
    if which is None:
        return limit(source.replace(old, new), "SUBSTITUTE")
    at = -1
    for _ in range(which):
        at = source.find(old, at + 1)
        if at < 0:
            return source  # fewer occurrences than asked for: nothing changes
    return limit(source[:at] + new + source[at + len(old):], "SUBSTITUTE")


def _locate(name: str, needle, haystack, start, search):
    parts = _texts(needle, haystack)
    begin = 1 if start is OMITTED else integer(start)
    for part in (parts, begin):
        if isinstance(part, CellError):
            return part
    needle, haystack = parts
    if not 1 <= begin <= len(haystack) + 1:
        return value_error(f"{name} start {begin} is outside the text (1 to {len(haystack) + 1}).")
    if search:
        found = wildcard_regex(needle).search(haystack, begin - 1)
        at = found.start() if found else -1
    else:
        at = haystack.find(needle, begin - 1)
    if at < 0:
        return value_error(f"{name} did not find {needle!r} in {haystack!r}.")
    return float(at + 1)


def find(ctx, needle, haystack, start=OMITTED):
    """FIND: the 1-based position of a text inside another, case-sensitive; #VALUE! if absent."""
    return _locate("FIND", needle, haystack, start, search=False)


def search(ctx, needle, haystack, start=OMITTED):
    """SEARCH: like FIND but ignoring case and allowing wildcards * and ?."""
    return _locate("SEARCH", needle, haystack, start, search=True)


def value_(ctx, value):
    """VALUE: the number a text spells (1,234.5, 12%, $5, a date such as 2026-03-01)."""
    source = scalar(value)
    if source is None or is_number(source) or isinstance(source, CellError):
        return 0.0 if source is None else source
    if isinstance(source, bool):
        return value_error("VALUE needs a number or text, not TRUE/FALSE.")
    read = parse_number(source)
    read = parse_date_text(source) if read is None else read
    if read is None:
        return value_error(f"VALUE cannot read {source!r} as a number.")
    return read


def rept(ctx, value, times):
    """REPT: a text repeated a number of times."""
    source, count = text(value), integer(times)
    for part in (source, count):
        if isinstance(part, CellError):
            return part
    if count < 0:
        return value_error(f"REPT cannot repeat a negative number of times ({count}).")
    if len(source) * count > MAX_TEXT:  # refuse before building a huge text
        return value_error(f"REPT would make a text of {len(source) * count} characters; the limit is {MAX_TEXT}.")
    return source * count


def exact(ctx, first, second):
    """EXACT: TRUE when two texts are identical, case included."""
    parts = _texts(first, second)
    return parts if isinstance(parts, CellError) else parts[0] == parts[1]


SPECS = {
    "TEXT": (text_, 2, 2),
    "CONCAT": (concat, 1, None),
    "CONCATENATE": (concatenate, 1, None),
    "TEXTJOIN": (textjoin, 3, None),
    "LEFT": (left, 1, 2),
    "RIGHT": (right, 1, 2),
    "MID": (mid, 3, 3),
    "LEN": (_one_text(length), 1, 1),
    "UPPER": (_one_text(upper), 1, 1),
    "LOWER": (_one_text(lower), 1, 1),
    "PROPER": (_one_text(proper), 1, 1),
    "TRIM": (_one_text(trim), 1, 1),
    "SUBSTITUTE": (substitute, 3, 4),
    "FIND": (find, 2, 3),
    "SEARCH": (search, 2, 3),
    "VALUE": (value_, 1, 1),
    "REPT": (rept, 2, 2),
    "EXACT": (exact, 2, 2),
}
