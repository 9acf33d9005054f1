"""Soundness, proven for every template on two instances and more: the reference solution through the
in-process MCP client scores 1.0; doing nothing scores exactly 0; posting the instruction everywhere
and the adversarial agents (officegym.adversaries: three of these nine cheats meet each template, in
turn, or all nine with OFFICEGYM_TEST_EVERY_PAIR=1, see tests/tasks/pairs.py) fail with a score
below 0.5; the near misses (the task done on a look-alike, another candidate stated, one row too
many) fail wherever the task allows them (all three on the small world, two of them in turn on the
medium world and one on a marathon); no grader crashes when what its task is about was deleted
or renamed; and every template declares what its task is about."""

from __future__ import annotations

import pytest

from officegym.adversaries import ADVERSARIES, NEAR_MISSES, WRECKERS, NotApplicable
from officegym.adversaries_time import TIME_ADVERSARIES
from officegym.adversary_moves import KINDS
from officegym.agents import declaration
from officegym.runner import AGENTS
from officegym.tasks.registry import all_tasks, get_task
from pairs import EVERY_PAIR, in_turn

INSTANCES = (0, 1, 2)
TEMPLATES = all_tasks()
CHEATS = ["spam", *ADVERSARIES, *TIME_ADVERSARIES]


def instances_of(template) -> tuple[int, ...]:
    """The instances the cheats play, in turn: three on the small world; two of the long tasks of the
    medium world, whose episodes cost several times more."""
    return INSTANCES if template.scale == "small" else INSTANCES[:2]


# The reference plays the first two instances of every small template (the cheats meet the third), and the
# second of a medium one: tests/postgres plays its first.
CASES = [(t.id, k) for t in TEMPLATES for k in (instances_of(t)[:2] if t.scale == "small" else (1,))]
IDS = [f"{t}#{k}" for t, k in CASES]
CHEATS_PER_TEMPLATE = 3  # of the nine, in turn (pairs.in_turn)
LONG_CHEATS = 2  # for a template of the medium world, whose episodes cost several times more
MARATHON_CHEATS = 1  # for a marathon (difficulty 6), whose episodes cost several times a medium one's
NEAR_MISSES_PLAYED = {"small": 3, "medium": 2, "marathon": 1}  # of the three, in turn, that apply


def weight(template) -> str:
    """How costly a template's episodes are: "small", "medium" or "marathon"."""
    return "marathon" if template.difficulty >= 6 else "small" if template.scale == "small" else "medium"


def cheats_of(index: int, template) -> list[str]:
    """The cheats template `index` meets; an event template meets every cheat about time."""
    share = {"small": CHEATS_PER_TEMPLATE, "medium": LONG_CHEATS, "marathon": MARATHON_CHEATS}[weight(template)]
    met = in_turn(index, CHEATS, share)
    if template.id.startswith("e."):
        met += [agent for agent in TIME_ADVERSARIES if agent not in met]
    return met


# Each cheat plays one instance, in turn, so that every instance meets several cheats.
CHEAT_CASES = [(t.id, instances_of(t)[n % len(instances_of(t))], agent)
               for i, t in enumerate(TEMPLATES) for n, agent in enumerate(cheats_of(i, t))]


def play(store, agent: str, task_id: str, instance: int):
    episode = store.create(task_id, instance, scale=get_task(task_id).scale, seed=0)
    try:
        AGENTS[agent](episode)
        return episode.grade()
    finally:
        store.delete(episode.id)


def play_if_it_applies(store, agent: str, task_id: str, instance: int):
    """The grade after `agent` played, or None when the agent does not apply to the task."""
    try:
        return play(store, agent, task_id, instance)
    except NotApplicable:
        return None


@pytest.mark.parametrize("task_id,instance", CASES, ids=IDS)
def test_reference_solution_scores_one(store, task_id, instance):
    result = play(store, "oracle", task_id, instance)
    assert result.status == "passed", result.to_dict()
    assert result.success is True and result.score == 1.0


