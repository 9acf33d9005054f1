"""`make bench`: every benchmark at every scale (small, medium, large) on every backend asked for,
printed as one table: world build time and size, reset, MCP tool calls and UI pages (with their
time relative to the small world), the tickets query and sheets, grading, and the oracle runner's
episodes per second; then the task suite's shape (benchmarks.suite: trajectory lengths, apps,
handbook rules, decisions, events, declared difficulties, and the deep suite's targets). Progress
goes to stderr, the tables to stdout."""

from __future__ import annotations

import argparse
import sys
import time

from .backends import BACKENDS, DEFAULT_BACKENDS
from .report import table
from .scales import BENCHES, run_scale
from .suite import draw_all, suite_table
from .timing import progress


def _names(text: str, known, what: str) -> list[str]:
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in known]
    if unknown or not names:
        raise SystemExit(f"unknown {what} {', '.join(unknown) or '(none given)'}; choose from {', '.join(known)}")
    return names


def main(argv: list[str] | None = None) -> int:
    """Run the benchmarks and print the table."""
    from officegym.seed_data.world import SCALES

    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("--scales", default="small,medium,large", help="comma-separated (default: %(default)s)")
    parser.add_argument("--backends", default=DEFAULT_BACKENDS,
                        help=f"comma-separated, of {', '.join(BACKENDS)} (default: %(default)s)")
    parser.add_argument("--only", default=",".join(BENCHES), help="benchmarks to run (default: all: %(default)s)")
    parser.add_argument("--quick", action="store_true", help="a fifth of the repetitions")
    parser.add_argument("--cached", action="store_true",
                        help="use the world cache of OFFICEGYM_HOME instead of timing a build into a fresh one")
    options = parser.parse_args(argv)
    scales = _names(options.scales, SCALES, "scale")
    backends = _names(options.backends, BACKENDS, "backend")
    benches = _names(options.only, BENCHES, "benchmark")
    figures, start = [], time.perf_counter()
    for backend in backends:
        for scale in scales:
            figures += run_scale(backend, scale, benches, options.quick, options.cached)
    progress(f"benchmarks done in {time.perf_counter() - start:.0f} s")
    print(table(figures, backends))
    print("\nTask suite (reference trajectories, instances 0-2 of every template):\n")
    print(suite_table(draw_all()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
