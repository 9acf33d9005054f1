"""The event templates (`e.*`, officegym.colleagues.events) beyond the soundness suite: there are
twelve or more, over three apps or more, in both splits; on an instance whose event changes the
outcome, the right write with a hollow confirmation ("ok") earns at most 0.3, and a confirmation of
the right value without the write that sets it earns nothing."""

from __future__ import annotations

import pytest

from officegym.agents import replay, run_player
from officegym.runner import AGENTS
from officegym.tasks.registry import match_tasks

EVENTFUL = match_tasks("e.*")
READS = ("list_", "get_", "read_", "search_", "wait")


def test_twelve_event_templates_over_three_apps_and_both_splits():
    apps = {app for t in EVENTFUL for app in t.apps} - {"chat"}
    assert len(EVENTFUL) >= 12 and len(apps) >= 3 and {t.split for t in EVENTFUL} == {"train", "test"}


def _play(store, template, agent):
    """The grade of instance 0 (its event changes the outcome) after `agent(episode)` played."""
    episode = store.create(template.id, 0, scale=template.scale, seed=0)
    try:
        agent(episode)
        return episode.grade()
    finally:
        store.delete(episode.id)


@pytest.mark.parametrize("template", EVENTFUL, ids=[t.id for t in EVENTFUL])
def test_the_write_with_a_hollow_confirmation_scores_little(store, template):
    result = _play(store, template, AGENTS["hollow"])
    assert result.success is False and result.score <= 0.3, result.to_dict()


@pytest.mark.parametrize("template", EVENTFUL, ids=[t.id for t in EVENTFUL])
def test_a_confirmation_without_the_write_earns_nothing(store, template):
    def claim_only(episode):  # the reads, the waits and the confirmation; no write
        steps = [s for s in episode.task.solution if s.role == "report" or s.tool.split("_", 1)[1].startswith(READS)]

        async def play(player):
            await replay(player, steps)
        run_player(episode, play)
    result = _play(store, template, claim_only)
    assert result.success is False and result.score == 0.0, result.to_dict()
