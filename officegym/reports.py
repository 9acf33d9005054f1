"""What a run reports: pass@1, pass@k and pass^k by app and by difficulty, and a progress bar.

Only graded episodes count (status `passed` or `failed`): an `error` (setup or grader) or an
`agent_error` (the model endpoint or the harness failed) says nothing about the agent, so it is left
out of every rate, and the table says how many were. With n graded trials of an instance, c of them
successful, and k the fewest graded trials any instance had:

- pass@1 is c / n, averaged over instances;
- pass@k is the chance that at least one of k trials drawn from the n succeeded, 1 - C(n-c, k) / C(n, k);
- pass^k is the chance that all k succeeded, C(c, k) / C(n, k) (both equal pass@1 when k = 1).
"""

from __future__ import annotations

import sys
import threading
from math import comb

SCORED = ("passed", "failed")  # the statuses that say how the agent did


def pass_hat_k(successes: int, trials: int, k: int) -> float:
    """The chance that k of `trials` trials, drawn without replacement, all succeeded."""
    return comb(successes, k) / comb(trials, k) if trials >= k else 0.0


def pass_at_k(successes: int, trials: int, k: int) -> float:
    """The chance that at least one of k of `trials` trials, drawn without replacement, succeeded."""
    if trials < k:
        return 0.0
    return 1.0 - comb(trials - successes, k) / comb(trials, k)


def _by_instance(results: list[dict]) -> dict[tuple, list[dict]]:
    """The graded results of each task instance."""
    groups: dict[tuple, list[dict]] = {}
    for result in results:
        if result["status"] in SCORED:
            groups.setdefault((result["task_id"], result.get("instance", 0)), []).append(result)
    return groups


def _row(label: str, groups: list[list[dict]], k: int, left_out: int) -> str:
    episodes = sum(len(g) for g in groups)
    wins = [(sum(1 for r in g if r["success"]), len(g)) for g in groups]
    rates = [sum(c / n for c, n in wins), sum(pass_at_k(c, n, k) for c, n in wins),
             sum(pass_hat_k(c, n, k) for c, n in wins)]
    shown = " ".join(f"{rate / len(wins):>7.3f}" if wins else f"{'-':>7}" for rate in rates)
    return f"{label:<18} {len(groups):>9} {episodes:>8} {shown} {left_out:>9}"


def report_table(results: list[dict]) -> str:
    """pass@1, pass@k and pass^k per app (a task counts for each of its apps), per difficulty and
    overall, over the graded episodes, then a line for the episodes left out."""
    if not results:
        return "no results"
    groups = _by_instance(results)
    k = min((len(g) for g in groups.values()), default=1)
    left = [r for r in results if r["status"] not in SCORED]

    def left_out(keep) -> int:
        return sum(1 for r in left if keep(r))

    lines = [f"{'':<18} {'instances':>9} {'episodes':>8} {'pass@1':>7} {f'pass@{k}':>7} {f'pass^{k}':>7} "
             f"{'left out':>9}"]
    apps = sorted({app for r in results for app in r.get("apps", [])})
    for app in apps:
        lines.append(_row(f"app {app}", [g for g in groups.values() if app in g[0].get("apps", [])], k,
                          left_out(lambda r: app in r.get("apps", []))))
    for level in sorted({r.get("difficulty") for r in results} - {None}):
        lines.append(_row(f"difficulty {level}", [g for g in groups.values() if g[0].get("difficulty") == level], k,
                          left_out(lambda r: r.get("difficulty") == level)))
    lines.append(_row("all", list(groups.values()), k, len(left)))
    agent_errors = sum(1 for r in left if r["status"] == "agent_error")
    errors = len(left) - agent_errors
    if left:
        lines.append(f"\nleft out of every rate: {agent_errors} agent error(s) (the model endpoint or the harness "
                     f"failed) and {errors} error(s) (setup or grader)")
    return "\n".join(lines)


class ProgressBar:
    """A one-line progress bar on standard error, updated as results arrive (from any thread)."""

    def __init__(self, total: int, width: int = 30):
        self.total, self.width = total, width
        self.done = self.passed = self.failed_to_play = 0
        self._lock = threading.Lock()

    def __call__(self, result: dict) -> None:
        """Count one more finished episode and redraw."""
        with self._lock:
            self.done += 1
            self.passed += bool(result.get("success"))
            self.failed_to_play += result.get("status") == "agent_error"
            filled = self.width * self.done // max(self.total, 1)
            errors = f", {self.failed_to_play} agent errors" if self.failed_to_play else ""
            print(f"\r[{'#' * filled}{'.' * (self.width - filled)}] {self.done}/{self.total} episodes, "
                  f"{self.passed} passed{errors}", end="\n" if self.done >= self.total else "", file=sys.stderr,
                  flush=True)
