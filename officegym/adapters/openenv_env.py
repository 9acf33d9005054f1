"""officegym tasks as an OpenEnv environment (`pip install 'officegym[openenv]'`, openenv-core).

Serve it (one process, many sessions; binds 127.0.0.1 unless told otherwise):

    python -m officegym.adapters.openenv_env --tasks 'chat.*' --split train --port 8000

and play it with OpenEnv's own client over its WebSocket session:

    from officegym.adapters.openenv_env import OfficeAction, OfficeEnvClient

    with OfficeEnvClient(base_url="http://127.0.0.1:8000").sync() as env:
        first = env.reset(task="chat.set_topic", instance=3)   # or reset(seed=k), reset(split="test", seed=k)
        tools = first.observation.tools                        # OpenAI function definitions
        step = env.step(OfficeAction(tool="chat_update_channel", arguments={"channel": "deals", "topic": "..."}))
        done = env.step(OfficeAction(stop=True))               # graded: done.reward is 1.0 on a success
        print(env.state())                                     # task, instance, steps, grade

Each session holds one episode at a time. `reset` draws an instance: `task` and `instance` name it;
without a task, `seed=k` picks the k-th instance in catalogue order of the served tasks (instance 0 of
every task, then instance 1, ...), and a reset without a seed takes the session's next one. `split`
keeps that reset to one split. A step calls one tool (its result, compact JSON, in
`observation.result`; `ok` false with the error when refused) or stops (`stop=True`); the episode is
then graded and deleted: the reward is 1.0 when the grade is a success, else 0.0, with the grade in
`observation.grade`. Earlier steps earn 0.0. After `max_steps` steps the episode is graded as well.
"""

from __future__ import annotations

import argparse
import atexit
import sys
import threading
from typing import Any

import anyio
from mcp.server.mcpserver.exceptions import ToolError
from openenv.core.client_types import StepResult
from openenv.core.env_client import EnvClient
from openenv.core.env_server import Action, Environment, Observation, State, create_fastapi_app
from pydantic import Field

from officegym.catalogue import episode_prompt, function_definitions
from officegym.episodes import EpisodeStore
from officegym.model_agent import result_text
from officegym.tasks.registry import get_task, match_tasks

_store: EpisodeStore | None = None
_store_lock = threading.Lock()


class OfficeAction(Action):
    """A tool call (`tool`, `arguments`) or the end of the episode (`stop`)."""

    tool: str = Field("", description="the tool to call")
    arguments: dict[str, Any] = Field(default_factory=dict, description="its arguments")
    stop: bool = Field(False, description="end the episode and grade it")


class OfficeObservation(Observation):
    """After a reset: the task; after a call: its result; at the end: the grade."""

    task_id: str = ""
    instance: int = 0
    instruction: str = ""
    system_prompt: str = ""
    tools: list[dict] = Field(default_factory=list)
    tool: str = ""
    ok: bool = True
    result: str = ""
    grade: dict | None = None


class OfficeState(State):
    """The session's episode: which task instance, how many steps, and its grade once done."""

    task_id: str | None = None
    instance: int | None = None
    split: str | None = None
    scale: str | None = None
    seed: int = 0
    done: bool = False
    grade: dict | None = None


def shared_store() -> EpisodeStore:
    """The store every session of this process creates its episodes in (emptied at exit)."""
    global _store
    with _store_lock:
        if _store is None:
            _store = EpisodeStore()
            atexit.register(_store.close)
        return _store


