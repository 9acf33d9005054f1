"""officegym tasks as a verifiers v1 taskset (`pip install 'officegym[verifiers]'`).

    vf-eval officegym --env.taskset.tasks 'chat.*' --env.taskset.instances 3 ...

or in Python, `OfficeTaskset(OfficeTasksetConfig(tasks="chat.*"))`. Each task is one instance of a
template; each rollout of it is one fresh officegym episode:

- the task's `setup` creates the episode in this process (its id goes into the rollout's state);
- its tool server (`OfficeTools`, a verifiers `Toolset` launched per rollout with
  `python -m officegym.adapters.verifiers_taskset`) opens that episode and serves exactly its tools
  under their own names;
- after the agent stops, the `officegym` reward grades the final database (1.0 when every check
  passes, else 0.0; the partial score and check counts are metrics) and deletes the episode.

An episode whose rollout failed before scoring is deleted after `episode_ttl` seconds idle, or when
this process exits.
"""

from __future__ import annotations

import asyncio
import atexit
import logging
import threading
import verifiers.v1 as vf
from mcp.server.mcpserver.tools.tool_manager import ToolManager

from officegym import catalogue
from officegym.config import load_settings
from officegym.episodes import EpisodeStore
from officegym.errors import NotFound

__all__ = ["OfficeTaskset"]
logger = logging.getLogger(__name__)

_stores: dict[tuple, EpisodeStore] = {}
_stores_lock = threading.Lock()


def episode_store(home: str | None = None, episodes_dir: str | None = None) -> EpisodeStore:
    """This process's episode store for a home and episodes folder (built once, emptied at exit)."""
    key = (home, episodes_dir)
    with _stores_lock:
        if key not in _stores:
            _stores[key] = EpisodeStore(load_settings(home=home, episodes_dir=episodes_dir))
        return _stores[key]


@atexit.register
def _delete_leftover_episodes() -> None:
    for store in _stores.values():
        store.close()


class OfficeTaskData(vf.TaskData):
    """One task instance: which template, which instance, on which world, with which tools."""

    task_id: str
    instance: int
    scale: str = "small"
    seed: int = 0
    tools: str | list[str] = "task"
    expects_answer: bool = False


class OfficeState(vf.State):
    """What a rollout's tool server needs from the rollout: its episode's id."""

    episode: str = ""


class OfficeTaskConfig(vf.TaskConfig):
    """Where episodes live (default: officegym's settings from the environment) and how long an
    episode abandoned by a failed rollout is kept."""

    home: str | None = None
    """officegym's home (the world cache; default: $OFFICEGYM_HOME)."""
    episodes_dir: str | None = None
    """Where episode files live (default: $OFFICEGYM_EPISODES_DIR or a temporary folder)."""
    episode_ttl: float = 3600.0
    """Seconds after which an episode left by a failed rollout is deleted (0: never)."""


class OfficeToolsConfig(vf.ToolsetConfig):
    """The tool server's settings: the episodes folder the task process created the episode in."""

    home: str | None = None
    episodes_dir: str | None = None


class OfficeTools(vf.Toolset[OfficeToolsConfig, OfficeState]):
    """One rollout's tool server: the officegym MCP tools of its episode, under their own names."""

    TOOL_PREFIX = None

    def __init__(self, config: OfficeToolsConfig) -> None:
        super().__init__(config)
        self.episode = None

    async def setup_task(self, task: OfficeTaskData) -> None:
        """Open the episode the rollout's task setup created (its id is in the rollout's state)."""
        state = await self._pull_state()
        if not state.episode:
            raise vf.ToolsetError(f"the rollout of {task.task_id} #{task.instance} has no officegym episode")
        # A store of its own, not this process's shared one: the episode belongs to the task process,
        # which grades and deletes it; nothing here may delete it when the server exits.
        store = EpisodeStore(load_settings(home=self.config.home, episodes_dir=self.config.episodes_dir))
        self.episode = await asyncio.to_thread(store.open, state.episode)

    def register(self, mcp) -> None:
        """Serve the episode's tools; they find the episode through `ctx.mcp_server.episode`."""
        from officegym.mcp_wrappers.server import served_tools

        if self.episode is None:
            raise vf.ToolsetError("OfficeTools serves one rollout's episode: it has no task")
        mcp.episode = self.episode
        # The SDK adds tools from functions only; officegym's tools are built objects that refuse
        # unknown arguments and explain bad ones, so the server gets a manager holding them.
        mcp._tool_manager = ToolManager(tools=served_tools(self.episode.tools))


