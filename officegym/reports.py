"""What a run reports: pass@1 and pass^k by app and by difficulty, and a progress bar.

With k trials of each task instance, pass@1 is the mean share of trials that succeeded and pass^k the
mean chance that k trials drawn from an instance's trials all succeed, C(c, k) / C(n, k) for c
successes in n trials (pass^k = pass@1 when k = 1; lower when an agent succeeds only sometimes).
"""

from __future__ import annotations

import sys
import threading
from math import comb


def pass_hat_k(successes: int, trials: int, k: int) -> float:
    """The chance that k of `trials` trials, drawn without replacement, all succeeded."""
    return comb(successes, k) / comb(trials, k) if trials >= k else 0.0


def _by_instance(results: list[dict]) -> dict[tuple, list[dict]]:
    groups: dict[tuple, list[dict]] = {}
    for result in results:
        groups.setdefault((result["task_id"], result.get("instance", 0)), []).append(result)
    return groups


def _row(label: str, groups: list[list[dict]], k: int) -> str:
    episodes = sum(len(g) for g in groups)
    pass1 = sum(sum(1 for r in g if r["success"]) / len(g) for g in groups) / len(groups)
    passk = sum(pass_hat_k(sum(1 for r in g if r["success"]), len(g), k) for g in groups) / len(groups)
    errors = sum(1 for g in groups for r in g if r["status"] == "error")
    return f"{label:<18} {len(groups):>9} {episodes:>8} {pass1:>7.3f} {passk:>7.3f} {errors:>6}"


def report_table(results: list[dict]) -> str:
    """pass@1 and pass^k per app (a task counts for each of its apps), per difficulty and overall,
    where k is the fewest trials any instance had."""
    if not results:
        return "no results"
    groups = _by_instance(results)
    k = min(len(g) for g in groups.values())
    lines = [f"{'':<18} {'instances':>9} {'episodes':>8} {'pass@1':>7} {'pass^' + str(k):>7} {'errors':>6}"]
    apps = sorted({app for g in groups.values() for app in g[0].get("apps", [])})
    for app in apps:
        lines.append(_row(f"app {app}", [g for g in groups.values() if app in g[0].get("apps", [])], k))
    for level in sorted({g[0].get("difficulty") for g in groups.values()} - {None}):
        lines.append(_row(f"difficulty {level}", [g for g in groups.values() if g[0].get("difficulty") == level], k))
    lines.append(_row("all", list(groups.values()), k))
    return "\n".join(lines)


class ProgressBar:
    """A one-line progress bar on standard error, updated as results arrive (from any thread)."""

    def __init__(self, total: int, width: int = 30):
        self.total, self.width = total, width
        self.done = self.passed = 0
        self._lock = threading.Lock()

    def __call__(self, result: dict) -> None:
        """Count one more finished episode and redraw."""
        with self._lock:
            self.done += 1
            self.passed += bool(result.get("success"))
            filled = self.width * self.done // max(self.total, 1)
            print(f"\r[{'#' * filled}{'.' * (self.width - filled)}] {self.done}/{self.total} episodes, "
                  f"{self.passed} passed", end="\n" if self.done >= self.total else "", file=sys.stderr, flush=True)
