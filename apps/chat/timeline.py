"""How a list of messages reads on screen: day dividers relative to the company's now, runs of
messages by one author grouped under one name and avatar, the names of the emoji, the initials of
the avatars and the icons (SVG path data in a 16x16 view box, drawn inline by
templates/chat/_icons.html, so the interface needs no icon or emoji font). Pure presentation over
`schemas.MessageOut`; no Flask, no database.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Sequence
from zlib import crc32

from .schemas import MessageOut

GROUP_GAP = timedelta(minutes=5)  # a message within this time of the previous one by the same author joins its group
AVATAR_COLOURS = 8  # avatar-0 .. avatar-7 in chat.css
EMOJI_NAMES = {
    "thumbsup": "thumbs up", "+1": "thumbs up", "thumbsdown": "thumbs down", "-1": "thumbs down",
    "tada": "party popper", "white_check_mark": "check mark", "joy": "tears of joy", "pray": "folded hands",
    "100": "hundred points", "smile": "smile", "thinking_face": "thinking face", "raised_hands": "raised hands",
    "ok_hand": "OK hand", "bulb": "light bulb", "x": "cross mark",
}


@dataclass(frozen=True)
class Row:
    """One message as a list shows it: the day divider before it (or None) and whether it continues
    the previous message's group (same author, same day, a few minutes apart: no name, no avatar)."""

    message: MessageOut
    day: str | None
    grouped: bool


def day_label(day: date, today: date) -> str:
    """'Today', 'Yesterday', or the weekday and date ('Monday 23 November'; with the year when it is
    not this year's), relative to the company's `today`."""
    if day == today:
        return "Today"
    if day == today - timedelta(days=1):
        return "Yesterday"
    label = f"{day:%A} {day.day} {day:%B}"
    return label if day.year == today.year else f"{label} {day.year}"


def rows(messages: Sequence[MessageOut], now: datetime, dividers: bool = True) -> list[Row]:
    """The messages (oldest first) as rows with day dividers and author groups."""
    out: list[Row] = []
    previous: MessageOut | None = None
    previous_at: datetime | None = None
    for message in messages:
        at = datetime.fromisoformat(message.created_at)
        new_day = previous_at is None or at.date() != previous_at.date()
        day = day_label(at.date(), now.date()) if dividers and new_day else None
        grouped = (previous is not None and not new_day and previous.author == message.author
                   and not previous.deleted and not message.deleted and at - previous_at <= GROUP_GAP)
        out.append(Row(message, day, grouped))
        previous, previous_at = message, at
    return out


def emoji_name(name: str) -> str:
    """The spoken name of an emoji: 'thumbsup' is 'thumbs up', 'white_check_mark' 'check mark'."""
    return EMOJI_NAMES.get(name, name.replace("_", " "))


def initials(name: str) -> str:
    """Up to two initials of a person's name, for an avatar ('Ana Lopez': 'AL')."""
    words = [w for w in name.replace("-", " ").split() if w[:1].isalpha()]
    return "".join(w[0] for w in (words[:1] + words[-1:] if len(words) > 1 else words)).upper() or "?"


def avatar_colour(handle: str) -> int:
    """A stable colour index (0-7) for a person's avatar."""
    return crc32(handle.encode()) % AVATAR_COLOURS

ICON_PATHS = {
    "lock": "M4.5 7V5a3.5 3.5 0 0 1 7 0v2H13v8H3V7zm2 0h3V5a1.5 1.5 0 0 0-3 0z",
    "hash": ("M6 1.5h1.6l-.5 3.5h3l.5-3.5h1.6l-.5 3.5H14v1.6h-2.5l-.4 2.8H13.5v1.6h-2.6l-.5 3.5H8.8l.5-3.5h-3"
             "l-.5 3.5H4.2l.5-3.5H2v-1.6h2.9l.4-2.8H2.5V5h3zm.9 5.1-.4 2.8h3l.4-2.8z"),
    "pin": "M5 1.5h6l-1 1.3v4l2.5 2.7v1.2H8.8L8 15l-.8-4.3H3.5V9.5L6 6.8v-4z",
    "thread": "M2 2.5h12v8.5H7l-3.5 3v-3H2zm1.6 1.6v5.3h1.5v1.2l1.4-1.2h5.9V4.1z",
    "more": ("M2.5 8a1.5 1.5 0 1 0 3 0 1.5 1.5 0 0 0-3 0m4 0a1.5 1.5 0 1 0 3 0 1.5 1.5 0 0 0-3 0"
             "m4 0a1.5 1.5 0 1 0 3 0 1.5 1.5 0 0 0-3 0"),
    "smile": ("M8 1.5a6.5 6.5 0 1 1 0 13 6.5 6.5 0 0 1 0-13m0 1.5a5 5 0 1 0 0 10A5 5 0 0 0 8 3M5.7 5.6a1 1 0 1 1 0 2"
              " 1 1 0 0 1 0-2m4.6 0a1 1 0 1 1 0 2 1 1 0 0 1 0-2M5 9.2h6A3.2 3.2 0 0 1 8 11.6 3.2 3.2 0 0 1 5 9.2"),
    "person": "M8 2a3 3 0 1 1 0 6 3 3 0 0 1 0-6M2.5 14c0-3 2.5-4.5 5.5-4.5s5.5 1.5 5.5 4.5z",
    "link": ("M6.9 9.1a3 3 0 0 0 4.2 0l2.2-2.2a3 3 0 0 0-4.2-4.2l-1 1 1.1 1.1 1-1a1.5 1.5 0 0 1 2.1 2.1L10 8"
             "a1.5 1.5 0 0 1-2.1 0zm2.2-2.2a3 3 0 0 0-4.2 0L2.7 9.1a3 3 0 0 0 4.2 4.2l1-1-1.1-1.1-1 1A1.5 1.5 0 0 1 "
             "3.7 10.1L6 7.9a1.5 1.5 0 0 1 2.1 0z"),
}
