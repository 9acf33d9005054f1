"""The wait control of a conversation's page: simulated time passes until a colleague's answer
reaches you (or the time chosen runs out), the page says what arrived and shows it; reading the
page moves no time at all."""

from __future__ import annotations

from sqlalchemy import select
from ui_helpers import text_of

from officegym import clock
from officegym.apps.chat import services
from officegym.apps.chat.models import Message
from officegym.apps.org.models import Person


def _dm_with_a_colleague(browser, owner) -> tuple[str, Person]:
    with browser.db() as db:
        other = db.scalars(select(Person).where(Person.id != owner.id).order_by(Person.id)).first()
        return services.open_conversation(db, browser.episode.actor(db), [other.id]).name, other


def test_the_page_offers_a_wait_control_beside_the_composer(browser, owner):
    name, _ = _dm_with_a_colleague(browser, owner)
    page = text_of(browser.get(f"/chat/c/{name}"))
    assert 'data-testid="wait-form"' in page and 'name="minutes"' in page and ">8 hours<" in page


def test_waiting_brings_the_answer_and_reading_moves_no_time(browser, owner):
    name, other = _dm_with_a_colleague(browser, owner)
    assert browser.post(f"/chat/c/{name}/messages", {"text": "Hi, got a minute?"}).status_code == 303
    with browser.db() as db:
        posted_at = clock.now(db)
    browser.get(f"/chat/c/{name}")
    with browser.db() as db:
        assert clock.now(db) == posted_at  # reading is free
        assert db.scalars(select(Message).order_by(Message.id.desc())).first().author_id == owner.id
    response = browser.post(f"/chat/c/{name}/wait", {"minutes": "480"})
    assert response.status_code == 303
    landing = text_of(browser.get(response.headers["Location"].split(browser.base, 1)[1], follow_redirects=True))
    with browser.db() as db:
        reply = db.scalars(select(Message).order_by(Message.id.desc())).first()
        now = clock.now(db)
    assert reply.author_id == other.id and posted_at < reply.created_at <= now
    assert f"1 new message: @{other.handle} in " in landing and f"it is now {now:%a %d %b %H:%M}" in landing


def test_a_wait_out_of_bounds_is_refused_and_changes_nothing(browser, owner):
    name, _ = _dm_with_a_colleague(browser, owner)
    with browser.db() as db:
        before = clock.now(db)
    landing = text_of(browser.post(f"/chat/c/{name}/wait", {"minutes": "100000"}, follow_redirects=True))
    assert "minutes must be a whole number from 1 to 480" in landing
    with browser.db() as db:
        assert clock.now(db) == before
