"""The message form warns about a mention of someone outside the channel (the chat service decides
the warning; the page shows it after posting), and the mention reaches nobody."""

from __future__ import annotations

from sqlalchemy import select
from ui_helpers import text_of

from officegym.apps.chat import services
from officegym.apps.chat.models import Message
from officegym.apps.org.models import Person


def test_a_mention_of_a_non_member_is_flashed_after_posting(browser, owner):
    with browser.db() as db:
        services.create_channel(db, browser.episode.actor(db), "zz-small")
        outsider = db.scalars(select(Person).where(Person.id != owner.id).order_by(Person.id)).first().handle
    response = browser.post("/chat/c/zz-small/messages", {"text": f"@{outsider} could you look at this?"})
    assert response.status_code == 303
    landing = text_of(browser.get(response.headers["Location"].split(browser.base, 1)[1], follow_redirects=True))
    assert f"@{outsider} is not in #zz-small: invite them or message them directly." in landing
    with browser.db() as db:
        newest = db.scalars(select(Message).order_by(Message.id.desc())).first()
        assert newest.author_id == owner.id  # nobody answered
