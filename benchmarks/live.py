"""Many live episodes in one process: LIVE idle episodes held by one store under a limit of 1024
open files (soft and hard, as a default `ulimit -n` gives a service), then a tool call in CALLS
episodes picked at random, then a second call in each (its connection closed again meanwhile),
each in turn with the same call in another store holding 10 episodes. Reports the resident memory
per live idle episode, the calls' p50/p95/p99, and the memory kept once the LIVE are deleted.

Each episode is opened once when made (as a create through the control API leaves it), so all but
the OFFICEGYM_OPEN_EPISODES most recently used have their connection closed; a call in one of those
opens it again. Runs in a process of its own (the limit of open files is the process's), on SQLite
at the small scale only; every episode is a copy of the world on disk (1.4 MB each at small on a
filesystem that cannot share blocks)."""

from __future__ import annotations

import gc
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio

from officegym.mcp_wrappers.server import call_served
from officegym.memory import return_free_memory

from .memory import KEPT_TARGET, resident_mb
from .timing import Bench, Figure, percentiles

LIVE = 10_000
BASELINE = 10
CALLS = 500
FILE_LIMIT = 1024


def _p99(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[int(0.99 * (len(ordered) - 1))]


def _call_ms(store, episode_id: str) -> float:
    """Milliseconds of one `org_get_me` call in episode `episode_id`, as a served call makes it."""
    started = time.perf_counter()
    served = store.get(episode_id)  # what a served call does first
    result = anyio.run(call_served, served, "org_get_me", {})
    if getattr(result, "is_error", False):
        raise RuntimeError(f"a call in episode {episode_id} failed: {result}")
    return (time.perf_counter() - started) * 1000


def _in_turn(many_store, picked: list, few_store, few: list, rng: random.Random) -> tuple[list, list]:
    """A call in each of `picked`, each followed by one in a random episode of `few` (the machine's
    drift then weighs on both alike); the two lists of milliseconds."""
    among, beside = [], []
    for episode in picked:
        among.append(_call_ms(many_store, episode))
        beside.append(_call_ms(few_store, rng.choice(few)))
    return among, beside


def _opened(store, scale: str) -> str:
    """The id of a new episode whose database was opened once, as the control API leaves it (a
    server holds no object of its own for an episode, only what the store keeps)."""
    episode = store.create(scale=scale)
    with episode.session() as session:
        session.connection()
    return episode.id


def measure_live(scale: str, live: int, calls: int) -> dict:
    """In this process (its open-file limit already set): the memory of `live` episodes in one
    store, and calls among them in turn with calls in another store of BASELINE episodes."""
    from officegym.episodes import EpisodeStore

    rng = random.Random(0)
    few_store = EpisodeStore()
    few = [_opened(few_store, scale) for _ in range(BASELINE)]
    for episode in few * 2:  # warm: the tool catalogue, compiled statements, the shared MCP server
        _call_ms(few_store, episode)
    store = EpisodeStore()
    gc.collect()
    before, started = resident_mb(), time.perf_counter()
    many = [_opened(store, scale) for _ in range(live)]
    made_seconds = time.perf_counter() - started
    gc.collect()
    held = resident_mb() - before
    picked = rng.sample(many, calls)
    first, baseline = _in_turn(store, picked, few_store, few, rng)  # first calls: each file opened
    later, baseline_later = _in_turn(store, picked, few_store, few, rng)  # closed again meanwhile: opened again
    found = {"live": live, "held_mb": resident_mb() - before, "idle_mb": held, "create_ms": 1000 * made_seconds / live,
             "baseline": baseline + baseline_later, "first": first, "later": later, "open": len(store.open_episodes),
             "files": len(os.listdir("/proc/self/fd")), "limit": resource.getrlimit(resource.RLIMIT_NOFILE)[0]}
    for episode_id in many:
        store.delete(episode_id)
    many.clear()
    picked.clear()
    gc.collect()
    return_free_memory()
    return {**found, "kept_mb": resident_mb() - before}


def _among(found: dict, key: str, what: str, base_p50: float, where: str) -> Figure:
    """The row of the calls `found[key]` among the many live episodes."""
    p50, p95 = percentiles(found[key])
    return Figure(f"tool call among {found['live']:,} live episodes, {what}", len(found[key]), p50, p95,
                  note=f"org_get_me, {len(found[key])} episodes drawn at random; p99 {_p99(found[key]):.2f} ms; "
                       f"{p50 / base_p50:.1f}x the p50 among {BASELINE}; {where}")


def _kept_note(found: dict) -> str:
    """What share of the memory the episodes held stayed after they were deleted, and the target."""
    share = 100 * max(found["kept_mb"], 0.0) / found["held_mb"]
    return (f"{share:.1f}% of the {found['held_mb']:.0f} MB they held after {2 * len(found['first'])} calls; "
            f"target at most {100 * KEPT_TARGET:.0f}% ({'met' if share <= 100 * KEPT_TARGET else 'not met'})")


def bench_live(bench: Bench) -> list[Figure]:
    """The LIVE-episode rows (SQLite, small scale only)."""
    if bench.backend != "sqlite" or bench.scale != "small":
        return []
    live, calls = (LIVE // 5 if bench.quick else LIVE), CALLS  # more calls than episodes kept open
    settings = bench.store.settings
    with tempfile.TemporaryDirectory(prefix="live-", dir=settings.episodes_dir.parent) as folder:
        env = {**os.environ, "OFFICEGYM_HOME": str(settings.home), "OFFICEGYM_EPISODES_DIR": folder,
               "OFFICEGYM_POOL_SIZE": "0"}
        done = subprocess.run([sys.executable, "-m", "benchmarks.live", bench.scale, str(live), str(calls)],
                              capture_output=True, text=True, env=env, cwd=Path(__file__).resolve().parent.parent,
                              timeout=7200)
    if done.returncode != 0:
        raise RuntimeError(f"the live-episodes process failed: {done.stderr.strip().splitlines()[-1:]}")
    found = json.loads(done.stdout.strip().splitlines()[-1])
    where = (f"{found['live']:,} live episodes, ulimit -n {found['limit']}: {found['files']} files open, "
             f"{found['open']} episodes connected")
    base_p50, base_p95 = percentiles(found["baseline"])
    return [
        Figure(f"memory per live idle episode ({found['live']:,} in one process)", found["live"],
               1024 * found["idle_mb"] / found["live"], None, unit="KB",
               note=f"{found['idle_mb']:.0f} MB resident; {where}; made at {found['create_ms']:.1f} ms each"),
        Figure(f"memory kept after deleting {found['live']:,} episodes", found["live"], max(found["kept_mb"], 0.0),
               None, unit="MB", note=_kept_note(found)),
        Figure(f"tool call in a store of {BASELINE} live episodes", len(found["baseline"]), base_p50, base_p95,
               note=f"org_get_me in random episodes, in turn with the calls below; p99 "
                    f"{_p99(found['baseline']):.2f} ms"),
        *(_among(found, key, what, base_p50, where) for key, what in (
            ("first", "first call in an idle episode (its database opened)"),
            ("later", "later call in an idle episode (its database opened again)"))),
    ]


if __name__ == "__main__":
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    limit = FILE_LIMIT if hard == resource.RLIM_INFINITY else min(FILE_LIMIT, hard)
    resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))  # hard too: the store cannot raise it
    print(json.dumps(measure_live(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))))
