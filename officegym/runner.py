"""`officegym run`: play an agent on task instances and report grades.

`--agent openai` plays a model behind any OpenAI-compatible endpoint (officegym.model_agent).

Agents (officegym.agents): `oracle` replays each instance's reference solution, `null` does
nothing, `spam` posts the instruction everywhere; the adversarial agents (`shotgun`, `spray`,
`overreach`, `vandal`, `negate`, `revert`), the near misses (`wrong_record`, `wrong_value`,
`extra_row`) and `wreck` are built from what each task declares (officegym.adversaries). A sound
task scores 1.0 for the oracle and success=false for the cheats and near misses.

An episode ends in one of four statuses: `passed` and `failed` (graded), `error` (the instance
could not be set up, or the grader failed) and `agent_error` (the agent could not play: its model
endpoint failed, or the harness did). Neither error counts for or against the agent.
"""

from __future__ import annotations

import json
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable, Iterable

from officegym.agent_registry import agents
from officegym.episodes import Episode, EpisodeStore
from officegym.model_agent import describe
from officegym.reports import SCORED, report_table
from officegym.tasks.registry import get_task, match_tasks
from officegym.transcripts import episode_record, finished_record, steps_as_calls, write_record

AGENTS = agents()
Agent = Callable[[Episode], "dict | None"]
FAILURES = ("endpoint_error", "harness_error")  # what an agent reports when it could not play


def trajectory_path(folder: Path, task_id: str, instance: int, trial: int) -> Path:
    """Where `--trajectories` keeps one episode's transcript."""
    return folder / f"{task_id}-{instance}-{trial}.jsonl"


def run_one(store: EpisodeStore, agent: Agent, task_id: str, instance: int, scale: str, seed: int,
            trial: int = 0, trajectories: Path | None = None, tools: str | list[str] | None = None) -> dict:
    """One episode: create, play, grade, delete. Returns the grade as a dict, with the task's apps,
    difficulty and split, the instance and trial and what the agent reported; an instance that cannot
    be drawn or set up is reported as an `error`, an agent that could not play as an `agent_error`,
    and the run goes on. With `trajectories`, the episode's transcript is written there."""
    template = get_task(task_id)
    about = {"instance": instance, "trial": trial, "apps": list(template.apps), "difficulty": template.difficulty,
             "split": template.split, "scale": scale, "seed": seed}
    try:
        episode = store.create(task_id, instance, scale, seed, tools=tools)
    except Exception as error:
        return {"task_id": task_id, "episode": None, "status": "error", "success": None, "score": None,
                "checks": [], "error": f"could not create the episode: {describe(error)}", **about}
    try:
        try:
            played = agent(episode)
        except Exception as error:  # the agent failed; grading still tells what state it left
            played = {"stop": "agent error", "harness_error": describe(error)}
        played = dict(played) if isinstance(played, dict) else None
        transcript = played.pop("transcript", None) if played else None
        result = {**episode.grade().to_dict(), **about}
        if played is not None:
            result["agent"] = played
            failure = next((played[key] for key in FAILURES if played.get(key)), None)
            if failure:  # graded all the same, to show what state it left, but never scored
                result.update(status="agent_error", success=None, score=None, agent_error=failure)
        if trajectories is not None:
            calls = None if transcript else steps_as_calls(episode.trajectory.steps())
            write_record(trajectory_path(trajectories, task_id, instance, trial),
                         episode_record(result, transcript, calls))
        return result
    finally:
        store.delete(episode.id)


def _resumed(record: dict, about: dict) -> dict:
    """The result of an episode an earlier run finished, from its transcript file."""
    kept = ("task_id", "episode", "status", "success", "score", "checks", "agent")
    return {**{key: record.get(key) for key in kept}, **about, "resumed": True}


def run(store: EpisodeStore, agent: str | Agent, pattern: str = "*", instances: int = 3, scale: str | None = None,
        seed: int = 0, parallel: int = 1, trials: int = 1, trajectories: Path | None = None,
        progress: Callable[[dict], None] | None = None, split: str | None = None,
        tools: str | list[str] | None = None, resume: bool = False) -> Iterable[dict]:
    """Yield one result per (task, instance, trial), in order. `agent` is a scripted agent's name or
    a function playing an episode. Without a `scale`, each task is drawn on its own (its template's
    `scale`: small, medium for workflows and refusals). `split` keeps the tasks of one split, `tools`
    picks each episode's tool set. With `resume`, an episode whose transcript in `trajectories` is
    complete is not played again: its result is read back. `progress` is called with each result."""
    if isinstance(agent, str):
        if agent not in AGENTS:
            raise ValueError(f"unknown agent {agent!r}; choose from {', '.join(['openai', *AGENTS])}")
        agent = AGENTS[agent]
    tasks = [t for t in match_tasks(pattern) if not split or t.split == split]
    if not tasks:
        raise ValueError(f"no task matches {pattern!r}" + (f" in the {split} split" if split else ""))
    if trials < 1 or instances < 1:
        raise ValueError("--instances and --trials must be at least 1")
    if resume and trajectories is None:
        raise ValueError("--resume reads the transcripts of --trajectories: name the folder")
    if trajectories is not None:
        trajectories.mkdir(parents=True, exist_ok=True)
    jobs = [(t, k, scale or t.scale, trial) for t in tasks for k in range(instances) for trial in range(trials)]
    done = {}
    if resume:
        for job in jobs:
            record = finished_record(trajectory_path(trajectories, job[0].id, job[1], job[3]))
            if record is not None:
                done[job] = record
    for needed in sorted({job[2] for job in jobs if job not in done}):
        store.world(needed, seed, progress=_progress)

    def one(job):
        template, k, world_scale, trial = job
        if job in done:
            result = _resumed(done[job], {"instance": k, "trial": trial, "apps": list(template.apps),
                                          "difficulty": template.difficulty, "split": template.split,
                                          "scale": world_scale, "seed": seed})
        else:
            result = run_one(store, agent, template.id, k, world_scale, seed, trial, trajectories, tools)
        if progress:
            progress(result)
        return result

    with ThreadPoolExecutor(max_workers=max(1, parallel)) as pool:
        yield from pool.map(one, jobs)


def _progress(stage: str, fraction: float) -> None:
    print(f"\rbuilding world: {stage:<24} {fraction:6.1%}", end="", file=sys.stderr, flush=True)
    if fraction >= 1:
        print(file=sys.stderr)


def _counts(group: list[dict]) -> str:
    scored = [r for r in group if r["status"] in SCORED]
    mean = sum(r["score"] or 0 for r in scored) / len(scored) if scored else 0.0
    return (f"{len(group):>8} {sum(1 for r in scored if r['success']):>8} {mean:>7.3f} "
            f"{sum(1 for r in group if r['status'] == 'error'):>6} "
            f"{sum(1 for r in group if r['status'] == 'agent_error'):>12}")


def summary_table(results: list[dict]) -> str:
    """A plain-text table: per task, episodes, successes, mean score (of the graded episodes), errors
    (setup or grader) and agent errors (model endpoint or harness)."""
    rows: dict[str, list[dict]] = {}
    for result in results:
        rows.setdefault(result["task_id"], []).append(result)
    lines = [f"{'task':<36} {'episodes':>8} {'success':>8} {'score':>7} {'errors':>6} {'agent errors':>12}"]
    lines += [f"{task_id:<36} {_counts(rows[task_id])}" for task_id in sorted(rows)]
    lines.append(f"{'all':<36} {_counts(results)}")
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
