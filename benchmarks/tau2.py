"""Reset side by side with τ²-bench, when it is installed: its environment construction for each
domain (what its harness does at the start of every task) against officegym's reset of a task
episode and of a free episode from the warm pool (what a served episode gets), measured in the
same run.

τ²-bench is not on PyPI (the PyPI package named `tau2` is another project) and needs Python 3.12
or later. Install it from its repository into any environment and point OFFICEGYM_TAU2_PYTHON at
that environment's interpreter, or, when officegym's own environment runs Python 3.12 or later,
install officegym's `tau2-bench` extra there. Without it, the benchmark gives one row that says so."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys

from .pool import pooled_resets, warm_pool
from .timing import Bench, Figure, figure_of, percentiles

DOMAINS = ("retail", "airline", "telecom")
TASK = "chat.reply_with_fact"
PYTHON_VARIABLE = "OFFICEGYM_TAU2_PYTHON"

# Run by τ²-bench's interpreter: each domain's environment made once untimed, then `runs` times.
CONSTRUCT = """
import json, sys, time
from tau2.registry import registry
runs, found = int(sys.argv[1]), {}
for domain in sys.argv[2:]:
    try:
        construct = registry.get_env_constructor(domain)
        construct()
        samples = []
        for _ in range(runs):
            started = time.perf_counter()
            construct()
            samples.append(1000 * (time.perf_counter() - started))
        found[domain] = samples
    except Exception as error:
        found[domain] = f"{type(error).__name__}: {error}"
print(json.dumps(found))
"""


def tau2_python() -> str | None:
    """The interpreter that has τ²-bench: OFFICEGYM_TAU2_PYTHON, else this one when it has it."""
    if os.environ.get(PYTHON_VARIABLE):
        return os.environ[PYTHON_VARIABLE]
    return sys.executable if importlib.util.find_spec("tau2") else None


def construction_times(python: str, runs: int) -> dict[str, list[float] | str]:
    """Each domain's construction times in milliseconds, or why it could not be made."""
    done = subprocess.run([python, "-c", CONSTRUCT, str(runs), *DOMAINS], capture_output=True, text=True,
                          timeout=1800, env=dict(os.environ, LOGURU_LEVEL="ERROR"))
    if done.returncode != 0:
        raise RuntimeError(f"τ²-bench's interpreter failed: {done.stderr.strip().splitlines()[-1:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def bench_tau2(bench: Bench) -> list[Figure]:
    """τ²-bench's environment construction per domain beside officegym's resets (small world only:
    τ²-bench has one size)."""
    if bench.scale != "small":
        return []
    python = tau2_python()
    if python is None:
        return [Figure("τ²-bench environment construction", 0, float("nan"), None, note=f"τ²-bench is not "
                       f"installed: set {PYTHON_VARIABLE} to the interpreter of an environment that has it")]
    store, runs = bench.store, bench.runs(50)
    with warm_pool(bench):
        task = pooled_resets(bench, lambda: store.create(TASK, 0, bench.scale))[0]
        free = pooled_resets(bench, lambda: store.create(scale=bench.scale))[0]
    ours = [figure_of(f"reset task episode ({TASK}), warm pool, beside τ²-bench", [task]),
            figure_of("reset free episode, warm pool, beside τ²-bench", [free])]
    figures = []
    for domain, samples in construction_times(python, runs).items():
        if isinstance(samples, str):
            figures.append(Figure(f"τ²-bench environment construction, {domain}", 0, float("nan"), None,
                                  note=f"could not be made: {samples}"[:200]))
            continue
        p50, p95 = percentiles(samples)
        figures.append(Figure(f"τ²-bench environment construction, {domain}", len(samples), p50, p95,
                              note=f"{p50 / ours[0].p50:.1f}x officegym's task episode reset in the same run "
                                   f"({ours[0].p50:.2f} ms); free episode {ours[1].p50:.2f} ms"))
    return ours + figures
