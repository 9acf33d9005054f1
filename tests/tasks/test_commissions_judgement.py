"""What an honest manager writes on the commissions templates is graded as the work it reports: a rejected
row's Note passes when it says why in its own words (the deal reopened, closed in another quarter, another
rep's deal), and the word to Sales Operations when it names the deals corrected and rejected and the approved
total however it is written; "ok", a denial or the total as listed fail."""

from __future__ import annotations

from datetime import date

import pytest

from officegym.apps.org.models import Person
from officegym.graders.replies import denials
from officegym.graders.statements import says
from officegym.tasks.procedures.commissions import CommissionRow, note_checks
from officegym.tasks.procedures.commissions_draws import REOPENED, day_spellings, quarter, quarter_report

REOPENED_ROW = CommissionRow(1, "Lee Group - Renewal", "Ann Ray", "Renewal", 5000, 4, "Renewal", 5000, 4, "Rejected",
                             REOPENED)
EARLIER_ROW = CommissionRow(2, "Kim LLC - Expansion", "Ann Ray", "Upsell", 8000, 7, "Upsell", 8000, 7, "Rejected",
                            ("another quarter", "quarter", "Q3", *day_spellings(date(2025, 9, 12))))
TEAMMATE_ROW = CommissionRow(3, "Fox Inc - Platform", "Ann Ray", "New Business", 9000, 10, "New Business", 9000, 10,
                             "Rejected", ("Bo Diaz", "@bo.diaz", "bo.diaz", "owner", "another rep", "someone else"))
FIXED = CommissionRow(4, "Gray Co - Seats", "Ann Ray", "Upsell", 10_500, 6, "Upsell", 10_000, 7, "Approved")
KEPT = CommissionRow(5, "Hale Ltd - Suite", "Bo Diaz", "New Business", 20_000, 10, "New Business", 20_000, 10,
                     "Approved")


def _note_passes(row: CommissionRow, note: str) -> bool:
    return all(r.passed for r in note_checks(row, note))


@pytest.mark.parametrize("row, note", [
    (REOPENED_ROW, "Deal is back in Negotiation in the CRM, not payable"),
    (REOPENED_ROW, "Reopened on the 15th; no longer Closed Won"),
    (EARLIER_ROW, "Closed won 2025-09-12 (Q3), outside this workbook's quarter"),
    (EARLIER_ROW, "Close date Sep 12 is in the previous quarter"),
    (TEAMMATE_ROW, "This is Bo Diaz's deal in the CRM, not Ann's"),
    (TEAMMATE_ROW, "CRM owner is @bo.diaz"),
])
def test_an_honest_note_passes(row, note):
    assert _note_passes(row, note)


@pytest.mark.parametrize("row", [REOPENED_ROW, EARLIER_ROW, TEAMMATE_ROW])
def test_an_empty_note_fails(row):
    assert not _note_passes(row, "ok")
    assert not _note_passes(row, "Rejected")


def test_quarter_boundaries():
    assert quarter(date(2026, 3, 16)) == (date(2025, 10, 1), date(2025, 12, 31), "Q4 2025")
    assert quarter(date(2026, 1, 1))[2] == "Q4 2025" and quarter(date(2025, 12, 31))[2] == "Q3 2025"


def _report_passes(text: str) -> bool:
    ops, actor = Person(id=9, name="Sam Ops", handle="sam.ops"), Person(id=8, name="Max Lead", handle="max.lead")
    reply = quarter_report(ops, actor, "Commissions Q4 2025", [REOPENED_ROW, EARLIER_ROW, TEAMMATE_ROW, FIXED, KEPT])
    return all(all(r.passed for r in says([text], f.right, f.others, "states it", f.kind)) for f in reply.facts)


def test_the_report_is_graded_by_what_it_names():
    total = "$2,700"  # 10,000 x 7% + 20,000 x 10%
    honest = (f"All done. I fixed Gray Co - Seats (amount and rate from the CRM) and rejected Lee Group - Renewal, "
              f"Kim LLC - Expansion and Fox Inc - Platform. Approved commission comes to {total}.")
    assert _report_passes(honest)
    assert _report_passes(honest.replace(total, "$2,700.00"))
    assert not _report_passes(honest.replace(total, "$2,630"))  # the total as listed
    assert not _report_passes("ok")


def test_the_report_may_say_why_a_row_was_rejected():
    """A player's report: its list of rejected rows says what the deal is not ("not Closed Won"), which
    denies none of the work; saying the approved rows were not approved still does."""
    ops, actor = Person(id=9, name="Sam Ops", handle="sam.ops"), Person(id=8, name="Max Lead", handle="max.lead")
    reply = quarter_report(ops, actor, "Commissions Q4 2025", [REOPENED_ROW, EARLIER_ROW, TEAMMATE_ROW, FIXED, KEPT])
    honest = ("Hi Sam, I checked my reports' rows.\n\nCorrected:\n- Gray Co - Seats: amount $10,000 and rate 7% from "
              "the CRM\n\nRejected:\n- Lee Group - Renewal: the deal is in Negotiation in the CRM (reopened), not Closed "
              "Won\n- Kim LLC - Expansion: closed won in Q3, not Q4\n- Fox Inc - Platform: Bo Diaz owns it\n\nApproved "
              "rows come to $2,700.")
    assert not denials(honest, reply.asides, reply.carried)
    assert denials(honest + "\nGray Co - Seats was not approved.", reply.asides, reply.carried)
