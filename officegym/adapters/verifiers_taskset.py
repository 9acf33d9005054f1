"""officegym tasks as a verifiers v1 taskset (`pip install 'officegym[verifiers]'`).

    vf-eval officegym --env.taskset.tasks 'chat.*' --env.taskset.instances 3 ...
    vf-validate officegym --env.taskset.tasks 'chat.*'      # gold: the reference solution scores 1

or in Python, `OfficeTaskset(OfficeTasksetConfig(tasks="chat.*"))`. Each task is one instance of a
template; each rollout of it is one fresh officegym episode:

- the task's `setup` creates the episode (its id goes into the rollout's state), in this process's
  episode store or, with `task.server_url`, on a served officegym through its control API;
- the taskset's one tool server (officegym.adapters.verifiers_tools, launched once per evaluation)
  serves each rollout exactly its episode's tools under their own names;
- a rollout stops after `task.max_turns` model turns (default 30) or `task.rollout_timeout` seconds
  (default 1800), and is graded all the same;
- after the agent stops, the `officegym` reward grades the final database (1.0 when every check
  passes, else 0.0; the partial score and check counts are metrics) and deletes the episode;
- `vf-validate`'s gold check plays the instance's reference solution on the set-up episode and
  passes when the grade is a success; its noop check grades the untouched episode.

An episode whose rollout failed before scoring is deleted after `episode_ttl` seconds idle, or when
this process exits (local episodes), or by the server's own idle expiry (served ones).
"""

from __future__ import annotations

import asyncio
import atexit
import logging
import weakref

import verifiers.v1 as vf

from officegym import catalogue
from officegym.adapters.verifiers_tools import (
    LocalEpisodes,
    OfficeState,
    OfficeTools,
    OfficeToolsConfig,
    ServedEpisodes,
    close_stores,
    episode_store,
)
from officegym.config import load_settings

__all__ = ["OfficeTaskset", "episode_store"]
logger = logging.getLogger(__name__)
atexit.register(close_stores)
# The episode a validation check set up, by the runtime verifiers gives both `setup` and `validate`.
_validating: "weakref.WeakKeyDictionary[object, dict]" = weakref.WeakKeyDictionary()


class OfficeTaskData(vf.TaskData):
    """One task instance: which template, which instance, on which world, with which tools."""

    task_id: str
    instance: int
    scale: str = "small"
    seed: int = 0
    tools: str | list[str] = "task"
    expects_answer: bool = False


class OfficeTaskConfig(vf.TaskConfig):
    """Where episodes live, how long a rollout may go on, and how long an abandoned episode is kept."""

    home: str | None = None
    """officegym's home (the world cache; default: $OFFICEGYM_HOME)."""
    episodes_dir: str | None = None
    """Where episode files live (default: $OFFICEGYM_EPISODES_DIR or a temporary folder)."""
    episode_ttl: float = 3600.0
    """Seconds after which an episode left by a failed rollout is deleted (0: never)."""
    max_turns: int = 30
    """Model turns after which a rollout stops and is graded (0: no limit)."""
    rollout_timeout: float = 1800.0
    """Seconds after which a rollout stops and is graded (the agent's `timeout.rollout` overrides it)."""
    server_url: str | None = None
    """A served officegym (`officegym serve`) to keep the episodes on, e.g. http://127.0.0.1:8765; its
    world's scale and seed apply. Default: episodes in this process."""
    admin_token_var: str = "OFFICEGYM_ADMIN_TOKEN"
    """The environment variable holding that server's admin token."""


def episodes_of(config: OfficeTaskConfig) -> LocalEpisodes | ServedEpisodes:
    """Where the config's episodes live."""
    if config.server_url:
        return ServedEpisodes(config.server_url, config.admin_token_var)
    return LocalEpisodes(config.home, config.episodes_dir, config.episode_ttl)


