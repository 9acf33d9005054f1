"""Soundness, proven for every chat template on several instances: the reference solution
through the in-process MCP client scores 1.0, doing nothing fails, and posting the instruction
into every channel fails."""

from __future__ import annotations

import pytest

from officegym.runner import AGENTS
from officegym.tasks.registry import all_tasks

INSTANCES = (0, 1, 2)
CASES = [(t.id, k) for t in all_tasks() for k in INSTANCES]
IDS = [f"{t}#{k}" for t, k in CASES]


def play(store, agent: str, task_id: str, instance: int):
    episode = store.create(task_id, instance, scale="small", seed=0)
    try:
        AGENTS[agent](episode)
        return episode.grade()
    finally:
        store.delete(episode.id)


@pytest.mark.parametrize("task_id,instance", CASES, ids=IDS)
def test_reference_solution_scores_one(store, task_id, instance):
    result = play(store, "oracle", task_id, instance)
    assert result.status == "passed", result.to_dict()
    assert result.success is True and result.score == 1.0


@pytest.mark.parametrize("task_id,instance", CASES, ids=IDS)
def test_doing_nothing_fails(store, task_id, instance):
    result = play(store, "null", task_id, instance)
    assert result.status == "failed", result.to_dict()
    assert result.success is False and result.score < 1.0


@pytest.mark.parametrize("task_id,instance", CASES, ids=IDS)
def test_posting_the_instruction_everywhere_fails(store, task_id, instance):
    result = play(store, "spam", task_id, instance)
    assert result.status == "failed", result.to_dict()
    assert result.success is False
    # The spam really changed the world, and the "nothing else changed" check saw it.
    assert not all(c.passed for c in result.checks if c.requirement.startswith("Nothing else"))
