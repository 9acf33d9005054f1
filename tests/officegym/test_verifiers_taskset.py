"""The verifiers v1 taskset, run by verifiers itself: its single-agent env, its `null` chat harness
(a separate program verifiers prepares with uv) in the subprocess runtime, its interception server,
and our tool server launched per rollout. The model is the tests' own OpenAI-compatible server
(scripted_model.py) playing the reference trajectory or a wrong one."""

from __future__ import annotations

import asyncio
import os
import sys

import pytest
from scripted_model import ScriptedModel, ScriptedModelServer

vf = pytest.importorskip("verifiers.v1")
from verifiers.v1.envs.single_agent.env import SingleAgentEnv, SingleAgentEnvConfig  # noqa: E402
from verifiers.v1.harnesses.null.harness import NullHarnessConfig  # noqa: E402

from officegym.adapters.verifiers_taskset import OfficeTaskset, episode_store  # noqa: E402
from officegym.episodes import tool_set  # noqa: E402

TASKS = "chat.set_topic"


@pytest.fixture(scope="module")
def env(settings, tmp_path_factory) -> SingleAgentEnv:
    """The env a lab builds from the config alone: taskset id `officegym`, null harness, subprocess runtime."""
    episodes = tmp_path_factory.mktemp("vf-episodes")
    config = SingleAgentEnvConfig(
        taskset={"id": "officegym", "tasks": TASKS, "instances": 2,
                 "task": {"home": str(settings.home), "episodes_dir": str(episodes)}},
        agent=vf.AgentConfig(harness=NullHarnessConfig(id="null"), runtime=vf.SubprocessConfig()))
    return SingleAgentEnv(config)


@pytest.fixture(autouse=True)
def harness_path(monkeypatch):
    """The null harness runs through uv: the one installed beside this Python (a dev dependency)."""
    monkeypatch.setenv("PATH", os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"])
    monkeypatch.setenv("SCRIPTED_KEY", "not-a-secret")


def solutions(tasks) -> ScriptedModel:
    store = episode_store()
    known = {}
    for task in tasks:
        inst = store.task_instance(store.world(task.data.scale, task.data.seed), task.data.task_id, task.data.instance)
        known[inst.instruction] = inst.solution
    return ScriptedModel(known)


def play(env: SingleAgentEnv, tasks, model: ScriptedModel, policy: str) -> list:
    """One rollout per task through verifiers; the traces."""

    async def main():
        with ScriptedModelServer(model) as server:
            ctx = vf.ModelContext(model=policy, client=vf.EvalClientConfig(base_url=server.base_url,
                                                                           api_key_var="SCRIPTED_KEY"))
            async with env.serving():
                episodes = await asyncio.gather(*(env.run_episode(task, ctx) for task in tasks))
        return [trace for episode in episodes for trace in episode.traces]

    return asyncio.run(main())


def test_the_package_id_loads_every_instance_with_the_standard_prompt_and_no_solution(env):
    assert isinstance(env.taskset, OfficeTaskset)
    tasks = list(env.taskset)
    assert [(t.data.task_id, t.data.instance) for t in tasks] == [(TASKS, 0), (TASKS, 1)]
    assert len({t.key for t in tasks}) == 2
    for task in tasks:
        assert task.data.prompt and task.data.system_prompt.startswith("You are ")
        assert "company time" in task.data.system_prompt
        assert not {"solution", "expected", "answer"} & set(task.data.model_dump())


def test_the_reference_policy_earns_reward_1_and_each_episode_is_deleted_after_scoring(env):
    tasks = list(env.taskset)
    model = solutions(tasks)
    traces = play(env, tasks, model, "reference")
    assert [t.last_error for t in traces] == [None, None]
    assert [t.reward for t in traces] == [1.0, 1.0]
    assert all(t.metrics["score"] == 1.0 and t.metrics["checks_passed"] == t.metrics["checks"] > 0 for t in traces)
    # The model was offered exactly the episode's tools, under their own names.
    offered = {tuple(sorted(f["function"]["name"] for f in request["tools"])) for request in model.requests}
    assert offered == {tuple(sorted(tool_set("task", TASKS)))}
    assert len({t.state.episode for t in traces}) == 2 and all(t.state.episode for t in traces)  # one per rollout
    store = episode_store(env.taskset.config.task.home, env.taskset.config.task.episodes_dir)
    assert store.live() == []
    assert not list(store.settings.episodes_dir.glob("*.json"))


def test_stopping_before_the_last_step_earns_nothing(env):
    tasks = list(env.taskset)[:1]
    traces = play(env, tasks, solutions(tasks), "wrong")
    assert [t.last_error for t in traces] == [None]
    assert [t.reward for t in traces] == [0.0]
    assert traces[0].metrics["checks_passed"] < traces[0].metrics["checks"]
    store = episode_store(env.taskset.config.task.home, env.taskset.config.task.episodes_dir)
    assert store.live() == []
