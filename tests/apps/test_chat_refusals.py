"""Refused chat forms: bad input, missing permission, bad CSRF. Each one shows a clear error with
the right HTTP status, and the database is byte-for-byte unchanged (the transaction rolled back)."""

from __future__ import annotations

import pytest
from sqlalchemy import select
from ui_helpers import error_message, person, private_channel_hidden_from_a_member, text_of, top_message

from officegym.apps.chat.models import Channel, Membership, Message, Pin

# (act as: "owner" or a plain "member"), form path, form fields, status, part of the message.
# Paths name records through placeholders filled by the `records` fixture.
CASES = [
    ("owner", "/chat/c/general/messages", {"text": ""}, 400, "Message text is empty"),
    ("owner", "/chat/c/general/messages", {"text": "   \n "}, 400, "Message text is empty"),
    ("owner", "/chat/c/general/messages", {"text": "x" * 4001}, 400, "the limit is 4000"),
    ("owner", "/chat/c/general/messages", {"text": "hi", "thread_parent_id": "abc"}, 400, "must be a whole number"),
    ("owner", "/chat/c/general/messages", {"text": "hi", "thread_parent_id": "999999"}, 404, "Message 999999 not found"),
    ("owner", "/chat/c/no-such-channel/messages", {"text": "hi"}, 404, "Channel 'no-such-channel' not found"),
    ("owner", "/chat/c/{archived}/messages", {"text": "hi"}, 409, "is archived"),
    ("member", "/chat/c/{private}/messages", {"text": "hi"}, 404, "not found"),
    ("owner", "/chat/m/abc/edit", {"text": "hi"}, 400, "numeric id, got 'abc'"),
    ("owner", "/chat/m/999999/edit", {"text": "hi"}, 404, "Message 999999 not found"),
    ("owner", "/chat/m/{others}/edit", {"text": "hijacked"}, 403, "Only the author may edit"),
    ("owner", "/chat/m/{mine}/edit", {"text": ""}, 400, "Message text is empty"),
    ("owner", "/chat/m/{others}/delete", {}, 403, "Only the author may delete"),
    ("owner", "/chat/m/{others}/reactions", {"emoji": "not an emoji!"}, 400, "is not valid"),
    ("owner", "/chat/m/{others}/reactions", {"emoji": ""}, 400, "is not valid"),
    ("owner", "/chat/m/999999/reactions", {"emoji": "tada"}, 404, "not found"),
    ("owner", "/chat/m/{others}/reactions/remove", {"emoji": "zzz"}, 404, "You have no :zzz: reaction"),
    ("owner", "/chat/m/{pinned}/pin", {}, 409, "already pinned"),
    ("owner", "/chat/channels/new", {"name": "Bad Name!"}, 400, "is not valid"),
    ("owner", "/chat/channels/new", {"name": "general"}, 409, "already exists"),
    ("owner", "/chat/channels/new", {"name": "fresh", "members": "@nobody.here"}, 404, "No person matches"),
    ("owner", "/chat/channels/new", {"name": "fresh", "topic": "t" * 251}, 400, "the limit is 250"),
    ("owner", "/chat/c/general/update", {"name": "lobby"}, 403, "#general cannot be renamed"),
    ("owner", "/chat/c/general/update", {}, 400, "Give a new topic, purpose or name"),
    ("member", "/chat/c/general/archive", {}, 403, "Only workspace admins or owners may archive"),
    ("owner", "/chat/c/{archived}/archive", {}, 409, "already archived"),
    ("owner", "/chat/c/general/invite", {"people": "@nobody.here"}, 404, "No person matches"),
    ("owner", "/chat/c/general/invite", {"people": ""}, 400, "Name at least one person"),
    ("member", "/chat/c/general/remove", {"person": "@megan.chang"}, 403, "cannot be removed|Nobody can be removed"),
    ("member", "/chat/c/random/remove", {"person": "@megan.chang"}, 403, "Only the creator of #random"),
    ("owner", "/chat/c/general/leave", {}, 403, "cannot leave"),
    ("owner", "/chat/dms/open", {"people": ""}, 400, "Name at least one person"),
    ("owner", "/chat/dms/open", {"people": "@nobody.here"}, 404, "No person matches"),
    ("owner", "/chat/c/general/read", {"message_id": "abc"}, 400, "must be a whole number"),
    ("owner", "/act-as", {"person": "@nobody.here"}, 404, "No person matches"),
]


@pytest.fixture
def records(browser, owner) -> dict[str, str]:
    """Names and ids the cases refer to."""
    with browser.db() as db:
        private, _ = private_channel_hidden_from_a_member(db)
        # A pin in an open channel the owner belongs to: pinning it again is a conflict, not a refusal.
        pinned = db.scalar(select(Pin.message_id).join(Message, Message.id == Pin.message_id).join(Channel)
                           .join(Membership, (Membership.channel_id == Channel.id) & (Membership.person_id == owner.id))
                           .where(Channel.is_archived.is_(False)).order_by(Pin.id))
        return {"archived": db.scalar(select(Channel.name).where(Channel.is_archived.is_(True))),
                "private": private.name,
                "mine": str(top_message(db, "general", author_id=owner.id).id),
                "others": str(top_message(db, "general", not_author_id=owner.id).id),
                "pinned": str(pinned)}


@pytest.mark.parametrize("who,path,form,status,expected", CASES, ids=[f"{c[1]}-{c[3]}-{i}" for i, c in enumerate(CASES)])
def test_refused_form_shows_why_and_changes_nothing(browser, records, who, path, form, status, expected):
    if who == "member":
        with browser.db() as db:
            private = db.scalar(select(Channel).where(Channel.name == records["private"]))
            browser.act_as(person(db, "member", not_in=private).handle)
    before = browser.state()
    response = browser.post(path.format(**records), form)
    assert response.status_code == status
    shown = error_message(response)
    assert any(part in shown for part in expected.split("|")), shown
    assert "Nothing was changed." in text_of(response)
    assert browser.state() == before


def test_error_page_links_back_to_the_form(browser):
    response = browser.post("/chat/c/general/messages", {"text": "", "next": f"{browser.base}/chat/c/general"})
    assert f'href="{browser.base}/chat/c/general" data-testid="error-back"' in text_of(response)
    elsewhere = browser.post("/chat/c/general/messages", {"text": "", "next": "https://evil.example/x"})
    assert "evil.example" not in text_of(elsewhere)


@pytest.mark.parametrize("token", [None, "", "wrong-token"])
def test_post_without_the_right_csrf_token_is_refused(browser, token):
    before = browser.state()
    response = browser.post("/chat/c/general/messages", {"text": "sneaky"}, csrf=token)
    assert response.status_code == 400
    assert "security token" in error_message(response)
    assert browser.state() == before


def test_wrong_type_in_a_url_is_a_clear_400(browser):
    response = browser.get("/chat/m/abc")
    assert response.status_code == 400 and "numeric id" in error_message(response)
    assert browser.get("/chat/c/general", query_string={"before": "x"}).status_code == 400
    assert browser.get("/chat/c/general/t/abc").status_code == 400
    assert browser.get("/chat/search", query_string={"q": "x", "offset": "-1"}).status_code == 400


def test_unknown_episode_is_404(browser):
    response = browser.client.get("/e/no-such-episode-id/chat/")
    assert response.status_code == 404 and "No such episode" in error_message(response)
