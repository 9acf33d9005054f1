"""The UI shell: app switcher, acting as someone (free episode only), the answer box of question
tasks, and the UI served through the real server (build_app)."""

from __future__ import annotations

import httpx
import pytest
from markupsafe import escape
from sqlalchemy import select
from ui_helpers import Browser, error_message, person, text_of

from officegym.answers import last_answer
from officegym.apps.chat.models import Message
from officegym.db import Answer


@pytest.fixture
def task_browser(web_app, store):
    """A browser on a write task episode (fix a typo), which fixes the actor."""
    created = store.create(task_id="chat.fix_typo", instance=0, scale="tiny")
    yield Browser(web_app.test_client(), created)
    store.delete(created.id)


@pytest.fixture
def question_browser(web_app, store):
    """A browser on a question task episode (count reactions), which has an answer box."""
    created = store.create(task_id="chat.count_reactions", instance=0, scale="tiny")
    yield Browser(web_app.test_client(), created)
    store.delete(created.id)


def test_app_switcher_links_every_app(browser, owner):
    page = text_of(browser.get("/"))
    assert f'href="{browser.base}/chat/" data-testid="app-chat"' in page
    assert f'href="{browser.base}/org/" data-testid="app-org"' in page
    assert f"Acting as <a href=\"{browser.base}/org/people/{owner.handle}\">{owner.name}</a>" in page
    assert 'data-testid="act-as-link"' in page and 'data-testid="answer-form"' not in page


def test_act_as_switches_who_posts_in_the_free_episode(browser, owner):
    with browser.db() as db:
        member = person(db, "member")
    picker = text_of(browser.get("/act-as", query_string={"q": member.name}))
    assert f'data-testid="act-as-{member.handle}"' in picker
    browser.act_as(member.handle)
    assert f"Acting as <a href=\"{browser.base}/org/people/{member.handle}\">" in text_of(browser.get("/"))
    browser.post("/chat/c/general/messages", {"text": "posted as someone else"})
    with browser.db() as db:
        posted = db.scalars(select(Message).order_by(Message.id.desc())).first()
        assert (posted.text, posted.author_id) == ("posted as someone else", member.id)


def test_act_as_is_refused_in_a_task_episode(task_browser):
    with task_browser.db() as db:
        actor = task_browser.episode.actor(db)
        other = person(db, "member")
        assert other.id != actor.id
    home = text_of(task_browser.get("/"))
    assert 'data-testid="act-as-link"' not in home and 'data-testid="task-instruction"' in home
    assert str(escape(task_browser.episode.instruction)) in home
    before = task_browser.state()
    refused = task_browser.post("/act-as", {"person": other.handle})
    assert refused.status_code == 403 and "cannot switch user" in error_message(refused)
    assert task_browser.get("/act-as").status_code == 403
    assert task_browser.state() == before
    assert f"/org/people/{actor.handle}\">{actor.name}</a>" in text_of(task_browser.get("/"))


def test_answer_box_stores_the_answer_of_a_question_task(question_browser):
    home = text_of(question_browser.get("/"))
    assert 'data-testid="answer-form"' in home and 'data-testid="banner-answer-form"' in home
    empty = question_browser.post("/answer", {"answer": "  "})
    assert empty.status_code == 400 and "The answer is empty" in error_message(empty)
    with question_browser.db() as db:
        assert db.scalar(select(Answer.id)) is None
    assert question_browser.post("/answer", {"answer": " 7 "}).status_code == 303
    assert question_browser.post("/answer", {"answer": "8"}).status_code == 303
    with question_browser.db() as db:
        assert last_answer(db) == "8"
    assert 'data-testid="last-answer">Your last answer: <q>8</q>' in text_of(question_browser.get("/"))


def test_write_task_has_no_answer_box(task_browser):
    page = text_of(task_browser.get("/chat/c/general"))
    assert 'data-testid="task-banner"' in page and 'data-testid="banner-answer-form"' not in page


def test_pages_send_security_headers(browser):
    response = browser.get("/chat/c/general")
    assert response.headers["Referrer-Policy"] == "same-origin"
    assert "default-src 'self'" in response.headers["Content-Security-Policy"]


def test_ui_is_served_by_the_real_server(live_server):
    created = live_server.store.create(scale="tiny")
    with httpx.Client(base_url=live_server.base_url) as client:
        page = client.get(f"/e/{created.id}/chat/", follow_redirects=True)
        assert page.status_code == 200 and 'data-testid="message"' in page.text
        assert client.get("/static/officegym.css").status_code == 200
        token = page.text.split('name="csrf_token" value="', 1)[1].split('"', 1)[0]
        posted = client.post(f"/e/{created.id}/chat/c/general/messages",
                             data={"csrf_token": token, "text": "through uvicorn"})
        assert posted.status_code == 303
    with created.session() as db:
        assert db.scalar(select(Message.text).order_by(Message.id.desc()).limit(1)) == "through uvicorn"
