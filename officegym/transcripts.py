"""Episode transcripts a trainer reads as they are: one JSON object per episode, written by `officegym
run --trajectories DIR` as a one-line JSON Lines file, `DIR/<task>-<instance>-<trial>.jsonl`.

A transcript holds the conversation in the OpenAI chat format (system, user, assistant messages with
their tool calls and any reasoning field, tool results exactly as the model read them), the tool
specs offered, each turn's token usage and latency, every tool call with its outcome (calls whose
arguments were not valid JSON included, as errors), the model and its sampling settings, the task
instance (task id, instance, trial, split, scale, seed) and the grade.

Every text in it is bounded by MAX_TEXT characters, the same limit as a tool result sent to a model:
a longer text keeps its first MAX_TEXT characters followed by a note of its length.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Iterable

MAX_TEXT = 60_000  # characters of any one text kept (and of one tool result sent to a model)
TEXT_FIELDS = ("content", "reasoning_content", "reasoning", "refusal")


def bounded(text: str) -> str:
    """`text`, or its first MAX_TEXT characters and a note of how long it was."""
    if len(text) <= MAX_TEXT:
        return text
    return text[:MAX_TEXT] + f"\n[cut: the text has {len(text)} characters]"


def compact(text: str) -> str:
    """A tool result's JSON text without indentation (about a quarter shorter); other text unchanged."""
    try:
        value = json.loads(text)
    except ValueError:
        return text
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _bounded_message(message: dict) -> dict:
    kept = dict(message)
    for field in TEXT_FIELDS:
        if isinstance(kept.get(field), str):
            kept[field] = bounded(kept[field])
    if kept.get("tool_calls"):
        kept["tool_calls"] = [{**call, "function": {**call.get("function", {}),
                                                    "arguments": bounded(str(call.get("function", {})
                                                                             .get("arguments") or ""))}}
                              for call in kept["tool_calls"]]
    return kept


class Transcript:
    """What one episode's model saw and did, filled in as the episode is played."""

    def __init__(self, model: str = "", sampling: dict | None = None):
        self.model, self.sampling = model, dict(sampling or {})
        self.messages: list[dict] = []
        self.tools: list[dict] = []
        self.turns: list[dict] = []
        self.calls: list[dict] = []

    def add_message(self, message: dict) -> None:
        """Keep a message of the conversation (its texts bounded)."""
        self.messages.append(_bounded_message(message))

    def add_turn(self, usage: Any, latency_ms: float, finish_reason: str | None) -> None:
        """Keep one model turn's token usage (None when the endpoint gave none), latency and finish reason."""
        counts = {key: getattr(usage, key, None) for key in ("prompt_tokens", "completion_tokens", "total_tokens")}
        self.turns.append({"turn": len(self.turns) + 1, **counts, "latency_ms": round(latency_ms, 1),
                           "finish_reason": finish_reason})

    def add_call(self, call_id: str, name: str, arguments: str, error: str | None, ms: float) -> None:
        """Keep one tool call the model made: its raw arguments, and the error when it failed."""
        self.calls.append({"turn": len(self.turns), "id": call_id, "name": name, "arguments": bounded(arguments),
                           "ok": error is None, "error": None if error is None else bounded(error),
                           "ms": round(ms, 2)})

    def to_dict(self) -> dict:
        """The transcript's part of an episode's record."""
        return {"model": self.model, "sampling": self.sampling, "tools": self.tools, "messages": self.messages,
                "turns": self.turns, "calls": self.calls}


def steps_as_calls(steps: Iterable[dict]) -> list[dict]:
    """An episode's journaled steps (a scripted agent's, which has no conversation) as transcript calls."""
    return [{"turn": None, "id": None, "name": step["name"], "arguments": json.dumps(step.get("args") or {}),
             "ok": bool(step["ok"]), "error": step.get("error"), "ms": step.get("ms")}
            for step in steps if step.get("type", "step") == "step"]


def episode_record(result: dict, transcript: dict | None, calls: list[dict] | None = None) -> dict:
    """One episode's transcript file: the task instance, the conversation (empty for a scripted agent)
    and the grade."""
    played = dict(transcript or Transcript().to_dict())
    if calls is not None and not played["calls"]:
        played["calls"] = calls
    agent = {k: v for k, v in (result.get("agent") or {}).items() if k != "final"}
    return {**{k: result.get(k) for k in ("task_id", "instance", "trial", "split", "scale", "seed", "episode")},
            **played, "agent": agent, "agent_error": result.get("agent_error"),
            **{k: result.get(k) for k in ("status", "success", "score", "checks")}}


def write_record(path: Path, record: dict) -> None:
    """Write a transcript file whole or not at all (a file that exists is complete)."""
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(record, ensure_ascii=False) + "\n")
    os.replace(partial, path)


def finished_record(path: Path) -> dict | None:
    """The record in a transcript file when the episode was played to its grade (not ended by an
    agent or harness error), else None."""
    try:
        record = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or record.get("status") not in ("passed", "failed"):
        return None
    return record


def sft_rows(records: Iterable[dict], successful_only: bool = True) -> Iterable[dict]:
    """Chat-format training rows, `{"messages": [...], "tools": [...]}`, from transcript records
    (by default only the successful episodes of a model)."""
    for record in records:
        if record.get("messages") and (record.get("success") or not successful_only):
            yield {"messages": record["messages"], "tools": record["tools"]}
