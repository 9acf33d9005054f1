"""A knowledge-base article's body laid out for its page: headings, numbered lists and paragraphs, with
the articles it cites (by title or by number) as links.

Bodies are plain text, as the services store them and the MCP tools return them: paragraphs between
blank lines, a short line ending in ":" alone in its paragraph heads what follows, and lines "1. ..."
are the items of a numbered list. Nothing of the text is changed, only laid out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

HEADING_MAX = 80  # characters of a line that can be a heading
ITEM = re.compile(r"^(\d{1,3})\. (.*)$")

Part = tuple[str, str | None]  # text, and the number of the article it names (None: plain text)


@dataclass
class Block:
    """One block of an article: a heading, a paragraph (`parts`), or a numbered list (`items`, from `start`)."""

    kind: str
    parts: list[Part] = field(default_factory=list)
    items: list[list[Part]] = field(default_factory=list)
    start: int = 1


def cited(text: str, articles: dict[str, str]) -> list[Part]:
    """`text` cut into plain runs and the mentions of other articles (`articles`: title or number ->
    number), longest titles first so that one title inside another links the longer."""
    names = sorted(articles, key=len, reverse=True)
    if not names:
        return [(text, None)]
    pattern = re.compile("|".join(re.escape(name) for name in names))
    parts: list[Part] = []
    at = 0
    for found in pattern.finditer(text):
        if found.start() > at:
            parts.append((text[at:found.start()], None))
        parts.append((found.group(0), articles[found.group(0)]))
        at = found.end()
    if at < len(text):
        parts.append((text[at:], None))
    return parts


def _lines_to_blocks(lines: list[str], articles: dict[str, str]) -> list[Block]:
    """The blocks of one paragraph's lines: runs of numbered items become lists, other runs paragraphs."""
    blocks: list[Block] = []
    for line in lines:
        item = ITEM.match(line)
        last = blocks[-1] if blocks else None
        if item and last is not None and last.kind == "list":
            last.items.append(cited(item.group(2), articles))
        elif item:
            blocks.append(Block("list", items=[cited(item.group(2), articles)], start=int(item.group(1))))
        elif last is not None and last.kind == "paragraph":
            last.parts.extend([("\n", None)] + cited(line, articles))
        else:
            blocks.append(Block("paragraph", parts=cited(line, articles)))
    return blocks


def article_blocks(body: str, others: list[tuple[str, str]]) -> list[Block]:
    """The blocks of an article's `body`; `others` are the (number, title) of the articles it may cite."""
    articles = {title: number for number, title in others}
    articles.update({number: number for number, _title in others})
    blocks: list[Block] = []
    for chunk in re.split(r"\n\s*\n", body.strip()):
        lines = [line.rstrip() for line in chunk.strip("\n").splitlines()]
        if len(lines) == 1 and lines[0].endswith(":") and len(lines[0]) <= HEADING_MAX:
            blocks.append(Block("heading", parts=cited(lines[0][:-1], articles)))
        else:
            blocks.extend(_lines_to_blocks(lines, articles))
    return blocks
