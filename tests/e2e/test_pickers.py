"""Typeahead pickers in real Chromium: typing part of a name lists people as options of an ARIA
combobox, the keyboard and a click each pick one, a pick writes the value the form's service takes,
and the form without a pick still takes the value typed by hand."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from officegym.apps.org.models import Person

pytestmark = pytest.mark.e2e


@pytest.fixture
def free_episode(live_server):
    """A free episode (anyone may be picked to act as) on the live server's tiny world."""
    episode = live_server.store.create(scale="tiny")
    yield episode, f"{live_server.base_url}/e/{episode.id}"
    live_server.store.delete(episode.id)


def _someone(episode, offset: int) -> tuple[str, str]:
    with episode.session() as db:
        person = db.scalars(select(Person).order_by(Person.id).offset(offset)).first()
        return person.name, person.handle


def test_the_keyboard_picks_a_person_and_the_form_acts_as_them(page, free_episode):
    episode, base = free_episode
    name, handle = _someone(episode, 5)
    page.goto(f"{base}/act-as")
    field = page.get_by_role("combobox", name="Person")
    field.press_sequentially(name.split()[-1][:4], delay=20)
    option = page.get_by_role("option", name=name)
    expect(option.first).to_be_visible()
    expect(field).to_have_attribute("aria-expanded", "true")
    wanted = option.first.get_attribute("id")
    for _ in range(8):  # at most eight suggestions
        field.press("ArrowDown")
        if field.get_attribute("aria-activedescendant") == wanted:
            break
    expect(option.first).to_have_attribute("aria-selected", "true")
    field.press("Enter")
    expect(field).to_have_value(handle)
    expect(field).to_have_attribute("aria-expanded", "false")
    page.get_by_test_id("act-as-submit").click()
    expect(page.get_by_test_id("acting-as")).to_contain_text(f"@{handle}")


def test_a_click_picks_and_a_value_typed_by_hand_still_works(page, free_episode):
    episode, base = free_episode
    name, handle = _someone(episode, 7)
    page.goto(f"{base}/act-as")
    field = page.get_by_role("combobox", name="Person")
    field.press_sequentially(name[:5], delay=20)
    page.get_by_role("option", name=name).first.click()
    expect(field).to_have_value(handle)
    _, other = _someone(episode, 9)
    field.fill(f"@{other}")  # typed by hand, no suggestion picked
    field.press("Escape")
    page.get_by_test_id("act-as-submit").click()
    expect(page.get_by_test_id("acting-as")).to_contain_text(f"@{other}")


def test_escape_closes_the_suggestions_and_nothing_matching_lists_nothing(page, free_episode):
    _, base = free_episode
    page.goto(f"{base}/act-as")
    field = page.get_by_role("combobox", name="Person")
    field.press_sequentially("a", delay=20)
    expect(page.get_by_role("option").first).to_be_visible()
    field.press("Escape")
    expect(page.get_by_role("option")).to_have_count(0)
    field.fill("")
    field.press_sequentially("zzqqxx", delay=20)
    expect(page.get_by_role("status").filter(has_text="No suggestions")).to_have_count(1)
    expect(page.get_by_role("option")).to_have_count(0)
