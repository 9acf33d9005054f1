"""Builds an episode's MCP server from the shared tool catalogue."""

from __future__ import annotations

import importlib
import logging
import threading
import time
from collections.abc import Mapping
from contextvars import ContextVar
from importlib.metadata import version
from typing import Any

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from mcp.server.mcpserver.tools.base import Tool
from pydantic import ValidationError

from . import base

WRAPPER_MODULES = ("answers", "org", "chat", "chat_time", "crm", "crm_sales", "crm_support", "tickets", "tickets_work",
                   "tickets_knowledge", "sheets", "sheets_more")
_catalog: list[Tool] | None = None
_listings: dict[tuple[frozenset[str], str], dict[str, Any]] = {}
# The SDK logs a line at INFO for each stateless request ("Terminating session") and each session
# manager's start and stop; through the handler its MCPServer installs on the root logger, that
# line cost a third of a served tool call's CPU. Warnings and errors still pass.
CHATTY_LOGGERS = ("mcp.server.streamable_http", "mcp.server.streamable_http_manager")
for _name in CHATTY_LOGGERS:
    logging.getLogger(_name).setLevel(logging.WARNING)
MAX_LISTINGS = 256  # cached tool listings, one per tool set and protocol version
_lock = threading.Lock()
# The episode a shared server (one per tool set, `officegym serve`) is answering for: set around each
# request from the episode its URL names.
SERVED_EPISODE: ContextVar[Any] = ContextVar("served_episode")

INSTRUCTIONS = ("Tools of officegym, a company's workplace apps. Tool names are <app>_<verb>_<noun>. "
                "Lists are paginated: pass next_offset back as offset. Errors explain what to fix.")


class OfficeTool(Tool):
    """An SDK tool that refuses unknown arguments, explains bad ones in one line per argument and
    reports a service's refusal in the service's own words.

    A misspelt optional argument (thread_id for thread_parent_id) would otherwise be dropped
    silently and the call would do something else than asked; pydantic's own report is long and
    names internal models, so it is rewritten for an agent.
    """

    async def run(self, arguments: dict[str, Any], context, convert_result: bool = False) -> Any:
        """Check the arguments, then run the tool as the SDK does."""
        known = self.parameters.get("properties", {})
        unknown = sorted(set(arguments) - set(known))
        if unknown:
            raise ToolError(f"{self.name} has no argument {', '.join(map(repr, unknown))}. "
                            f"Its arguments are: {', '.join(known) or 'none'}.")
        try:
            self.fn_metadata.validate_arguments(arguments)
        except ValidationError as error:
            raise ToolError(f"Invalid arguments for {self.name}: {explain(error, known)}") from None
        try:
            return await super().run(arguments, context, convert_result)
        except ToolError as error:
            if isinstance(error.__cause__, ToolError):  # a service's refusal: its message is the whole answer
                raise error.__cause__ from None
            raise


def explain(error: ValidationError, properties: dict[str, Any]) -> str:
    """One sentence per bad argument: what was given, what is expected."""
    problems: dict[str, list[str]] = {}
    given: dict[str, Any] = {}
    for item in error.errors(include_url=False):
        name = str(item["loc"][0]) if item["loc"] else "arguments"
        given.setdefault(name, item.get("input"))
        if item["msg"] not in problems.setdefault(name, []):
            problems[name].append(item["msg"])
    sentences = []
    for name, messages in problems.items():
        expected = properties.get(name, {}).get("description", "")
        shown = "nothing" if problems[name] == ["Field required"] else _shown(given[name])
        sentences.append(f"{name}: {' or '.join(messages).lower()} (got {shown})."
                         + (f" Expected: {expected}." if expected else ""))
    return " ".join(sentences)


def _shown(value: Any) -> str:
    if isinstance(value, str) and len(value) > 60:
        return f"a text of {len(value)} characters"
    return repr(value)[:80]


def catalog() -> list[Tool]:
    """Every tool, built once per process."""
    global _catalog
    with _lock:
        if _catalog is None:
            for module in WRAPPER_MODULES:
                importlib.import_module(f"officegym.mcp_wrappers.{module}")
            # A docstring's lines are wrapped for the source; a client shows the description as one paragraph.
            tools = [OfficeTool.from_function(spec.fn, name=spec.name, annotations=spec.annotations,
                                              description=" ".join((spec.fn.__doc__ or "").split()))
                     for spec in base.SPECS]
            for built in tools:
                built.parameters["additionalProperties"] = False
            _catalog = tools
    return _catalog


