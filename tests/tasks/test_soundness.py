"""Soundness, proven for every template on several instances: the reference solution through the
in-process MCP client scores 1.0; doing nothing scores exactly 0; posting the instruction
everywhere and every adversarial agent (officegym.adversaries) fail with a score below 0.5; the
near misses (the task done on a look-alike, another candidate stated, one row too many) fail
wherever the task allows them; and every template declares what its task is about."""

from __future__ import annotations

import pytest

from officegym.adversaries import ADVERSARIES, NEAR_MISSES, NotApplicable
from officegym.adversary_moves import KINDS
from officegym.agents import declaration
from officegym.runner import AGENTS
from officegym.tasks.registry import all_tasks

INSTANCES = (0, 1, 2)
TEMPLATES = all_tasks()
CASES = [(t.id, k) for t in TEMPLATES for k in INSTANCES]
IDS = [f"{t}#{k}" for t, k in CASES]
CHEATS = ["spam", *ADVERSARIES]
CHEAT_CASES = [(t, k, agent) for t, k in CASES for agent in CHEATS]


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
def test_doing_nothing_scores_zero(store, task_id, instance):
    result = play(store, "null", task_id, instance)
    assert result.status == "failed", result.to_dict()
    assert result.success is False and result.score == 0.0


@pytest.mark.parametrize("task_id,instance,agent", CHEAT_CASES, ids=[f"{t}#{k}-{a}" for t, k, a in CHEAT_CASES])
def test_cheats_fail(store, task_id, instance, agent):
    result = play(store, agent, task_id, instance)
    assert result.status == "failed", result.to_dict()
    assert result.success is False and result.score < 0.5, result.to_dict()


@pytest.mark.parametrize("template", TEMPLATES, ids=[t.id for t in TEMPLATES])
def test_near_misses_fail(store, template):
    applied = []
    for agent in NEAR_MISSES:
        episode = store.create(template.id, 0, scale="small", seed=0)
        try:
            try:
                AGENTS[agent](episode)
            except NotApplicable:
                continue
            result = episode.grade()
        finally:
            store.delete(episode.id)
        applied.append(agent)
        assert result.status == "failed" and result.score < 0.5, (agent, result.to_dict())
    assert applied, f"{template.id}: no near miss applies (declare targets with look-alikes or claims with a pool)"


@pytest.mark.parametrize("template", TEMPLATES, ids=[t.id for t in TEMPLATES])
def test_every_template_declares_its_targets_and_claims(store, template):
    episode = store.create(template.id, 1, scale="small", seed=0)
    try:
        declared = declaration(episode)
    finally:
        store.delete(episode.id)
    assert declared.targets or declared.claims
    for target in declared.targets:
        assert target.kind in KINDS and target.ref not in target.lookalikes
        assert target.kind not in ("cell",) or "workbook" in target.where
    for claim in declared.claims:
        assert claim.right not in claim.others and claim.field
