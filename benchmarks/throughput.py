"""Episodes per second of the oracle runner (`officegym run --agent oracle --parallel N`) on a
fixed sample of tasks: create, replay the reference solution through the MCP client, grade, delete."""

from __future__ import annotations

import time

from officegym.runner import run

from .timing import Bench, Figure

# Two tasks per app and two cross-app ones, with and without setup.
SAMPLE = ("chat.reply_with_fact,chat.set_topic,crm.close_won_deal,crm.update_next_step,"
          "tickets.close_duplicates,tickets.assign_new_ticket,sheets.set_budget_line,sheets.share_workbook,"
          "x.close_won_announced_deal,x.triage_reported_incident")
PARALLEL = (1, 4)


def bench_throughput(bench: Bench) -> list[Figure]:
    """One untimed pass (draws the instances and builds their start files), then one timed pass per
    level of parallelism."""
    instances = 1 if bench.quick else 2
    list(run(bench.store, "oracle", SAMPLE, instances, bench.scale))
    figures = []
    for parallel in PARALLEL:
        start = time.perf_counter()
        results = list(run(bench.store, "oracle", SAMPLE, instances, bench.scale, parallel=parallel))
        seconds = time.perf_counter() - start
        solved = sum(1 for r in results if r["success"])
        figures.append(Figure(f"oracle runner, --parallel {parallel}", len(results), len(results) / seconds, None,
                              unit="episodes/s",
                              note=f"{len(SAMPLE.split(','))} tasks x {instances}, {solved}/{len(results)} solved, "
                                   f"{seconds:.1f} s"))
    return figures
