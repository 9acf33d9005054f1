"""Find every form of the UI the way a browser meets them: crawl an episode's pages from its home,
read each page's forms (action, method, fields with their types, values and options) and keep
one example form per endpoint and method."""

from __future__ import annotations

import random
import re
from collections import Counter, deque
from dataclasses import dataclass, field
from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit

from werkzeug.exceptions import HTTPException


@dataclass
class Field:
    """One named input of a form."""

    name: str
    kind: str  # text, textarea, select, checkbox, radio, hidden, number, date, file, ...
    value: str = ""
    options: list[str] = field(default_factory=list)


@dataclass
class Form:
    """A form as a page shows it."""

    method: str
    action: str  # path with query, absolute
    fields: list[Field]
    multipart: bool = False


class _PageParser(HTMLParser):
    """Links and forms of one page."""

    def __init__(self, page_path: str):
        super().__init__(convert_charrefs=True)
        self.page_path = page_path
        self.links: list[str] = []
        self.forms: list[Form] = []
        self._form: Form | None = None
        self._select: Field | None = None
        self._textarea: Field | None = None
        self._option_text: bool = False  # an <option> without a value: its text is the value

    def handle_starttag(self, tag, attrs):
        a = {k: v or "" for k, v in attrs}
        if tag == "a" and a.get("href"):
            self.links.append(urljoin(self.page_path, a["href"]))
        elif tag == "form":
            action = urljoin(self.page_path, a.get("action") or self.page_path)
            self._form = Form(a.get("method", "get").lower(), action, [], a.get("enctype", "") == "multipart/form-data")
        elif self._form is not None and a.get("name"):
            if tag == "input":
                self._form.fields.append(Field(a["name"], a.get("type", "text").lower(), a.get("value", "")))
            elif tag == "select":
                self._select = Field(a["name"], "select")
                self._form.fields.append(self._select)
            elif tag == "textarea":
                self._textarea = Field(a["name"], "textarea")
                self._form.fields.append(self._textarea)
        if tag == "option" and self._select is not None:
            self._select.options.append(a.get("value", ""))
            self._option_text = "value" not in a

    def handle_data(self, data):
        if self._textarea is not None:
            self._textarea.value += data
        elif self._option_text and self._select is not None:
            self._select.options[-1] += data.strip()

    def handle_endtag(self, tag):
        if tag == "form" and self._form is not None:
            self.forms.append(self._form)
            self._form = None
        elif tag == "select":
            self._select = None
        elif tag == "option":
            self._option_text = False
        elif tag == "textarea":
            self._textarea = None


def endpoint_of(app, method: str, path: str) -> str | None:
    """The endpoint that serves `method path`, or None outside the app."""
    adapter = app.url_map.bind("localhost")
    try:
        return adapter.match(urlsplit(path).path, method=method.upper())[0]
    except HTTPException:
        return None


def crawl(app, client, home: str, per_shape: int = 4, limit: int = 400) -> dict[tuple[str, str], list[Form]]:
    """Forms found from `home`, by (method, endpoint): a breadth-first walk over the episode's
    links, visiting at most `per_shape` pages
    that differ only in their ids and `limit` pages in all."""
    seen_pages: set[str] = set()
    visits: Counter = Counter()
    queue = deque([home])
    order = random.Random(0)
    found: dict[tuple[str, str], list[Form]] = {}
    while queue and len(seen_pages) < limit:
        path = queue.popleft()
        shape = re.sub(r"\d+", "#", urlsplit(path).path)  # pages alike but for their ids
        if path in seen_pages or endpoint_of(app, "get", path) is None or visits[shape] >= per_shape:
            continue
        seen_pages.add(path)
        visits[shape] += 1
        response = client.get(path, follow_redirects=True)
        if response.status_code != 200 or not response.content_type.startswith("text/html"):
            continue
        parser = _PageParser(response.request.path)
        parser.feed(response.get_data(as_text=True))
        for form in parser.forms:
            target = endpoint_of(app, form.method, form.action)
            if target is not None:
                found.setdefault((form.method, target), []).append(form)
        links = [link.split("#")[0] for link in parser.links if link.startswith(home)]
        order.shuffle(links)  # pages of a shape come in id order: take a spread of them, not the first few
        queue.extend(links)
    return found
