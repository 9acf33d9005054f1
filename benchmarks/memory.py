"""Memory: what a live episode holds in the serving process (after one tool call through its tool
set's shared MCP server; the OFFICEGYM_OPEN_EPISODES used most recently keep their connection),
and how much of it the process still holds once the episodes are deleted (the target: at most 5%
of what they held)."""

from __future__ import annotations

import gc
from pathlib import Path

import anyio

from officegym.mcp_wrappers.server import call_served
from officegym.memory import return_free_memory

from .timing import Bench, Figure

EPISODES = 1_000
KEPT_TARGET = 0.05  # of what the episodes held


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
    made = []  # ids only: a server holds no object of its own for an idle episode
    for _ in range(count):
        made.append(bench.store.create(scale=bench.scale).id)
        used(bench.store.get(made[-1]))
    gc.collect()
    held = resident_mb() - before
    for episode_id in made:
        bench.store.delete(episode_id)
    made.clear()
    kept = _settled_mb() - before
    share = 100 * max(kept, 0.0) / held if held > 0 else 0.0
    return [Figure("memory per live episode (after one MCP call)", count, 1024 * held / count, None, unit="KB",
                   note=f"{count} episodes: {held:.0f} MB resident"),
            Figure(f"memory kept after deleting {count} episodes", count, max(kept, 0.0), None, unit="MB",
                   note=f"{share:.1f}% of the {held:.0f} MB they held; target at most {100 * KEPT_TARGET:.0f}% "
                        f"({'met' if share <= 100 * KEPT_TARGET else 'not met'})")]
