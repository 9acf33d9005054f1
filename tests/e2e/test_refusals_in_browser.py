"""Refusal tasks solved through the browser alone, in real Chromium, on the medium world: for an instance
whose state says no, read the request in the DM, find the rule in the knowledge base, turn the request down
in the DM, change nothing else; each must score 1.0. The reply is the reference's own words (they name
the rule and the facts the state holds); the browser does the reading and the posting, so this proves
the refusal path through the UI, not the wording."""

from __future__ import annotations

import pytest

from browsing import find_article, open_conversation

pytestmark = pytest.mark.e2e

# template: (words a person would search the handbook with, the article's title)
REFUSALS = {
    "r.deal_free_months_on_the_side": ("free month", "Discount and approval thresholds"),
    "r.revenue_pipeline_share": ("salaries customer data", "Data sharing: salaries and customer data"),
    "r.support_share_customer_data": ("customer data", "Data sharing: salaries and customer data"),
    "r.support_unapproved_credit": ("credit", "Refunds and credits"),
    # the library's decisions other than those test_decisions_in_browser carries out
    "r.lib_access_approval_withdrawn": ("approver away", "Approvals when the approver is away"),
    "r.lib_access_managers_own_request": ("access approval", "Requesting access"),
    "r.lib_revenue_credit_request": ("credit", "Refunds and credits"),
    "r.lib_revenue_moved_on_row": ("month-end reconciliation", "Month-end reconciliation of the sales workbooks"),
    "r.lib_revenue_vouched_amount": ("month-end reconciliation", "Month-end reconciliation of the sales workbooks"),
}
LOOKED_AT = 6  # instances searched for one the state refuses


def _refused_instance(store, task_id: str):
    """The first instance whose outcome is a refusal, with its refusal step."""
    world = store.world("medium", 0)
    for k in range(LOOKED_AT):
        inst = store.task_instance(world, task_id, k)
        if inst.outcome.kind == "refuse":
            return k, next(step for step in inst.solution if step.role == "refusal")
    pytest.fail(f"{task_id}: no refused instance in the first {LOOKED_AT}")


@pytest.mark.parametrize("task_id", sorted(REFUSALS))
def test_refusal_through_the_ui(page, sqlite_store, medium_task_run, task_id):
    k, refusal = _refused_instance(sqlite_store, task_id)
    assert refusal.tool == "chat_post_message"
    run = medium_task_run(task_id, k)
    open_conversation(page, run, refusal.args["channel"])
    request = page.get_by_test_id("message").last
    assert request.inner_text().strip(), "the DM holds the request"
    _, title = find_article(page, run, *REFUSALS[task_id])
    assert title in refusal.args["text"], "the reply names the article the knowledge base shows"
    open_conversation(page, run, refusal.args["channel"])
    page.get_by_test_id("composer-text").fill(refusal.args["text"])
    page.get_by_test_id("composer-send").click()
    page.get_by_test_id("message-list").wait_for()
    result = run.grade()
    assert result["status"] == "passed" and result["success"] and result["score"] == 1.0, result["checks"]
    # The reply is in the conversation, after the request.
    open_conversation(page, run, refusal.args["channel"])
    texts = [text.strip() for text in page.get_by_test_id("message-text").all_inner_texts()]
    assert any(refusal.args["text"].split(" ", 1)[1][:60] in text for text in texts), texts[-3:]
