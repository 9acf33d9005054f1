"""The task suite's shape, for the whole suite, per kind and per difficulty: how long the reference
trajectories are (median and p90 tool calls), how many apps they touch, how many handbook rules the
templates need without the instruction stating them, and the share of instances whose right outcome
refuses something asked (all of it, or part of it). Instances are drawn on each template's own world
(small, or medium for workflows and decisions)."""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from officegym.db import make_sessionmaker, sqlite_engine
from officegym.tasks.base import KINDS
from officegym.tasks.registry import all_tasks
from officegym.worlds import ensure_world

INSTANCES = 3  # drawn per template


@dataclass
class Drawn:
    """One drawn instance, as the table counts it."""

    kind: str
    difficulty: int
    calls: int
    apps: int
    rules: int
    refuses: bool  # the right outcome refuses all or part of what was asked


def apps_of(solution) -> set[str]:
    """The apps a reference trajectory's tools belong to (org_ directory tools count as `org`)."""
    return {step.tool.split("_", 1)[0] for step in solution} - {"submit"}


def draw_all(instances: int = INSTANCES) -> list[Drawn]:
    """Draw `instances` instances of every template on its own world."""
    drawn, sessions = [], {}
    try:
        for template in all_tasks():
            if template.scale not in sessions:
                engine = sqlite_engine(str(ensure_world(template.scale, 0).path), readonly=True)
                sessions[template.scale] = (engine, make_sessionmaker(engine)())
            session = sessions[template.scale][1]
            for k in range(instances):
                inst = template.make(session, k, 0)
                drawn.append(Drawn(template.kind, template.difficulty, len(inst.solution), len(apps_of(inst.solution)),
                                   len(template.rules), inst.outcome.refuse > 0))
    finally:
        for engine, session in sessions.values():
            session.close()
            engine.dispose()
    return drawn


def _p90(values: list[int]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(0.9 * (len(ordered) - 1))))]


def _row(label: str, group: list[Drawn]) -> str:
    calls = [d.calls for d in group]
    apps = [d.apps for d in group]
    return (f"| {label} | {len(group)} | {statistics.median(calls):g} | {_p90(calls):g} | "
            f"{statistics.mean(apps):.1f} | {sum(a >= 3 for a in apps) / len(group):.0%} | "
            f"{statistics.mean(d.rules for d in group):.1f} | {sum(d.rules > 0 for d in group) / len(group):.0%} | "
            f"{sum(d.refuses for d in group) / len(group):.0%} |")


def suite_table(drawn: list[Drawn]) -> str:
    """The Markdown table: the whole suite, each kind, each difficulty."""
    lines = ["| tasks | instances | median calls | p90 calls | apps touched | 3+ apps | handbook rules | "
             "with a rule | refuse all or part |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|", _row("all", drawn)]
    for kind in KINDS:
        group = [d for d in drawn if d.kind == kind]
        if group:
            lines.append(_row(f"kind {kind}", group))
    for level in sorted({d.difficulty for d in drawn}):
        lines.append(_row(f"difficulty {level}", [d for d in drawn if d.difficulty == level]))
    return "\n".join(lines)


def main() -> None:
    """Print the suite's table."""
    print(suite_table(draw_all()))


if __name__ == "__main__":
    main()
