"""The officegym side of the verifiers taskset (officegym.adapters.verifiers_taskset): where its
episodes live, and the one tool server every rollout shares.

Episodes live either in this machine's episode store (`LocalEpisodes`) or on a served officegym,
reached over HTTP (`ServedEpisodes`: the control API creates, grades and deletes them; each episode's
MCP URL serves its tools), so that a rollout runtime that has neither the package nor the episode
files (docker, remote sandboxes) works too.

`OfficeTools` is a taskset-wide verifiers `Toolset`: verifiers launches it once per evaluation (as
`python -m officegym.adapters.verifiers_tools`), not once per rollout. Every request a rollout's
harness sends it carries that rollout's signed state coordinates; the server reads the rollout's
state (its episode) and lists and calls that episode's tools, under their own names, with results
as compact JSON.
"""

from __future__ import annotations

import asyncio
import math
import os
import threading
from typing import Any

import httpx
import verifiers.v1 as vf
from mcp.client import Client
from mcp.server.mcpserver.exceptions import ToolError

from officegym.config import load_settings
from officegym.episodes import EpisodeStore
from officegym.errors import NotFound
from officegym.transcripts import bounded, compact

_stores: dict[tuple, EpisodeStore] = {}
_stores_lock = threading.Lock()


def episode_store(home: str | None = None, episodes_dir: str | None = None) -> EpisodeStore:
    """This process's episode store for a home and episodes folder (built once)."""
    key = (home, episodes_dir)
    with _stores_lock:
        if key not in _stores:
            _stores[key] = EpisodeStore(load_settings(home=home, episodes_dir=episodes_dir))
        return _stores[key]


def close_stores() -> None:
    """Delete the episodes this process's stores made (at exit: those of rollouts that failed)."""
    for store in _stores.values():
        store.close()


def grade_of(result) -> dict:
    """A grade as the taskset reads it, from a grader's result or the control API's JSON."""
    data = result if isinstance(result, dict) else result.to_dict()
    return {key: data.get(key) for key in ("status", "success", "score", "checks", "error")}


class LocalEpisodes:
    """Episodes in this machine's episode store."""

    def __init__(self, home: str | None, episodes_dir: str | None, episode_ttl: float = 0):
        self.store = episode_store(home, episodes_dir)
        self.episode_ttl = episode_ttl

    async def create(self, task_id: str, instance: int, scale: str, seed: int, tools) -> dict:
        """A new episode (after deleting those abandoned by failed rollouts): its id."""
        if self.episode_ttl > 0:
            await asyncio.to_thread(self.store.expire, self.episode_ttl)
        episode = await asyncio.to_thread(self.store.create, task_id, instance, scale, seed, None, tools)
        return {"id": episode.id, "mcp_url": ""}

    async def play(self, episode: dict, play) -> None:
        """Run `play(server_or_client)` on the episode's tools, in process."""
        await play(self.store.get(episode["id"]).mcp_server())

    async def grade(self, episode_id: str) -> dict:
        """Grade the episode, then delete it."""
        try:
            return grade_of(await asyncio.to_thread(lambda: self.store.get(episode_id).grade()))
        finally:
            try:
                await asyncio.to_thread(self.store.delete, episode_id)
            except NotFound:
                pass


