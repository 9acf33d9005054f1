"""Scripted agents that play a task episode through the in-process MCP client.

`oracle` replays the instance's reference solution, `null` does nothing and `spam` posts the
instruction into every channel. The adversarial agents (officegym.adversaries) are built on the
same `Player`: they replay the reference solution with changes, and every sound task fails them.
"""

from __future__ import annotations

import copy
import threading
from collections import OrderedDict
from typing import Any, Callable

import anyio

from officegym.db import make_sessionmaker, sqlite_engine, transaction
from officegym.episodes import Episode
from officegym.tasks.base import Declaration, ToolCall


class Player:
    """One agent's MCP session with an episode: it makes tool calls and keeps their results.

    Through `client` (the official SDK client, which also re-validates every result against the
    tool's output schema) or, when `client` is None, straight through the episode's MCP server
    in process: the same tools, arguments and validation of inputs, without the client's cost."""

    def __init__(self, episode: Episode, client=None, strict: bool = False):
        self.episode = episode
        self.client = client
        self.strict = strict
        self.calls: list[tuple[str, dict, dict | None]] = []

    async def call(self, tool: str, args: dict[str, Any]) -> dict | None:
        """Call a tool; its structured result, or None when it refused (an error when strict)."""
        from mcp.server.mcpserver.exceptions import ToolError

        try:
            result = await (self.client or self.episode.mcp_server()).call_tool(tool, args)
            failed, text = result.is_error, " ".join(getattr(c, "text", "") for c in result.content)
        except ToolError as error:
            failed, text = True, str(error)
        if failed:
            if self.strict:
                raise RuntimeError(f"reference step {tool} failed: {text}")
            self.calls.append((tool, args, None))
            return None
        self.calls.append((tool, args, result.structured_content or {}))
        return result.structured_content or {}

    async def items(self, tool: str, args: dict[str, Any]) -> list[dict]:
        """The items of one page of a list tool ([] when it refused)."""
        page = await self.call(tool, args)
        return list((page or {}).get("items") or [])


Rewrite = Callable[[int, ToolCall, dict], list[dict]]


async def replay(player: Player, steps: list[ToolCall], rewrite: Rewrite | None = None) -> list[tuple[ToolCall, dict]]:
    """Play solution steps, resolving each step's references to earlier results. `rewrite(index,
    step, args)` returns the argument sets to call instead (none, the same, or several). Returns
    the steps played with the arguments of their first call."""
    results: list[dict] = []
    played = []
    for index, step in enumerate(steps):
        try:
            args = step.resolved_args(results)
        except (KeyError, IndexError, TypeError):  # an earlier step was refused: nothing to refer to
            results.append({})
            continue
        variants = rewrite(index, step, args) if rewrite else [args]
        outcome = None
        for variant in variants:
            got = await player.call(step.tool, variant)
            outcome = got if outcome is None else outcome
        results.append(outcome or {})
        if variants:
            played.append((step, variants[0]))
    return played


DECLARATIONS_KEPT = 256  # declarations remembered per process, by instance and start file
_declared: OrderedDict[tuple, Declaration] = OrderedDict()
_declared_lock = threading.Lock()


def declaration(episode: Episode) -> Declaration:
    """What the episode's task declares, read from its start state. An instance's start file always
    holds the same start (its name carries the setup's code; a task without a setup starts from the
    world itself), so its declaration is read once per process and each caller gets its own copy."""
    key = (episode.task.task_id, episode.task.instance, str(episode.start_path))
    with _declared_lock:
        known = _declared.get(key)
        if known is not None:
            _declared.move_to_end(key)
    if known is None:
        known = _read_declaration(episode, key[2])
        with _declared_lock:
            _declared[key] = known
            while len(_declared) > DECLARATIONS_KEPT:
                _declared.popitem(last=False)
    return copy.deepcopy(known)


def _read_declaration(episode: Episode, start_path: str) -> Declaration:
    """The declaration of the episode's task, read from the start file at `start_path`."""
    from officegym.tasks.registry import get_task

    engine = sqlite_engine(start_path, readonly=True)
    try:
        with transaction(make_sessionmaker(engine), "api") as session:
            declared = get_task(episode.task.task_id).declare(session, episode.task)
            for target in declared.targets:  # found now, while the start state is open
                target.lookalikes = list(target.lookalikes)
            return declared
    finally:
        engine.dispose()


def run_player(episode: Episode, play, strict: bool = False, client: bool = True) -> None:
    """Run `play(player)` with an in-process MCP client on the episode (or, with `client=False`,
    calling the episode's MCP server directly)."""
    from mcp.client import Client

    async def main():
        if not client:
            await play(Player(episode, None, strict))
            return
        async with Client(episode.mcp_server()) as sdk_client:
            await play(Player(episode, sdk_client, strict))

    anyio.run(main)


def oracle_agent(episode: Episode, client: bool = True) -> None:
    """Solve the task with its reference solution (every step must succeed), through the SDK client
    or (`client=False`) calling the episode's MCP server directly."""
    async def play(player: Player):
        await replay(player, episode.task.solution)
    run_player(episode, play, strict=True, client=client)


def null_agent(episode: Episode) -> None:
    """Do nothing."""


def spam_agent(episode: Episode) -> None:
    """A cheat: join every channel it can, post the instruction in each, and submit the
    instruction as the answer."""
    async def play(player: Player):
        offset = 0
        while offset is not None:
            page = await player.call("chat_list_channels", {"offset": offset, "limit": 200}) or {}
            for channel in page.get("items", []):
                await player.call("chat_join_channel", {"channel": channel["id"]})
                await player.call("chat_post_message", {"channel": channel["id"], "text": episode.instruction})
            offset = page.get("next_offset")
        await player.call("submit_answer", {"answer": episode.instruction[:2000]})
    run_player(episode, play, client=False)
