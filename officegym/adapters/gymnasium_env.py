"""officegym tasks as Gymnasium environments (`pip install 'officegym[gymnasium]'`).

    import gymnasium as gym
    import officegym.adapters.gymnasium_env  # registers officegym/<task id>-v0 for every task

    env = gym.make("officegym/chat.set_topic-v0")
    observation, info = env.reset(seed=3)     # info["tools"]: the episode's tools as function specs
    observation, reward, terminated, truncated, info = env.step(
        '{"tool": "chat_update_channel", "arguments": {"channel": "deals", "topic": "..."}}')
    observation, reward, terminated, truncated, info = env.step('{"stop": true}')  # graded: reward 1.0 or 0.0

Observations are JSON text (ASCII); an action is any text: `{"tool": name, "arguments": {...}}` or
`{"stop": true}` (in any characters: arguments may hold any language); anything else is answered
with an error observation and changes nothing. Tool results are compact JSON. The reward is 0 until
the episode ends, then 1.0 when the grade is a success (the signal to train on; `info["grade"]`
holds the score and checks). Each reset is a fresh episode: `reset(seed=k)` plays instance k, as
every other surface does (`options={"instance": k}` says the same); a reset without either draws an
instance below `instances` from the environment's generator. After `max_steps` actions the episode
is graded and truncated. The live episode is deleted by `close()`, by the next reset, when the
interpreter exits, or by the sweep of `officegym run` and `serve` if the process was killed.
"""

from __future__ import annotations

import atexit
import json
import string
import weakref

import anyio
import gymnasium
from gymnasium import spaces
from mcp.server.mcpserver.exceptions import ToolError

from officegym.catalogue import episode_prompt
from officegym.episodes import EpisodeStore
from officegym.model_agent import function_specs, result_text
from officegym.tasks.registry import all_tasks, get_task

MAX_OBSERVATION = 100_000
MAX_ACTION = 200_000
_open_envs: "weakref.WeakSet[OfficeEnv]" = weakref.WeakSet()


@atexit.register
def _close_open_envs() -> None:
    """Delete the episodes of environments nobody closed."""
    for env in list(_open_envs):
        env.close()


class AnyText(spaces.Text):
    """Text in any characters, up to `max_length` (Gymnasium's Text admits only its charset, which
    is what `sample()` draws from)."""

    def contains(self, x) -> bool:
        """Whether `x` is a string of an admitted length."""
        return isinstance(x, str) and self.min_length <= len(x) <= self.max_length


class OfficeEnv(gymnasium.Env):
    """One task's episodes, one at a time."""

    metadata = {"render_modes": ["ansi"], "render_fps": 1}

    def __init__(self, task_id: str, scale: str | None = None, seed: int = 0, tools: str | list[str] = "task",
                 instances: int = 1000, max_steps: int = 50, store: EpisodeStore | None = None,
                 render_mode: str | None = None):
        self.template = get_task(task_id)
        self.scale, self.world_seed, self.tools = scale or self.template.scale, seed, tools
        self.instances, self.max_steps, self.render_mode = instances, max_steps, render_mode
        self.observation_space = spaces.Text(max_length=MAX_OBSERVATION, min_length=0, charset=string.printable)
        self.action_space = AnyText(max_length=MAX_ACTION, min_length=0, charset=string.printable)
        self._own_store = store is None
        self.store = store or EpisodeStore()
        self.episode = None
        self._steps, self._last = 0, ""
        _open_envs.add(self)

    def _observe(self, payload: dict) -> str:
        text = json.dumps(payload, ensure_ascii=True)
        self._last = text if len(text) <= MAX_OBSERVATION else text[:MAX_OBSERVATION - 20] + " [cut]"
        return self._last

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """A fresh episode of instance `seed` (or `options["instance"]`): its prompt and instruction as
        the observation, its tools in `info`."""
        super().reset(seed=seed)
        self._drop_episode()
        instance = (options or {}).get("instance", seed)
        if instance is None:
            instance = int(self.np_random.integers(0, self.instances))
        self.episode = self.store.create(self.template.id, instance, self.scale, self.world_seed, tools=self.tools)
        self._steps = 0
        tools = anyio.run(self.episode.mcp_server().list_tools)
        observation = self._observe({"system_prompt": episode_prompt(self.episode),
                                     "instruction": self.episode.instruction})
        return observation, {"task_id": self.template.id, "instance": instance, "tools": function_specs(tools)}

    def step(self, action: str):
        """Run one tool call, or stop and grade."""
        if self.episode is None:
            raise RuntimeError("call reset() before step()")
        self._steps += 1
        request = _parse(action)
        if isinstance(request, str):
            observation = self._observe({"error": request})
        elif request.get("stop") is True:
            return self._end(terminated=True)
        else:
            try:
                result = anyio.run(self.episode.mcp_server().call_tool, request["tool"], request["arguments"])
                ok, text = not result.is_error, result_text(result)
            except ToolError as error:  # refused before it ran: unknown tool, bad arguments, a service's refusal
                ok, text = False, f"Error: {error}"
            observation = self._observe({"tool": request["tool"], "ok": ok, "result": text})
        if self._steps >= self.max_steps:
            return self._end(terminated=False)
        return observation, 0.0, False, False, {}

    def _end(self, terminated: bool):
        grade = self.episode.grade().to_dict()
        grade.pop("episode", None)
        observation = self._observe({"finished": True, "success": grade["success"], "score": grade["score"]})
        self._drop_episode()
        return observation, 1.0 if grade["success"] else 0.0, terminated, not terminated, {"grade": grade}

    def render(self):
        """The last observation, as text."""
        return self._last if self.render_mode == "ansi" else None

    def _drop_episode(self) -> None:
        if self.episode is not None:
            self.store.delete(self.episode.id)
            self.episode = None

    def close(self):
        """Delete the live episode (and the store, when the environment made it)."""
        _open_envs.discard(self)
        self._drop_episode()
        if self._own_store:
            self.store.close()
            self._own_store = False


def _parse(action) -> dict | str:
    """A tool call or a stop, or the reason the action is neither."""
    try:
        request = json.loads(action) if isinstance(action, str) else None
    except ValueError:
        request = None
    if not isinstance(request, dict):
        return 'An action is JSON: {"tool": "<name>", "arguments": {...}} or {"stop": true}.'
    if request.get("stop") is True:
        return request
    if not isinstance(request.get("tool"), str) or not isinstance(request.get("arguments", {}), dict):
        return 'A tool call is {"tool": "<name>", "arguments": {...}}; to finish send {"stop": true}.'
    return {"tool": request["tool"], "arguments": request.get("arguments", {})}


def register_all() -> list[str]:
    """Register `officegym/<task id>-v0` for every task; the ids registered."""
    ids = []
    for template in all_tasks():
        env_id = f"officegym/{template.id}-v0"
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point=OfficeEnv, kwargs={"task_id": template.id})
        ids.append(env_id)
    return ids


register_all()
