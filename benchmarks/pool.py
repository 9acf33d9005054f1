"""Resets from the warm pool: the episode is a ready copy handed over, with the pool refilled
between resets (as it is while an episode runs); the pool's cost is reported beside: the time to
make a copy and the disk one takes."""

from __future__ import annotations

import time
from contextlib import contextmanager
from typing import Callable, Iterator

from .timing import Bench, Figure, percentiles

POOL_TARGETS = {"sqlite": "p50 <= 5 ms", "postgresql": "p50 <= 20 ms"}
POOL_SIZE = 2


def copy_size(bench: Bench, episode) -> str:
    """The disk a ready copy takes."""
    if bench.backend == "sqlite":
        return f"{episode.path.stat().st_size / 1e6:.1f} MB a copy (less on XFS or btrfs: blocks shared)"
    from sqlalchemy import text

    with bench.store.backend.admin.connect() as conn:
        size = conn.scalar(text("SELECT pg_database_size(:name)"), {"name": episode.database.name})
    return f"{size / 1e6:.1f} MB a copy"


@contextmanager
def warm_pool(bench: Bench) -> Iterator:
    """The store's pool, turned on (POOL_SIZE copies a start) for the block, then off and drained."""
    pool = bench.store.backend.pool
    pool.size = POOL_SIZE
    try:
        yield pool
    finally:
        pool.size = 0
        pool.wait_full(600)
        pool.drain()


def pooled_resets(bench: Bench, make: Callable[[], object]) -> tuple[list[float], str]:
    """Milliseconds of resets by `make`, each from a full pool (after a first reset that makes the
    pool learn the start), and the disk a ready copy takes."""
    store, pool = bench.store, bench.store.backend.pool
    store.delete(make().id)  # the pool learns this start and fills
    samples = []
    for _ in range(bench.runs(50)):
        pool.wait_full(600)
        started = time.perf_counter()
        episode = make()
        samples.append((time.perf_counter() - started) * 1000)
        if len(samples) == 1:
            disk = copy_size(bench, episode)
        store.delete(episode.id)
    return samples, disk


def bench_pool(bench: Bench) -> list[Figure]:
    """Pooled resets of the free world and of a task with a setup."""
    store, figures = bench.store, []
    with warm_pool(bench) as pool:
        for name, make in (("free episode", lambda: store.create(scale=bench.scale)),
                           ("task episode", lambda: store.create("chat.reply_with_fact", 0, bench.scale))):
            samples, disk = pooled_resets(bench, make)
            p50, p95 = percentiles(samples)
            refill = percentiles([s * 1000 for s in pool.refills[-50:]])[0]
            figures.append(Figure(f"reset {name}, warm pool", len(samples), p50, p95, POOL_TARGETS[bench.backend],
                                  f"{pool.size} ready copies, refilled between resets in {refill:.0f} ms each; {disk}"))
    return figures
