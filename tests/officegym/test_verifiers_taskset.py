"""The verifiers v1 taskset, run by verifiers itself: its single-agent env, its `null` chat harness
(a separate program verifiers prepares with uv) in the subprocess runtime, its interception server,
our one tool server for every rollout, and `vf-validate`'s checks. The model is the tests' own
OpenAI-compatible server (scripted_model.py) playing the reference trajectory, a wrong one, or never
stopping. Episodes live in this process, or on a served officegym reached over HTTP."""

from __future__ import annotations

import asyncio
import json
import os
import sys

import pytest
from scripted_model import ScriptedModel, ScriptedModelServer

vf = pytest.importorskip("verifiers.v1")
from verifiers.v1.cli.validate import run_validate  # noqa: E402
from verifiers.v1.configs.cli.validate import ValidateConfig  # noqa: E402
from verifiers.v1.envs.single_agent.env import SingleAgentEnv, SingleAgentEnvConfig  # noqa: E402
from verifiers.v1.harnesses.null.harness import NullHarnessConfig  # noqa: E402

from officegym.adapters.verifiers_taskset import OfficeTaskset, episode_store  # noqa: E402
from officegym.episodes import tool_set  # noqa: E402

TASKS = "chat.set_topic"
pytestmark = pytest.mark.xdist_group("verifiers")  # one worker plays the module's evaluation once


def make_env(task: dict, instances: int = 2) -> SingleAgentEnv:
    """The env a lab builds from the config alone: taskset id `officegym`, null harness, subprocess runtime."""
    config = SingleAgentEnvConfig(
        taskset={"id": "officegym", "tasks": TASKS, "instances": instances, "task": task},
        agent=vf.AgentConfig(harness=NullHarnessConfig(id="null"), runtime=vf.SubprocessConfig()))
    return SingleAgentEnv(config)


@pytest.fixture(scope="module")
def local(settings, tmp_path_factory) -> dict:
    """The task config of episodes in this process."""
    return {"home": str(settings.home), "episodes_dir": str(tmp_path_factory.mktemp("vf-episodes"))}


@pytest.fixture(scope="module")
def env(local) -> SingleAgentEnv:
    return make_env(local)


