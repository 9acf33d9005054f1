"""Hypothesis strategies for the UI fuzz suite: a URL of an endpoint (the ids a page showed, or
others drawn from the world and from hostile values) and the values of a form's fields, typed as
the form types them (options, checkboxes, files) but not bound by them."""

from __future__ import annotations

import io
import re
from pathlib import Path
from urllib.parse import urlsplit

from form_crawl import Field, Form
from fuzz_helpers import HOSTILE_INTS, HOSTILE_TEXT
from hypothesis import strategies as st
from werkzeug.routing import AnyConverter, IntegerConverter
from werkzeug.routing.exceptions import BuildError

ROOT = Path(__file__).resolve().parent.parent.parent
# Query arguments that list pages take (paging, sorting, searching), tried on every page.
PAGE_ARGS = ["offset", "limit", "q", "sort", "dir", "page", "status", "owner", "next"]


def template_fields(endpoint: str) -> list[Field]:
    """The named inputs of the template form that posts to `endpoint` (for a form no crawled
    page showed)."""
    names: list[str] = []
    for template in sorted(ROOT.glob("*/**/templates/**/*.html")):
        text = template.read_text()
        for block in re.findall(r"<form\b.*?</form>", text, re.S):
            if f"url_for('{endpoint}'" in block:
                names += [n for n in re.findall(r'name="([a-z_]+)"', block) if n not in names]
    return [Field(name, "text") for name in names]


def texts_for(texts: list[str]) -> st.SearchStrategy:
    """Text from the world, hostile text or any text."""
    return st.one_of(st.sampled_from(texts), st.sampled_from(HOSTILE_TEXT), st.text(max_size=40))


def _upload(body: bytes, name: str) -> tuple:
    return io.BytesIO(body), name


def _fits_a_path(text: str) -> bool:
    return bool(text.strip()) and "/" not in text


def value_for(item: Field, texts: list[str], ints: list[int]) -> st.SearchStrategy:
    """A value for one field: usually of its kind, sometimes anything."""
    if item.kind == "file":
        return st.builds(_upload, st.one_of(st.binary(max_size=400), texts_for(texts).map(str.encode),
                                   st.just(b"a,b\r\n1,=2+3\r\n")),
                         st.sampled_from(["data.csv", "book.xlsx", "x", "../../etc/passwd"]))
    own = [v for v in [item.value, *item.options] if v]
    typed = {
        "checkbox": st.sampled_from([item.value or "on", "", "off"]),
        "number": st.one_of(st.sampled_from(ints + HOSTILE_INTS).map(str), st.floats().map(str)),
        "date": st.sampled_from(["2026-03-01", "2026-02-30", "1900-01-01", "", "tomorrow"]),
    }.get(item.kind, texts_for(texts))
    return st.one_of(st.sampled_from(own), typed) if own else typed


def form_values(fields: list[Field], texts: list[str], ints: list[int]) -> st.SearchStrategy:
    """A form body: each field present or absent, with a value of its own or a drawn one."""

    @st.composite
    def build(draw):
        body: dict = {}
        for item in fields:
            if item.name == "csrf_token" or draw(st.integers(0, 9)) == 0:
                continue
            body[item.name] = draw(value_for(item, texts, ints))
        return body

    return build()


def path_for(app, endpoint: str, seen: list[Form], episode_id: str, texts: list[str],
             ints: list[int]) -> st.SearchStrategy:
    """A path of `endpoint` in this episode: one a page linked to, or one built with drawn values."""
    rule = next(r for r in app.url_map.iter_rules() if r.endpoint == endpoint)
    adapter = app.url_map.bind("localhost")
    drawn = {}
    for name, converter in rule._converters.items():
        if name == "episode_id":
            continue
        if isinstance(converter, AnyConverter):
            drawn[name] = st.sampled_from(sorted(converter.items))
        elif isinstance(converter, IntegerConverter):
            drawn[name] = st.sampled_from([i for i in ints + HOSTILE_INTS if i >= 0])
        else:
            drawn[name] = texts_for(texts).filter(_fits_a_path)

    def build(values: dict) -> str:
        try:
            return adapter.build(endpoint, {"episode_id": episode_id, **values})
        except BuildError:  # a value the route cannot hold: the page's own address instead
            return adapter.build(endpoint, {"episode_id": episode_id, **{k: 1 for k in values}})

    built = st.fixed_dictionaries(drawn).map(build)
    known = sorted({urlsplit(f.action).path for f in seen})
    return st.one_of(st.sampled_from(known), built) if known else built


def query_for(fields: list[Field], texts: list[str], ints: list[int]) -> st.SearchStrategy:
    """Query arguments for a page: its search forms' fields and the usual paging ones."""
    extra = [Field(name, "number" if name in ("offset", "limit", "page") else "text") for name in PAGE_ARGS]
    return form_values(fields + [f for f in extra if f.name not in {x.name for x in fields}], texts, ints)
