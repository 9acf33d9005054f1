"""Decisions of the procedure library carried out through the browser alone, in real Chromium, on the
medium world: for an instance whose state says yes, read the request in the DM, find the rule in the
knowledge base, open the records the decision rests on, then make the reference's writes with the
UI's controls (a ticket resolved through its status menu with the resolution and a public comment,
messages posted with the composer) and reply; each must score 1.0. As for the refusals, the words
are the reference's own: this proves the carry-out path through the UI, not the wording."""

from __future__ import annotations

import re

import pytest

from browsing import find_article, open_conversation

pytestmark = pytest.mark.e2e

# template: (words a person would search the handbook with, the article's title)
DECISIONS = {
    "r.lib_access_requesters_word": ("access approval", "Requesting access"),
    "r.lib_access_approver_away": ("approver away", "Approvals when the approver is away"),
    "r.lib_kickoff_contacts": ("customer data", "Data sharing: salaries and customer data"),
}
LOOKED_AT = 6  # instances searched for one the state allows
UI_WRITES = {"chat_post_message", "tickets_transition_ticket"}


def _allowed_instance(store, task_id: str):
    """The first instance whose outcome is to carry the request out, with its reference's writes."""
    world = store.world("medium", 0)
    for k in range(LOOKED_AT):
        inst = store.task_instance(world, task_id, k)
        if inst.outcome.kind == "carry out":
            writes = [step for step in inst.solution if step.tool in UI_WRITES]
            assert writes and all(step.tool in UI_WRITES for step in inst.solution
                                  if not re.match(r"^\w+?_(get|list|search)", step.tool)), inst.solution
            return k, writes
    pytest.fail(f"{task_id}: no allowed instance in the first {LOOKED_AT}")


def _resolve(page, run, key: str, transition: str, resolution: str, comment: str) -> None:
    """Open the ticket from the query box, choose the transition in its status menu, fill its form."""
    page.goto(run.ui_url)
    page.get_by_test_id("app-tickets").click()
    page.get_by_label("Search tickets").fill(f"key = {key}")
    page.get_by_test_id("tickets-search-submit").click()
    page.get_by_test_id("ticket-list").get_by_role("link", name=re.compile(rf"^{key} ")).click()
    page.get_by_test_id("status-menu").click()
    page.get_by_test_id("transitions").get_by_test_id("transition").filter(
        has_text=re.compile(rf"^{re.escape(transition)} \(to ")).click()
    page.get_by_label("Resolution").select_option(resolution)
    page.get_by_label("Comment (optional, public)").fill(comment)
    page.get_by_test_id("transition-submit").click()
    assert page.get_by_test_id("field-status").inner_text() == "Resolved"


def _post(page, run, channel: str, text: str) -> None:
    open_conversation(page, run, channel)
    page.get_by_test_id("composer-text").fill(text)
    page.get_by_test_id("composer-send").click()
    page.get_by_test_id("message-text").filter(has_text=text.split(" ", 1)[1][:40]).first.wait_for()


@pytest.mark.parametrize("task_id", sorted(DECISIONS))
def test_an_allowed_decision_carried_out_through_the_ui(page, sqlite_store, medium_task_run, task_id):
    k, writes = _allowed_instance(sqlite_store, task_id)
    run = medium_task_run(task_id, k)
    reply = writes[-1]
    open_conversation(page, run, reply.args["channel"])
    assert page.get_by_test_id("message").last.inner_text().strip(), "the DM holds the request"
    find_article(page, run, *DECISIONS[task_id])
    for step in writes:
        if step.tool == "tickets_transition_ticket":
            _resolve(page, run, step.args["key"], step.args["transition"], step.args["resolution"],
                     step.args["comment"])
        else:
            _post(page, run, step.args["channel"], step.args["text"])
    result = run.grade()
    assert result["status"] == "passed" and result["success"] and result["score"] == 1.0, result["checks"]
