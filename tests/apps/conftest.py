"""Fixtures for the browser UI tests: the Flask app over the test store and a browser on a fresh
free episode."""

from __future__ import annotations

import pytest
from ui_helpers import Browser

from officegym.apps.org.models import Person
from officegym.web import create_app


@pytest.fixture(scope="session")
def web_app(store):
    """The UI app over the test store."""
    app = create_app(store, secret_key="test-secret")
    app.testing = True
    return app


@pytest.fixture
def browser(web_app, episode) -> Browser:
    """A browser on a fresh free episode of the tiny world, acting as the owner."""
    return Browser(web_app.test_client(), episode)


@pytest.fixture
def owner(browser) -> Person:
    """The person the free episode acts as."""
    with browser.db() as db:
        return browser.episode.actor(db)
