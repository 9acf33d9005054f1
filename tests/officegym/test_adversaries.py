"""The adversarial agents' building blocks: texts that list every candidate or deny the claim (and
that the statement checks catch), and arguments rewritten to name a look-alike record."""

from __future__ import annotations

from officegym.adversaries import contains, listing, negated_text, shotgun_text, substitute
from officegym.graders.statements import Candidate, says
from officegym.tasks.base import Claim

CLAIM = Claim(Candidate.text("IT-48"), [Candidate.text(f"IT-{n}") for n in range(40, 48)], "text", "ticket")


def test_a_shotgun_text_keeps_the_message_and_lists_every_candidate():
    text = shotgun_text("IT-48 is resolved.", CLAIM)
    assert text.startswith("IT-48 is resolved.") and all(c.label in text for c in CLAIM.others)
    assert listing(CLAIM).count("IT-48") == 1
    answer = Claim(Candidate.text("7"), [Candidate.text("6"), Candidate.text("8")], "answer")
    assert shotgun_text("7", answer) == "6; 7; 8"
    requirement, no_extra = says([text], CLAIM.right, CLAIM.others, "says it", "ticket")
    assert requirement.passed and not no_extra.passed


def test_a_negated_text_denies_the_claim_and_the_check_sees_it():
    for text in ("IT-48 is resolved.", "Thanks all, IT-48 has been fixed", "Resolved: IT-48"):
        denied = negated_text(text, CLAIM)
        assert "not" in denied
        requirement, no_denial = says([denied], CLAIM.right, [], "says it", "ticket")
        assert not requirement.passed and not no_denial.passed, denied
    assert negated_text("7", Claim(Candidate.text("7"), [], "answer")) == "not 7"


def test_arguments_name_a_look_alike_by_value_and_type():
    args = {"key": "IT-48", "cells": [{"cell": "Budget!F3", "value": 3}], "people": ["@ada", "@bob"], "id": 3}
    assert contains(args, "Budget!F3") and contains(args, "@bob") and contains(args, 3)
    assert not contains(args, "3") and not contains(args, "IT-4") and not contains({"quantity": 3}, 3)
    swapped = substitute(args, "Budget!F3", "Budget!F4")
    assert swapped["cells"] == [{"cell": "Budget!F4", "value": 3}] and swapped["key"] == "IT-48"
    assert substitute(args, "@bob", "@eve")["people"] == ["@ada", "@eve"]
    assert substitute(args, 3, 4)["id"] == 4 and substitute(args, 3, 4)["cells"][0]["value"] == 3  # a quantity
