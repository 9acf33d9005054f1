"""verifiers rollouts and what a model reads, on the small world (SQLite):

- the setup of one verifiers rollout, everything before the agent's first turn (the runtime, the
  task's episode, the `null` chat harness, the tool server the rollout reaches), taken from
  verifiers' own trace timings while its single-agent env plays the reference solution with the
  tests' scripted model (tests/officegym/scripted_model.py) in the subprocess runtime; the taskset's
  tool server starts once per evaluation, timed apart;
- the characters of the tool results the adapters send a model (compact JSON) for the calls the
  `tools` benchmark times, beside the SDK's indented text of the same results.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time

import anyio

from officegym.transcripts import compact

from .timing import Bench, Figure, percentiles, progress
from .tools import tool_calls

ROLLOUTS = 6
TASK = "chat.set_topic"


def bench_rollouts(bench: Bench) -> list[Figure]:
    """Rollout setup (verifiers) and the size of tool results (compact against indented JSON)."""
    if bench.scale != "small" or bench.backend != "sqlite":
        return []
    return [*rollout_setup(bench), result_sizes(bench)]


def rollout_setup(bench: Bench) -> list[Figure]:
    """The rollouts' setup seconds, and the tool server's start."""
    try:
        import verifiers.v1 as vf
        from verifiers.v1.envs.single_agent.env import SingleAgentEnv, SingleAgentEnvConfig
        from verifiers.v1.harnesses.null.harness import NullHarnessConfig

        from tests.officegym.scripted_model import ScriptedModel, ScriptedModelServer
    except ImportError as missing:
        return [Figure("verifiers rollout setup", 0, float("nan"), None, note=f"not measured: {missing}")]
    runs = max(3, ROLLOUTS // 2) if bench.quick else ROLLOUTS
    os.environ["PATH"] = os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"]  # uv, for the harness
    os.environ.setdefault("OFFICEGYM_BENCH_KEY", "not-a-secret")
    settings = bench.store.settings
    with tempfile.TemporaryDirectory(prefix="officegym-bench-vf-") as episodes:
        env = SingleAgentEnv(SingleAgentEnvConfig(
            taskset={"id": "officegym", "tasks": TASK, "instances": runs,
                     "task": {"home": str(settings.home), "episodes_dir": episodes}},
            agent=vf.AgentConfig(harness=NullHarnessConfig(id="null"), runtime=vf.SubprocessConfig())))
        tasks = list(env.taskset)
        world = bench.store.world("small", 0)
        drawn = [bench.store.task_instance(world, TASK, task.data.instance) for task in tasks]
        model = ScriptedModel({inst.instruction: inst.solution for inst in drawn})

        async def evaluate():
            with ScriptedModelServer(model) as server:
                ctx = vf.ModelContext(model="reference", client=vf.EvalClientConfig(
                    base_url=server.base_url, api_key_var="OFFICEGYM_BENCH_KEY"))
                started = time.perf_counter()
                async with env.serving():
                    serving = time.perf_counter() - started
                    traces = []
                    for task in tasks:
                        progress(f"[small/sqlite] verifiers rollout {len(traces) + 1}/{len(tasks)} ...")
                        traces += (await env.run_episode(task, ctx)).traces
            return serving, traces

        serving, traces = asyncio.run(evaluate())
    setups = [1000 * (t.timing.setup.end - t.timing.boot.start) for t in traces]
    rewards = sum(t.reward for t in traces)
    p50, p95 = percentiles(setups)
    agents = percentiles([t.timing.agent.end - t.timing.agent.start for t in traces])[0]
    return [Figure("verifiers rollout setup", len(setups), p50, p95, "p50 <= 1 s",
                   f"{TASK}, null harness, subprocess runtime; reward {rewards:g}/{len(traces)}; the agent's "
                   f"turns then took {agents:.1f} s (p50), mostly the harness program's own start"),
            Figure("verifiers tool server start (once per evaluation)", 1, serving, serving,
                   note="one process serves every rollout's episode", unit="s")]


def result_sizes(bench: Bench) -> Figure:
    """Characters of each timed tool call's result as a model reads it (compact JSON), with the
    SDK's indented text of the same results in the note."""
    episode = bench.store.create(scale="small")
    try:
        server = episode.mcp_server()

        async def texts():
            found = []
            for name, args in tool_calls(episode).items():
                result = await server.call_tool(name, args)
                found.append(" ".join(getattr(c, "text", "") for c in result.content))
            return found

        indented = anyio.run(texts)
    finally:
        bench.store.delete(episode.id)
    sent = [len(compact(text)) for text in indented]
    p50, p95 = percentiles(sent)
    saved = 1 - sum(sent) / sum(len(text) for text in indented)
    return Figure("tool result sent to a model (compact JSON)", len(sent), p50, p95,
                  note=f"indented JSON p50 {percentiles([len(t) for t in indented])[0]:.0f} chars; "
                       f"compact is {saved:.0%} shorter in all", unit="chars")