@pytest.mark.parametrize("task_id", [t.id for t in TEMPLATES])
def test_doing_nothing_scores_zero(store, task_id):
    result = play(store, "null", task_id, 1)
    assert result.status == "failed", result.to_dict()
    assert result.success is False and result.score == 0.0


@pytest.mark.parametrize("task_id,instance,agent", CHEAT_CASES, ids=[f"{t}#{k}-{a}" for t, k, a in CHEAT_CASES])
def test_cheats_fail(store, task_id, instance, agent):
    result = play_if_it_applies(store, agent, task_id, instance)
    if result is None:  # negate, where the only claim names a rule (a refusal's): there is nothing to deny
        pytest.skip(f"{agent} does not apply to {task_id}")
    assert result.status == "failed", result.to_dict()
    assert result.success is False and result.score < 0.5, result.to_dict()


@pytest.mark.parametrize("template", TEMPLATES, ids=[t.id for t in TEMPLATES])
def test_near_misses_fail(store, template):
    """The near misses that apply, taken in turn from the template's place in the suite: all three on
    a small template, fewer on the costlier ones (every one with OFFICEGYM_TEST_EVERY_PAIR=1)."""
    names, start, applied = list(NEAR_MISSES), TEMPLATES.index(template), []
    for agent in names[start % len(names):] + names[:start % len(names)]:
        if len(applied) == NEAR_MISSES_PLAYED[weight(template)] and not EVERY_PAIR:
            break
        result = play_if_it_applies(store, agent, template.id, 0)
        if result is None:
            continue
        applied.append(agent)
        assert result.status == "failed" and result.score < 0.5, (agent, result.to_dict())
    assert applied, f"{template.id}: no near miss applies (declare targets with look-alikes or claims with a pool)"


@pytest.mark.parametrize("template", TEMPLATES, ids=[t.id for t in TEMPLATES])
def test_a_grader_never_crashes_when_what_the_task_is_about_is_deleted_or_renamed(store, template):
    played = [(agent, play_if_it_applies(store, agent, template.id, 1)) for agent in WRECKERS]
    played = [(agent, result) for agent, result in played if result is not None]
    if not played:  # e.g. a chat task about others' messages: the actor can neither delete nor rename them
        pytest.skip("the actor can delete or rename nothing the task is about")
    for agent, result in played:
        assert result.status in ("passed", "failed"), (agent, result.to_dict())


@pytest.mark.parametrize("template", TEMPLATES, ids=[t.id for t in TEMPLATES])
def test_every_template_declares_its_targets_and_claims(store, template):
    episode = store.create(template.id, 1, scale=template.scale, seed=0)
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


ANSWER_TEMPLATES = [t for t in TEMPLATES if t.answered]
DRAWS = 24


@pytest.mark.parametrize("template", ANSWER_TEMPLATES, ids=[t.id for t in ANSWER_TEMPLATES])
def test_no_answer_comes_up_in_more_than_a_fifth_of_the_instances(store, template):
    """A blind guess must not pay: over 24 instances, the commonest right answer is drawn at most
    a fifth of the time, and a count is never 0 (what an agent that found nothing would say)."""
    world = store.world(template.scale, 0)
    answers = [store.task_instance(world, template.id, k).solution[-1].args["answer"] for k in range(DRAWS)]
    assert max(answers.count(a) for a in answers) <= DRAWS // 5, sorted(answers)
    assert "0" not in answers


EVENTFUL = [t for t in TEMPLATES if t.id.startswith("e.")]  # templates whose events change the outcome (even instances)


@pytest.mark.parametrize("template", EVENTFUL, ids=[t.id for t in EVENTFUL])
def test_an_agent_that_ignores_the_events_fails(store, template):
    """The cheats' rotation meets `ignore_events` on a twin, where it does not apply: here it plays an
    instance whose event changes the outcome."""
    result = play(store, "ignore_events", template.id, 0)
    assert result.status == "failed" and result.success is False and result.score < 0.5, result.to_dict()
