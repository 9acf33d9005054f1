"""Measuring helpers: a row of the table (`Figure`), the context every benchmark gets (`Bench`),
`measure`, which runs a callable many times and reports p50/p95 in milliseconds, and the recording
of the SQL statements a call runs (the table's `queries` column)."""

from __future__ import annotations

import statistics
import sys
import time
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Awaitable, Callable, Iterator

from sqlalchemy import event
from sqlalchemy.engine import Engine

if TYPE_CHECKING:  # pragma: no cover
    from officegym.episodes import EpisodeStore

# Scales at which the absolute targets (such as "p50 <= 3 ms") apply, on SQLite.
TARGET_SCALES = ("tiny", "small", "medium")


@dataclass
class Figure:
    """One row of the benchmark table. `kind` is "tool" or "page" for the rows whose time at
    medium and large is compared with small; `small_p50` is that small-world time when it was
    measured in turn with this row's calls; `queries` is the SQL statements one call ran;
    `in_process_p50` is, for a served call, the same call's p50 in process; `one_worker_p50` is, for
    a rate served by 2 workers, the same rate served by 1."""

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
    small_p50: float | None = None
    in_process_p50: float | None = None
    one_worker_p50: float | None = None


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

    @property
    def paired(self) -> bool:
        """Whether rows compared with small are timed in turn with the same work on a small episode."""
        return self.scale in ("medium", "large")

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


def figure_of(name: str, samples: list[list[float]], target: str = "", note: str = "", kind: str = "") -> Figure:
    """A row from the samples of measure_each: the first function's, and as `small_p50` the p50 of
    the second (the same work on the small world) when there is one."""
    p50, p95 = percentiles(samples[0])
    figure = Figure(name, len(samples[0]), p50, p95, target, note, kind=kind)
    figure.small_p50 = percentiles(samples[1])[0] if len(samples) > 1 else None
    return figure


def measure(name: str, fn: Callable[[], object], runs: int = 100, warmup: int = 5, target: str = "",
            note: str = "", kind: str = "", baseline: Callable[[], object] | None = None) -> Figure:
    """Time `fn` `runs` times after `warmup` calls (fewer of both when the time budget runs out).
    With `baseline` (the same work on the small world) the two are called in turn and the
    figure carries the baseline's p50 as `small_p50`."""
    samples = measure_each([fn] if baseline is None else [fn, baseline], runs, warmup)
    return figure_of(name, samples, target, note, kind)


class Rounds:
    """The pacing of measure_each: warm-up rounds, then `runs` rounds (fewer once the time budget
    is spent, with at least MIN_RUNS), each calling every measured function once, in an order
    that flips every round so that none always runs warm after the other. Calling them in turn
    cancels the machine's drift out of their ratio."""

    def __init__(self, count: int, runs: int, warmup: int):
        self.samples: list[list[float]] = [[] for _ in range(count)]
        self.runs, self.warmup, self.rounds = runs, warmup, 0
        self.warm_until, self.deadline, self.started = time.perf_counter() + BUDGET_SECONDS / 5, None, 0.0

    def more(self) -> bool:
        """Whether to run another round (and note when it starts)."""
        done = len(self.samples[0])
        if done >= self.runs or (done >= MIN_RUNS and self.started > self.deadline):
            return False
        self.started = time.perf_counter()
        return True

    def order(self) -> list[int]:
        """The functions' indexes in this round's order."""
        indexes = list(range(len(self.samples)))
        return indexes if self.rounds % 2 == 0 else indexes[::-1]

    def record(self, taken: list[tuple[int, float]]) -> None:
        """A round's (index, milliseconds), kept once the warm-up is over."""
        self.rounds += 1
        if self.deadline is None:
            self.warmup -= 1
            if self.warmup <= 0 or self.started > self.warm_until:
                self.deadline = time.perf_counter() + BUDGET_SECONDS
            return
        for index, ms in taken:
            self.samples[index].append(ms)


def measure_each(fns: list[Callable[[], object]], runs: int, warmup: int = 5) -> list[list[float]]:
    """Milliseconds of each of `fns`, called in turn round after round (see Rounds)."""
    rounds = Rounds(len(fns), runs, warmup)
    while rounds.more():
        taken = []
        for index in rounds.order():
            start = time.perf_counter()
            fns[index]()
            taken.append((index, (time.perf_counter() - start) * 1000))
        rounds.record(taken)
    return rounds.samples


async def measure_async(call: Callable[[], Awaitable[object]], runs: int, warmup: int = 20) -> list[float]:
    """Milliseconds of `runs` awaited calls after `warmup` ones (fewer of both when the time budget
    runs out, as in `measure`); a result with `is_error` set fails the benchmark."""
    return (await measure_async_each([call], runs, warmup))[0]


async def measure_async_each(calls: list[Callable[[], Awaitable[object]]], runs: int,
                             warmup: int = 20) -> list[list[float]]:
    """`measure_each` for awaited calls; a result with `is_error` set fails the benchmark."""
    rounds = Rounds(len(calls), runs, warmup)
    while rounds.more():
        taken = []
        for index in rounds.order():
            start = time.perf_counter()
            result = await calls[index]()
            taken.append((index, (time.perf_counter() - start) * 1000))
            assert not getattr(result, "is_error", False), result
        rounds.record(taken)
    return rounds.samples


@contextmanager
def recording(engine: Engine) -> Iterator[list[str]]:
    """Collect the text of every statement run on `engine` inside the block."""
    statements: list[str] = []

    def before(conn, cursor, statement, parameters, context, executemany):  # noqa: ANN001 - SQLAlchemy's hook
        statements.append(statement)

    event.listen(engine, "before_cursor_execute", before)
    try:
        yield statements
    finally:
        event.remove(engine, "before_cursor_execute", before)


def count_queries(engine: Engine, fn: Callable[[], object]) -> int:
    """How many statements one call of `fn` runs on `engine`."""
    with recording(engine) as statements:
        fn()
    return len(statements)


def repeated(statements: list[str], top: int = 3) -> list[tuple[int, str]]:
    """The statements run more than once, most repeated first, shortened to one line."""
    counts = Counter(" ".join(s.split())[:140] for s in statements)
    return [(n, text) for text, n in counts.most_common(top) if n > 1]
