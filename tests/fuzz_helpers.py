"""Helpers of the fuzz suites: Hypothesis strategies for a tool's arguments built from its JSON
schema, values that look like the world's own (names, handles, keys, ids) so that calls get past
type checks into the services, and a cheap witness of any write to an episode's SQLite file."""

from __future__ import annotations

import sqlite3
from typing import Any

from hypothesis import strategies as st
from sqlalchemy import Integer, String, Text, select

from officegym.db import Base
from officegym.worlds import import_models

# Text that has broken parsers elsewhere: markup, SQL, formulas, deep nesting, odd whitespace and
# characters, paging words, dates that are not dates.
HOSTILE_TEXT = [
    "", " ", "\t\n", "0", "-1", "1e309", "NaN", "null", "true", "[]", "{}", "'", '"', "\\", "%", "_", "*",
    "' OR 1=1 --", "\"; DROP TABLE og_journal; --", "<script>alert(1)</script>", "{{7*7}}", "${jndi:x}",
    "=1/0", "=SUM(A1:A3)", "=HYPERLINK(\"http://x\")", "+1", "@everyone", "@here", "#general", "#",
    "(" * 500, "=" + "(" * 500 + "1" + ")" * 500, "A1:ZZZ99999", "Sheet1!A1", "A0", "XFE1", "2026-02-30",
    "9999-12-31", "0000-00-00", "yesterday", "\u0000", "\ud7ff\ufffd", "é" * 50, "😀" * 20, "\u202e",
    "IT-0", "IT-999999", "x" * 300, "status = open AND (", "assignee = me ORDER BY", "a\r\nb",
]
HOSTILE_INTS = [0, 1, 2, 3, -1, -(2 ** 31), 2 ** 31, 2 ** 63, 10 ** 30, 999_999]


def world_values(session, per_table: int = 4) -> tuple[list[str], list[int]]:
    """Short texts and ids taken from every table of the world, plus the forms tools take them in
    (#channel, @handle): arguments that name real things."""
    import_models()
    texts: set[str] = set()
    ints: set[int] = set()
    for table in sorted(Base.metadata.sorted_tables, key=lambda t: t.name):
        columns = [c for c in table.columns if isinstance(c.type, (Integer, String, Text))]
        if not columns:
            continue
        for row in session.execute(select(*columns).limit(per_table)):
            for column, value in zip(columns, row):
                if isinstance(value, int) and not isinstance(value, bool):
                    ints.add(value)
                elif isinstance(value, str) and 0 < len(value) <= 60:
                    texts.add(value)
                    if table.name == "org_person" and column.name == "handle":
                        texts.add("@" + value)
                    if table.name == "chat_channel" and column.name == "name":
                        texts.add("#" + value)
    return sorted(texts), sorted(ints)


def _resolve(schema: dict, root: dict) -> dict:
    ref = schema.get("$ref")
    if ref and ref.startswith("#/$defs/"):
        return root["$defs"][ref.split("/")[-1]]
    return schema


def _fixed(schema: dict, each) -> st.SearchStrategy | None:
    """The strategy of a constant, a choice or a union (`each` makes one per alternative)."""
    if "const" in schema:
        return st.just(schema["const"])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    if "anyOf" in schema:
        return st.one_of([each(sub) for sub in schema["anyOf"]])
    return None


def plausible(schema: dict, root: dict, texts: list[str], ints: list[int]) -> st.SearchStrategy:
    """Values of the schema's types, mostly taken from the world and the hostile lists (lengths
    and ranges not always respected: the tool must say so)."""
    schema = _resolve(schema, root)
    fixed = _fixed(schema, lambda sub: plausible(sub, root, texts, ints))
    if fixed is not None:
        return fixed
    kind = schema.get("type")
    if kind == "string":
        return st.one_of(st.sampled_from(texts), st.sampled_from(HOSTILE_TEXT), st.text(max_size=40))
    if kind == "integer":
        return st.one_of(st.sampled_from(ints), st.sampled_from(HOSTILE_INTS))
    if kind == "number":
        return st.one_of(st.sampled_from(ints), st.floats(allow_nan=True, allow_infinity=True))
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    if kind == "array":
        return st.lists(plausible(schema.get("items", {}), root, texts, ints), max_size=6)
    if kind == "object" and "properties" in schema:
        return arguments(schema, root, texts, ints)
    return json_values()


