"""What a text states, and the strict answer checks: shotgun lists, negations, look-alike names,
amounts written in any form, hedged or doubled answers."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from officegym.graders.answers import answer_is_number, answer_is_one_of, parse_number
from officegym.graders.scoring import score_checks
from officegym.graders.checks import check, guard
from officegym.graders.statements import Candidate, amounts_written, says, stated

LONDON, LISBON = Candidate.text("Europe/London"), Candidate.text("Europe/Lisbon")
ACME, ACME_LABS = Candidate.text("Acme"), Candidate.text("Acme Labs")
ADA = Candidate.person(SimpleNamespace(name="Ada Lovelace", handle="ada.lovelace", email="ada@example.com"))
ADA2 = Candidate.person(SimpleNamespace(name="Ada Byron", handle="ada.byron", email="ada.byron@example.com"))


def verdict(texts, right, others):
    requirement, no_extra = says(texts, right, others, "states it", "value")
    return requirement.passed, no_extra.passed


@pytest.mark.parametrize("text, expected", [
    ("It's Europe/London.", (True, True)),
    ("Europe/London (UTC+0), I checked the directory", (True, True)),
    ("It's Europe/London, or maybe Europe/Lisbon", (True, False)),           # shotgun
    ("Europe/London; Europe/Lisbon; Asia/Tokyo", (True, False)),
    ("It's not Europe/London.", (False, False)),                             # denied
    ("It isn't Europe/London", (False, False)),
    ("Might be Europe/London, but I wouldn't bet on it", (False, False)),    # hedged
    ("Europe/London? not sure", (False, False)),                              # only asked
    ("Is it Europe/London? Yes, it's Europe/London.", (True, True)),
    ("It's n\u200bot Europe/London.", (False, False)),                        # an invisible character
    ("No idea, sorry", (False, True)),
    ("europe/london", (True, True)),                                         # case folded
    ("It's Europe/London - can't miss it!", (True, True)),                   # a negation of something else
    ("It's Europe/London and I don't think that changed recently", (True, True)),
])
def test_says_a_value_and_nothing_else(text, expected):
    assert verdict([text], LONDON, [LISBON]) == expected


def test_overlapping_names_resolve_to_the_longest():
    assert stated("Acme Labs owns it", [ACME, ACME_LABS]) == {1: [(0, 9)]}
    assert verdict(["Acme Labs, owned by Ada"], ACME_LABS, [ACME]) == (True, True)
    assert verdict(["Acme, owned by Ada"], ACME_LABS, [ACME]) == (False, False)


def test_people_are_stated_by_name_handle_or_email_as_whole_words():
    assert verdict(["@ada.lovelace can help"], ADA, [ADA2]) == (True, True)
    assert verdict(["@ada.lovelace could you take this one?"], ADA, [ADA2]) == (True, True)  # asks Ada
    assert verdict(["Could Ada Lovelace take this one?"], ADA, [ADA2]) == (True, True)  # names Ada too
    assert verdict(["Is it Ada Lovelace?"], ADA, [ADA2]) == (False, False)  # only asks
    assert verdict(["ask ada@example.com"], ADA, [ADA2]) == (True, True)
    assert verdict(["ask @ada.lovelace and @ada.byron"], ADA, [ADA2]) == (True, False)
    assert stated("@ada.lovelacey", [ADA]) == {}  # another handle, not Ada's


def test_amounts_are_read_however_they_are_written():
    deal, other = Candidate.money(12_000_000), Candidate.money(9_000_000)
    for text in ("Acme, $120,000", "Acme at 120000", "Acme: $120k", "Acme $120,000.00"):
        assert verdict([text], deal, [other]) == (True, True), text
    assert verdict(["Acme $120,000; Beta $90,000"], deal, [other]) == (True, False)
    assert [cents for _, _, cents in amounts_written("on 2026-03-31 at 09:30, IT-12, 12 people")] == []


def test_a_value_that_only_names_the_subject_is_not_denied_by_the_clause_around_it():
    vpn = Candidate.text("VPN")
    text = "the VPN password isn't safe anymore, please rotate it"
    assert [c.passed for c in says([text], vpn, [Candidate.text("Jenkins")], "names it", "system")] == [False, False]
    assert [c.passed for c in says([text], vpn, [Candidate.text("Jenkins")], "names it", "system",
                                   deniable=False)] == [True, True]


def test_the_rule_a_refusal_cites_is_named_not_asserted():
    rule, other = Candidate.text("Data sharing", "KB0010007"), Candidate.text("Requesting access", "KB0010004")
    for text in ("That isn't allowed under KB0010007.", "I can't share it: Data sharing forbids it.",
                 "No, the Data sharing policy doesn't let me."):
        assert [c.passed for c in says([text], rule, [other], "cites it", "handbook rule")] == [True, True], text
    both = "Not allowed by KB0010007 nor KB0010004."
    assert [c.passed for c in says([both], rule, [other], "cites it", "handbook rule")] == [True, False]


@pytest.mark.parametrize("text, value, expected", [
    ("Not a problem: IT-48 is resolved.", "IT-48", True),
    ("Resolved with no data loss: IT-48", "IT-48", True),
    ("IT-48 has been resolved and isn't affecting customers anymore.", "resolved", True),
    ("Thanks! Filed as IT-48 so you don't need to open another ticket.", "IT-48", True),
    ("This cannot be finished before ENG-37 is done.", "ENG-37", True),
    ("Could someone please rotate the Grafana password?", "rotate", True),
    ("Thank you for announcing the hackathon - can't wait!", "thank you", True),
    ("IT-48 is not resolved", "IT-48", False),
    ("IT-48 is NOT resolved yet", "resolved", False),
    ("IT-48 is far from resolved", "resolved", False),
    ("There is no need to rotate it", "rotate", False),
    ("Update on IT-48: resolved? not sure yet", "resolved", False),
    ("It is not true that the refund of $900 on the duplicate invoice was asked for.", "$900", False),
    ("It isn't the case that the customer asked for $900 back.", "$900", False),
    ("Not that it matters much, but the refund is $900.", "$900", True),
    ("Don't forget that the refund is $900.", "$900", True),
    ("The refund is $900. It is not true that it was approved.", "$900", True),
])
def test_only_a_negation_that_governs_the_value_denies_it(text, value, expected):
    assert verdict([text], Candidate.text(value), []) == (expected, expected)


@pytest.mark.parametrize("answer, value", [
    ("7", 7), ("There were 7 people.", 7), ("1,250", 1250), ("$1,234.50", 1234.5), ("USD 1,234.50", 1234.5),
    ("120k", 120_000), ("$1.2M", 1_200_000), ("-3", -3),
    ("7 or 8", None), ("not 7", None), ("about 7", None), ("at least 7", None), ("7%", None), ("", None),
    ("7; 8; 9", None), ("It isn't 7", None),
])
def test_a_number_answer_is_one_plain_number(answer, value):
    assert parse_number(answer) == value


def test_answer_checks():
    assert answer_is_number("1,250", 1250).passed and not answer_is_number(None, 7).passed
    assert answer_is_number("12.5%", 12.5, percent=True).passed and not answer_is_number("12.5", 12.5, percent=True).passed
    assert answer_is_one_of("  ada LOVELACE. ", ["Ada Lovelace", "ada.lovelace"], "Ada").passed
    assert answer_is_one_of("@ada.lovelace", ["Ada Lovelace", "ada.lovelace"], "Ada").passed
    assert not answer_is_one_of("Ada", ["Ada Lovelace"], "Ada").passed
    assert not answer_is_one_of("Ada Lovelace; Ada Byron", ["Ada Lovelace"], "Ada").passed


def test_a_failed_guard_zeroes_the_score_and_guards_earn_nothing():
    work = [check("did the work", True, weight=2), check("said it", False)]
    assert score_checks(work + [guard("nothing else", True)]) == (False, round(2 / 3, 6))
    assert score_checks(work + [guard("nothing else", False)]) == (False, 0.0)
    assert score_checks([check("did the work", True), guard("nothing else", True)]) == (True, 1.0)
    assert score_checks([check("did nothing", False), guard("nothing else", True)]) == (False, 0.0)


def test_a_pattern_stands_for_a_pool_too_large_to_list():
    right, others = Candidate.text("IT-48"), [Candidate.pattern_of("another IT key", r"it-\d+")]
    assert verdict(["Filed as IT-48."], right, others) == (True, True)
    assert verdict(["Filed as IT-48 (see also IT-12)"], right, others) == (True, False)
    assert verdict(["Filed as IT-480"], right, others) == (False, False)  # a longer key is another one


@pytest.mark.parametrize("text, expected", [
    ("Shared with Acme Labs; Globex was left out at its owner's request.", (True, True)),
    ("Acme Labs only, without Globex or Initech.", (True, True)),
    ("Acme Labs, Globex (left out at its owner's request)", (True, True)),
    ("Acme Labs, other than Globex, which is not included", (True, True)),
    ("Acme Labs and Globex", (True, False)),                       # both stated
    ("Acme Labs; Globex; Initech (excluded)", (True, False)),      # Globex is still listed
    ("Globex is included too, Acme Labs as well", (True, False)),
])
def test_a_name_stated_to_be_left_out_is_not_stated(text, expected):
    right, others = Candidate.text("Acme Labs"), [Candidate.text("Globex"), Candidate.text("Initech")]
    assert verdict([text], right, others) == expected
