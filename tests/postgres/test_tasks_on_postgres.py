"""A sample of tasks on PostgreSQL: the first instance of every template, solved by the reference
solution (score 1.0) and left alone (score 0), with the grader reading the PostgreSQL episode."""

from __future__ import annotations

import pytest

from officegym.runner import AGENTS
from officegym.tasks.registry import all_tasks

TASKS = [t.id for t in all_tasks()]


@pytest.mark.parametrize("task_id", TASKS)
def test_template_on_postgres(pg_store, task_id):
    for agent, expected in (("oracle", "passed"), ("null", "failed")):
        episode = pg_store.create(task_id, 0, scale="small", seed=0)
        try:
            assert episode.database.name.startswith("og_e_")
            AGENTS[agent](episode)
            result = episode.grade()
        finally:
            pg_store.delete(episode.id)
        assert result.status == expected, (agent, result.to_dict())
        assert result.score == (1.0 if agent == "oracle" else 0.0)
