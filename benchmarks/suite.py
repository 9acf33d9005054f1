"""The task suite's shape, for the whole suite, the deep suite, per kind and per difficulty: how
many templates, how long the reference trajectories are (median and p90 tool calls), how many apps
they touch, how many handbook rules they need without the instruction stating them, the share of
instances the state decides (a decision template, or a request refused in part), the share that
refuses all or part of what was asked, the share with events during the episode, and how many
difficulties the templates declare. Then the deep suite's targets, met or not. Instances are drawn
on each template's own world (small, or medium for workflows and decisions)."""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from officegym.db import make_sessionmaker, sqlite_engine
from officegym.tasks.base import KINDS
from officegym.tasks.registry import all_tasks
from officegym.worlds import ensure_world

INSTANCES = 3  # drawn per template
DEEP_KINDS = ("workflow", "decision")
# The deep suite's targets: templates, median reference calls, share of instances the state
# decides, marathons (difficulty 6) and the reference calls each of them reaches.
TARGET_DEEP_TEMPLATES, TARGET_DEEP_MEDIAN, TARGET_DECIDED = 135, 25, 0.45
TARGET_MARATHONS, MARATHON_CALLS = 15, 50


@dataclass
class Drawn:
    """One drawn instance, as the table counts it."""

    template: str
    kind: str
    difficulty: int
    calls: int
    apps: int
    rules: int
    refuses: bool  # the right outcome refuses all or part of what was asked
    decided: bool  # the state decides the outcome (a decision template's twins, or a part refused)
    events: int  # events scheduled during the episode
    hard: int  # difficulties the template declares


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
                refuses = inst.outcome.refuse > 0
                drawn.append(Drawn(template.id, template.kind, template.difficulty, len(inst.solution),
                                   len(apps_of(inst.solution)), len(template.rules), refuses,
                                   template.kind == "decision" or refuses, len(inst.events),
                                   len(getattr(template, "hard", ()))))
    finally:
        for engine, session in sessions.values():
            session.close()
            engine.dispose()
    return drawn


def _p90(values: list[int]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(0.9 * (len(ordered) - 1))))]


def _share(group: list[Drawn], test) -> str:
    return f"{sum(bool(test(d)) for d in group) / len(group):.0%}"


def _row(label: str, group: list[Drawn]) -> str:
    calls = [d.calls for d in group]
    templates = {d.template: d for d in group}.values()
    return (f"| {label} | {len(templates)} | {len(group)} | {statistics.median(calls):g} | {_p90(calls):g} | "
            f"{statistics.mean(d.apps for d in group):.1f} | {_share(group, lambda d: d.apps >= 3)} | "
            f"{statistics.mean(d.rules for d in group):.1f} | {_share(group, lambda d: d.decided)} | "
            f"{_share(group, lambda d: d.refuses)} | {_share(group, lambda d: d.events)} | "
            f"{sum(d.hard for d in templates)} |")


def suite_table(drawn: list[Drawn]) -> str:
    """The Markdown table: the whole suite, the deep suite, each kind, each difficulty; then the targets."""
    lines = ["| tasks | templates | instances | median calls | p90 calls | apps touched | 3+ apps | handbook rules | "
             "decided by the state | refuse all or part | with events | declared difficulties |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|", _row("all", drawn)]
    deep = [d for d in drawn if d.kind in DEEP_KINDS]
    if deep:
        lines.append(_row("deep (workflow, decision)", deep))
    for kind in KINDS:
        group = [d for d in drawn if d.kind == kind]
        if group:
            lines.append(_row(f"kind {kind}", group))
    for level in sorted({d.difficulty for d in drawn}):
        lines.append(_row(f"difficulty {level}", [d for d in drawn if d.difficulty == level]))
    return "\n".join(lines + ["", *targets(drawn)])


def targets(drawn: list[Drawn]) -> list[str]:
    """The deep suite's targets, one line each: the figure, the target, met or not."""
    deep = [d for d in drawn if d.kind in DEEP_KINDS]
    if not deep:
        return ["no deep templates"]
    shortest: dict[str, int] = {}
    for d in drawn:
        if d.difficulty == 6:
            shortest[d.template] = min(d.calls, shortest.get(d.template, d.calls))
    marathons = sum(calls >= MARATHON_CALLS for calls in shortest.values())
    decided = sum(d.decided for d in deep) / len(deep)
    templates, median = len({d.template for d in deep}), statistics.median(d.calls for d in deep)
    rows = [("deep templates", f"{templates}", f">= {TARGET_DEEP_TEMPLATES}", templates >= TARGET_DEEP_TEMPLATES),
            ("deep median reference calls", f"{median:g}", f">= {TARGET_DEEP_MEDIAN}", median >= TARGET_DEEP_MEDIAN),
            ("deep instances the state decides", f"{decided:.1%}", f">= {TARGET_DECIDED:.0%}",
             decided >= TARGET_DECIDED),
            (f"difficulty-6 templates, every reference >= {MARATHON_CALLS} calls", f"{marathons}",
             f">= {TARGET_MARATHONS}", marathons >= TARGET_MARATHONS)]
    return ["| target | figure | target | met |", "|---|---:|---:|---|",
            *(f"| {name} | {figure} | {goal} | {'yes' if met else 'no'} |" for name, figure, goal, met in rows)]


def main() -> None:
    """Print the suite's table."""
    print(suite_table(draw_all()))


if __name__ == "__main__":
    main()