class OfficeTask(vf.Task[OfficeTaskData, OfficeState, OfficeTaskConfig]):
    """One officegym task instance; each rollout plays a fresh episode of it."""

    @property
    def key(self) -> str:
        """The task id and instance (unique within the taskset)."""
        return f"{self.data.task_id}#{self.data.instance}@{self.data.scale}/{self.data.seed}"

    async def setup(self, trace: vf.Trace, runtime=None) -> None:
        """Create the rollout's episode."""
        data = self.data
        made = await episodes_of(self.config).create(data.task_id, data.instance, data.scale, data.seed, data.tools)
        trace.state.episode, trace.state.mcp_url = made["id"], made["mcp_url"]
        if runtime is not None:
            _validating[runtime] = made

    @vf.stop
    async def turn_limit(self, trace: vf.Trace) -> bool:
        """Stop a rollout after `max_turns` model turns."""
        return 0 < self.config.max_turns <= trace.num_turns

    @vf.reward
    async def officegym(self, trace: vf.Trace) -> float:
        """1.0 when the grade is a success, else 0.0; the episode is deleted once graded. A grader
        fault raises: it is never scored as the agent's failure."""
        result = await episodes_of(self.config).grade(trace.state.episode)
        if result["success"] is None:
            raise vf.TaskError(f"the grader of {self.data.task_id} failed: {result['error']}")
        trace.record_metric("score", float(result["score"] or 0.0))
        trace.record_metric("checks_passed", float(sum(1 for c in result["checks"] if c["passed"])))
        trace.record_metric("checks", float(len(result["checks"])))
        return 1.0 if result["success"] else 0.0

    async def validate(self, runtime) -> bool | None:
        """The gold check: the reference solution, played on the episode `setup` made, earns a success."""
        from officegym.agents import Player, replay

        made = _validating.pop(runtime, None)
        if made is None:
            return None
        data, episodes = self.data, episodes_of(self.config)
        store = episode_store(self.config.home, self.config.episodes_dir)
        solution = (await asyncio.to_thread(lambda: store.task_instance(store.world(data.scale, data.seed),
                                                                        data.task_id, data.instance))).solution

        async def play(tools) -> None:
            await replay(Player(None, tools, strict=True), solution)

        try:
            await episodes.play(made, play)
        finally:
            result = await episodes.grade(made["id"])
        return bool(result["success"])


class OfficeTasksetConfig(vf.TasksetConfig):
    """Which instances load: a glob over task ids, a split, instances per template, the world."""

    id: str = "officegym"
    task: OfficeTaskConfig = OfficeTaskConfig()
    tasks: str = "*"
    """A glob over task ids, e.g. 'chat.*'."""
    split: str | None = None
    """train or test (default: every split)."""
    instances: int = 3
    """Instances of each template (instance k for k below this)."""
    scale: str | None = None
    """The world's scale (default: each template's own; a served officegym's own world)."""
    seed: int = 0
    """The world's seed (a served officegym's own world)."""
    tools: str | list[str] = "task"
    """The episode's tools: 'task', 'all', or apps, areas and tool names."""


class OfficeTaskset(vf.Taskset[OfficeTask, OfficeTasksetConfig]):
    """Every instance the config selects, with the standard system prompt; an instance the world
    cannot draw is skipped with a warning."""

    def load(self):
        """Yield one task per drawable (template, instance), in catalogue order."""
        config = self.config
        if config.task.server_url:
            found = ServedEpisodes(config.task.server_url, config.task.admin_token_var).instances(
                config.tasks, config.split, config.instances)
        else:
            store = episode_store(config.task.home, config.task.episodes_dir)
            found = catalogue.rows(store, catalogue.jobs(config.tasks, config.split, config.instances), config.scale,
                                   config.seed)
        timeout = vf.TaskTimeout(agent=config.task.rollout_timeout or None)
        for row in found:
            if "error" in row:
                logger.warning("skipped %s #%s: %s", row["task_id"], row["instance"], row["error"])
                continue
            data = OfficeTaskData(id=f"{row['task_id']}#{row['instance']}", name=row["task_id"],
                                  prompt=row["instruction"], system_prompt=row["system_prompt"],
                                  task_id=row["task_id"], instance=row["instance"], scale=row["scale"],
                                  seed=row["seed"], tools=config.tools, expects_answer=row["expects_answer"],
                                  timeout=timeout)
            yield OfficeTask(data, config.task)

    @classmethod
    def toolsets(cls, config: OfficeTasksetConfig) -> list[vf.Toolset]:
        """The one tool server of every rollout, pointed at this process's episodes folder (the
        launcher gives the server its own temporary directory, so the folder is passed explicitly)."""
        settings = load_settings(home=config.task.home, episodes_dir=config.task.episodes_dir)
        return [OfficeTools(OfficeToolsConfig(home=str(settings.home), episodes_dir=str(settings.episodes_dir)))]
