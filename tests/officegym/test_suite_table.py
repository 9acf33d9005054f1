"""The suite's shape as `make bench` prints it: rows per kind and difficulty, and the deep suite's
targets computed from the drawn instances (met exactly at the threshold, missed just below it)."""

from __future__ import annotations

from benchmarks.suite import MARATHON_CALLS, Drawn, suite_table, targets


def _drawn(template: str, kind: str, calls: int, decided: bool = False, difficulty: int = 4, events: int = 0) -> Drawn:
    return Drawn(template, kind, difficulty, calls, 3, 1, decided and kind == "workflow", decided, events, 1)


def _target(lines: list[str], name: str) -> list[str]:
    row = next(line for line in lines if line.startswith(f"| {name}"))
    return [cell.strip() for cell in row.strip("|").split("|")]


def test_the_targets_read_the_deep_instances_only():
    drawn = [_drawn("w.a", "workflow", 30, decided=True), _drawn("w.a", "workflow", 20),
             _drawn("r.b", "decision", 8, decided=True), _drawn("r.b", "decision", 9, decided=True),
             _drawn("chat.c", "task", 2), _drawn("chat.c", "task", 2)]
    lines = targets(drawn)
    assert _target(lines, "deep templates")[1:] == ["2", ">= 135", "no"]
    assert _target(lines, "deep median reference calls")[1] == "14.5"
    assert _target(lines, "deep instances the state decides")[1:] == ["75.0%", ">= 45%", "yes"]


def test_a_marathon_counts_only_when_every_instance_reaches_the_calls():
    long = [_drawn(f"w.m{k}", "workflow", MARATHON_CALLS, difficulty=6) for k in range(15)]
    assert _target(targets(long), "difficulty-6 templates")[1:] == ["15", ">= 15", "yes"]
    short = long + [_drawn("w.m0", "workflow", MARATHON_CALLS - 1, difficulty=6)]
    assert _target(targets(short), "difficulty-6 templates")[1:] == ["14", ">= 15", "no"]


def test_the_table_has_a_row_per_kind_and_difficulty_with_templates_and_events():
    drawn = [_drawn("w.a", "workflow", 30), _drawn("e.b", "task", 5, difficulty=3, events=2),
             _drawn("e.b", "task", 7, difficulty=3)]
    rows = {row.split("|")[1].strip(): [c.strip() for c in row.strip("|").split("|")]
            for row in suite_table(drawn).splitlines() if row.startswith("| ") and "---" not in row}
    assert rows["kind task"][1:4] == ["1", "2", "6"]  # one template, two instances, median 6 calls
    assert rows["kind task"][10] == "50%"  # with events
    assert rows["difficulty 3"][1] == "1" and rows["deep (workflow, decision)"][1] == "1"
