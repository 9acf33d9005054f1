"""Measuring helpers: a row of the table (`Figure`), the context every benchmark gets (`Bench`),
and `measure`, which runs a callable many times and reports p50/p95 in milliseconds."""

from __future__ import annotations

import statistics
import sys
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Awaitable, Callable

if TYPE_CHECKING:  # pragma: no cover
    from officegym.episodes import EpisodeStore

# Scales at which the design's absolute targets apply (DESIGN.md, Performance: small/medium, SQLite).
TARGET_SCALES = ("tiny", "small", "medium")


@dataclass
class Figure:
    """One row of the benchmark table. `kind` is "tool" or "page" for the rows whose time at
    medium and large is compared with small; `queries` is the SQL statements one call ran."""

    name: str
    runs: int
    p50: float
    p95: float | None
    target: str = ""
    note: str = ""
    unit: str = "ms"
    kind: str = ""
    queries: int | None = None
    scale: str = ""
    backend: str = ""


@dataclass
class Bench:
    """What a benchmark function works on: one store (one backend), one scale, and how many
    repetitions to make (`--quick` makes a fifth of them)."""

    store: "EpisodeStore"
    scale: str
    backend: str
    quick: bool = False

    def runs(self, n: int) -> int:
        """`n` repetitions, or a fifth of them (at least 10) with --quick."""
        return max(10, n // 5) if self.quick else n

    def target(self, text: str) -> str:
        """An absolute design target, which holds on SQLite at small and medium only."""
        return text if self.backend == "sqlite" and self.scale in TARGET_SCALES else ""

    def step(self, what: str) -> None:
        """Say on stderr what runs now (the table goes to stdout at the end)."""
        progress(f"[{self.scale}/{self.backend}] {what} ...")


def progress(text: str) -> None:
    """One progress line on stderr."""
    print(text, file=sys.stderr, flush=True)


def percentiles(samples: list[float]) -> tuple[float, float]:
    """p50 and p95 of some samples."""
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[int(0.95 * (len(ordered) - 1))]


# A row stops repeating after this many seconds (once it has MIN_RUNS samples), so that slow
# operations at large scale (grading a big world) do not hold the table up for many minutes.
BUDGET_SECONDS = 15.0
MIN_RUNS = 10


def measure(name: str, fn: Callable[[], object], runs: int = 100, warmup: int = 5, target: str = "",
            note: str = "", kind: str = "") -> Figure:
    """Time `fn` `runs` times after `warmup` calls (fewer of both when the time budget runs out)."""
    warm_until = time.perf_counter() + BUDGET_SECONDS / 5
    for _ in range(warmup):
        fn()
        if time.perf_counter() > warm_until:
            break
    samples = []
    deadline = time.perf_counter() + BUDGET_SECONDS
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
        if len(samples) >= MIN_RUNS and start > deadline:
            break
    p50, p95 = percentiles(samples)
    return Figure(name, len(samples), p50, p95, target, note, kind=kind)


async def measure_async(call: Callable[[], Awaitable[object]], runs: int, warmup: int = 20) -> list[float]:
    """Milliseconds of `runs` awaited calls after `warmup` ones (fewer of both when the time budget
    runs out, as in `measure`); a result with `is_error` set fails the benchmark."""
    samples: list[float] = []
    warm_until, deadline = time.perf_counter() + BUDGET_SECONDS / 5, None
    while len(samples) < runs:
        start = time.perf_counter()
        result = await call()
        assert not getattr(result, "is_error", False), result
        if deadline is None:  # still warming up
            warmup -= 1
            if warmup <= 0 or start > warm_until:
                deadline = time.perf_counter() + BUDGET_SECONDS
            continue
        samples.append((time.perf_counter() - start) * 1000)
        if len(samples) >= MIN_RUNS and start > deadline:
            break
    return samples
