"""Knowledge base pages and forms through the Flask test client: the list searches, filters and
pages; the article page shows its body, history and older versions; the forms write through the
services, and a refused form shows the service's message with the values as typed and changes
nothing. The same writes through the UI and through MCP make the same change."""

from __future__ import annotations

import html
import re

import pytest
import test_ui_structure as structure
from sqlalchemy import select
from ui_helpers import Browser, call_tools, db_changes, error_message, text_of

from officegym.apps.org.models import Person
from officegym.apps.tickets import services
from officegym.apps.tickets.models import Article, ArticleVersion

BODY = "Step one: <b>check</b> the tray.\nStep two: call IT & wait.\n\nDone."


def numbers_on(response) -> list[str]:
    """Article numbers of the rows of a list page, in order."""
    return re.findall(r'data-testid="kb-row" data-number="(KB\d{7})"', text_of(response))


def shown_in(response, name: str) -> str:
    """The unescaped text inside the first element with this data-testid."""
    found = re.search(rf'data-testid="{name}"[^>]*>(.*?)</', text_of(response), re.S)
    assert found, f"no {name} on the page"
    return html.unescape(found.group(1)).strip()


def body_of(response) -> str:
    """An article's body as its page shows it: paragraphs between blank lines, lines within them."""
    block = re.search(r'data-testid="kb-body">(.*?)</div>', text_of(response), re.S).group(1)
    paragraphs = re.findall(r"<p>(.*?)</p>", block, re.S)
    return "\n\n".join(html.unescape(p.replace("<br>", "\n")) for p in paragraphs)


def test_article_bodies_show_headings_lists_and_links_to_the_articles_they_cite(browser, owner):
    with browser.db() as db:
        cited = services.search_articles(db, owner)[0]
        body = f"Rules:\n\n1. Read {cited.title} first.\n2. Then ask {cited.number}.\n\nThat is all."
        number = services.create_article(db, owner, "Zqkb cites", "Security", body).number
        cited_number, cited_title = cited.number, cited.title
    block = re.search(r'data-testid="kb-body">(.*?)</div>', text_of(browser.get(f"/tickets/kb/{number}")), re.S).group(1)
    assert re.search(r"<h3>Rules</h3>\s*<ol>\s*<li>Read <a", block) and "<p>That is all.</p>" in block
    links = re.findall(r'<a href="([^"]+)" data-testid="kb-cited">([^<]+)</a>', block)
    assert links == [(f"{browser.base}/tickets/kb/{cited_number}", html.escape(cited_title, quote=False)),
                     (f"{browser.base}/tickets/kb/{cited_number}", cited_number)]


def article(db, number: str) -> Article:
    """An article by number."""
    return db.scalar(select(Article).where(Article.number == number))


def members(db, count: int = 2) -> list[Person]:
    """Plain members (not admins) of the world."""
    return list(db.scalars(select(Person).where(Person.role == "member").order_by(Person.id)).all()[:count])


@pytest.fixture
def written(browser) -> str:
    """An article by a plain member, changed once (version 2), with a body that holds markup."""
    with browser.db() as db:
        author = members(db, 1)[0]
        made = services.create_article(db, author, "Zqkb printer jams", "IT", BODY, "Runbook")
        services.update_article(db, author, made.number, body=BODY + "\nStep three: log it.", note="Add step three")
        return made.number


def test_list_searches_filters_and_pages(browser):
    with browser.db() as db:
        owner = browser.episode.actor(db)
        made = [services.create_article(db, owner, f"Zqpage policy {i:02d}", "Finance" if i % 3 else "IT",
                                        f"Body {i}").number for i in range(30)]
        everything = [a.number for a in services.search_articles(db, owner)]
    whole = browser.get("/tickets/kb")
    assert whole.status_code == 200 and numbers_on(whole) == everything[:25]
    assert shown_in(whole, "kb-count") == f"{len(everything)} articles"
    url, shown = "/tickets/kb?q=zqpage", []
    while url:
        page = browser.get(url)
        assert shown_in(page, "kb-count").startswith("30 articles")
        shown += numbers_on(page)
        following = re.search(r'data-testid="kb-next" href="([^"]+)"', text_of(page))
        url = html.unescape(following.group(1)).removeprefix(browser.base) if following else None
    assert shown == made
    finance = browser.get("/tickets/kb?q=zqpage&category=Finance")
    assert numbers_on(finance) == [n for i, n in enumerate(made) if i % 3]
    assert '<option selected>Finance</option>' in text_of(finance)
    assert numbers_on(browser.get("/tickets/kb?q=zqpage+nosuchword")) == []
    refused = browser.get("/tickets/kb?category=Gossip")
    assert refused.status_code == 400 and "Category must be one of" in error_message(refused)
    assert 'data-testid="tickets-nav-kb"' in text_of(browser.get("/tickets/"))


