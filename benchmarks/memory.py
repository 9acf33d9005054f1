"""Memory: what a live episode holds in the serving process (its connection, after one tool call
through its tool set's shared MCP server), and how much of it the process still holds once the
episodes are deleted."""

from __future__ import annotations

import gc
from pathlib import Path

import anyio

from officegym.mcp_wrappers.server import call_served
from officegym.memory import return_free_memory

from .timing import Bench, Figure

EPISODES = 200


def resident_mb() -> float:
    """This process's resident memory, in MB."""
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * 4096 / 2**20


def _settled_mb() -> float:
    gc.collect()
    return_free_memory()
    return resident_mb()


def bench_memory(bench: Bench) -> list[Figure]:
    """Resident memory per live episode, and what is left of it after deleting them all. On
    PostgreSQL the database server's own processes hold the rest, which this does not count."""
    count = EPISODES // 2 if bench.quick else EPISODES

    def used(episode) -> None:
        anyio.run(call_served, episode, "org_get_me", {})

    first = bench.store.create(scale=bench.scale)  # loads what every episode of the process shares
    used(first)
    bench.store.delete(first.id)
    bench.step(f"memory of {count} live episodes")
    before = _settled_mb()
    made = []
    for _ in range(count):
        made.append(bench.store.create(scale=bench.scale))
        used(made[-1])
    gc.collect()
    held = resident_mb() - before
    for episode in made:
        bench.store.delete(episode.id)
    made.clear()
    kept = _settled_mb() - before
    return [Figure("memory per live episode (after one MCP call)", count, 1024 * held / count, None, unit="KB",
                   note=f"{count} episodes: {held:.0f} MB resident"),
            Figure(f"memory kept after deleting {count} episodes", count, max(kept, 0.0), None, unit="MB",
                   note=f"{100 * max(kept, 0.0) / held:.0f}% of the {held:.0f} MB they held" if held > 0 else "")]
