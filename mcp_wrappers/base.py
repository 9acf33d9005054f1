"""The pattern every MCP wrapper follows: a thin tool per service operation.

A tool is a plain function whose first parameter is `ctx: Context`; `episode_call(ctx)` opens
one transaction on the episode that served the call (surface "mcp"), loads the actor, and turns a
service's OfficeError into an `is_error` result carrying the service's message.
Tools are collected with `@tool(...)` and turned into SDK Tool objects once per process; each
episode's server reuses them, so building a server costs well under a millisecond.
This module also holds the argument types that several apps share.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from typing import Annotated, Any, Callable, Iterator, Sequence, TypeVar

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations
from pydantic import BeforeValidator, Field, StringConstraints

from officegym.apps.org.services import MAX_ID
from officegym.errors import OfficeError
from officegym.pagination import Page, window

T = TypeVar("T")


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


def page_of(items: Sequence[T], offset: int, limit: int) -> Page[T]:
    """One window of a complete list that a service returned (short lists such as teams or pins)."""
    return window(items, offset, limit)


def _no_bool(value: Any) -> Any:
    # JSON true/false would otherwise pass as the numbers 1 and 0.
    if isinstance(value, bool):
        raise ValueError("expected a number, not true/false")
    return value


Int = Annotated[int, BeforeValidator(_no_bool)]


def bounded(low: int, high: int, description: str | None = None) -> Any:
    """An integer argument from `low` to `high` that refuses true/false. The bounds come before the
    validator so that they reach the input schema as JSON Schema's minimum and maximum."""
    return Annotated[int, Field(ge=low, le=high, description=description), BeforeValidator(_no_bool)]


Id = bounded(1, MAX_ID)
IdOrName = Int | Annotated[str, StringConstraints(max_length=160)]
Offset = bounded(0, MAX_ID, "How many results to skip; pass next_offset from the previous page")
Limit = bounded(1, 200, "Most results to return (1-200)")
PersonRef = Annotated[IdOrName, Field(description="The person: @handle, email, exact full name or numeric id")]
