"""Measuring helpers: run a callable many times and report p50/p95 in milliseconds."""

from __future__ import annotations

import re
import statistics
import time
from dataclasses import dataclass
from typing import Callable


@dataclass
class Figure:
    """One row of the benchmark table."""

    name: str
    runs: int
    p50_ms: float
    p95_ms: float
    target: str = ""
    note: str = ""


def measure(name: str, fn: Callable[[], object], runs: int = 100, warmup: int = 5, target: str = "",
            note: str = "") -> Figure:
    """Time `fn` `runs` times after `warmup` calls."""
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    samples.sort()
    return Figure(name, runs, statistics.median(samples), samples[int(0.95 * (runs - 1))], target, note)


def met(figure: Figure) -> str:
    """"yes" or "no" for a target of the form "p50 <= N ms"; empty without one."""
    match = re.fullmatch(r"p(50|95) <= ([0-9.]+) ms", figure.target)
    if not match:
        return ""
    value = figure.p50_ms if match.group(1) == "50" else figure.p95_ms
    return "yes" if value <= float(match.group(2)) else "no"


def table(figures: list[Figure]) -> str:
    """The figures as an aligned text table (also valid Markdown)."""
    lines = ["| benchmark | runs | p50 ms | p95 ms | target | met | note |", "|---|---:|---:|---:|---|---|---|"]
    for f in figures:
        lines.append(f"| {f.name} | {f.runs} | {f.p50_ms:.2f} | {f.p95_ms:.2f} | {f.target} | {met(f)} | {f.note} |")
    return "\n".join(lines)