def test_article_page_shows_the_body_history_and_older_versions(browser, written):
    page = browser.get(f"/tickets/kb/{written}")
    assert page.status_code == 200
    assert shown_in(page, "kb-article-title") == "Zqkb printer jams" and shown_in(page, "kb-article-version") == "2"
    assert body_of(page) == BODY + "\nStep three: log it."  # lines kept, markup escaped
    assert "<b>check</b>" not in text_of(page) and "&lt;b&gt;check&lt;/b&gt;" in text_of(page)
    assert re.findall(r'data-testid="kb-version-row" data-version="(\d+)"', text_of(page)) == ["2", "1"]
    assert "Add step three" in text_of(page) and "Runbook" in text_of(page)
    assert 'data-testid="kb-old-version"' not in text_of(page)
    older = browser.get(f"/tickets/kb/{written}?version=1")
    assert shown_in(older, "kb-old-version").startswith("You are reading version 1 of 2.")
    assert body_of(older) == BODY
    assert browser.get(f"/tickets/kb/{written}?version=3").status_code == 400
    assert browser.get("/tickets/kb/KB9999999").status_code == 404


def test_creating_through_the_form_makes_version_one(browser, owner):
    form = {"title": "Zqkb visitor badges", "category": "Security", "body": "Line one\r\nLine two", "note": "New rule"}
    response = browser.post("/tickets/kb/new", form)
    assert response.status_code == 303, error_message(browser.get("/tickets/kb/new"))
    with browser.db() as db:
        made = db.scalar(select(Article).where(Article.title == "Zqkb visitor badges"))
        assert (made.category, made.body, made.owner_id, made.version) == ("Security", "Line one\nLine two", owner.id, 1)
        note = db.scalar(select(ArticleVersion.note).where(ArticleVersion.article_id == made.id))
        assert note == "New rule"
    assert response.headers["Location"].endswith(f"/tickets/kb/{made.number}")
    assert f"Created {made.number}" in text_of(browser.get(response.headers["Location"].removeprefix(browser.base)))


def test_the_owner_saves_a_second_version(browser, written):
    with browser.db() as db:
        author = db.get(Person, article(db, written).owner_id)
    browser.act_as(author.handle)
    form = {"title": "Zqkb printer jams", "category": "Operations", "body": "Short now", "note": "Simplify", "owner": ""}
    assert browser.get(f"/tickets/kb/{written}/edit").status_code == 200
    response = browser.post(f"/tickets/kb/{written}/edit", form)
    assert response.status_code == 303, error_message(browser.get(f"/tickets/kb/{written}"))
    with browser.db() as db:
        found = article(db, written)
        assert (found.version, found.category, found.body, found.owner_id) == (3, "Operations", "Short now", author.id)
        latest = services.get_article_version(db, author, written, 3)
        assert (latest.note, latest.author_id) == ("Simplify", author.id)


def test_a_new_owner_can_be_named(browser, written):
    with browser.db() as db:
        heir = members(db, 2)[1]
    response = browser.post(f"/tickets/kb/{written}/edit", {"title": "Zqkb printer jams", "category": "IT",
                                                            "body": BODY + "\nStep three: log it.",
                                                            "owner": f"@{heir.handle}", "note": "Hand over"})
    assert response.status_code == 303, error_message(browser.get(f"/tickets/kb/{written}"))  # the CEO is an admin
    with browser.db() as db:
        assert (article(db, written).owner_id, article(db, written).version) == (heir.id, 3)


