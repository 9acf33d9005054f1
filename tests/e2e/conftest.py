"""Browser fixtures: Debian's Chromium driven by Playwright against a live server."""

from __future__ import annotations

import httpx
import pytest


@pytest.fixture(scope="module")
def browser(chromium):
    """The module's headless Chromium (tests/conftest.py launches it)."""
    return chromium


@pytest.fixture
def page(browser):
    """A fresh browser context (no cookies) and page."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(10_000)
    yield context.new_page()
    context.close()


class TaskRun:
    """A task episode created through the control API, graded through it too."""

    def __init__(self, server, task_id: str, instance: int):
        self.server = server
        response = httpx.post(f"{server.base_url}/api/episodes", headers=server.admin,
                              json={"task": task_id, "instance": instance}, timeout=120)  # a first start state
        response.raise_for_status()
        self.info = response.json()
        self.id, self.ui_url = self.info["id"], self.info["ui_url"]

    def grade(self) -> dict:
        """The grader's verdict on the episode's current state."""
        response = httpx.post(f"{self.server.base_url}/api/episodes/{self.id}/grade", headers=self.server.admin,
                              timeout=60)
        response.raise_for_status()
        return response.json()

    def delete(self) -> None:
        """Remove the episode."""
        httpx.delete(f"{self.server.base_url}/api/episodes/{self.id}", headers=self.server.admin)


def _runs(server):
    """A factory of TaskRuns on one server, and the episodes to delete afterwards."""
    runs: list[TaskRun] = []

    def make(task_id: str, instance: int = 0) -> TaskRun:
        runs.append(TaskRun(server, task_id, instance))
        return runs[-1]
    return make, runs


@pytest.fixture
def task_run(live_server):
    """Factory: `task_run("chat.fix_typo", 0)` -> TaskRun on the tiny world, deleted after the test."""
    make, runs = _runs(live_server)
    yield make
    for run in runs:
        run.delete()


@pytest.fixture
def small_task_run(small_server):
    """Factory like `task_run`, on the small world (tasks whose split the tiny world cannot staff)."""
    make, runs = _runs(small_server)
    yield make
    for run in runs:
        run.delete()


@pytest.fixture
def medium_task_run(medium_server):
    """Factory like `task_run`, for the tasks drawn on the medium world (workflows and refusals)."""
    make, runs = _runs(medium_server)
    yield make
    for run in runs:
        run.delete()