def served_tools(names) -> list[Tool]:
    """The catalogue's tools named in `names`, in catalogue order."""
    wanted = set(names)
    return [t for t in catalog() if t.name in wanted]


class CachedListing:
    """Server middleware answering `tools/list` from a per-process cache of its wire form, one per
    tool set and protocol version. The first listing of a set goes through the SDK (validated,
    handled, serialized); later ones skip that work, which the SDK's streamable-HTTP transport would
    otherwise repeat for every tools/call with arguments, listing every tool to check the call's
    Mcp-Param headers. Only the stateless protocol versions are answered here (the older ones hold
    sessions that must be initialized first), and only a listing asked with nothing but `_meta`
    (whose envelope the transport has already checked)."""

    def __init__(self, served: frozenset[str]):
        self.served = served

    async def __call__(self, ctx, call_next):
        """The cached listing, or the SDK's answer (cached when it is one)."""
        params = ctx.params or {}
        if (ctx.method != "tools/list" or ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS
                or set(params) - {"_meta"} or not isinstance(params.get("_meta", {}), Mapping)):
            return await call_next(ctx)  # the SDK answers, or refuses in its own words
        key = (self.served, ctx.protocol_version)
        with _lock:
            found = _listings.get(key)
        if found is None:
            found = await call_next(ctx)
            with _lock:
                found = _listings.setdefault(key, found)
                while len(_listings) > MAX_LISTINGS:  # tool sets are chosen per episode: keep the newest
                    del _listings[next(iter(_listings))]
        return {**found, "tools": list(found["tools"])}


class EpisodeServer(MCPServer):
    """An MCPServer serving one tool set; tools find their episode through `ctx.mcp_server.episode`.
    Bound to one episode, or, without one, shared by every served episode of its tool set: the
    episode is then the one whose request is being answered (`SERVED_EPISODE`)."""

    def __init__(self, episode=None, tools=None):
        served = frozenset(episode.tools if episode is not None else tools)
        super().__init__("officegym", instructions=INSTRUCTIONS, version=version("officegym"),
                         tools=served_tools(served), middleware=[CachedListing(served)], log_level="WARNING")
        self._episode = episode
        self._served = served

    @property
    def episode(self):
        """The episode this server answers for."""
        return self._episode if self._episode is not None else SERVED_EPISODE.get()

    async def call_tool(self, name: str, arguments: dict[str, Any], context=None):
        """Run a tool of this episode's set (a catalogue tool outside the set is refused by name) and
        journal the call in the episode's trajectory, refused or not."""
        started = time.perf_counter()
        try:
            if name not in self._served and any(t.name == name for t in catalog()):
                raise ToolError(f"{name} is not among this episode's tools: it serves {len(self._served)} tools "
                                "chosen for its task (tools/list shows them).")
            result = await super().call_tool(name, arguments, context)
        except Exception as error:
            self.episode.trajectory.record("mcp", name, arguments, str(error) or type(error).__name__, 0,
                                           time.perf_counter() - started)
            raise
        text = " ".join(getattr(c, "text", "") for c in getattr(result, "content", []))
        self.episode.trajectory.record("mcp", name, arguments, text if getattr(result, "is_error", False) else None,
                                       len(text), time.perf_counter() - started)
        return result


def build_server(episode) -> EpisodeServer:
    """The MCP server of one episode."""
    return EpisodeServer(episode)


def shared_server(tools: frozenset[str]) -> EpisodeServer:
    """A server for every episode of a tool set; each request names its episode in SERVED_EPISODE."""
    return EpisodeServer(tools=tools)


_shared: dict[frozenset[str], EpisodeServer] = {}


async def call_served(episode, name: str, arguments: dict[str, Any]):
    """One tool call in `episode` as `officegym serve` answers it: by its tool set's shared server
    (one per process and tool set here), with nothing kept per episode."""
    tools = frozenset(episode.tools)
    with _lock:
        server = _shared.get(tools)
    if server is None:
        made = shared_server(tools)  # outside the lock: building it takes the lock (the catalogue)
        with _lock:
            server = _shared.setdefault(tools, made)
            while len(_shared) > MAX_LISTINGS:
                del _shared[next(iter(_shared))]
    token = SERVED_EPISODE.set(episode)
    try:
        return await server.call_tool(name, arguments)
    finally:
        SERVED_EPISODE.reset(token)