def test_a_non_owner_is_refused_and_nothing_changes(browser, written):
    with browser.db() as db:
        author, other = members(db, 2)
    browser.act_as(other.handle)
    page = text_of(browser.get(f"/tickets/kb/{written}"))
    assert 'data-testid="kb-edit"' in page  # shown to everyone: the service decides
    before = browser.state()
    form = {"title": "Mine now", "category": "IT", "body": "Overwritten", "note": "x", "owner": ""}
    response = browser.post(f"/tickets/kb/{written}/edit", form)
    assert response.status_code == 403
    assert error_message(response) == (f"Only {written}'s owner, {author.name}, or a workspace admin changes it; "
                                       "ask them, or write a new article.")
    assert 'value="Mine now"' in text_of(response) and ">Overwritten</textarea>" in text_of(response)
    assert browser.state() == before


@pytest.mark.parametrize("form, message", [
    ({"title": "  ", "category": "IT", "body": "Text"}, "Title is required."),
    ({"title": "Zqkb bad category", "category": "Gossip", "body": "Text"}, "Category must be one of"),
    ({"title": "Zqkb empty category", "category": "", "body": "Text"}, "Category must be one of"),
    ({"title": "Zqkb too long", "category": "IT", "body": "x" * 20_001}, "Body is 20001 characters; the limit is 20000."),
    ({"title": "Zqkb printer jams", "category": "IT", "body": "Text"}, "already has the title"),
], ids=["empty-title", "unknown-category", "no-category", "body-too-long", "title-taken"])
def test_bad_input_changes_nothing_and_keeps_the_form(browser, written, form, message):
    for path in ("/tickets/kb/new", f"/tickets/kb/{written}/edit"):
        if path.endswith("/edit") and form["title"] == "Zqkb printer jams":
            continue  # an article keeps its own title
        before = browser.state()
        response = browser.post(path, {**form, "note": "typed note"})
        assert response.status_code == 400, path
        assert message in error_message(response)
        assert 'value="typed note"' in text_of(response)
        assert browser.state() == before


def test_an_edit_that_changes_nothing_is_refused(browser, written):
    before = browser.state()
    response = browser.post(f"/tickets/kb/{written}/edit", {"title": "Zqkb printer jams", "category": "IT",
                                                            "body": (BODY + "\nStep three: log it.").replace("\n", "\r\n")})
    assert response.status_code == 400 and "leaves" in error_message(response)
    assert browser.state() == before


def test_posts_without_the_csrf_token_are_refused(browser, written):
    before = browser.state()
    form = {"title": "Zqkb no token", "category": "IT", "body": "Text"}
    assert browser.post("/tickets/kb/new", form, csrf=None).status_code == 400
    assert browser.post(f"/tickets/kb/{written}/edit", form, csrf=None).status_code == 400
    assert browser.post("/tickets/kb/new", form, csrf="wrong").status_code == 400
    assert browser.state() == before


def test_kb_pages_are_well_formed_and_labelled(browser, written):
    for path in (f"/tickets/kb/{written}", f"/tickets/kb/{written}?version=1", f"/tickets/kb/{written}/edit",
                 "/tickets/kb/new"):
        response = browser.get(path)
        assert response.status_code == 200, path
        audit = structure.PageAudit()
        audit.feed(text_of(response))
        assert len(audit.ids) == len(set(audit.ids)) and {"main", "nav", "header"} <= audit.landmarks, path
        assert all(f.get("id") in audit.labels or f["wrapped"] for f in audit.fields), path
        assert all(b["aria"] or b["text"] for b in audit.buttons) and all(
            f["csrf"] for f in audit.forms if f["method"] == "post"), path


def test_ui_and_mcp_make_the_same_change(web_app, episode, store):
    twin = store.create(scale="tiny", seed=0)
    try:
        ui = Browser(web_app.test_client(), episode)
        made = ui.post("/tickets/kb/new", {"title": "Zqkb parity", "category": "People", "body": "A\r\nB", "note": ""})
        assert made.status_code == 303, error_message(made)
        number = made.headers["Location"].rsplit("/", 1)[1]
        edited = ui.post(f"/tickets/kb/{number}/edit", {"title": "Zqkb parity 2", "category": "People",
                                                        "body": "A\r\nB", "note": "Rename", "owner": ""})
        assert edited.status_code == 303, error_message(edited)
        call_tools(twin, twin.actor_id, [
            ("tickets_create_article", {"title": "Zqkb parity", "category": "People", "body": "A\nB"}),
            ("tickets_update_article", {"article": number, "title": "Zqkb parity 2", "note": "Rename"})])
        assert db_changes(episode) == db_changes(twin)
    finally:
        store.delete(twin.id)
