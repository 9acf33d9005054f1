"""Chat tasks solved through the browser alone, in real Chromium, then graded: each must score 1.0.

Each script reads the instruction on the episode's home page, navigates by clicking (app tile,
sidebar, each message's "More actions" menu) and never touches the database or the MCP tools.
"""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.e2e


def _start(page, run) -> str:
    """Open the episode's home page and return the instruction it shows."""
    page.goto(run.ui_url)
    return page.get_by_test_id("home-instruction").inner_text()


def _display_name(named: str) -> str:
    """The display name of a person an instruction names ("Rachel Sutton (@rsutton)": Rachel Sutton)."""
    return re.sub(r" \(@[^)]+\)$", "", named)


def _open_channel(page, name: str) -> None:
    """Open a channel from the sidebar or, when the actor is not in it, from Browse channels."""
    page.get_by_test_id("app-chat").click()
    link = page.locator(f'[data-testid="sidebar-link"][data-channel="{name}"]')
    if link.count():
        link.click()
    else:
        page.get_by_test_id("sidebar-browse").click()
        page.locator(f'[data-testid="channel-row"][data-channel="{name}"]').get_by_role("link").first.click()
    page.get_by_test_id("message-list").wait_for()


def _message(page, *texts: str):
    """The newest message row in view whose text contains every one of `texts`."""
    rows = page.get_by_test_id("message")
    for text in texts:
        rows = rows.filter(has_text=text)
    return rows.last


def _message_by(page, author: str, text: str):
    """The newest message row by `author` (display name) whose text contains `text`."""
    by_author = page.get_by_test_id("message-author").filter(has_text=author)
    return page.get_by_test_id("message").filter(has=by_author).filter(has_text=text).last


def _act(row, action: str) -> None:
    """Open a message's "More actions" menu and take one of its actions (by test id)."""
    row.get_by_test_id("message-menu-button").click()
    row.get_by_test_id(action).click()


def _assert_perfect(run) -> None:
    result = run.grade()
    assert result["status"] == "passed" and result["success"] and result["score"] == 1.0, result["checks"]


@pytest.mark.parametrize("instance", [0, 1])
def test_fix_typo_through_the_ui(page, task_run, instance):
    run = task_run("chat.fix_typo", instance)
    instruction = _start(page, run)
    channel, right, wrong = re.search(r'in #(\S+) misspells "(.+?)" as "(.+?)"', instruction).groups()
    _open_channel(page, channel)
    row = _message(page, wrong)
    old_text = row.get_by_test_id("message-text").inner_text()
    _act(row, "action-edit")
    page.get_by_label("Message text").fill(old_text.replace(wrong, right))
    page.get_by_test_id("edit-save").click()
    assert page.get_by_test_id("message").filter(has_text=old_text.replace(wrong, right)).count() >= 1
    _assert_perfect(run)


def test_pin_shared_link_through_the_ui(page, task_run):
    run = task_run("chat.pin_shared_link", 2)
    instruction = _start(page, run)
    channel, sharer, doc = re.search(r"in #(\S+) where (.+?) shared the link to the (.+?), and change nothing",
                                     instruction).groups()
    _open_channel(page, channel)
    row = _message_by(page, _display_name(sharer), f"the {doc}:")
    _act(row, "action-pin")
    assert _message(page, f"the {doc}:").get_by_test_id("message-pinned").is_visible()
    _assert_perfect(run)


def test_acknowledge_request_through_the_ui(page, task_run):
    run = task_run("chat.acknowledge_request", 1)
    instruction = _start(page, run)
    asker, channel, doc = re.search(r"^(.+?) asked you in #(\S+) to review the (.+?)\.", instruction).groups()
    asker = _display_name(asker)
    _open_channel(page, channel)
    row = _message_by(page, asker, f"review the {doc}")
    day = re.search(r"\bby (\w+)\?", row.get_by_test_id("message-text").inner_text()).group(1)
    _act(row, "action-react")  # the emoji picker inside the menu
    row.get_by_role("button", name="React with check mark").click()
    assert page.locator('[data-testid="reaction"][data-emoji="white_check_mark"]').count() >= 1
    _act(_message_by(page, asker, f"review the {doc}"), "action-reply")
    page.get_by_test_id("thread-composer-text").fill(f"Sure, I'll have it reviewed by {day}.")
    page.get_by_test_id("thread-send").click()
    assert page.get_by_test_id("thread-replies").filter(has_text=f"reviewed by {day}").count() == 1
    _assert_perfect(run)


