"""Served rollouts: `officegym serve --workers N` in a process of its own, driven over HTTP by
concurrent agents. Each agent loops: create a task episode through the control API, make 12 tool
calls (reads, then the reference solution), grade and delete it.

Two kinds of agents drive it, in turn:
- the official MCP client, one session per episode, the agents sharing one HTTP client as a
  rollout harness would (a client of its own per session would load the system's certificates
  every time): what a Python harness on the same machine gets;
- the lean client (lean_client.py), one keep-alive connection per agent: the server's own
  capacity, since the official client costs about as much CPU as the server and, on one machine,
  they share its cores.
A server of 1 worker and one of 2 run side by side, driven in turn in short slices, so that the
machine's drift (a shared virtual machine's speed varies by tens of percent over minutes) falls on
both alike. Reported: episodes/s and tool calls/s at each number of agents, for 1 and 2 workers,
with the CPU an episode cost the server's processes and the agents'; before them, each tool call
served against the same call in process (served_calls.py)."""

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

from .lean_client import LeanConnection, lean_episode, tool_call_body
from .served_calls import bench_served_calls, cpu_seconds
from .timing import Bench, Figure, progress

TASK = "chat.set_topic"
READS = 11  # org_get_me calls before the task's own, for 12 calls an episode as a short rollout has
AGENTS = {"lean client": (1, 8, 32, 100), "official client": (8, 32)}  # the lean one measures the server
WORKERS = (1, 2)
SECONDS = 12.0  # per row, in ROUNDS slices (longer when the agents' first episodes take longer)
ROUNDS = 2
TOKEN = "bench-admin-token-0123456789"
SCALING_TARGET = 1.6  # 2 workers' episodes/s over 1 worker's, with the lean client


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(bench: Bench, workers: int, folder: Path, code: Path | None = None) -> tuple[subprocess.Popen, str]:
    """A server on the bench's world and backend, answering; its process and base URL. `code`: a
    folder holding another version's `officegym` package to serve instead of this one."""
    import httpx

    port = _free_port()
    env = dict(os.environ, OFFICEGYM_ADMIN_TOKEN=TOKEN, OFFICEGYM_EPISODES_DIR=str(folder),
               OFFICEGYM_DATABASE_URL=bench.store.settings.database_url, OFFICEGYM_HOME=str(bench.store.settings.home))
    if code is not None:
        env["PYTHONPATH"] = str(code)
    process = subprocess.Popen([sys.executable, "-m", "officegym.cli", "serve", "--scale", bench.scale, "--port",
                                str(port), "--workers", str(workers), "--episode-ttl", "0"], env=env, cwd=folder.parent,
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


async def _official_agents(base: str, count: int, solutions: list, seconds: float) -> tuple[int, int]:
    """Episodes and tool calls completed by `count` agents with the official client in `seconds`."""
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


async def _lean_agents(base: str, count: int, solutions: list, seconds: float) -> tuple[int, int]:
    """Episodes and tool calls completed by `count` agents with the lean client in `seconds`."""
    reads = [tool_call_body("org_get_me", {})] * READS
    encoded = [reads + [tool_call_body(call.tool, call.args) for call in solution] for solution in solutions]
    done = {"episodes": 0, "calls": 0}
    stop = time.perf_counter() + seconds

    async def agent(k: int) -> None:
        connection = LeanConnection(base, TOKEN)
        try:
            while time.perf_counter() < stop:
                instance = k % len(solutions)
                success, answered = await lean_episode(connection, TASK, instance, encoded[instance])
                done["episodes"] += success
                done["calls"] += answered
        finally:
            await connection.close()

    await asyncio.gather(*(agent(k) for k in range(count)))
    return done["episodes"], done["calls"]


CLIENTS = {"lean client": _lean_agents, "official client": _official_agents}


def _rollouts(servers: dict[int, subprocess.Popen], bases: dict[int, str], client: str, count: int,
              solutions: list) -> list[Figure]:
    """One throughput row per number of workers, the servers driven in turn (ROUNDS slices each,
    in an order that flips every round: 1, 2, 2, 1 workers) so that the machine's drift falls on
    both alike; with the CPU each episode cost the server and the agents."""
    totals = {workers: [0, 0, 0.0, 0.0, 0.0] for workers in servers}  # episodes, calls, s, CPU s
    for round_ in range(ROUNDS):
        for workers in (list(servers) if round_ % 2 == 0 else list(reversed(servers))):
            pid = servers[workers].pid
            started, server_cpu, agents_cpu = time.perf_counter(), cpu_seconds(pid), time.process_time()
            episodes, calls = asyncio.run(CLIENTS[client](bases[workers], count, solutions, SECONDS / ROUNDS))
            done = (episodes, calls, time.perf_counter() - started, cpu_seconds(pid) - server_cpu,
                    time.process_time() - agents_cpu)
            totals[workers] = [a + b for a, b in zip(totals[workers], done)]
    figures = []
    for workers, (episodes, calls, seconds, server_cpu, agents_cpu) in totals.items():
        per_episode = [1000 * server_cpu / max(episodes, 1), 1000 * agents_cpu / max(episodes, 1)]
        figures.append(Figure(
            f"served rollouts, {client}, {workers} worker(s), {count} agents", episodes, episodes / seconds, None,
            unit="episodes/s", note=f"{calls / seconds:.0f} tool calls/s; {TASK}: create, {READS + len(solutions[0])} "
            f"MCP calls, grade and delete; CPU per episode: server {per_episode[0]:.0f} ms, agents "
            f"{per_episode[1]:.0f} ms"))
    return figures


def bench_served(bench: Bench) -> list[Figure]:
    """Served calls against in-process ones (one worker), then served throughput at every number
    of agents, a server of 1 worker and one of 2 driven in turn."""
    world = bench.store.world(bench.scale)
    solutions = [bench.store.task_instance(world, TASK, k).solution for k in range(4)]
    figures: list[Figure] = []
    servers: dict[int, subprocess.Popen] = {}
    bases: dict[int, str] = {}
    with tempfile.TemporaryDirectory(prefix="officegym-served-") as folder:
        try:
            for workers in WORKERS:
                servers[workers], bases[workers] = start_server(bench, workers, Path(folder) / f"{workers}-workers")
            figures += bench_served_calls(bench, bases[1], {"Authorization": f"Bearer {TOKEN}"})
            for client, agents in CLIENTS.items():
                for base in bases.values():
                    asyncio.run(agents(base, 2, solutions, 1.0))  # warm up: first draws, first sessions
                for count in AGENTS[client][:2] if bench.quick else AGENTS[client]:
                    bench.step(f"served rollouts, {client}, {count} agents, {' and '.join(map(str, WORKERS))} "
                               "workers in turn")
                    figures += _rollouts(servers, bases, client, count, solutions)
        finally:
            for process in servers.values():
                process.send_signal(signal.SIGINT)
            for process in servers.values():
                process.wait(60)
    _compare_workers(figures)
    progress(f"[{bench.scale}/{bench.backend}] served rollouts done")
    return figures


def _compare_workers(figures: list[Figure]) -> None:
    """Give each 2-worker row its 1-worker row's rate, and the lean client's rows with several
    agents the target of scaling."""
    one = {f.name.replace(", 1 worker(s),", ","): f for f in figures if ", 1 worker(s)," in f.name}
    for figure in figures:
        base = one.get(figure.name.replace(", 2 worker(s),", ","))
        if ", 2 worker(s)," in figure.name and base is not None and base.p50:
            figure.one_worker_p50 = base.p50
            figure.note = f"{figure.p50 / base.p50:.2f}x 1 worker; {figure.note}"
            if figure.name.startswith("served rollouts, lean client") and not figure.name.endswith(", 1 agents"):
                figure.target = f"p50 >= {SCALING_TARGET}x 1 worker"  # one agent at a time uses one worker
