"""Chat in real Chromium: the per-message actions menu (react through the emoji picker, edit, delete
with its confirmation, pin), @-mention suggestions in the composer, "Also send to #channel", the
archive confirmation, private channels named as such, day dividers, and the weight of #general's
accessibility tree as a BrowserGym agent reads it (under 30,000 characters on the tiny and small worlds)."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from benchmarks.page_tree import tree_characters, tree_text
from officegym.apps.chat import services
from officegym.apps.chat.models import Mention, Message, Reaction

pytestmark = pytest.mark.e2e
TREE_LIMIT = 30_000


@pytest.fixture
def free(live_server):
    """A free episode on the served tiny world (acting as its owner) and its chat URL; deleted afterwards."""
    episode = live_server.store.create(scale="tiny", seed=0)
    yield episode, f"{live_server.base_url}/e/{episode.id}/chat"
    live_server.store.delete(episode.id)


def _post(episode, text: str, channel: str = "general") -> int:
    """A message of the owner's, posted through the service before the page opens."""
    with episode.session() as db:
        return services.post_message(db, episode.actor(db), channel, text).id


def _row(page, message_id: int):
    return page.locator(f'#message-{message_id}')


def _menu(page, message_id: int):
    """Open a message's "More actions" menu; its row."""
    row = _row(page, message_id)
    row.get_by_label("More actions for", exact=False).click()
    return row


def test_react_through_the_emoji_picker_of_the_actions_menu(page, free):
    episode, chat = free
    mine = _post(episode, "Lunch at noon?")
    page.goto(f"{chat}/c/general")
    row = _menu(page, mine)
    assert row.get_by_test_id("action-edit").is_visible() and row.get_by_test_id("action-pin").is_visible()
    row.get_by_test_id("action-react").click()
    row.get_by_role("button", name="React with party popper").click()
    chip = _row(page, mine).locator('[data-testid="reaction"][data-emoji="tada"]')
    assert chip.get_attribute("aria-pressed") == "true" and chip.get_by_test_id("reaction-count").inner_text() == "1"
    with episode.session() as db:
        assert db.scalar(select(Reaction.emoji).where(Reaction.message_id == mine)) == "tada"
    # From the existing reactions too: "Add reaction" beside them opens the same picker.
    _row(page, mine).hover()
    _row(page, mine).get_by_label("Add reaction").click()
    _row(page, mine).get_by_test_id("reaction-emoji-grid").get_by_role("button", name="React with eyes").click()
    assert _row(page, mine).locator('[data-testid="reaction"][data-emoji="eyes"]').count() == 1


def test_edit_pin_and_delete_with_confirmation(page, free):
    episode, chat = free
    mine = _post(episode, "Teh report is ready")
    page.goto(f"{chat}/c/general")
    _menu(page, mine).get_by_test_id("action-edit").click()
    page.get_by_label("Message text").fill("The report is ready")
    page.get_by_test_id("edit-save").click()
    assert _row(page, mine).get_by_test_id("message-text").inner_text() == "The report is ready"
    _menu(page, mine).get_by_role("button", name="Pin to channel").click()
    assert _row(page, mine).get_by_test_id("message-pinned").is_visible()
    _menu(page, mine).get_by_test_id("action-delete").click()
    assert page.get_by_role("heading", name="Delete this message?").is_visible()
    with episode.session() as db:
        assert db.get(Message, mine).deleted_at is None  # opening the confirmation deleted nothing
    page.get_by_role("button", name="Delete message").click()
    assert page.get_by_test_id("flash-info").inner_text() == "Message deleted."
    with episode.session() as db:
        assert db.get(Message, mine).deleted_at is not None


def test_escape_closes_the_menu_and_only_one_menu_is_open(page, free):
    episode, chat = free
    first, second = _post(episode, "one"), _post(episode, "two")
    page.goto(f"{chat}/c/general")
    _menu(page, first)
    _menu(page, second)
    # The page's one menu opens in the row whose button was pressed, and says so on the button.
    assert page.locator(".msg .msg-menu").count() == 1 and _row(page, second).locator(".msg-menu").count() == 1
    button = _row(page, second).get_by_role("button", name="More actions for", exact=False)
    assert button.get_attribute("aria-expanded") == "true"
    assert _row(page, first).get_by_role("button", name="More actions for", exact=False).get_attribute(
        "aria-expanded") == "false"
    page.keyboard.press("Escape")
    assert page.locator(".msg .msg-menu").count() == 0
    assert button.get_attribute("aria-expanded") == "false"


