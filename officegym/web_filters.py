"""The UI templates' filters and globals: @mentions as links, company-time stamps, emoji pictures
and this page's URL with other query arguments."""

from __future__ import annotations

import re
from datetime import datetime

from flask import request, url_for
from markupsafe import Markup, escape

from officegym.apps.chat.services import MENTION_PATTERN

# Message text mentions @handles case-insensitively (the service lowercases before matching).
MENTION = re.compile(MENTION_PATTERN.pattern, re.IGNORECASE)
EMOJI_GLYPHS = {
    "thumbsup": "👍", "+1": "👍", "thumbsdown": "👎", "-1": "👎", "heart": "❤️", "tada": "🎉",
    "eyes": "👀", "white_check_mark": "✅", "joy": "😂", "rocket": "🚀", "pray": "🙏", "fire": "🔥",
    "100": "💯", "smile": "😄", "thinking_face": "🤔", "raised_hands": "🙌", "clap": "👏", "wave": "👋",
    "hugging_face": "🤗", "laughing": "😆", "sob": "😭", "muscle": "💪", "star": "⭐", "sparkles": "✨",
    "ok_hand": "👌", "bulb": "💡", "warning": "⚠️", "x": "❌", "question": "❓", "coffee": "☕",
}
COMMON_EMOJI = ("thumbsup", "heart", "tada", "eyes", "white_check_mark", "joy", "rocket", "pray", "fire", "100")


def linkify_mentions(text: str, handles: list[str] | None = None) -> Markup:
    """Message text, escaped, with each @handle linked to that person's profile (only the
    `handles` really mentioned, when given: '@nobody' stays plain text)."""
    pieces: list[Markup] = []
    last = 0
    for match in MENTION.finditer(text or ""):
        handle = match.group(1).lower()
        if handles is not None and handle not in handles:
            continue
        pieces.append(escape(text[last:match.start()]))
        href = url_for("org.person", ref=handle)
        pieces.append(Markup('<a class="mention" href="{}">@{}</a>').format(href, match.group(1)))
        last = match.end()
    pieces.append(escape((text or "")[last:]))
    return Markup("").join(pieces)


def format_when(value: datetime | str | None) -> str:
    """A short company-time stamp such as 'Mar 04, 14:05' (from a datetime or an ISO string)."""
    if isinstance(value, str):
        value = datetime.fromisoformat(value) if value else None
    return value.strftime("%b %d, %H:%M") if value else ""


def url_with(**changes) -> str:
    """This page's URL with some query arguments changed (None drops one), e.g. for paging."""
    args = {**request.args.to_dict(), **changes}
    args = {k: v for k, v in args.items() if v is not None}
    return url_for(request.endpoint, **request.view_args, **args)


def emoji_glyph(name: str) -> str:
    """The picture for a known emoji name, else ':name:'."""
    return EMOJI_GLYPHS.get(name, f":{name}:")