def test_count_reactions_and_submit_the_answer_through_the_ui(page, task_run):
    run = task_run("chat.count_reactions", 3)
    instruction = _start(page, run)
    ceo = _display_name(re.search(r"reacted to (.+?)'s announcement", instruction).group(1))
    _open_channel(page, "general")
    announcements = page.get_by_test_id("message").filter(
        has=page.get_by_test_id("message-author").filter(has_text=ceo)).filter(has=page.get_by_test_id("reactions"))
    # The instruction paraphrases the announcement; the script reads both candidates and picks by
    # the paraphrase's key words, as a person would.
    words = re.search(r"saying that (.+?)\? Submit", instruction).group(1).split()
    best = max(range(announcements.count()), key=lambda i: sum(
        w.lower() in announcements.nth(i).inner_text().lower() for w in words if len(w) > 3))
    chips = announcements.nth(best).get_by_test_id("reaction")
    people = set()
    for i in range(chips.count()):
        title = chips.nth(i).get_attribute("title").removeprefix("Reacted by ")
        people |= {p.strip() for p in title.split(",")}
    page.goto(run.ui_url)
    page.get_by_label("Answer", exact=True).fill(str(len(people)))
    page.get_by_test_id("answer-submit").click()
    assert page.get_by_test_id("last-answer").inner_text().endswith(f"{len(people)}")
    _assert_perfect(run)


def _search(page, query: str, author: str) -> None:
    """Run the chat search for `query` among the messages of `author` (display name)."""
    page.get_by_test_id("nav-chat").click()
    page.get_by_test_id("sidebar-search").click()
    page.get_by_test_id("search-q").fill(query)
    page.get_by_test_id("search-author").fill(author)
    page.get_by_test_id("search-submit").click()
    page.get_by_test_id("search-count").wait_for()  # the results have loaded


def test_clean_leaked_password_through_the_ui(page, task_run):
    run = task_run("chat.clean_leaked_password", 0)
    instruction = _start(page, run)
    system = re.search(r"you pasted the (.+?) password into chat", instruction).group(1)
    me = page.get_by_test_id("acting-as").get_by_role("link").inner_text()
    _search(page, f"{system} password", me)
    leak = _message(page, "password is").get_by_test_id("message-text").inner_text()
    secret = re.search(r"password is (\S+)", leak).group(1)
    _search(page, secret, me)
    while page.get_by_test_id("search-results").get_by_test_id("message").count():
        _act(page.get_by_test_id("search-results").get_by_test_id("message").first, "action-delete")
        assert page.get_by_role("heading", name="Delete this message?").is_visible()
        page.get_by_test_id("confirm-delete-submit").click()  # deleting takes the confirmation step
        page.get_by_test_id("flash-info").filter(has_text="Message deleted.").wait_for()
        _search(page, secret, me)
    page.goto(run.ui_url)
    _open_channel(page, "security")
    if page.get_by_test_id("join-channel").count():
        page.get_by_test_id("join-channel").click()
    page.get_by_test_id("composer-text").fill(f"I leaked the {system} password in chat; please rotate it.")
    page.get_by_test_id("composer-send").click()
    assert _message(page, f"the {system} password").count() == 1
    _assert_perfect(run)


FACT_QUESTIONS = {"timezone": r"what time zone is (.+?) in\?", "manager": r"who does (.+?) report to\?",
                  "title": r"what is (.+?)'s job title\?", "location": r"which office is (.+?) based in\?"}
FACT_FIELDS = {"timezone": "profile-timezone", "manager": "profile-manager", "title": "profile-title",
               "location": "profile-location"}


@pytest.mark.parametrize("instance", [0, 1])
def test_reply_with_fact_through_the_actions_menu(page, task_run, instance):
    run = task_run("chat.reply_with_fact", instance)
    instruction = _start(page, run)
    asker, channel = re.search(r"^(.+?) asked you something in #(\S+) and mentioned you", instruction).groups()
    me = page.get_by_test_id("acting-as").get_by_role("link").get_attribute("href").rsplit("/", 1)[1]
    _open_channel(page, channel)
    question = _message_by(page, _display_name(asker), f"@{me}")
    text = question.get_by_test_id("message-text").inner_text()
    kind, subject = next((kind, found.group(1)) for kind, pattern in FACT_QUESTIONS.items()
                         if (found := re.search(pattern, text)))
    # Look the fact up in the directory, as a person would.
    page.get_by_test_id("nav-org").click()
    page.get_by_label("Search people").fill(re.sub(r" \(@([^)]+)\)$", "", subject))
    page.get_by_test_id("people-search-submit").click()
    handle = re.search(r"\(@([^)]+)\)$", subject)
    rows = page.get_by_test_id("people-table").get_by_role("link", name=_display_name(subject), exact=True)
    (page.locator(f'[data-testid="person-{handle.group(1)}"]').get_by_role("link").first if handle
     else rows.first).click()
    fact = page.get_by_test_id(FACT_FIELDS[kind]).inner_text().strip()
    # Back in the channel: the question's menu opens its thread, and the reply goes there.
    page.goto(run.ui_url)
    _open_channel(page, channel)
    question = _message_by(page, _display_name(asker), f"@{me}")
    _act(question, "action-reply")
    page.get_by_test_id("thread-composer-text").fill(f"It's {fact}.")
    page.get_by_test_id("thread-send").click()
    assert page.get_by_test_id("thread-replies").filter(has_text=f"It's {fact}.").count() == 1
    _assert_perfect(run)
