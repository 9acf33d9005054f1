"""Steps the browser tests share: opening a conversation and finding a handbook article."""

from __future__ import annotations


def open_conversation(page, run, channel: str) -> None:
    """Open a channel or DM of the run's episode and wait for its messages."""
    page.goto(f"{run.ui_url}chat/c/{channel}")
    page.get_by_test_id("message-list").wait_for()


def find_article(page, run, words: str, title: str) -> tuple[str, str]:
    """Search the knowledge base and open the article; its number and title as the page shows them."""
    page.goto(run.ui_url)
    page.get_by_test_id("app-tickets").click()
    page.get_by_test_id("tickets-nav-kb").click()
    page.get_by_test_id("kb-search").fill(words)
    page.get_by_test_id("kb-search-submit").click()
    page.get_by_test_id("kb-title").filter(has_text=title).first.click()
    return page.get_by_test_id("kb-number").inner_text(), page.get_by_test_id("kb-article-title").inner_text()
