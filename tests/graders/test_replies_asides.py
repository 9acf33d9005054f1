"""A report may say what it did not do about whom the work rightly did not go to: a denial in a
clause that names one of the asides and none of the rights explains the choice; any other denial
still denies the work."""

from __future__ import annotations

import pytest

from officegym.graders.replies import denials, report_reply

ASIDES = ("Wendy Stark", "Wendy", "@wendy.stark")
RIGHTS = ("Rebecca Wagner", "Rebecca", "@rebecca.wagner", "rebecca.wagner")


@pytest.mark.parametrize("text", [
    "I couldn't hand over to Wendy: she isn't in Platform On-Call, so I handed IT-4 to @rebecca.wagner.",
    "Get well soon. Wendy Stark can't take it (not in the group); Rebecca Wagner has IT-4 now.",
])
def test_a_denial_about_an_aside_only_denies_nothing(text):
    assert denials(text, ASIDES, RIGHTS) == []
    assert report_reply([text], "reported", ("handed",), 1.0, ASIDES, RIGHTS)[1].passed


@pytest.mark.parametrize("text", [
    "I couldn't hand over to Wendy or to @rebecca.wagner.",  # names the right one too
    "I couldn't hand over IT-4 to anyone.",  # names no aside
    "Wendy is away. I couldn't hand over to Rebecca either.",  # its own clause names the right one
])
def test_any_other_denial_still_denies_the_work(text):
    assert denials(text, ASIDES, RIGHTS)
    assert not report_reply([text], "reported", ("handed",), 1.0, ASIDES, RIGHTS)[1].passed


def test_without_asides_every_denial_counts():
    assert denials("I couldn't hand over to Wendy: she isn't in the group.")
