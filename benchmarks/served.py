"""Served rollouts: `officegym serve --workers N` in a process of its own, driven over HTTP by
concurrent agents with the official MCP client. Each agent loops: create a task episode through
the control API, make 12 tool calls in one MCP session (reads, then the reference solution), grade
and delete it. The agents share one HTTP client, as a rollout harness would (a client of its own
per session would load the system's certificates every time).
Reported: episodes/s and tool calls/s at each number of agents, for 1 and 2 workers, with the CPU
an episode cost the server's processes and the agents' (on one machine, they share its cores);
before them, each tool call served against the same call in process (served_calls.py)."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .served_calls import bench_served_calls, cpu_seconds
from .timing import Bench, Figure, progress

TASK = "chat.set_topic"
READS = 11  # org_get_me calls before the task's own, for 12 calls an episode as a short rollout has
AGENTS = (1, 8, 32, 100)
WORKERS = (1, 2)
SECONDS = 8.0
TOKEN = "bench-admin-token-0123456789"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(bench: Bench, workers: int, folder: Path) -> tuple[subprocess.Popen, str]:
    """A server on the bench's world and backend, answering; its process and base URL."""
    import httpx

    port = _free_port()
    env = dict(os.environ, OFFICEGYM_ADMIN_TOKEN=TOKEN, OFFICEGYM_EPISODES_DIR=str(folder),
               OFFICEGYM_DATABASE_URL=bench.store.settings.database_url, OFFICEGYM_HOME=str(bench.store.settings.home))
    process = subprocess.Popen([sys.executable, "-m", "officegym.cli", "serve", "--scale", bench.scale, "--port",
                                str(port), "--workers", str(workers), "--episode-ttl", "0"], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{base}/healthz", timeout=5).status_code == 200:
                return process, base
        except httpx.TransportError:
            time.sleep(0.2)
    process.kill()
    raise RuntimeError("the server did not start")


async def _agents(base: str, count: int, solutions: list, seconds: float) -> tuple[int, int]:
    """Episodes and tool calls completed by `count` agents in `seconds`."""
    import httpx
    import httpx2
    from mcp.client import Client
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {TOKEN}"}
    done = {"episodes": 0, "calls": 0}
    stop = time.perf_counter() + seconds
    limits = httpx.Limits(max_connections=count + 4)
    async with (httpx.AsyncClient(base_url=base, headers=headers, timeout=120, limits=limits) as api,
                httpx2.AsyncClient(timeout=120, limits=httpx2.Limits(max_connections=count + 4)) as mcp):
        async def agent(k: int) -> None:
            while time.perf_counter() < stop:
                instance = k % len(solutions)
                made = (await api.post("/api/episodes", json={"task": TASK, "instance": instance})).json()
                async with Client(streamable_http_client(made["mcp_url"], http_client=mcp)) as client:
                    for _ in range(READS):
                        await client.call_tool("org_get_me", {})
                        done["calls"] += 1
                    for call in solutions[instance]:
                        await client.call_tool(call.tool, call.args)
                        done["calls"] += 1
                graded = await api.post(f"/api/episodes/{made['id']}/grade?delete=true")
                if graded.json().get("success"):
                    done["episodes"] += 1

        await asyncio.gather(*(agent(k) for k in range(count)))
    return done["episodes"], done["calls"]


def _rollouts(pid: int, base: str, workers: int, count: int, solutions: list) -> Figure:
    """One throughput row, with the CPU each episode cost the server and the agents."""
    started, server_cpu, agents_cpu = time.perf_counter(), cpu_seconds(pid), time.process_time()
    episodes, calls = asyncio.run(_agents(base, count, solutions, SECONDS))
    seconds = time.perf_counter() - started
    per_episode = [1000 * (cpu_seconds(pid) - server_cpu) / max(episodes, 1),
                   1000 * (time.process_time() - agents_cpu) / max(episodes, 1)]
    return Figure(f"served rollouts, {workers} worker(s), {count} agents", episodes, episodes / seconds, None,
                  unit="episodes/s", note=f"{calls / seconds:.0f} tool calls/s; {TASK}: create, "
                  f"{READS + len(solutions[0])} MCP calls, grade and delete; CPU per episode: server "
                  f"{per_episode[0]:.0f} ms, agents {per_episode[1]:.0f} ms")


def bench_served(bench: Bench) -> list[Figure]:
    """Served calls against in-process ones (one worker), then served throughput at every number
    of agents, for 1 and 2 workers."""
    world = bench.store.world(bench.scale)
    solutions = [bench.store.task_instance(world, TASK, k).solution for k in range(4)]
    figures = []
    for workers in WORKERS:
        with tempfile.TemporaryDirectory(prefix="officegym-served-") as folder:
            process, base = start_server(bench, workers, Path(folder))
            try:
                if workers == 1:
                    figures += bench_served_calls(bench, base, {"Authorization": f"Bearer {TOKEN}"})
                asyncio.run(_agents(base, 2, solutions, 1.0))  # warm up: first draws, first sessions
                for count in AGENTS[:2] if bench.quick else AGENTS:
                    bench.step(f"served rollouts, {workers} worker(s), {count} agents")
                    figures.append(_rollouts(process.pid, base, workers, count, solutions))
            finally:
                process.send_signal(signal.SIGINT)
                process.wait(60)
    progress(f"[{bench.scale}/{bench.backend}] served rollouts done")
    return figures