def _containers(inner: st.SearchStrategy) -> st.SearchStrategy:
    return st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3))


JSON_VALUES = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False),
                                     st.text(max_size=20)), _containers, max_leaves=8)


def json_values() -> st.SearchStrategy:
    """Any JSON value, a little nested."""
    return JSON_VALUES


def arguments(schema: dict, root: dict, texts: list[str], ints: list[int]) -> st.SearchStrategy:
    """A dict of some of the schema's properties (required ones usually present), now and then
    with a wrongly typed value or an argument the tool does not have."""
    properties = schema.get("properties", {})
    required = set(schema.get("required", []))
    fields = {name: plausible(sub, root, texts, ints) for name, sub in properties.items()}

    @st.composite
    def build(draw):
        chosen = {}
        for name, values in fields.items():
            if draw(st.integers(0, 9)) < (9 if name in required else 5):
                chosen[name] = draw(st.one_of(values, json_values()) if draw(st.integers(0, 9)) == 0 else values)
        if draw(st.integers(0, 19)) == 0:
            chosen[draw(st.text(min_size=1, max_size=12))] = draw(json_values())
        return chosen

    return build()


def valid(schema: dict, root: dict) -> st.SearchStrategy:
    """Any value that the schema accepts (lengths, ranges and item counts respected)."""
    schema = _resolve(schema, root)
    fixed = _fixed(schema, lambda sub: valid(sub, root))
    if fixed is not None:
        return fixed
    kind = schema.get("type")
    if kind == "string":
        return st.text(min_size=schema.get("minLength", 0), max_size=min(schema.get("maxLength", 60), 60))
    if kind in ("integer", "number"):
        low, high = schema.get("minimum"), schema.get("maximum")
        if kind == "integer":
            return st.integers(low, high)
        return st.one_of(st.integers(low, high), st.floats(low, high, allow_nan=False, allow_infinity=False))
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    if kind == "array":
        return st.lists(valid(schema.get("items", {}), root), min_size=schema.get("minItems", 0),
                        max_size=min(schema.get("maxItems", 6), 6))
    if kind == "object" and "properties" in schema:
        required = set(schema.get("required", []))
        return st.fixed_dictionaries({k: valid(v, root) for k, v in schema["properties"].items() if k in required},
                                     optional={k: valid(v, root) for k, v in schema["properties"].items()
                                               if k not in required})
    return json_values()


def tool_arguments(schema: dict, texts: list[str], ints: list[int]) -> st.SearchStrategy:
    """Arguments for a tool: valid by its schema, or plausible (see above)."""
    return st.one_of(valid(schema, schema), arguments(schema, schema, texts, ints))


class WriteWitness:
    """SQLite's data_version, read on a connection of its own: it changes whenever any other
    connection commits to the file, so a refused call that wrote anything is caught."""

    def __init__(self, path):
        self.connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)

    def version(self) -> int:
        """The file's current data version."""
        return self.connection.execute("PRAGMA data_version").fetchone()[0]

    def close(self) -> None:
        """Release the file."""
        self.connection.close()


def unhandled(text: str) -> bool:
    """Whether an error result is the SDK's report of an exception that no one handled (a service's
    refusal and a bad argument each have their own words)."""
    return text.startswith("Error executing tool") or "Traceback" in text or "RecursionError" in text


def result_text(result: Any) -> str:
    """The text blocks of a CallToolResult, joined."""
    return " ".join(getattr(c, "text", "") for c in result.content)
