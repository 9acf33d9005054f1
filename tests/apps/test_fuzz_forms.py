"""Property-based fuzzing of every form of the browser UI, as the workspace owner and as a plain
member: the forms are found by crawling the episode's pages (a form no page showed is taken from
its template), then posted with values drawn from their own options, the world and hostile text,
to the addresses the pages used and to others. Every page is also fetched with drawn query
arguments. Nothing may fail with a server error; a refused form writes nothing, and no page view
writes at all.

Examples are derandomized, so a run is the same on every machine."""

from __future__ import annotations

import pytest
from form_crawl import crawl
from form_fuzz import form_values, path_for, query_for, template_fields
from fuzz_helpers import WriteWitness, world_values
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select
from ui_helpers import CSRF, Browser, error_message

from officegym.apps.org.models import Person
from officegym.web import create_app

RULES = list(create_app(None).url_map.iter_rules())
POSTS = sorted({r.endpoint for r in RULES if "POST" in r.methods})
PAGES = sorted({r.endpoint for r in RULES if "GET" in r.methods and r.rule.startswith("/e/")})
FUZZ = settings(max_examples=6, derandomize=True, database=None, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture, HealthCheck.filter_too_much])


class Visit:
    """One episode seen through the UI: its forms by (method, endpoint), the world's values and a
    witness of writes to its file."""

    def __init__(self, app, store, member: bool):
        self.app, self.store = app, store
        self.episode = store.create(scale="tiny", seed=0)
        self.browser = Browser(app.test_client(), self.episode)
        with self.episode.session() as db:
            self.texts, self.ints = world_values(db)
            handle = db.scalar(select(Person.handle).where(Person.role == "member").order_by(Person.id))
        if member:
            self.browser.act_as(handle)
        self.forms = crawl(app, self.browser.client, self.browser.base + "/")
        self.witness = WriteWitness(self.episode.database.path)
        self.cache: dict = {}

    def posts(self, endpoint: str) -> st.SearchStrategy:
        """(path, form body) for posting to `endpoint` (built once: building describes each strategy)."""
        if ("post", endpoint) not in self.cache:
            path = path_for(self.app, endpoint, self.forms.get(("post", endpoint), []), self.episode.id,
                            self.texts, self.ints)
            self.cache["post", endpoint] = st.tuples(path, form_values(self.fields("post", endpoint), self.texts,
                                                                          self.ints))
        return self.cache["post", endpoint]

    def views(self, endpoint: str) -> st.SearchStrategy:
        """(path, query arguments) for viewing a page of `endpoint`."""
        if ("get", endpoint) not in self.cache:
            self.cache["get", endpoint] = st.tuples(
                path_for(self.app, endpoint, [], self.episode.id, self.texts, self.ints),
                query_for(self.fields("get", endpoint), self.texts, self.ints))
        return self.cache["get", endpoint]

    def fields(self, method: str, endpoint: str):
        """The fields of the endpoint's forms as pages showed them, else as its template has them."""
        shown = self.forms.get((method, endpoint))
        if not shown:
            return template_fields(endpoint) if method == "post" else []
        merged = {}
        for form in shown:
            for item in form.fields:
                merged.setdefault(item.name, item)
        return list(merged.values())

    def close(self) -> None:
        """Release the witness and delete the episode."""
        self.witness.close()
        self.store.delete(self.episode.id)


@pytest.fixture(scope="module", params=["owner", "member"])
def visit(request, web_app, store):
    """A crawled episode as the owner, then as a plain member (state builds up across forms)."""
    made = Visit(web_app, store, member=request.param == "member")
    yield made
    made.close()


def test_the_crawl_finds_the_forms_of_every_app(visit, request):
    # The owner meets two thirds of each app's forms on the pages; a plain member at least one.
    owner = "owner" in request.node.callspec.id
    found = {endpoint for method, endpoint in visit.forms if method == "post"}
    for app in ("chat", "crm", "tickets", "sheets"):
        ours = {e for e in POSTS if e.startswith(app + ".")}
        least = len(ours) * 2 // 3 if owner else 1
        assert len(found & ours) >= least, f"{app}: the crawl showed only {sorted(found & ours)}"


@pytest.mark.parametrize("endpoint", POSTS)
@FUZZ
@given(data=st.data())
def test_a_form_answers_any_input_and_a_refusal_writes_nothing(visit, endpoint, data):
    path, body = data.draw(visit.posts(endpoint), label="path and form")
    before = visit.witness.version()
    response = visit.browser.client.post(path, data={**body, "csrf_token": CSRF})
    assert response.status_code < 500, f"{path} {body!r}: {response.status_code}"
    if response.status_code >= 400:
        assert error_message(response), f"{path} {body!r} was refused without a word"
        assert visit.witness.version() == before, f"{path} {body!r} wrote while refusing: {error_message(response)}"


@pytest.mark.parametrize("endpoint", PAGES)
@FUZZ
@given(data=st.data())
def test_a_page_answers_any_query_and_writes_nothing(visit, endpoint, data):
    path, query = data.draw(visit.views(endpoint), label="path and query")
    before = visit.witness.version()
    response = visit.browser.client.get(path, query_string=query)
    assert response.status_code < 500, f"{path}?{query!r}: {response.status_code}"
    assert visit.witness.version() == before, f"viewing {path}?{query!r} wrote to the database"
