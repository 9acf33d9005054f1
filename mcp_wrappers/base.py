"""The pattern every MCP wrapper follows: a thin tool per service operation.

A tool is a plain function whose first parameter is `ctx: Context`; `episode_call(ctx)` opens
one transaction on the episode that served the call (surface "mcp"), loads the actor, and turns a
service's OfficeError into an `is_error` result carrying the service's message.
Tools are collected with `@tool(...)` and turned into SDK Tool objects once per process; each
episode's server reuses them, so building a server costs well under a millisecond.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Iterator

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations
from pydantic import BaseModel, Field

from officegym.errors import OfficeError


@dataclass
class ToolSpec:
    """A registered tool function and its annotations."""

    fn: Callable[..., Any]
    name: str
    read_only: bool
    destructive: bool

    @property
    def annotations(self) -> ToolAnnotations:
        """MCP hints: reads are read-only; deletes and removals are destructive."""
        return ToolAnnotations(read_only_hint=self.read_only, destructive_hint=self.destructive,
                               idempotent_hint=self.read_only, open_world_hint=False)


SPECS: list[ToolSpec] = []


def tool(read_only: bool = False, destructive: bool = False) -> Callable:
    """Register a tool function under its own name (`<app>_<verb>_<noun>`)."""

    def decorate(fn: Callable) -> Callable:
        SPECS.append(ToolSpec(fn, fn.__name__, read_only, destructive))
        return fn

    return decorate


@contextmanager
def episode_call(ctx: Context) -> Iterator[tuple[Any, Any]]:
    """(session, actor) for one tool call; commits on success, rolls back and reports on error."""
    episode = ctx.mcp_server.episode
    try:
        with episode.session("mcp") as session:
            yield session, episode.actor(session)
    except OfficeError as error:
        raise ToolError(error.message) from None


class PageInfo(BaseModel):
    """Where a paginated list stands."""

    total: int = Field(description="How many items match in all")
    offset: int = Field(description="Offset of the first item returned")
    next_offset: int | None = Field(description="Pass as `offset` for the next page; null on the last page")


def page_info(page) -> PageInfo:
    """PageInfo of an officegym Page."""
    return PageInfo(total=page.total, offset=page.offset, next_offset=page.next_offset)
