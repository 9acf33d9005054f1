"""Chat pages that read: channel history and paging, sidebar and unread state, threads, mention
links and escaping, search, mentions, pins, browse, DMs."""

from __future__ import annotations

import re

from sqlalchemy import select
from ui_helpers import channel, error_message, message_ids, private_channel_hidden_from_a_member, text_of

from officegym import pagination
from officegym.apps.chat import services
from officegym.apps.chat.blueprint import HISTORY
from officegym.apps.chat.models import Channel, Message


def test_chat_opens_on_general_with_its_newest_messages_oldest_first(browser, owner):
    assert browser.get("/chat/").headers["Location"].endswith("/chat/c/general#latest")
    response = browser.get("/chat/c/general")
    with browser.db() as db:
        expected = [m.id for m in services.list_messages(db, owner, "general", None, 50).items][::-1]
    assert response.status_code == 200
    assert message_ids(response) == expected and expected
    page = text_of(response)
    assert 'data-testid="composer"' in page and 'data-testid="channel-name">#general' in page


def test_sidebar_lists_my_channels_and_dms_with_unread_counts(browser, owner):
    with browser.db() as db:
        mine = [c.name for c in services.list_channels(db, owner, member_only=True, limit=200).items]
        dms = [c.name for c in services.list_conversations(db, owner).items]
        unread = {c.name: n for c in services.list_unreads(db, owner)
                  for n in [services.unread_counts(db, owner)[c.id]]}
    page = text_of(browser.get("/chat/search"))  # a page that reads nothing
    listed = re.findall(r'data-testid="sidebar-link" data-channel="([^"]+)"', page)
    assert listed == mine + dms
    assert unread, "the seeded world leaves the owner some unread messages"
    for name, n in unread.items():
        assert re.search(rf'data-channel="{re.escape(name)}"\s+class="side-item unread".*?>{n}<span', page, re.S)


def test_viewing_a_channel_marks_it_read(browser, owner):
    with browser.db() as db:
        unread = services.list_unreads(db, owner)[0]
        name = unread.name
    page = text_of(browser.get(f"/chat/c/{name}"))
    assert 'data-testid="new-messages"' in page
    with browser.db() as db:
        assert services.unread_counts(db, owner).get(unread.id, 0) == 0


def test_older_messages_link_pages_back_through_history(browser, owner):
    with browser.db() as db:
        for i in range(55):
            services.post_message(db, owner, "random", f"filler {i}")
        newest = [m.id for m in services.list_messages(db, owner, "random", None, HISTORY).items]
    first = browser.get("/chat/c/random")
    assert message_ids(first) == newest[::-1]
    older = re.search(r'href="([^"]+)" rel="prev" data-testid="older-messages"', text_of(first)).group(1)
    assert older.endswith(f"?before={min(newest)}")
    second = browser.get(older.removeprefix(browser.base))
    assert message_ids(second) and max(message_ids(second)) < min(newest)
    assert 'data-testid="newest-messages"' in text_of(second)


def test_thread_pane_shows_parent_and_replies(browser, owner):
    with browser.db() as db:
        parent = db.scalar(select(Message).where(Message.id.in_(
            select(Message.thread_parent_id).where(Message.thread_parent_id.is_not(None)))).order_by(Message.id))
        name = parent.channel.name
        _, replies = services.get_thread(db, owner, parent.id)
        reply_ids = [r.id for r in replies.items]
    response = browser.get(f"/chat/c/{name}/t/{parent.id}")
    page = text_of(response)
    assert f'data-testid="thread-pane" data-thread-id="{parent.id}"' in page
    assert set(reply_ids) <= set(message_ids(response))
    assert 'data-testid="thread-composer"' in page or "archived" in page
    # The thread of a message in another channel goes to the right channel.
    assert browser.get(f"/chat/c/general/t/{parent.id}").headers["Location"].endswith(f"/chat/c/{name}/t/{parent.id}")


def test_mentions_link_to_profiles_and_text_is_escaped(browser, owner):
    with browser.db() as db:
        posted = services.post_message(db, owner, "general",
                                       "<script>alert(1)</script> ping @Ryan.Carr & co, not @nobody.here")
    page = text_of(browser.get(f"/chat/m/{posted.id}", follow_redirects=True))
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt; ping " in page
    assert (f'<a class="mention" href="/e/{browser.episode.id}/org/people/ryan.carr">@Ryan.Carr</a> &amp; co, '
            "not @nobody.here") in page


def test_private_channel_is_hidden_from_non_members(browser):
    with browser.db() as db:
        secret, outsider = private_channel_hidden_from_a_member(db)
        name, handle = secret.name, outsider.handle
    browser.act_as(handle)
    response = browser.get(f"/chat/c/{name}")
    assert response.status_code == 404 and f"Channel '{name}' not found" in error_message(response)
    assert f'data-channel="{name}"' not in text_of(browser.get("/chat/channels"))


