"""The Gymnasium adapter with the real library: registered environments that pass Gymnasium's own
checker, solved by the reference solution as JSON tool-call actions, rewarded by the grade."""

from __future__ import annotations

import json
import os
import subprocess
import sys
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


def test_reset_with_seed_k_plays_instance_k_and_any_text_is_an_action(env, store):
    observation, info = env.reset(seed=3)
    world = store.world("small", 0)
    assert info["instance"] == 3 and env.episode.instruction == store.task_instance(world, "chat.set_topic", 3).instruction
    action = json.dumps({"tool": "chat_post_message", "arguments": {"channel": "general", "text": "Grüße, 日本 👋"}},
                        ensure_ascii=False)
    assert env.action_space.contains(action) and not env.action_space.contains(b"bytes")
    observation, reward, terminated, truncated, info = env.step(action)
    seen = json.loads(observation)
    assert seen["ok"] and "\n " not in seen["result"]  # compact JSON
    assert json.loads(seen["result"])["text"] == "Grüße, 日本 👋"


PLAY = """
import sys
from officegym.adapters.gymnasium_env import OfficeEnv
env = OfficeEnv("chat.set_topic")
env.reset(seed=1)
print(env.episode.id, flush=True)
sys.stdin.readline()
"""


def test_an_env_never_closed_leaves_no_episode_when_the_interpreter_exits(store, settings):
    environment = dict(os.environ, OFFICEGYM_HOME=str(settings.home), OFFICEGYM_EPISODES_DIR=str(settings.episodes_dir))
    child = subprocess.Popen([sys.executable, "-c", PLAY], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                             env=environment)
    played = child.stdout.readline().strip()
    assert played in {e.id for e in store.entries()}
    child.communicate("\n", timeout=120)  # the interpreter exits without close()
    assert child.returncode == 0 and played not in {e.id for e in store.entries()}
