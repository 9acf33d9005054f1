"""Chat as a Slack user meets it: one actions menu per message holding only what the actor may do,
confirmation before deleting or archiving, "Also send to #channel" on thread replies (with UI/MCP
parity), day dividers relative to the company's now, private channels named as such, page titles."""

from __future__ import annotations

import re
from datetime import date, datetime

from sqlalchemy import select
from ui_helpers import Browser, call_tools, channel, db_changes, error_message, person, text_of, top_message

from officegym.apps.chat import services, timeline
from officegym.apps.chat.models import Channel, Membership, Message
from officegym.apps.chat.schemas import MessageOut


def _row(page: str, message_id: int) -> str:
    """The HTML of one message row of a page."""
    return re.search(rf'<article[^>]*data-message-id="{message_id}".*?</article>', page, re.S).group(0)


def _title(page: str) -> str:
    return re.search(r"<title>(.*?)</title>", page, re.S).group(1)


def _actions(row: str) -> set[str]:
    """The actions a message row's menu offers (its data-actions)."""
    return set(re.search(r'data-actions="([^"]*)"', row).group(1).split())


def _actions_page(browser, message_id: int) -> str:
    """The actions listed on a message's actions page (where its menu button leads without JavaScript)."""
    page = text_of(browser.get(f"/chat/m/{message_id}/actions"))
    return re.search(r'data-testid="message-actions-page".*?</section>', page, re.S).group(0)


def test_one_menu_per_page_and_each_message_offers_only_what_the_actor_may_do(browser, owner):
    with browser.db() as db:
        mine = services.post_message(db, owner, "general", "my own words").id
        others = top_message(db, "general", not_author_id=owner.id).id
    page = text_of(browser.get("/chat/c/general"))
    # One menu and one emoji grid for the whole page; each message has only its button.
    assert page.count('id="message-menu-template"') == 1 and page.count('class="emoji-grid"') == 1
    assert page.count('data-testid="message-menu-button"') == page.count('data-testid="message"') > 1
    own, theirs = _row(page, mine), _row(page, others)
    button = re.search(r'<a class="icon-button menu-button"[^>]*data-testid="message-menu-button"', own).group(0)
    assert 'role="button"' in button and 'aria-haspopup="menu"' in button and 'aria-expanded="false"' in button
    assert f'aria-label="More actions for {owner.name}\'s message"' in button and f"/chat/m/{mine}/actions" in button
    assert _actions(own) == {"react", "reply", "edit", "delete", "pin"}
    assert _actions(theirs) == {"react", "reply", "pin"}
    # Without JavaScript the button leads to the message's actions, the same ones.
    own_page, their_page = _actions_page(browser, mine), _actions_page(browser, others)
    for action in ("action-react", "action-reply", "action-edit", "action-delete", "action-pin", "action-copy-link"):
        assert f'data-testid="{action}"' in own_page
    assert 'data-testid="action-edit"' not in their_page and 'data-testid="action-delete"' not in their_page
    assert 'data-testid="action-pin"' in their_page and f"/chat/m/{others}/react" in their_page
    # No permanent action links outside the menus any more.
    assert 'class="msg-actions"' not in page


def test_a_non_member_is_not_offered_pinning_or_replying(browser, owner):
    with browser.db() as db:
        public = db.scalars(select(Channel).where(
            Channel.kind == "public", Channel.is_archived.is_(False),
            Channel.id.not_in(select(Membership.channel_id).where(Membership.person_id == owner.id)))).first()
        target = top_message(db, public.name)
        name = public.name
    assert _actions(_row(text_of(browser.get(f"/chat/c/{name}")), target.id)) == {"react"}
    actions = _actions_page(browser, target.id)
    assert 'data-testid="action-react"' in actions
    assert 'data-testid="action-pin"' not in actions and 'data-testid="action-reply"' not in actions


def test_deleting_asks_first_and_one_get_deletes_nothing(browser, owner):
    with browser.db() as db:
        mine = services.post_message(db, owner, "general", "delete me later").id
    confirm = browser.get(f"/chat/m/{mine}/delete", query_string={"next": "/chat/c/general"})
    page = text_of(confirm)
    assert confirm.status_code == 200 and "Delete this message?" in page and "delete me later" in page
    assert 'data-testid="confirm-delete-form"' in page and 'name="csrf_token"' in page
    with browser.db() as db:
        assert db.get(Message, mine).deleted_at is None
    assert browser.post(f"/chat/m/{mine}/delete").status_code == 303
    with browser.db() as db:
        assert db.get(Message, mine).deleted_at is not None
    assert "already deleted" in text_of(browser.get(f"/chat/m/{mine}/delete"))


def test_the_delete_confirmation_links_back_only_to_pages_of_this_episode(browser, owner):
    with browser.db() as db:
        mine = services.post_message(db, owner, "general", "keep me").id
    for elsewhere in ("https://evil.example/", "/e/another-episode/chat/c/general", "//evil.example/x"):
        page = text_of(browser.get(f"/chat/m/{mine}/delete", query_string={"next": elsewhere}))
        assert f'href="{elsewhere}' not in page and f'href="/e/{browser.episode.id}/chat/c/general' in page


def test_archiving_asks_first(browser):
    page = text_of(browser.get("/chat/c/security/archive"))
    assert "Archive #security?" in page and 'data-testid="confirm-archive-form"' in page
    with browser.db() as db:
        assert not channel(db, "security").is_archived
    details = text_of(browser.get("/chat/c/security/details"))
    assert re.search(r'<a class="button danger" href="[^"]*/chat/c/security/archive" data-testid="archive-channel"',
                     details)
    assert browser.post("/chat/c/security/archive").status_code == 303
    with browser.db() as db:
        assert channel(db, "security").is_archived


