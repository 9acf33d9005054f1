"""What a text writes, read the same way by every check: the amounts it states (with their multipliers),
and what a heading of declined work ("Rejected (4):") says of the items listed under it."""

from __future__ import annotations

import re

_AMOUNT = re.compile(r"(?<![\w.$/:-])(\$|USD ?)?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?\s?([kKmM]\b|bn\b|million\b)?")
_MULTIPLIER = {"k": 1_000, "m": 1_000_000, "bn": 1_000_000_000, "million": 1_000_000}


def amounts_written(text: str) -> list[tuple[int, int, int]]:
    """Every amount of money a text writes, as (start, end, cents). Plain numbers count when they
    are written as money ($, a multiplier) or are 1,000 or more; dates, times and keys do not."""
    found = []
    for match in _AMOUNT.finditer(text or ""):
        sign, digits, decimals, multiplier = match.groups()
        end = match.end()
        if end < len(text) and text[end] in "-/:" and end + 1 < len(text) and text[end + 1].isdigit():
            continue  # part of a date or a time
        value = float(digits.replace(",", "") + (decimals or ""))
        if multiplier:
            value *= _MULTIPLIER[multiplier.lower()]
        if sign or multiplier or value >= 1000:
            found.append((match.start(), end, round(value * 100)))
    return found


# A heading of a list of what was declined ("Rejected (4):", "Not approved, because ...:"), on the item's
# own line or on the line above its list: what it lists is named as declined, not stated as the result.
_DECLINING_HEADING = re.compile(r"\W*(?:rejected|declined|refused|denied|turned down|not (?:approved|granted|accepted))\b"
                                r"[^:\n]{0,200}:")
_LIST_ITEM = re.compile(r"\s*(?:[-*•·]|\d+[.)])\s")


def listed_as_declined(text: str, start: int) -> bool:
    """Whether text[start:] stands in a list under a heading of what was declined: "Rejected: A, B", or
    "Rejected (2):" with "- A" and "- B" on the lines below it (up to a blank line or another heading)."""
    line_start = text.rfind("\n", 0, start) + 1
    if _DECLINING_HEADING.match(text, line_start) and text.find(":", line_start, start) != -1:
        return True
    while line_start > 0:
        above = text.rfind("\n", 0, line_start - 1) + 1
        line = text[above:line_start - 1]
        if not line.strip():
            return False
        if line.rstrip().endswith(":"):
            return bool(_DECLINING_HEADING.match(line))
        if not _LIST_ITEM.match(line):
            return False
        line_start = above
    return False
