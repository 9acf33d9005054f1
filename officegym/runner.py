"""`officegym run`: play an agent on task instances and report grades.

`--agent openai` plays a model behind any OpenAI-compatible endpoint (officegym.model_agent).

Agents (officegym.agents): `oracle` replays each instance's reference solution, `null` does
nothing, `spam` posts the instruction everywhere; the adversarial agents (`shotgun`, `spray`,
`overreach`, `vandal`, `negate`, `revert`), the near misses (`wrong_record`, `wrong_value`,
`extra_row`) and `wreck` are built from what each task declares (officegym.adversaries). A sound
task scores 1.0 for the oracle and success=false for the cheats and near misses.
"""

from __future__ import annotations

import json
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable, Iterable

from officegym.agents import agents
from officegym.episodes import Episode, EpisodeStore
from officegym.reports import report_table
from officegym.tasks.registry import get_task, match_tasks

AGENTS = agents()
Agent = Callable[[Episode], "dict | None"]


def run_one(store: EpisodeStore, agent: Agent, task_id: str, instance: int, scale: str, seed: int,
            trial: int = 0, trajectories: Path | None = None) -> dict:
    """One episode: create, play, grade, delete. Returns the grade as a dict, with the task's apps and
    difficulty, the instance and trial and what the agent reported; an instance that cannot be drawn
    or set up is reported as an error, and the run goes on. With `trajectories`, the episode's steps
    and its grade are written to `<task>-<instance>-<trial>.jsonl` there."""
    template = get_task(task_id)
    about = {"instance": instance, "trial": trial, "apps": list(template.apps), "difficulty": template.difficulty}
    try:
        episode = store.create(task_id, instance, scale, seed)
    except Exception as error:
        return {"task_id": task_id, "episode": None, "status": "error", "success": None, "score": None,
                "checks": [], "error": f"could not create the episode: {type(error).__name__}: {error}", **about}
    try:
        try:
            played = agent(episode)
        except Exception as error:  # the agent failed; grading still tells what state it left
            played, agent_error = None, f"{type(error).__name__}: {error}"
        else:
            agent_error = ""
        result = {**episode.grade().to_dict(), **about}
        if isinstance(played, dict):
            result["agent"] = played
        if agent_error:
            result["agent_error"] = agent_error
        if trajectories is not None:
            write_trajectory(trajectories / f"{task_id}-{instance}-{trial}.jsonl", episode, result)
        return result
    finally:
        store.delete(episode.id)


def write_trajectory(path: Path, episode: Episode, result: dict) -> None:
    """An episode's steps as JSON lines, then what the agent reported, then the grade."""
    lines = [json.dumps(step) for step in episode.trajectory.steps()]
    if "agent" in result:
        lines.append(json.dumps({"type": "agent", **result["agent"]}))
    lines.append(json.dumps({"type": "grade", **{k: v for k, v in result.items() if k != "agent"}}))
    path.write_text("\n".join(lines) + "\n")


def run(store: EpisodeStore, agent: str | Agent, pattern: str = "*", instances: int = 3, scale: str | None = None,
        seed: int = 0, parallel: int = 1, trials: int = 1, trajectories: Path | None = None,
        progress: Callable[[dict], None] | None = None) -> Iterable[dict]:
    """Yield one result per (task, instance, trial), in order. `agent` is a scripted agent's name or
    a function playing an episode. Without a `scale`, each task is drawn on its own (its template's
    `scale`: small, medium for workflows and refusals). `progress` is called with each result."""
    if isinstance(agent, str):
        if agent not in AGENTS:
            raise ValueError(f"unknown agent {agent!r}; choose from {', '.join(['openai', *AGENTS])}")
        agent = AGENTS[agent]
    tasks = match_tasks(pattern)
    if not tasks:
        raise ValueError(f"no task matches {pattern!r}")
    if trials < 1 or instances < 1:
        raise ValueError("--instances and --trials must be at least 1")
    if trajectories is not None:
        trajectories.mkdir(parents=True, exist_ok=True)
    jobs = [(t.id, k, scale or t.scale, trial) for t in tasks for k in range(instances) for trial in range(trials)]
    for needed in sorted({job[2] for job in jobs}):
        store.world(needed, seed, progress=_progress)

    def one(job):
        result = run_one(store, agent, job[0], job[1], job[2], seed, job[3], trajectories)
        if progress:
            progress(result)
        return result

    with ThreadPoolExecutor(max_workers=max(1, parallel)) as pool:
        yield from pool.map(one, jobs)


def _progress(stage: str, fraction: float) -> None:
    print(f"\rbuilding world: {stage:<24} {fraction:6.1%}", end="", file=sys.stderr, flush=True)
    if fraction >= 1:
        print(file=sys.stderr)


def summary_table(results: list[dict]) -> str:
    """A plain-text table: per task, episodes, successes, mean score, errors."""
    rows: dict[str, list[dict]] = {}
    for result in results:
        rows.setdefault(result["task_id"], []).append(result)
    lines = [f"{'task':<36} {'episodes':>8} {'success':>8} {'score':>7} {'errors':>6}"]
    for task_id in sorted(rows):
        group = rows[task_id]
        scores = [r["score"] for r in group if r["score"] is not None]
        lines.append(f"{task_id:<36} {len(group):>8} {sum(1 for r in group if r['success']):>8} "
                     f"{(sum(scores) / len(scores) if scores else 0):>7.3f} "
                     f"{sum(1 for r in group if r['status'] == 'error'):>6}")
    total = len(results)
    ok = sum(1 for r in results if r["success"])
    scores = [r["score"] for r in results if r["score"] is not None]
    lines.append(f"{'all':<36} {total:>8} {ok:>8} {(sum(scores) / len(scores) if scores else 0):>7.3f} "
                 f"{sum(1 for r in results if r['status'] == 'error'):>6}")
    return "\n".join(lines)


def print_results(results: Iterable[dict], as_json: bool) -> list[dict]:
    """Print JSON lines as results arrive, or a table at the end."""
    collected = []
    for result in results:
        collected.append(result)
        if as_json:
            print(json.dumps(result), flush=True)
    if not as_json:
        print(summary_table(collected))
        print()
        print(report_table(collected))
    return collected
