"""What a word on a purchase request over its team's budget is graded on: the budget left. A comment or reply
may also give the request's amount, the budget and the quarter's spend; the budget left worked out from last
quarter's tab or with last quarter's rows added, a denial or an empty word fail."""

from __future__ import annotations

import pytest

from officegym.graders.statements import Candidate, says

LEFT, FROM_LAST_TAB, WITH_LAST_ROWS = 640, 3_640, 180
RIGHT = Candidate.money(LEFT * 100)
POOL = [Candidate.money(FROM_LAST_TAB * 100), Candidate.money(WITH_LAST_ROWS * 100)]


def _passed(text: str) -> bool:
    return all(r.passed for r in says([text], RIGHT, POOL, "states the budget left", "budget left", weight=1))


@pytest.mark.parametrize("text", [
    "Not bought yet: with the Web team's purchases of Q1 2026 so far this would take the team over its budget for "
    "the quarter. $640 of the budget is left.",
    "Not bought yet: this $1,850 request exceeds the $640 remaining in Web's Q1 2026 budget.",
    "Over budget: $11,360 already spent of $12,000, so only $640 remains; the request for $1,850 would exceed it.",
])
def test_the_budget_left_beside_other_figures_passes(text):
    assert _passed(text)


@pytest.mark.parametrize("text", [
    "Not bought yet: it would take the team over its budget; $3,640 is left.",  # last quarter's tab
    "Not bought yet: only $180 of the budget is left.",  # last quarter's rows counted
    "Not bought yet: it is not true that $640 is left.",
    "ok",
])
def test_a_wrong_figure_a_denial_or_nothing_fails(text):
    assert not _passed(text)