def test_search_filters_by_words_channel_author_and_dates(browser, owner):
    with browser.db() as db:
        services.post_message(db, owner, "general", "quarterly zebra numbers")
        services.post_message(db, owner, "random", "zebra crossing")
    everywhere = browser.get("/chat/search", query_string={"q": "zebra"})
    assert len(message_ids(everywhere)) == 2 and "2 results" in text_of(everywhere)
    in_general = browser.get("/chat/search", query_string={"q": "zebra", "channel": "#general"})
    assert len(message_ids(in_general)) == 1 and "quarterly zebra" in text_of(in_general)
    by_me = browser.get("/chat/search", query_string={"author": f"@{owner.handle}", "after": "2026-03-16"})
    assert len(message_ids(by_me)) == 2
    assert message_ids(browser.get("/chat/search", query_string={"q": "zebra", "before": "2000-01-01"})) == []
    bad_date = browser.get("/chat/search", query_string={"q": "zebra", "after": "16/03/2026"})
    assert bad_date.status_code == 400 and "YYYY-MM-DD" in error_message(bad_date)


def test_search_pages_through_results(browser, owner):
    with browser.db() as db:
        for i in range(25):
            services.post_message(db, owner, "random", f"pagination marker {i}")
    first = browser.get("/chat/search", query_string={"q": "pagination marker"})
    assert len(message_ids(first)) == 20 and 'data-testid="page-next"' in text_of(first)
    second = browser.get("/chat/search", query_string={"q": "pagination marker", "offset": 20})
    assert len(message_ids(second)) == 5 and not set(message_ids(first)) & set(message_ids(second))


def test_search_says_when_it_stopped_counting(browser, owner, monkeypatch):
    monkeypatch.setattr(pagination, "COUNT_STEP", 4)  # a page of 20 counts to 24 here (to 1,000 in a real search)
    with browser.db() as db:
        for i in range(25):
            services.post_message(db, owner, "random", f"bounded marker {i}")
    first = text_of(browser.get("/chat/search", query_string={"q": "bounded marker"}))
    count = re.search(r'data-testid="search-count"[^>]*>([^<]*)<', first).group(1)
    assert count.startswith("24+ results") and "narrow the search" in count
    assert re.search(r'class="pager-status">1–20 of 24\+<', first)
    last = text_of(browser.get("/chat/search", query_string={"q": "bounded marker", "offset": 20}))
    assert re.search(r'data-testid="search-count"[^>]*>25 results<', last)


def test_mentions_pins_unreads_browse_and_dm_pages(browser, owner):
    with browser.db() as db:
        mentions = [m.id for m in services.list_mentions(db, owner).items]
        pinned = channel(db, "general")
        pins = [m.id for m in services.list_pins(db, owner, pinned.id)]
        unread = [c.name for c in services.list_unreads(db, owner)]
        dms = [c.name for c in services.list_conversations(db, owner).items]
    assert message_ids(browser.get("/chat/mentions")) == mentions
    assert message_ids(browser.get("/chat/c/general/pins")) == pins
    assert re.findall(r'data-testid="unread-conversation" data-channel="([^"]+)"',
                      text_of(browser.get("/chat/unreads"))) == unread
    assert re.findall(r'data-testid="dm" data-channel="([^"]+)"', text_of(browser.get("/chat/dms"))) == dms
    archived = text_of(browser.get("/chat/channels", query_string={"archived": "1"}))
    assert "Archived" in archived and "Archived" not in text_of(browser.get("/chat/channels"))


def test_archived_channel_is_read_only_on_screen(browser):
    with browser.db() as db:
        archived = db.scalar(select(Channel).where(Channel.is_archived.is_(True)))
        name, word = archived.name, archived.name.split("-")[-1]
        services.post_message(db, browser.episode.actor(db), "general", f"about {word}")
        read_only = set(db.scalars(select(Message.id).where(Message.channel_id == archived.id)))
    page = text_of(browser.get(f"/chat/c/{name}"))
    assert 'data-testid="archived-notice"' in page
    assert 'data-testid="composer"' not in page
    assert set(re.findall(r'data-actions="([^"]*)"', page)) == {""}  # nothing to do but open the menu
    assert 'data-testid="message-menu-button"' in page  # Copy link and the profile stay
    # In search results too, only messages of live channels offer actions (pinning also needs membership).
    results = text_of(browser.get("/chat/search", query_string={"q": word}))
    rows = re.split(r'(?=<article class="msg)', results)[1:]
    ids = [int(re.search(r'data-message-id="(\d+)"', row).group(1)) for row in rows]
    assert set(ids) & read_only and set(ids) - read_only
    for message_id, row in zip(ids, rows):
        actions = re.search(r'data-actions="([^"]*)"', row).group(1).split()
        assert ("react" in actions) == (message_id not in read_only)
        assert message_id not in read_only or "pin" not in actions
