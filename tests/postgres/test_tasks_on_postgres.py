"""A sample of tasks on PostgreSQL: the first instance of every template on its own world, solved by
the reference solution (score 1.0) and, for every other template of the small world, left alone
(score 0), with the grader reading the PostgreSQL episode. The reference calls the episode's MCP
server directly: the SDK client's checks of every result are proven on SQLite (test_soundness), and
here they would only add their cost to every template's."""

from __future__ import annotations

import pytest

from officegym.agents import oracle_agent
from officegym.runner import AGENTS
from officegym.tasks.registry import all_tasks

TEMPLATES = all_tasks()


IDLE = {t.id for t in TEMPLATES if t.scale == "small"}
IDLE = {task_id for k, task_id in enumerate(sorted(IDLE)) if k % 2 == 0}  # every other small template


@pytest.mark.parametrize("template", TEMPLATES, ids=[t.id for t in TEMPLATES])
def test_template_on_postgres(pg_store, template):
    # On its own world; doing nothing is proven on SQLite for every template, and on PostgreSQL for
    # every other small one (a medium episode costs several times a small one).
    agents = (("oracle", "passed"), ("null", "failed"))[:2 if template.id in IDLE else 1]
    task_id = template.id
    for agent, expected in agents:
        episode = pg_store.create(task_id, 0, scale=template.scale, seed=0)
        try:
            assert episode.database.name.startswith("og_e_")
            if agent == "oracle":
                oracle_agent(episode, client=False)
            else:
                AGENTS[agent](episode)
            result = episode.grade()
        finally:
            pg_store.delete(episode.id)
        assert result.status == expected, (agent, result.to_dict())
        assert result.score == (1.0 if agent == "oracle" else 0.0)
