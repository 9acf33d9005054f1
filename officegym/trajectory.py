"""Trajectories: every step an agent takes in an episode, as the harness saw it.

One entry per MCP tool call and per UI request, reads and refused calls included: the tool's name
or the UI route, the arguments, the outcome (ok, or the error and its message), the size of the
result and how long the step took. A trajectory lives in the episode registry, never in the
episode's database: graders read the database only, and a read leaves the episode's state as it was.
"""

from __future__ import annotations

import logging
from typing import Any

from officegym.failures import FULL_DISK_ERRNOS

logger = logging.getLogger(__name__)
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
    """The steps of one episode, in the order they finished, kept in the episode registry so that
    every process serving the episode adds to the same trajectory."""

    def __init__(self, registry, episode_id: str):
        self.registry = registry
        self.episode_id = episode_id

    def record(self, surface: str, name: str, args: dict, error: str | None, result_chars: int,
               seconds: float) -> None:
        """Append one step: `surface` is "mcp" or "ui", `name` the tool or the UI route. On a full
        disk the step is left out (and logged): the answer the agent got stands."""
        try:
            self.registry.append_step(self.episode_id, {
                "surface": surface, "name": name, "args": _bounded(args), "ok": error is None,
                "error": None if error is None else _bounded(error), "result_chars": result_chars,
                "ms": round(seconds * 1000, 2)})
        except OSError as failure:
            if failure.errno not in FULL_DISK_ERRNOS:
                raise
            logger.warning("Episode %s: step %s not kept in its trajectory: %s", self.episode_id, name, failure)

    def steps(self) -> list[dict]:
        """Every kept step, oldest first, followed by a note of the steps dropped past MAX_STEPS."""
        return self.registry.steps(self.episode_id)

    def __len__(self) -> int:
        return self.registry.step_count(self.episode_id)