class OfficeEnvironment(Environment[OfficeAction, OfficeObservation, OfficeState]):
    """One session: one officegym episode at a time, drawn from the served tasks."""

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, tasks: str = "*", split: str | None = None, scale: str | None = None, seed: int = 0,
                 tools: str | list[str] = "task", max_steps: int = 50, store: EpisodeStore | None = None):
        super().__init__()
        self.templates = [t for t in match_tasks(tasks) if not split or t.split == split]
        if not self.templates:
            raise ValueError(f"no task matches {tasks!r}" + (f" in the {split} split" if split else ""))
        self.scale, self.world_seed, self.tools, self.max_steps = scale, seed, tools, max_steps
        self.store = store or shared_store()
        self.episode = None
        self._resets = 0
        self._state = OfficeState(seed=seed)

    def reset(self, seed: int | None = None, episode_id: str | None = None, task: str | None = None,
              instance: int | None = None, split: str | None = None, **kwargs: Any) -> OfficeObservation:
        """A fresh episode of the instance the arguments name (see the module's doc)."""
        template, instance = self._draw(seed, task, instance, split)
        self.close()
        scale = self.scale or template.scale
        self.episode = self.store.create(template.id, instance, scale, self.world_seed, tools=self.tools)
        self._state = OfficeState(episode_id=episode_id, task_id=template.id, instance=instance,
                                  split=template.split, scale=scale, seed=self.world_seed)
        return OfficeObservation(task_id=template.id, instance=instance, instruction=self.episode.instruction,
                                 system_prompt=episode_prompt(self.episode),
                                 tools=function_definitions(self.episode.tools), reward=0.0)

    def _draw(self, seed, task, instance, split):
        """The template and instance a reset plays (only the served tasks: a server of the train split
        never hands out a test task)."""
        if any(isinstance(n, int) and n < 0 for n in (seed, instance)):
            raise ValueError("seed and instance are whole numbers from 0")
        if task is not None:
            if task not in {t.id for t in self.templates}:
                raise ValueError(f"task {task!r} is not served here")
            return get_task(task), instance if instance is not None else (seed or 0)
        if instance is not None:
            raise ValueError("an instance belongs to a task: name the task too, or give a seed")
        templates = [t for t in self.templates if not split or t.split == split]
        if not templates:
            raise ValueError(f"no served task is in the {split} split")
        if seed is None:
            seed, self._resets = self._resets, self._resets + 1
        return templates[seed % len(templates)], seed // len(templates)

    def step(self, action: OfficeAction, timeout_s: float | None = None, **kwargs: Any) -> OfficeObservation:
        """Call one tool, or stop and grade."""
        if self.episode is None:
            raise RuntimeError("no episode: call reset() first (a finished episode needs a new reset)")
        self._state.step_count += 1
        if action.stop:
            return self._end()
        if not action.tool:
            seen = OfficeObservation(tool="", ok=False, result="An action names a tool, or sets stop.", reward=0.0)
        else:
            try:
                result = anyio.run(self.episode.mcp_server().call_tool, action.tool, action.arguments)
                ok, text = not result.is_error, result_text(result)
            except ToolError as error:  # refused before it ran: unknown tool, bad arguments, a service's refusal
                ok, text = False, f"Error: {error}"
            seen = OfficeObservation(tool=action.tool, ok=ok, result=text, reward=0.0)
        return self._end() if self._state.step_count >= self.max_steps else seen

    def _end(self) -> OfficeObservation:
        grade = self.episode.grade().to_dict()
        grade.pop("episode", None)
        self.close()
        self._state.done, self._state.grade = True, grade
        return OfficeObservation(task_id=grade["task_id"], instance=self._state.instance or 0, grade=grade,
                                 done=True, reward=1.0 if grade["success"] else 0.0)

    @property
    def state(self) -> OfficeState:
        """The session's episode as it stands."""
        return self._state

    def close(self) -> None:
        """Delete the session's live episode."""
        if self.episode is not None:
            episode, self.episode = self.episode, None
            self.store.delete(episode.id)


class OfficeEnvClient(EnvClient[OfficeAction, OfficeObservation, OfficeState]):
    """OpenEnv's WebSocket client, typed for officegym."""

    def _step_payload(self, action: OfficeAction) -> dict:
        return action.model_dump(exclude={"metadata"})

    def _parse_result(self, payload: dict) -> StepResult[OfficeObservation]:
        observation = OfficeObservation(**payload.get("observation", {}), reward=payload.get("reward"),
                                        done=payload.get("done", False))
        return StepResult(observation=observation, reward=payload.get("reward"), done=payload.get("done", False))

    def _parse_state(self, payload: dict) -> OfficeState:
        return OfficeState(**payload)


def create_app(tasks: str = "*", split: str | None = None, scale: str | None = None, seed: int = 0,
               tools: str | list[str] = "task", max_steps: int = 50, max_sessions: int = 16,
               store: EpisodeStore | None = None):
    """The OpenEnv server app (FastAPI): HTTP and WebSocket sessions of OfficeEnvironment, their
    episodes in `store` (default: this process's shared one)."""
    OfficeEnvironment(tasks, split, scale, seed, tools, max_steps, store)  # a bad selection fails now

    def factory() -> OfficeEnvironment:
        return OfficeEnvironment(tasks, split, scale, seed, tools, max_steps, store)

    return create_fastapi_app(factory, OfficeAction, OfficeObservation, max_concurrent_envs=max_sessions)


def main(argv: list[str] | None = None) -> int:
    """Serve the environment with uvicorn."""
    import uvicorn

    parser = argparse.ArgumentParser(prog="python -m officegym.adapters.openenv_env", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tasks", default="*", help="glob of task ids (default: every task)")
    parser.add_argument("--split", choices=("train", "test"), default=None)
    parser.add_argument("--scale", default=None, help="world scale (default: each task's own)")
    parser.add_argument("--seed", type=int, default=0, help="world seed")
    parser.add_argument("--max-steps", type=int, default=50)
    parser.add_argument("--max-sessions", type=int, default=16, help="sessions served at once")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args(argv)
    try:
        app = create_app(args.tasks, args.split, args.scale, args.seed, max_steps=args.max_steps,
                         max_sessions=args.max_sessions)
    except ValueError as error:
        print(f"officegym openenv: {error}", file=sys.stderr)
        return 2
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0


if __name__ == "__main__":
    sys.exit(main())
