"""The Gymnasium adapter with the real library: registered environments that pass Gymnasium's own
checker, solved by the reference solution as JSON tool-call actions, rewarded by the grade."""

from __future__ import annotations

import json
import warnings

import gymnasium
import pytest
from gymnasium.utils.env_checker import check_env

from officegym.adapters.gymnasium_env import OfficeEnv, register_all
from officegym.tasks.registry import all_tasks


@pytest.fixture
def env(store):
    made = gymnasium.make("officegym/chat.set_topic-v0", store=store, disable_env_checker=True).unwrapped
    yield made
    made.close()


def test_every_task_is_registered_and_the_checker_passes(store):
    assert register_all() == [f"officegym/{t.id}-v0" for t in all_tasks()]
    made = gymnasium.make("officegym/chat.set_topic-v0", instances=5)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # the checker's warnings fail the test
            check_env(made.unwrapped)
    finally:
        made.close()


def play(env: OfficeEnv, steps) -> tuple[float, bool, bool, dict]:
    """Send each reference step as an action, taking its references from earlier observations."""
    results = []
    for step in steps:
        action = json.dumps({"tool": step.tool, "arguments": step.resolved_args(results)})
        observation, reward, terminated, truncated, info = env.step(action)
        seen = json.loads(observation)
        assert seen["ok"] and reward == 0.0 and not (terminated or truncated), seen
        results.append(json.loads(seen["result"]))
    observation, reward, terminated, truncated, info = env.step('{"stop": true}')
    return reward, terminated, truncated, info


@pytest.mark.parametrize("instance", [0, 4])
def test_the_reference_solution_earns_the_reward(env, instance):
    observation, info = env.reset(options={"instance": instance})
    shown = json.loads(observation)
    assert shown["instruction"] == env.episode.instruction and "company time" in shown["system_prompt"]
    assert {spec["function"]["name"] for spec in info["tools"]} == set(env.episode.tools)
    reward, terminated, truncated, info = play(env, env.episode.task.solution)
    assert (reward, terminated, truncated) == (1.0, True, False) and info["grade"]["success"] is True


def test_stopping_at_once_and_bad_actions_earn_nothing(env):
    env.reset(seed=11)
    for junk in ("not json", "[1, 2]", '{"tool": 3}', '{"tool": "x", "arguments": []}', "\t\n"):
        observation, reward, terminated, truncated, info = env.step(junk)
        assert "error" in json.loads(observation) and (reward, terminated, truncated) == (0.0, False, False)
    observation, reward, terminated, truncated, info = env.step('{"tool": "crm_list_accounts", "arguments": {}}')
    assert json.loads(observation)["ok"] is False and "not among" in json.loads(observation)["result"]
    observation, reward, terminated, truncated, info = env.step('{"stop": true}')
    assert (reward, terminated) == (0.0, True) and info["grade"]["success"] is False
    with pytest.raises(RuntimeError, match="reset"):
        env.step('{"stop": true}')


def test_the_step_limit_truncates_and_grades(store):
    env = OfficeEnv("chat.set_topic", max_steps=2, store=store)
    try:
        env.reset(options={"instance": 1})
        played = env.episode.id
        assert env.step('{"tool": "org_get_me", "arguments": {}}')[3] is False
        observation, reward, terminated, truncated, info = env.step('{"tool": "org_get_me", "arguments": {}}')
        assert (reward, terminated, truncated) == (0.0, False, True) and "grade" in info
        assert env.episode is None and played not in {e.id for e in store.live()}  # graded, then deleted
    finally:
        env.close()