class OfficeTask(vf.Task[OfficeTaskData, OfficeState, OfficeTaskConfig]):
    """One officegym task instance; each rollout plays a fresh episode of it."""

    @property
    def key(self) -> str:
        """The task id and instance (unique within the taskset)."""
        return f"{self.data.task_id}#{self.data.instance}@{self.data.scale}/{self.data.seed}"

    def store(self) -> EpisodeStore:
        """The store this process creates and grades episodes in."""
        return episode_store(self.config.home, self.config.episodes_dir)

    async def setup(self, trace: vf.Trace) -> None:
        """Create the rollout's episode (and delete episodes abandoned by failed rollouts)."""
        store, data = self.store(), self.data
        if self.config.episode_ttl > 0:
            await asyncio.to_thread(store.expire, self.config.episode_ttl)
        episode = await asyncio.to_thread(store.create, data.task_id, data.instance, data.scale, data.seed,
                                          None, data.tools)
        trace.state.episode = episode.id

    @vf.reward
    async def officegym(self, trace: vf.Trace) -> float:
        """1.0 when the grade is a success, else 0.0; the episode is deleted once graded. A grader
        fault raises: it is never scored as the agent's failure."""
        store, episode_id = self.store(), trace.state.episode
        try:
            result = await asyncio.to_thread(lambda: store.get(episode_id).grade())
        finally:
            try:
                await asyncio.to_thread(store.delete, episode_id)
            except NotFound:
                pass
        if result.success is None:
            raise vf.TaskError(f"the grader of {self.data.task_id} failed: {result.error}")
        trace.record_metric("score", float(result.score or 0.0))
        trace.record_metric("checks_passed", float(sum(1 for c in result.checks if c.passed)))
        trace.record_metric("checks", float(len(result.checks)))
        return 1.0 if result.success else 0.0

    @classmethod
    def toolsets(cls, config: OfficeTaskConfig) -> list[vf.Toolset]:
        """The per-rollout officegym tool server, pointed at this process's episodes folder (the
        launcher gives the server its own temporary directory, so the folder is passed explicitly)."""
        settings = load_settings(home=config.home, episodes_dir=config.episodes_dir)
        return [OfficeTools(OfficeToolsConfig(home=str(settings.home), episodes_dir=str(settings.episodes_dir)))]


class OfficeTasksetConfig(vf.TasksetConfig):
    """Which instances load: a glob over task ids, a split, instances per template, the world."""

    id: str = "officegym"
    task: OfficeTaskConfig = OfficeTaskConfig()
    tasks: str = "*"
    """A glob over task ids, e.g. 'chat.*'."""
    split: str | None = None
    """train, dev or test (default: every split)."""
    instances: int = 3
    """Instances of each template (instance k for k below this)."""
    scale: str | None = None
    """The world's scale (default: each template's own)."""
    seed: int = 0
    """The world's seed."""
    tools: str | list[str] = "task"
    """The episode's tools: 'task', 'all', or apps, areas and tool names."""


class OfficeTaskset(vf.Taskset[OfficeTask, OfficeTasksetConfig]):
    """Every instance the config selects, with the standard system prompt; an instance the world
    cannot draw is skipped with a warning."""

    def load(self):
        """Yield one task per drawable (template, instance), in catalogue order."""
        config = self.config
        store = episode_store(config.task.home, config.task.episodes_dir)
        pairs = catalogue.jobs(config.tasks, config.split, config.instances)
        for row in catalogue.rows(store, pairs, config.scale, config.seed):
            if "error" in row:
                logger.warning("skipped %s #%s: %s", row["task_id"], row["instance"], row["error"])
                continue
            data = OfficeTaskData(id=f"{row['task_id']}#{row['instance']}", name=row["task_id"],
                                  prompt=row["instruction"], system_prompt=row["system_prompt"],
                                  task_id=row["task_id"], instance=row["instance"], scale=row["scale"],
                                  seed=row["seed"], tools=config.tools, expects_answer=row["expects_answer"])
            yield OfficeTask(data, config.task)


if __name__ == "__main__":  # the per-rollout tool server, as the verifiers launcher starts it
    OfficeTools.run()
