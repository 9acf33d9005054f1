"""Builds an episode's MCP server from the shared tool catalogue."""

from __future__ import annotations

import importlib
import threading

from mcp.server import MCPServer
from mcp.server.mcpserver.tools.base import Tool

from . import base

WRAPPER_MODULES = ("answers", "org", "chat")
_catalog: list[Tool] | None = None
_lock = threading.Lock()

INSTRUCTIONS = ("Tools of officegym, a company's workplace apps. Tool names are <app>_<verb>_<noun>. "
                "Lists are paginated: pass next_offset back as offset. Errors explain what to fix.")


def catalog() -> list[Tool]:
    """Every tool, built once per process."""
    global _catalog
    with _lock:
        if _catalog is None:
            for module in WRAPPER_MODULES:
                importlib.import_module(f"officegym.mcp_wrappers.{module}")
            _catalog = [Tool.from_function(spec.fn, name=spec.name, annotations=spec.annotations)
                        for spec in base.SPECS]
    return _catalog


class EpisodeServer(MCPServer):
    """An MCPServer bound to one episode; tools find the episode through `ctx.mcp_server`."""

    def __init__(self, episode):
        super().__init__("officegym", instructions=INSTRUCTIONS, tools=catalog())
        self.episode = episode


def build_server(episode) -> EpisodeServer:
    """The MCP server of one episode."""
    return EpisodeServer(episode)
