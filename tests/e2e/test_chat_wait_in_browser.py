"""Waiting in real Chromium: the Wait control under a DM's composer lets simulated time pass until
the colleague's answer arrives, and the page shows it and says so."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from officegym.apps.chat import services
from officegym.apps.org.models import Person

pytestmark = pytest.mark.e2e


@pytest.fixture
def dm(live_server):
    """A free episode on the served tiny world, the owner's DM with a colleague, and its page."""
    episode = live_server.store.create(scale="tiny", seed=0)
    with episode.session() as db:
        me = episode.actor(db)
        other = db.scalars(select(Person).where(Person.id != me.id).order_by(Person.id)).first()
        name = services.open_conversation(db, me, [other.id]).name
    yield episode, other.handle, f"{live_server.base_url}/e/{episode.id}/chat/c/{name}"
    live_server.store.delete(episode.id)


def test_the_wait_control_brings_the_answer(page, dm):
    episode, handle, url = dm
    page.goto(url)
    page.get_by_test_id("composer-text").fill("Hi, got a minute?")
    page.get_by_test_id("composer-send").click()
    page.get_by_text("Hi, got a minute?").first.wait_for()
    page.get_by_test_id("wait-minutes").select_option("480")
    page.get_by_test_id("wait-button").click()
    page.get_by_text(f"1 new message: @{handle} in ", exact=False).wait_for()
    newest = page.get_by_test_id("message").last
    assert "?" in newest.inner_text() and "Hi, got a minute?" not in newest.inner_text()
