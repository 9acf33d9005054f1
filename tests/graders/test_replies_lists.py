"""Replies honest players wrote on the manager's and IT agent's day: a report that lists the approved
customers under one heading and the rejected ones under another states only the approved ones; a
person named as an earlier one ("your manager before the move") is not stated in place of the one
whose word counts; a competitor the CRM does not know is stated by saying so. A list of every
candidate under the approving heading, or the right one only under the rejecting heading, still fails."""

from __future__ import annotations

from officegym.graders.statements import Candidate, says

APPROVED, REJECTED = ["Garcia-White", "Smith, Odonnell and Weiss - EMEA"], ["James-Williams - UK", "Yoder LLC",
                                                                             "Keller-Harrington"]
REPORT = ("Hi William, my discount queue is cleared. I decided all five pending requests against Discount and "
          "approval thresholds (KB0010006).\n\nApproved (2):\n- Smith, Odonnell and Weiss - EMEA (32%): the reason "
          "names FlowPilot, a competitor known in the CRM.\n- Garcia-White (Premium Support, 28%): budget capped at "
          "$80,000 this year.\n\nRejected under rule 6 (3), because the reason names neither a competitor the CRM "
          "knows nor a budget figure:\n- James-Williams - UK (35%): \"No competitor involved\"\n- Yoder LLC (32%): "
          "Paylyte isn't in any deal's Competitor field.\n- Keller-Harrington (35%): no figure.")
MOVER = ("Hi @lisa.barrera, I can't grant IT-752 or IT-753 yet. The \"Approved\" on both comes from Rebecca Wagner, "
         "your manager before the move, and since you joined Integrations Core your manager in the directory is Alan "
         "Hernandez. The requests wait for Alan: once he comments \"Approved\" on each one, I'll grant them.")
UNKNOWN = ("Hi Katherine, I couldn't approve the 32% request on Diaz Hall & Williams, so I've rejected it (KB0010006, "
           "rule 6). Northwind Cloud isn't a competitor anywhere in the CRM.")


def _passed(texts, right, others, kind="customer whose discount was approved"):
    results = says(texts, Candidate.text(right), [Candidate.text(o) for o in others], "states it", kind)
    return [r.passed for r in results]


def test_a_list_under_a_rejecting_heading_is_not_stated_as_approved():
    for right in APPROVED:
        assert _passed([REPORT], right, REJECTED) == [True, True]


def test_every_customer_under_the_approving_heading_still_fails():
    shotgun = REPORT.replace("\n\nRejected under rule 6 (3), because the reason names neither a competitor the CRM "
                             "knows nor a budget figure:", "")
    assert _passed([shotgun], APPROVED[0], REJECTED) == [True, False]


def test_the_lists_swapped_fail():
    swapped = REPORT.replace("Approved (2):", "Rejected (2):").replace("Rejected under rule 6 (3)", "Approved (3)")
    assert _passed([swapped], APPROVED[0], REJECTED)[1] is False


def test_a_fact_under_a_status_heading_is_still_stated():
    held = "On hold: $640 of the budget is left.\nLeft open: PUR-12, $640 left."
    assert _passed([held], "$640", ["$900"], "budget left") == [True, True]


def test_a_heading_that_approves_reads_nothing_as_declined():
    plain = "Approved: Garcia-White, Yoder LLC."
    assert _passed([plain], "Garcia-White", ["Yoder LLC"]) == [True, False]


def test_an_earlier_manager_named_as_such_is_not_stated_in_place_of_the_new_one():
    assert _passed([MOVER], "Alan Hernandez", ["Rebecca Wagner"], "approver whose approval counts") == [True, True]
    wrong = "The requests wait for Rebecca Wagner, your manager, to comment Approved."
    assert _passed([wrong], "Alan Hernandez", ["Rebecca Wagner"], "approver whose approval counts") == [False, False]


def test_a_competitor_the_crm_does_not_know_is_stated_by_saying_so():
    assert _passed([UNKNOWN], "Northwind Cloud", [], "competitor the CRM does not know") == [True, True]
