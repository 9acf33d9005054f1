"""The OpenEnv environment, served by OpenEnv's own FastAPI server (uvicorn, real HTTP) and played
with OpenEnv's own WebSocket client: reset draws an instance, steps call tools or stop, the reward is
the grade's success, and every session keeps its own episode."""

from __future__ import annotations

import json
import threading
import time

import pytest
import uvicorn

pytest.importorskip("openenv.core")
from serving import free_port  # noqa: E402

from officegym.adapters.openenv_env import OfficeAction, OfficeEnvClient, create_app  # noqa: E402
from officegym.tasks.registry import match_tasks  # noqa: E402

TASKS = "chat.set_topic,chat.fix_typo"


@pytest.fixture(scope="module")
def base_url(store):
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(TASKS, store=store, max_steps=10), host="127.0.0.1", port=port,
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(10)


def play_reference(env, solution) -> object:
    """Each reference step as an action, its references taken from earlier results; then stop."""
    results = []
    for step in solution:
        seen = env.step(OfficeAction(tool=step.tool, arguments=step.resolved_args(results))).observation
        assert seen.ok and seen.reward == 0.0 and not seen.done, seen.result
        assert "\n " not in seen.result  # compact JSON
        results.append(json.loads(seen.result))
    return env.step(OfficeAction(stop=True))


def test_the_reference_solution_earns_reward_1_over_the_websocket_session(base_url, store):
    world = store.world("small", 0)
    with OfficeEnvClient(base_url=base_url).sync() as env:
        first = env.reset(task="chat.set_topic", instance=3)
        inst = store.task_instance(world, "chat.set_topic", 3)
        assert (first.observation.task_id, first.observation.instance) == ("chat.set_topic", 3)
        assert first.observation.instruction == inst.instruction and "company time" in first.observation.system_prompt
        offered = {tool["function"]["name"] for tool in first.observation.tools}
        assert {step.tool for step in inst.solution} <= offered and first.done is False
        last = play_reference(env, inst.solution)
        assert last.done is True and last.reward == 1.0 and last.observation.grade["success"] is True
        state = env.state()
        assert state.done and state.step_count == len(inst.solution) + 1 and state.grade["score"] == 1.0
        with pytest.raises(RuntimeError, match="reset"):  # the graded episode is gone
            env.step(OfficeAction(stop=True))


def test_seeds_walk_the_catalogue_and_bad_actions_earn_nothing(base_url, store):
    names = [t.id for t in match_tasks(TASKS)]
    with OfficeEnvClient(base_url=base_url).sync() as env, OfficeEnvClient(base_url=base_url).sync() as other:
        drawn = [(r.observation.task_id, r.observation.instance) for r in (env.reset(seed=k) for k in range(3))]
        assert drawn == [(names[0], 0), (names[1], 0), (names[0], 1)]
        other.reset(seed=0)
        assert env.state().task_id == names[0] and other.state().instance == 0  # each session its own episode
        refused = env.step(OfficeAction(tool="crm_list_accounts")).observation
        assert refused.ok is False and "not among" in refused.result
        unknown = env.step(OfficeAction()).observation
        assert unknown.ok is False and unknown.reward == 0.0
        for wrong, why in (({"task": "crm.update_next_step"}, "not served"), ({"instance": 2}, "name the task")):
            with pytest.raises(RuntimeError, match=why):
                env.reset(**wrong)
        env.reset(seed=0)
        ended = env.step(OfficeAction(stop=True))
        assert ended.done is True and ended.reward == 0.0 and ended.observation.grade["success"] is False
        assert any(e.record["task_id"] == names[0] and e.record["instance"] == 0 for e in store.entries())