class ServedEpisodes:
    """Episodes of a served officegym (`officegym serve`), through its control API; the admin token
    is read from the environment variable `token_var`."""

    def __init__(self, server_url: str, token_var: str):
        token = os.environ.get(token_var)
        if not token:
            raise vf.TaskError(f"set {token_var} to the control API's admin token of {server_url}")
        self.base_url, self.headers = server_url.rstrip("/"), {"Authorization": f"Bearer {token}"}

    async def _post(self, path: str, body: dict | None = None) -> dict:
        async with httpx.AsyncClient(base_url=self.base_url, headers=self.headers, timeout=120) as http:
            response = await http.post(path, json=body)
        if response.status_code >= 400:
            raise vf.TaskError(f"officegym at {self.base_url} refused {path}: {response.status_code} "
                               f"{response.text[:500]}")
        return response.json()

    async def create(self, task_id: str, instance: int, scale: str, seed: int, tools) -> dict:
        """A new episode on the server (its own world's scale and seed): its id and MCP URL."""
        made = await self._post("/api/episodes", {"task": task_id, "instance": instance, "tools": tools})
        return {"id": made["id"], "mcp_url": made["mcp_url"]}

    async def play(self, episode: dict, play) -> None:
        """Run `play(client)` with an MCP client of the episode's URL."""
        async with Client(episode["mcp_url"]) as client:
            await play(client)

    async def grade(self, episode_id: str) -> dict:
        """Grade the episode on the server and delete it there."""
        return grade_of(await self._post(f"/api/episodes/{episode_id}/grade?delete=true"))

    def instances(self, tasks: str, split: str | None, instances: int) -> list[dict]:
        """The server's task catalogue (drawn on its world), every page."""
        found, offset = [], 0
        with httpx.Client(base_url=self.base_url, headers=self.headers, timeout=600) as http:
            while offset is not None:
                params = {"tasks": tasks, "instances": instances, "offset": offset, "limit": 500,
                          **({"split": split} if split else {})}
                response = http.get("/api/instances", params=params)
                if response.status_code >= 400:
                    raise vf.TaskError(f"officegym at {self.base_url}: {response.status_code} {response.text[:500]}")
                page = response.json()
                found += page["items"]
                offset = page["next_offset"]
        return found


class OfficeState(vf.State):
    """What the tool server needs from a rollout: its episode (and, when served, its MCP URL)."""

    episode: str = ""
    mcp_url: str = ""


class OfficeToolsConfig(vf.SharedToolsetConfig):
    """Where the episodes the task process creates live (local episodes only)."""

    home: str | None = None
    episodes_dir: str | None = None


def model_result(result):
    """A tool result with its texts as compact JSON, bounded as a model reads them."""
    content = [block.model_copy(update={"text": bounded(compact(block.text))}) if hasattr(block, "text") else block
               for block in result.content]
    return result.model_copy(update={"content": content})


class OfficeTools(vf.Toolset[OfficeToolsConfig, OfficeState]):
    """The officegym tools of every rollout, one server for all: each request is answered with the
    tools of the episode its rollout's state names."""

    TOOL_PREFIX = None

    def __init__(self, config: OfficeToolsConfig) -> None:
        super().__init__(config)
        self._store: EpisodeStore | None = None

    def register(self, mcp) -> None:
        """Answer `tools/list` and `tools/call` per rollout (the SDK's own tool table is one for all)."""
        mcp.list_tools = self.list_tools
        mcp.call_tool = self.call_tool

    async def _target(self) -> tuple[OfficeState, Any]:
        """The calling rollout's state and, for a local episode, its MCP server."""
        state = await self._pull_state()
        if not state.episode:
            raise ToolError("This request carries no officegym rollout: the tool server serves rollouts only.")
        if state.mcp_url:
            return state, None
        return state, await asyncio.to_thread(self._open, state.episode)

    def _open(self, episode_id: str):
        """A local episode's MCP server (the task process created the episode, and deletes it)."""
        if self._store is None:
            self._store = EpisodeStore(load_settings(home=self.config.home, episodes_dir=self.config.episodes_dir))
        if not self._store.opened_here(episode_id):
            self._store.expire(math.inf)  # deletes nothing: lets go of the episodes graded since
        try:
            return self._store.get(episode_id).mcp_server()
        except NotFound:
            raise ToolError("This rollout's episode is gone (graded, or deleted after it was abandoned).") from None

    async def list_tools(self):
        """The tools of the calling rollout's episode."""
        state, server = await self._target()
        if server is not None:
            return await server.list_tools()
        async with Client(state.mcp_url) as client:
            return (await client.list_tools()).tools

    async def call_tool(self, name: str, arguments: dict[str, Any], context=None):
        """Call a tool of the calling rollout's episode; the result as compact JSON."""
        state, server = await self._target()
        if server is not None:
            return model_result(await server.call_tool(name, arguments))
        async with Client(state.mcp_url) as client:
            return model_result(await client.call_tool(name, arguments))


if __name__ == "__main__":  # the shared tool server, as the verifiers launcher starts it
    OfficeTools.run()