def test_mention_suggestions_insert_the_handle(page, free):
    episode, chat = free
    with episode.session() as db:
        someone = services.list_members(db, episode.actor(db), "general", 0, 100).items[-1]
        name, handle, someone_id = someone.name, someone.handle, someone.id
    page.goto(f"{chat}/c/general")
    box = page.get_by_test_id("composer-text")
    box.click()
    box.press_sequentially(f"Thanks @{handle[:3]}")
    options = page.get_by_role("listbox", name="People to mention").get_by_role("option")
    options.filter(has_text=name).first.wait_for()
    assert box.get_attribute("aria-expanded") == "true"
    options.filter(has_text=name).first.click()
    assert box.input_value() == f"Thanks @{handle} "
    box.press_sequentially("for the help")
    page.get_by_test_id("composer-send").click()
    with episode.session() as db:
        posted = db.scalar(select(Message).where(Message.text == f"Thanks @{handle} for the help"))
        assert posted is not None
        assert db.scalar(select(Mention.person_id).where(Mention.message_id == posted.id)) == someone_id


def test_keyboard_picks_a_mention_with_enter(page, free):
    episode, chat = free
    page.goto(f"{chat}/c/general")
    box = page.get_by_test_id("composer-text")
    box.click()
    box.press_sequentially("cc @")
    box.press_sequentially("a")
    page.get_by_role("listbox", name="People to mention").get_by_role("option").first.wait_for()
    first = page.get_by_role("option").first.get_by_text("@", exact=False).inner_text().strip()
    box.press("Enter")
    assert box.input_value() == f"cc {first} "


def test_also_send_to_channel_from_the_thread(page, free):
    episode, chat = free
    parent = _post(episode, "Who takes the demo?", "random")
    page.goto(f"{chat}/c/random")
    _menu(page, parent).get_by_test_id("action-reply").click()
    page.get_by_test_id("thread-composer-text").fill("I will, Thursday.")
    page.get_by_label("Also send to #random").check()
    page.get_by_test_id("thread-send").click()
    assert page.get_by_test_id("thread-replies").filter(has_text="I will, Thursday.").count() == 1
    in_channel = page.get_by_test_id("message-list").get_by_test_id("message")
    assert in_channel.filter(has_text="I will, Thursday.").count() == 1


def test_archive_asks_for_confirmation(page, free):
    episode, chat = free
    page.goto(f"{chat}/c/security/details")
    page.get_by_test_id("archive-channel").click()
    assert page.get_by_role("heading", name="Archive #security?").is_visible()
    assert "Archive" in page.title()
    page.get_by_test_id("confirm-cancel").click()
    assert page.get_by_test_id("details-status").inner_text() == "Active"
    page.get_by_test_id("archive-channel").click()
    page.get_by_role("button", name="Archive channel").click()
    assert page.get_by_test_id("details-status").inner_text() == "Archived (read-only)"


def test_private_channels_read_as_private_and_days_are_divided(page, free):
    episode, chat = free
    with episode.session() as db:
        services.create_channel(db, episode.actor(db), "zz-plans", True)
    _post(episode, "first words", "zz-plans")
    page.goto(f"{chat}/c/zz-plans")
    assert page.get_by_role("navigation", name="Conversations").get_by_role(
        "link", name="Private channel zz-plans").count() == 1
    assert page.get_by_role("heading", level=1).get_by_role("img", name="Private channel").count() == 1
    assert page.title().startswith("#zz-plans (private channel) – Chat")
    assert page.get_by_test_id("day-divider").last.get_attribute("aria-label") == "Today"
    assert "heading 'Today'" in tree_text(page)


@pytest.mark.parametrize("scale", ["tiny", "small"])
def test_general_is_light_to_observe(page, request, scale):
    server = request.getfixturevalue("live_server" if scale == "tiny" else "small_server")
    episode = server.store.create(scale=scale, seed=0)
    try:
        page.goto(f"{server.base_url}/e/{episode.id}/chat/c/general")
        size = tree_characters(page)
        assert 0 < size < TREE_LIMIT, f"#general on {scale}: {size:,} characters"
        assert "More actions for" in tree_text(page)
    finally:
        server.store.delete(episode.id)