def test_also_send_to_channel_posts_the_reply_in_the_channel_too(browser, owner):
    with browser.db() as db:
        parent = top_message(db, "random").id
    thread = text_of(browser.get(f"/chat/c/random/t/{parent}"))
    assert 'name="also_send_to_channel"' in thread and "Also send to #random" in thread
    response = browser.post("/chat/c/random/messages", {"text": "Agreed, shipping it", "thread_parent_id": str(parent),
                                                        "also_send_to_channel": "1"})
    assert response.status_code == 303
    with browser.db() as db:
        posted = db.scalars(select(Message).where(Message.author_id == owner.id, Message.text == "Agreed, shipping it")
                            .order_by(Message.id)).all()
        assert [m.thread_parent_id for m in posted] == [parent, None]
        assert posted[1].id in [m.id for m in services.list_messages(db, owner, "random").items]


def test_also_send_without_a_thread_is_refused_and_changes_nothing(browser, owner):
    response = browser.post("/chat/c/random/messages", {"text": "lonely", "also_send_to_channel": "1"})
    assert response.status_code == 400 and "thread replies" in error_message(response)
    with browser.db() as db:
        assert db.scalar(select(Message).where(Message.text == "lonely")) is None


def test_also_send_to_channel_through_ui_and_mcp_makes_the_same_change(web_app, store):
    ui_episode, mcp_episode = store.create(scale="tiny"), store.create(scale="tiny")
    try:
        browser = Browser(web_app.test_client(), ui_episode)
        with browser.db() as db:
            owner = browser.episode.actor(db)
            parent, owner_id = top_message(db, "random").id, owner.id
        form = {"text": "Same everywhere", "thread_parent_id": str(parent), "also_send_to_channel": "1"}
        assert browser.post("/chat/c/random/messages", form).status_code == 303
        call_tools(mcp_episode, owner_id, [("chat_post_message", {"channel": "random", "text": "Same everywhere",
                                                                  "thread_parent_id": parent,
                                                                  "also_send_to_channel": True})])
        ui_changes, mcp_changes = db_changes(ui_episode), db_changes(mcp_episode)
        assert "chat_message" in ui_changes and ui_changes == mcp_changes
    finally:
        store.delete(ui_episode.id)
        store.delete(mcp_episode.id)


def test_day_dividers_are_relative_to_the_company_now():
    today = date(2026, 11, 25)
    assert timeline.day_label(today, today) == "Today"
    assert timeline.day_label(date(2026, 11, 24), today) == "Yesterday"
    assert timeline.day_label(date(2026, 11, 23), today) == "Monday 23 November"
    assert timeline.day_label(date(2025, 11, 23), today) == "Sunday 23 November 2025"

    def out(i, author, at):
        return MessageOut(id=i, channel_id=1, channel_name="general", author=author, author_name=author, text="t",
                          created_at=at, edited=False, deleted=False, thread_parent_id=None, reply_count=0,
                          reactions=[], mentions=[], pinned=False)
    rows = timeline.rows([out(1, "ana", "2026-11-24T09:00:00"), out(2, "ana", "2026-11-24T09:03:00"),
                          out(3, "bo", "2026-11-24T09:04:00"), out(4, "bo", "2026-11-25T08:00:00")],
                         datetime(2026, 11, 25, 10, 0))
    assert [(r.day, r.grouped) for r in rows] == [("Yesterday", False), (None, True), (None, False), ("Today", False)]


def test_channel_page_shows_day_dividers_avatars_and_a_title_that_says_where(browser, owner):
    with browser.db() as db:
        services.post_message(db, owner, "general", "posted just now")
    page = text_of(browser.get("/chat/c/general"))
    assert _title(page).startswith("#general – Chat")
    assert re.findall(r'data-testid="day-divider" aria-label="([^"]+)"', page)[-1] == "Today"
    assert re.search(r'<span class="avatar avatar-\d" aria-hidden="true">[A-Z]{1,2}</span>', page)
    with browser.db() as db:
        parent = top_message(db, "deals").id
    assert _title(text_of(browser.get(f"/chat/c/deals/t/{parent}"))).startswith("Thread in #deals")
    assert _title(text_of(browser.get("/chat/search", query_string={"q": "the"}))).startswith("Search: the")


def test_private_channels_are_named_as_such(browser, owner):
    with browser.db() as db:
        member = person(db, "member")
        services.create_channel(db, owner, "zz-secret", True, "", "", [f"@{member.handle}"])
    page = text_of(browser.get("/chat/c/zz-secret"))
    assert 'aria-label="Private channel zz-secret"' in page  # the sidebar link
    assert re.search(r'data-testid="channel-name"><svg[^>]*role="img" aria-label="Private channel"', page)
    assert "(private channel)" in _title(page)
    browse = text_of(browser.get("/chat/channels", query_string={"q": "zz-secret"}))
    assert 'aria-label="Private channel"' in browse
    assert "🔒" not in page + browse  # no emoji font needed for icons
    assert 'data-picker="invitees" data-picker-channel="zz-secret" data-picker-multi' in text_of(
        browser.get("/chat/c/zz-secret/members"))
    assert 'data-picker="people" data-picker-multi' in text_of(browser.get("/chat/dms"))
    assert 'data-picker="channels"' in text_of(browser.get("/chat/search"))
