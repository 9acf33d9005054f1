"""Trajectories: every step an agent takes in an episode, as the harness saw it.

One entry per MCP tool call and per UI request, reads and refused calls included: the tool's name
or the UI route, the arguments, the outcome (ok, or the error and its message), the size of the
result and how long the step took. A trajectory lives beside the episode's database, never in it:
graders read the database only, and a read leaves the episode's state as it was.
"""

from __future__ import annotations

import threading
from typing import Any

MAX_STEPS = 10_000  # per episode; later steps are counted, not kept
MAX_TEXT = 2_000  # characters kept of one argument's or one error's text
MAX_DEPTH = 8


def _bounded(value: Any, depth: int = 0) -> Any:
    """An argument as JSON-safe, size-bounded data: long texts cut (their length said), deep nesting elided."""
    if isinstance(value, str):
        return value if len(value) <= MAX_TEXT else f"{value[:MAX_TEXT]}… ({len(value)} characters)"
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if depth >= MAX_DEPTH:
        return "…"
    if isinstance(value, dict):
        return {str(k)[:200]: _bounded(v, depth + 1) for k, v in list(value.items())[:200]}
    if isinstance(value, (list, tuple)):
        return [_bounded(v, depth + 1) for v in list(value)[:200]]
    return _bounded(str(value), depth)


class Trajectory:
    """The steps of one episode, in the order they finished (thread-safe)."""

    def __init__(self):
        self._steps: list[dict] = []
        self._dropped = 0
        self._lock = threading.Lock()

    def record(self, surface: str, name: str, args: dict, error: str | None, result_chars: int,
               seconds: float) -> None:
        """Append one step: `surface` is "mcp" or "ui", `name` the tool or the UI route."""
        with self._lock:
            if len(self._steps) >= MAX_STEPS:
                self._dropped += 1
                return
            self._steps.append({"type": "step", "seq": len(self._steps) + 1, "surface": surface, "name": name,
                                "args": _bounded(args), "ok": error is None,
                                "error": None if error is None else _bounded(error),
                                "result_chars": result_chars, "ms": round(seconds * 1000, 2)})

    def steps(self) -> list[dict]:
        """Every kept step, oldest first, followed by a note of the steps dropped past MAX_STEPS."""
        with self._lock:
            kept = list(self._steps)
            return kept + ([{"type": "dropped", "steps": self._dropped}] if self._dropped else [])

    def __len__(self) -> int:
        return len(self._steps) + self._dropped

