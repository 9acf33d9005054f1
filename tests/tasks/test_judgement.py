"""Judgement, proven for every deep template: the agents of officegym.judgement (a liar, a hollow
writer, one who skips the asks, one who gives weak reasons, a blind refuser and one who complies with
everything) fail every template they apply to, with a score below 0.5; the hollow writer also fails
(no success) with each free text made "ok" on its own. The liar, the skipper and the weak reasoner
take each template in turn, and one free text at a time is made "ok" (every pair with
OFFICEGYM_TEST_EVERY_PAIR=1: tests/tasks/pairs.py). Every deep template gives its replies a
role, so the liar and the hollow writer always have something to attack, and every refusal says what
carrying out the request would have done."""

from __future__ import annotations

import pytest

from officegym.judgement import hollow_one
from officegym.tasks.base import DEEP_KINDS
from officegym.tasks.registry import all_tasks, get_task
from pairs import EVERY_PAIR, in_turn
from test_soundness import play_if_it_applies

DEEP = [t for t in all_tasks() if t.kind in DEEP_KINDS]
IDS = [t.id for t in DEEP]
LOOKED_AT = 4  # instances searched for one of the outcome an agent needs
TEXT_ROLES = ("refusal", "report", "note", "reason")


def instance(store, task_id: str, k: int):
    """Instance k of a template on its world, without an episode."""
    template = get_task(task_id)
    return store.task_instance(store.world(template.scale, 0), task_id, k)


def first_with(store, task_id: str, wanted) -> int | None:
    """The first instance (of LOOKED_AT) whose outcome `wanted` accepts."""
    return next((k for k in range(LOOKED_AT) if wanted(instance(store, task_id, k).outcome)), None)


def assert_fails(result, agent):
    if result is None:
        pytest.skip(f"{agent} does not apply")
    assert result.status == "failed", (agent, result.to_dict())
    assert result.success is False and result.score < 0.5, (agent, result.to_dict())


@pytest.mark.parametrize("template", DEEP, ids=IDS)
def test_every_deep_template_gives_its_replies_and_outcome(store, template):
    inst = instance(store, template.id, 0)
    roles = {step.role for step in inst.solution}
    assert roles & {"refusal", "report"}, "no step of the solution is a reply that reports the outcome"
    for step in inst.solution:
        if step.role == "refusal":
            assert step.instead, f"the refusal at {step.tool} does not say what complying would have done"
    assert inst.outcome.carry_out + inst.outcome.refuse >= 1


AGENTS_IN_TURN = [(t, agent) for i, t in enumerate(DEEP) for agent in in_turn(i, ["lie", "skip_ask", "weak_reason"], 1)]


@pytest.mark.parametrize("template,agent", AGENTS_IN_TURN, ids=[f"{t.id}-{a}" for t, a in AGENTS_IN_TURN])
def test_judgement_agents_fail(store, template, agent):
    assert_fails(play_if_it_applies(store, agent, template.id, 0), agent)


@pytest.mark.parametrize("template", DEEP, ids=IDS)
def test_the_liar_fails_the_other_outcome_too(store, template):
    assert_fails(play_if_it_applies(store, "lie", template.id, 1), "lie")


@pytest.mark.parametrize("template", DEEP, ids=IDS)
def test_the_blind_refuser_fails_even_where_refusing_is_right(store, template):
    k = first_with(store, template.id, lambda outcome: outcome.kind == "refuse")
    assert_fails(play_if_it_applies(store, "blind_refuse", template.id, 0 if k is None else k), "blind_refuse")


@pytest.mark.parametrize("template", DEEP, ids=IDS)
def test_complying_with_everything_fails_where_something_is_to_be_refused(store, template):
    k = first_with(store, template.id, lambda outcome: outcome.refuse > 0)
    if k is None:
        pytest.skip("nothing is refused in the first instances")
    assert_fails(play_if_it_applies(store, "comply", template.id, k), "comply")


@pytest.mark.parametrize("template", DEEP, ids=IDS)
def test_hollow_texts_fail_all_at_once_and_one_at_a_time(store, template):
    assert_fails(play_if_it_applies(store, "hollow", template.id, 1), "hollow")
    texts = sum(step.role in TEXT_ROLES for step in instance(store, template.id, 0).solution)
    for k in ([DEEP.index(template) % texts] if texts and not EVERY_PAIR else range(texts)):
        agent = hollow_one(k)
        episode = store.create(template.id, 0, scale=template.scale, seed=0)
        try:
            agent(episode)
            result = episode.grade()
        finally:
            store.delete(episode.id)
        assert result.status == "failed" and not result.success, (k, result.to_dict())
