"""A manager reads a discount request's reason by the handbook: it stands when it names a competitor
the CRM knows or the customer's budget constraint with its figure, and does not deny them; trigger
words alone ("competitor", "price", "match", "budget") never do."""

from __future__ import annotations

import pytest

from officegym.colleagues.reasons import RULE, RULE_OPENING, names_budget_figure, names_competitor, reason_stands
from officegym.judgement import WEAK_REASON

RIVALS = ["Globex Cloud", "Northwind Software", "Stark Data"]


@pytest.mark.parametrize("reason", [
    "Matching Globex Cloud's lower price to win the deal",
    "Matching globex cloud's three-year price",
    "Northwind Software quoted them 30% under us",
    "Competitive pressure from Stark Data",
    "Their budget is capped at $40,000 this year",
    "Budget frozen at 85k for the year",
    "They can spend at most 15% less than last year's contract",
    "Procurement's ceiling is $120,000 for the renewal",
])
def test_a_reason_naming_a_known_competitor_or_a_budget_figure_stands(reason):
    assert reason_stands(None, reason, RIVALS)


@pytest.mark.parametrize("reason", [
    "No competitor, no budget issue: just approve it",
    "Mismatched paperwork",
    "They think it is overpriced",
    "Matching a competitor's three-year price",
    "Customer asked for it",
    "Pricing came up, they want a better price",
    "Not because of Globex Cloud: they just want more off",
    "There is no budget cap of $40,000, they simply want more off",
    "Their budget is tight",
    "Matching Globex Clouds price",  # not a competitor the CRM knows by that name
    "Stark Database quoted lower",  # a competitor's name inside another word is not named
    WEAK_REASON,
])
def test_a_reason_without_a_known_competitor_or_a_budget_figure_is_refused(reason):
    assert not reason_stands(None, reason, RIVALS)


def test_the_competitor_and_the_budget_are_read_apart():
    assert names_competitor("Globex Cloud undercut us", RIVALS) and not names_budget_figure("Globex Cloud undercut us")
    assert names_budget_figure("Budget of 50k") and not names_competitor("Budget of 50k", RIVALS)
    assert not names_competitor("Globex Cloud is not involved", RIVALS)


def test_the_rule_opens_as_the_handbook_words_it():
    assert RULE.startswith(RULE_OPENING)