@pytest.fixture(scope="module", autouse=True)
def harness_path():
    """The null harness runs through uv: the one installed beside this Python (a dev dependency)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PATH", os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"])
        patch.setenv("SCRIPTED_KEY", "not-a-secret")
        yield


def solutions(tasks) -> ScriptedModel:
    store = episode_store()
    known = {}
    for task in tasks:
        inst = store.task_instance(store.world(task.data.scale, task.data.seed), task.data.task_id, task.data.instance)
        known[inst.instruction] = inst.solution
    return ScriptedModel(known)


def play(env: SingleAgentEnv, runs, model: ScriptedModel) -> list:
    """One rollout per (task, policy), all at once in one serving of the env (one tool server); the traces."""

    async def main():
        with ScriptedModelServer(model) as server:
            client = vf.EvalClientConfig(base_url=server.base_url, api_key_var="SCRIPTED_KEY")
            async with env.serving():
                episodes = await asyncio.gather(*(env.run_episode(task, vf.ModelContext(model=policy, client=client))
                                                  for task, policy in runs))
        return [episode.traces[0] for episode in episodes]

    return asyncio.run(main())


@pytest.fixture(scope="module")
def played(env) -> dict:
    """The reference policy on both instances, a policy that stops one step early, and a model that
    never stops, in one evaluation: their traces, and what the model was shown."""
    tasks = list(env.taskset)
    model = solutions(tasks)
    policies = ["reference", "reference", "wrong", "endless", "broken"]
    traces = play(env, list(zip(tasks + tasks + tasks, policies)), model)
    return {"traces": dict(zip(["reference0", "reference1", "wrong", "endless", "broken"], traces)), "model": model}


def test_the_package_id_loads_every_instance_with_the_standard_prompt_limits_and_no_solution(env):
    assert isinstance(env.taskset, OfficeTaskset)
    tasks = list(env.taskset)
    assert [(t.data.task_id, t.data.instance) for t in tasks] == [(TASKS, 0), (TASKS, 1)]
    assert len({t.key for t in tasks}) == 2
    for task in tasks:
        assert task.data.prompt and task.data.system_prompt.startswith("You are ")
        assert "company time" in task.data.system_prompt
        assert not {"solution", "expected", "answer"} & set(task.data.model_dump())
        assert task.data.timeout.agent == 1800 and task.config.max_turns == 30


def test_the_reference_policy_earns_reward_1_and_each_episode_is_deleted_after_scoring(env, played):
    traces = [played["traces"]["reference0"], played["traces"]["reference1"]]
    assert [t.last_error for t in traces] == [None, None]
    assert [t.reward for t in traces] == [1.0, 1.0]
    assert all(t.metrics["score"] == 1.0 and t.metrics["checks_passed"] == t.metrics["checks"] > 0 for t in traces)
    # The model was offered exactly the episode's tools, under their own names, and read compact JSON.
    requests = played["model"].requests
    offered = {tuple(sorted(f["function"]["name"] for f in request["tools"])) for request in requests}
    assert offered == {tuple(sorted(tool_set("task", TASKS)))}
    results = [m["content"] for r in requests for m in r["messages"] if m["role"] == "tool"]
    assert results and all("\n " not in text for text in results)
    episodes = {t.state.episode for t in played["traces"].values()}
    assert len(episodes) == 5 and all(episodes)  # one per rollout
    store = episode_store(env.taskset.config.task.home, env.taskset.config.task.episodes_dir)
    # Every graded episode is deleted; the failed rollout's waits for episode_ttl or the process's exit.
    assert [e.id for e in store.entries()] == [played["traces"]["broken"].state.episode]


def test_stopping_before_the_last_step_earns_nothing(played):
    trace = played["traces"]["wrong"]
    assert (trace.last_error, trace.reward) == (None, 0.0)
    assert trace.metrics["checks_passed"] < trace.metrics["checks"]


def test_a_model_endpoint_that_fails_is_an_error_of_the_rollout_never_a_reward(played):
    trace = played["traces"]["broken"]
    assert trace.last_error is not None and trace.ok is False and trace.rewards.get("officegym") is None


def test_a_model_that_never_stops_ends_at_the_default_turn_cap_and_is_graded(played):
    trace = played["traces"]["endless"]
    assert trace.stop_condition == "turn_limit" and trace.num_turns == 30
    assert trace.last_error is None and trace.reward == 0.0 and trace.metrics["checks"] > 0


def test_vf_validate_passes_the_gold_and_noop_checks(local, tmp_path):
    store = episode_store(local["home"], local["episodes_dir"])
    before = {e.id for e in store.entries()}  # an abandoned rollout of another test may wait there
    config = ValidateConfig(taskset={"id": "officegym", "tasks": TASKS, "instances": 2, "task": local},
                            runtime={"type": "subprocess"}, rich=False, output_dir=tmp_path)
    rows = asyncio.run(run_validate(config))
    assert [(row["reason"], row["gold"]["reason"], row["noop"]["reason"]) for row in rows] == [("valid",) * 3] * 2
    summary = json.loads(next(tmp_path.glob("*/summary.json")).read_text())
    assert summary["checks"]["gold"]["valid"] == 2 and summary["outcomes"]["valid"] == 2
    assert {e.id for e in store.entries()} == before  # each check's episode is graded and deleted


def test_episodes_on_a_served_officegym_over_http(small_server, monkeypatch):
    monkeypatch.setenv("OFFICEGYM_ADMIN_TOKEN", small_server.settings.admin_token)
    served = make_env({"server_url": small_server.base_url}, instances=1)
    tasks = list(served.taskset)
    assert [(t.data.task_id, t.data.instance, t.data.scale) for t in tasks] == [(TASKS, 0, "small")]
    before = {e.id for e in small_server.store.entries()}
    traces = play(served, [(tasks[0], "reference")], solutions(tasks))
    assert [(t.last_error, t.reward) for t in traces] == [(None, 1.0)]
    assert traces[0].state.mcp_url.startswith(small_server.base_url)
    assert {e.id for e in small_server.store.entries()} == before  # graded and deleted on the server
