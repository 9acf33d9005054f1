"""Which words make a message about deals, and what a question that names no record is about: an
asker outside Sales is declined by the message's words, whatever deal it names (or invents). Which
codes are ticket keys."""

from __future__ import annotations

import pytest

from officegym.colleagues.knowledge import KEY_PATTERN, standing_alone
from officegym.colleagues.visibility import asks_about_deals
from officegym.colleagues.wording import thing_asked


@pytest.mark.parametrize("text", [
    "What's the latest on Bryant Inc - Annual renewal?",
    "Any news on the two opportunities we talked about?",
    "How is the pipeline looking this quarter?",
    "Did the discount go through?",
    "Can you resend the quotes?",
])
def test_deal_words_make_a_message_about_deals(text):
    assert asks_about_deals(text)
    assert thing_asked(text)[0] == "deal"


@pytest.mark.parametrize("text", [
    "What's the latest on IT-42?",
    "Could you send me the slides from yesterday's all-hands?",
    "Ideally we renew the badge next week",  # a word that only starts like one
])
def test_other_messages_are_not_about_deals(text):
    assert not asks_about_deals(text)


def test_a_question_naming_no_record_is_read_for_its_thing():
    assert thing_asked("Which incident was that?")[0] == "ticket"
    assert thing_asked("Who is the new hire?")[0] == "person"
    assert thing_asked("Could you send me the slides?") is None


@pytest.mark.parametrize("text,keys", [
    ("IT-48 and HD-2.", ["IT-48", "HD-2"]),
    ("Invoice INV-2026-0166 needs a credit", []),  # an invoice number is not a ticket key
    ("see (ENG-1043), and key=IT-9?", ["ENG-1043", "IT-9"]),
    ("X-IT-4 is a part number", []),
])
def test_ticket_keys_are_read_only_where_they_stand_alone(text, keys):
    assert KEY_PATTERN.findall(text) == keys


@pytest.mark.parametrize("text,alone", [
    ("Escalate the Barron-Fleming - Brasil cases", {"Barron-Fleming - Brasil"}),
    ("Barron-Fleming, and Barron-Fleming - Brasil", {"Barron-Fleming", "Barron-Fleming - Brasil"}),
    ("Acme - Renewal is signed", {"Acme - Renewal"}),  # an account inside its deal's name names the deal
])
def test_a_name_inside_a_longer_name_is_not_named_on_its_own(text, alone):
    assert standing_alone(text, ["Barron-Fleming", "Barron-Fleming - Brasil", "Acme", "Acme - Renewal"]) == alone
