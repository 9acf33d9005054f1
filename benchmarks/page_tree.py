"""What a web agent reads of a page: its accessibility tree as text.

`tree_text(page)` is the tree exactly as a BrowserGym agent is shown it: the browser's full
accessibility tree (Chromium's, through the DevTools protocol) with an element id on every node
an agent can act on, flattened by BrowserGym into one line per node (`[bid] role 'name', properties`,
link URLs included). `tree_characters(page)` is its size: the weight of observing the page.
`snapshot_text(page)` is the lighter tree Playwright's own snapshot keeps (interesting nodes, no
URLs), written one indented line per node."""

from __future__ import annotations

PROPERTIES = ("value", "description", "checked", "pressed", "selected", "expanded", "disabled", "level")


def tree_text(page) -> str:
    """The page's accessibility tree as BrowserGym shows it to an agent (marks the page's elements
    with their ids for the time of the extraction, as BrowserGym does)."""
    from browsergym.core.observation import _post_extract, _pre_extract, extract_merged_axtree
    from browsergym.utils.obs import flatten_axtree_to_str

    _pre_extract(page, lenient=True)
    try:
        return flatten_axtree_to_str(extract_merged_axtree(page))
    finally:
        _post_extract(page)


def tree_characters(page) -> int:
    """How many characters the page's accessibility tree takes as an agent reads it (tree_text)."""
    return len(tree_text(page))


def _line(node: dict) -> str:
    parts = [node.get("role", "")]
    if node.get("name"):
        parts.append(f'"{node["name"]}"')
    for key in PROPERTIES:
        if key in node and node[key] not in (None, "", False):
            parts.append(f"{key}={node[key]}" if node[key] is not True else key)
    return " ".join(parts)


def snapshot_lines(node: dict | None, depth: int = 0) -> list[str]:
    """Playwright's snapshot below `node`, one indented line per node."""
    if not node:
        return []
    lines = ["  " * depth + _line(node)]
    for child in node.get("children", ()):
        lines.extend(snapshot_lines(child, depth + 1))
    return lines


def snapshot_text(page) -> str:
    """The page's tree as Playwright's accessibility snapshot keeps it (interesting nodes only)."""
    return "\n".join(snapshot_lines(page.accessibility.snapshot()))
