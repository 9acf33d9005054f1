"""The Python API: `Gym(scale=..., seed=...)`, `gym.episode(task_id, instance=k)`.

    gym = Gym(scale="small", seed=0)
    ep = gym.episode("chat.set_topic", instance=3)
    print(ep.instruction)
    async with ep.client() as client:          # the official MCP SDK client, in-process
        await client.call_tool("chat_update_channel", {...})
    print(ep.grade().to_dict())
"""

from __future__ import annotations

from officegym.config import Settings, load_settings
from officegym.episodes import Episode, EpisodeStore


class GymEpisode:
    """An episode as an agent harness sees it."""

    def __init__(self, gym: "Gym", episode: Episode):
        self._gym = gym
        self.episode = episode

    @property
    def id(self) -> str:
        """The episode's unguessable id."""
        return self.episode.id

    @property
    def instruction(self) -> str:
        """What the agent is asked to do."""
        return self.episode.instruction

    @property
    def actor(self) -> dict:
        """Who the agent acts as: id, name, handle, title."""
        with self.episode.session() as session:
            person = self.episode.actor(session)
            return {"id": person.id, "name": person.name, "handle": person.handle, "title": person.title}

    @property
    def tools(self) -> tuple[str, ...]:
        """The names of the MCP tools this episode serves."""
        return self.episode.tools

    @property
    def ui_url(self) -> str | None:
        """The browser link, when the gym was given a served base URL."""
        return f"{self._gym.base_url}/e/{self.id}/" if self._gym.base_url else None

    @property
    def mcp_url(self) -> str | None:
        """The streamable-HTTP MCP endpoint, when served."""
        return f"{self._gym.base_url}/e/{self.id}/mcp" if self._gym.base_url else None

    def client(self):
        """An in-process `mcp.Client` connected to this episode's tools."""
        from mcp.client import Client

        return Client(self.episode.mcp_server())

    def grade(self):
        """Score the episode now."""
        return self.episode.grade()

    def close(self) -> None:
        """Delete the episode."""
        self._gym.store.delete(self.id)


class Gym:
    """Episodes of one world (scale, seed) in this process."""

    def __init__(self, scale: str = "small", seed: int = 0, settings: Settings | None = None,
                 base_url: str | None = None, store: EpisodeStore | None = None):
        self.scale, self.seed = scale, seed
        self.store = store or EpisodeStore(settings or load_settings())
        self.base_url = base_url.rstrip("/") if base_url else None

    def episode(self, task_id: str | None = None, instance: int = 0, actor: str | None = None,
                tools: str | list[str] | None = None) -> GymEpisode:
        """A fresh episode of a task instance (or the free world when task_id is None). `tools`:
        "task" (a task's default: its apps, the directory, the handbook, submit_answer), "all" (the
        free episode's default) or a list of apps, areas and tool names."""
        return GymEpisode(self, self.store.create(task_id, instance, self.scale, self.seed, actor, tools))

    def tasks(self, pattern: str = "*") -> list[str]:
        """Ids of the registered tasks matching a glob."""
        from officegym.tasks.registry import match_tasks

        return [t.id for t in match_tasks(pattern)]

    def close(self) -> None:
        """Delete every episode of this gym's store."""
        self.store.close()
