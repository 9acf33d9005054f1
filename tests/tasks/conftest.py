"""Fixtures of the task and grader tests."""

from __future__ import annotations

import pytest


@pytest.fixture
def task_episode(store):
    """A factory of task episodes on the small world (seed 0), deleted after the test."""
    made = []

    def create(task_id: str, instance: int = 0):
        episode = store.create(task_id, instance, scale="small", seed=0)
        made.append(episode)
        return episode
    yield create
    for episode in made:
        store.delete(episode.id)
