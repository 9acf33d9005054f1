"""Tickets tasks solved through the browser alone, in real Chromium, then graded: each must score
1.0. Each script reads the instruction, finds the ticket with the query box, and works it with the
ticket page's forms; it never touches the database or the MCP tools."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.e2e


def _start(page, run) -> str:
    page.goto(run.ui_url)
    return page.get_by_test_id("home-instruction").inner_text()


def _open_ticket(page, key: str) -> None:
    """From the app switcher: Tickets, a query for the key, open the result."""
    page.get_by_test_id("app-tickets").click()
    page.get_by_label("Search tickets").fill(f"key = {key}")
    page.get_by_test_id("tickets-search-submit").click()
    page.get_by_test_id("ticket-list").get_by_role("link", name=key, exact=True).click()
    assert page.get_by_test_id("ticket-key").inner_text() == key


def _assert_perfect(run) -> None:
    result = run.grade()
    assert result["status"] == "passed" and result["success"] and result["score"] == 1.0, result["checks"]


@pytest.mark.parametrize("instance", [0, 1])
def test_assign_a_new_ticket_through_the_ui(page, task_run, instance):
    run = task_run("tickets.assign_new_ticket", instance)
    key, person = re.search(r"^Assign ([A-Z]+-\d+) \(.*\) to (.+?) from the ", _start(page, run)).groups()
    name, handle = re.fullmatch(r"(.+?)(?: \((@[^)]+)\))?", person).groups()  # a handle where two share a name
    _open_ticket(page, key)
    page.get_by_label("Assignee (@handle, blank keeps, - clears)").fill(handle or name)
    page.get_by_test_id("assign-submit").click()
    assert page.get_by_test_id("field-assignee").inner_text() == name
    assert page.get_by_test_id("field-status").inner_text() == "Assigned"
    _assert_perfect(run)


def test_raise_an_incidents_impact_through_the_ui(page, task_run):
    run = task_run("tickets.raise_incident_impact", 0)
    key, impact, urgency = re.search(r"on ([A-Z]+-\d+) .*impact to (\w+) and its urgency to (\w+)\.",
                                     _start(page, run)).groups()
    _open_ticket(page, key)
    page.get_by_test_id("edit-ticket").click()
    page.get_by_label("Impact").select_option(impact)
    page.get_by_label("Urgency").select_option(urgency)
    page.get_by_test_id("ticket-submit").click()
    assert page.get_by_test_id("field-impact").inner_text() == impact
    _assert_perfect(run)


def test_resolve_with_a_reply_through_the_ui(page, task_run):
    run = task_run("tickets.resolve_with_reply", 1)
    key, resolution, reply = re.search(r'^Resolve ([A-Z]+-\d+) \(.*\) as (\w+), telling .*: "(.+)" Change nothing '
                                       r'else\.$', _start(page, run)).groups()
    _open_ticket(page, key)
    page.get_by_label("Comment", exact=True).fill(reply)
    page.get_by_test_id("comment-submit").click()
    resolve = page.locator('[data-testid="transition-form"][data-transition="Resolve"]')
    resolve.get_by_label("Resolution").select_option(resolution)
    resolve.get_by_test_id("transition").click()
    assert page.get_by_test_id("field-status").inner_text() == "Resolved"
    _assert_perfect(run)


def test_ask_the_reporter_and_wait_through_the_ui(page, task_run):
    run = task_run("tickets.ask_reporter", 0)
    instruction = _start(page, run)
    key = re.search(r"^On ([A-Z]+-\d+) ", instruction).group(1)
    question, note = re.findall(r'"([^"]+)"', instruction)[-2:]
    _open_ticket(page, key)
    page.get_by_label("Comment", exact=True).fill(question)
    page.get_by_test_id("comment-submit").click()
    page.get_by_label("Comment", exact=True).fill(note)
    page.get_by_label("Internal work note (not shown to the reporter)").check()
    page.get_by_test_id("comment-submit").click()
    page.get_by_role("button", name="Wait for customer (to Waiting on customer)").click()
    assert page.get_by_test_id("field-status").inner_text() == "Waiting on customer"
    _assert_perfect(run)


def test_record_a_blocker_with_a_comment_through_the_ui(page, task_run):
    run = task_run("tickets.record_blocker", 0)
    blocked, blocker = re.search(r'^([A-Z]+-\d+) \(".*?"\) cannot be finished before ([A-Z]+-\d+) ',
                                 _start(page, run)).groups()
    _open_ticket(page, blocked)
    page.get_by_label("Comment", exact=True).fill(f"Waiting for {blocker} to be done first.")
    page.get_by_test_id("comment-submit").click()
    page.get_by_label("This ticket").select_option("is blocked by")
    page.get_by_label("Other ticket key").fill(blocker)
    page.get_by_test_id("link-submit").click()
    assert page.get_by_test_id("links").get_by_role("link", name=blocker, exact=True).count() == 1
    _assert_perfect(run)

