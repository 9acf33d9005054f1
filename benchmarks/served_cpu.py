"""Server CPU per served rollout, beside an earlier version's server on the same machine.

A rollout is what a served agent does with one episode: create it through the control API, 12 MCP
tool calls (eleven reads, then the task's own write), grade and delete it. Two one-worker servers
run side by side, this version's and the version `OFFICEGYM_BENCH_BASE` names (a git revision,
default BASE: the server before the work on served CPU began, whose files `git archive` unpacks
into a temporary folder), and the lean client's
agents drive them in turn, in slices whose order flips every round, so that a shared machine's
drift falls on both alike. The figure is the CPU time (user and system, not wall time) the
server's processes spent per rollout; its target is half the earlier version's. Runs on the small
world only, where a rollout's cost is the server's own, not the data's."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import tempfile
from pathlib import Path

from .served import TASK, _lean_agents, start_server
from .served_calls import cpu_seconds
from .timing import Bench, Figure, progress

AGENTS = 8
SLICE = 5.0  # seconds
ROUNDS = 6
TARGET = 0.5  # this version's CPU per rollout over the earlier version's
BASE = "76e84d7"  # 82824ab^: the last server before the served CPU per rollout was worked on
PACKAGES = ("apps", "mcp_wrappers", "seed_data", "tasks", "graders")  # mapped into officegym.* (pyproject.toml)


def unpack_version(revision: str, folder: Path) -> Path | None:
    """The package of `revision` laid out for PYTHONPATH in `folder`, or None outside a git checkout."""
    root = Path(__file__).resolve().parent.parent
    archive = subprocess.run(["git", "-C", str(root), "archive", revision], capture_output=True)
    if archive.returncode != 0:
        return None
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)
    for name in PACKAGES:
        (folder / "officegym" / name).symlink_to(folder / name, target_is_directory=True)
    return folder


def _cpu_per_rollout(servers: dict, solutions: list, rounds: int) -> dict[str, tuple[float, int]]:
    """Server CPU milliseconds per successful rollout, and the rollouts, of each server."""
    totals = {name: [0.0, 0] for name in servers}
    for round_ in range(rounds):
        for name in list(servers) if round_ % 2 == 0 else list(reversed(servers)):
            process, base = servers[name]
            before = cpu_seconds(process.pid)
            episodes, _ = asyncio.run(_lean_agents(base, AGENTS, solutions, SLICE))
            totals[name][0] += cpu_seconds(process.pid) - before
            totals[name][1] += episodes
    return {name: (1000 * cpu / max(done, 1), done) for name, (cpu, done) in totals.items()}


def bench_server_cpu(bench: Bench) -> list[Figure]:
    """The row of server CPU per served rollout, with the earlier version's beside it."""
    if bench.scale != "small":
        return []
    revision = os.environ.get("OFFICEGYM_BENCH_BASE", BASE)
    world = bench.store.world(bench.scale)
    solutions = [bench.store.task_instance(world, TASK, k).solution for k in range(4)]
    servers: dict[str, tuple[subprocess.Popen, str]] = {}
    with tempfile.TemporaryDirectory(prefix="officegym-cpu-") as folder:
        earlier = unpack_version(revision, Path(folder) / "code")
        try:
            servers["this"] = start_server(bench, 1, Path(folder) / "this")
            if earlier is not None:
                servers["earlier"] = start_server(bench, 1, Path(folder) / "earlier", code=earlier)
            for _, base in servers.values():
                asyncio.run(_lean_agents(base, 2, solutions, 1.0))  # warm up
            bench.step(f"server CPU per served rollout, beside {revision}")
            found = _cpu_per_rollout(servers, solutions, 2 if bench.quick else ROUNDS)
        finally:
            for process, _ in servers.values():
                process.send_signal(signal.SIGINT)
            for process, _ in servers.values():
                process.wait(60)
    progress(f"[{bench.scale}/{bench.backend}] server CPU per rollout done")
    mine, done = found["this"]
    figure = Figure("server CPU per served rollout", done, mine, None,
                    note=f"{TASK}: create, 12 MCP calls, grade, delete; {AGENTS} lean agents, 1 worker")
    if "earlier" in found:
        theirs, _ = found["earlier"]
        figure.target = f"p50 <= {TARGET * theirs:.1f} ms"
        figure.note += f"; {revision}'s server beside it: {theirs:.1f} ms ({mine / theirs:.2f}x; target {TARGET}x)"
    return [figure]
