"""Tickets tasks solved through the browser alone, in real Chromium, then graded: each must score
1.0. Each script reads the instruction, finds the ticket with the query box, and works it with the
ticket page's controls (the status menu, fields edited in place, the people and ticket pickers); it
never touches the database or the MCP tools."""

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
    page.get_by_test_id("ticket-list").get_by_role("link", name=re.compile(rf"^{key} ")).click()
    assert page.get_by_test_id("ticket-key").inner_text() == key


def _pick(page, field, typed: str, name: str, handle: str | None = None) -> None:
    """Type into a picker and choose the person named (by the handle too, where two share a name)."""
    field.fill("")
    field.press_sequentially(typed, delay=20)
    label = rf"^{re.escape(name)} {re.escape(handle)} " if handle else rf"^{re.escape(name)} @"
    page.get_by_role("option", name=re.compile(label)).first.click()


def _status(page, transition: str) -> None:
    """Open the status menu at the top of the ticket and choose a transition."""
    page.get_by_test_id("status-menu").click()
    page.get_by_test_id("transitions").get_by_test_id("transition").filter(
        has_text=re.compile(rf"^{re.escape(transition)} \(to ")).click()


def _assert_perfect(run) -> None:
    result = run.grade()
    assert result["status"] == "passed" and result["success"] and result["score"] == 1.0, result["checks"]


@pytest.mark.parametrize("instance", [0, 1])
def test_assign_a_new_ticket_through_the_ui(page, task_run, instance):
    run = task_run("tickets.assign_new_ticket", instance)
    key, person = re.search(r"^Assign ([A-Z]+-\d+) \(.*\) to (.+?) from the ", _start(page, run)).groups()
    name, handle = re.fullmatch(r"(.+?)(?: \((@[^)]+)\))?", person).groups()  # a handle where two share a name
    _open_ticket(page, key)
    page.get_by_role("link", name="Edit assignee").click()
    _pick(page, page.get_by_role("combobox", name=re.compile("^Assignee")), name.split()[-1][:5], name, handle)
    page.get_by_test_id("inline-assignee").get_by_role("button", name="Save").click()
    assert page.get_by_test_id("field-assignee").inner_text() == name
    assert page.get_by_test_id("field-status").inner_text() == "Assigned"
    _assert_perfect(run)


def test_raise_an_incidents_impact_through_the_ui(page, task_run):
    run = task_run("tickets.raise_incident_impact", 0)
    key, impact, urgency = re.search(r"on ([A-Z]+-\d+) .*impact to (\w+) and its urgency to (\w+)\.",
                                     _start(page, run)).groups()
    _open_ticket(page, key)
    page.get_by_test_id("edit-ticket").click()  # the whole edit form: impact and urgency at once
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
    _status(page, "Resolve")  # it asks for a resolution: its form opens
    page.get_by_label("Resolution").select_option(resolution)
    page.get_by_test_id("transition-submit").click()
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
    page.get_by_test_id("status-menu").click()
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
    other = page.get_by_role("combobox", name="Other ticket key")
    other.press_sequentially(blocker, delay=20)
    page.get_by_role("option", name=re.compile(rf"^{blocker} ")).click()
    page.get_by_test_id("link-submit").click()
    assert page.get_by_test_id("links").get_by_role("link", name=re.compile(rf"^{blocker} ")).count() == 1
    _assert_perfect(run)



@pytest.mark.parametrize("instance", [0, 1])
def test_plan_and_start_with_the_sprint_field_and_the_status_menu(page, small_task_run, instance):
    run = small_task_run("tickets.plan_and_start", instance)  # the tiny world cannot draw it
    key = re.search(r"^Pull ([A-Z]+-\d+) \(", _start(page, run)).group(1)
    _open_ticket(page, key)
    page.get_by_role("link", name="Edit sprint").click()
    sprint = page.get_by_test_id("inline-sprint").get_by_label("Sprint")
    active = sprint.locator("option", has_text="(active)").inner_text()
    sprint.select_option(label=active)
    page.get_by_test_id("inline-sprint").get_by_role("button", name="Save").click()
    assert page.get_by_test_id("field-sprint").inner_text() == active.removesuffix(" (active)")
    page.get_by_role("button", name="Assign to me").click()
    me = page.get_by_test_id("acting-as").get_by_role("link").inner_text()
    assert page.get_by_test_id("field-assignee").inner_text() == me
    _status(page, "Start progress")
    assert page.get_by_test_id("field-status").inner_text() == "In Progress"
    _assert_perfect(run)


def test_hand_an_incident_over_with_the_group_field_and_the_assignee_picker(page, small_task_run):
    run = small_task_run("tickets.hand_incident_over", 0)  # the tiny world cannot draw it
    key, group, person, note = re.search(r'^([A-Z]+-\d+) \(".*?"\) belongs to (.+?), not .+?\. Move it to that group, '
                                         r'assigned to (.+?), and add one work note, word for word: "(.+)" Change',
                                         _start(page, run)).groups()
    name, handle = re.fullmatch(r"(.+?)(?: \((@[^)]+)\))?", person).groups()
    _open_ticket(page, key)
    page.get_by_label("Comment", exact=True).fill(note)
    page.get_by_label("Internal work note (not shown to the reporter)").check()
    page.get_by_test_id("comment-submit").click()
    page.get_by_role("link", name="Edit assignment group").click()
    page.get_by_test_id("inline-assignment-group").get_by_label("Assignment group").select_option(group)
    page.get_by_test_id("inline-assignment-group").get_by_role("button", name="Save").click()
    assert page.get_by_test_id("field-assignment-group").inner_text() == group
    page.get_by_role("link", name="Edit assignee").click()
    _pick(page, page.get_by_role("combobox", name=re.compile("^Assignee")), name.split()[0][:5], name, handle)
    page.get_by_test_id("inline-assignee").get_by_role("button", name="Save").click()
    assert page.get_by_test_id("field-assignee").inner_text() == name
    _assert_perfect(run)
