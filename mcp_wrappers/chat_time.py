"""Chat's tool for time: wait for a reply. Colleagues answer after a delay of their own, within their
working hours, and a task's events arrive at simulated times; reading lets no time pass, so an
agent that expects an answer waits for it here. Calls officegym.apps.chat.services.wait."""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver import Context
from pydantic import Field

from officegym.apps.chat import presenters, schemas, services

from .base import IdOrName, episode_call, tool


@tool()
def chat_wait(
    ctx: Context,
    minutes: Annotated[int, Field(ge=1, le=services.MAX_WAIT_MINUTES, description=(
        f"The most simulated minutes to wait (1 to {services.MAX_WAIT_MINUTES})"))] = 60,
    channel: Annotated[IdOrName | None, Field(description=(
        "Wait for a message in this channel or DM only (#name, name or id); omit to wait for anything that "
        "reaches you: a DM, a mention, a reply in your thread"))] = None,
) -> schemas.WaitOut:
    """Let simulated time pass until a new message reaches you, or up to `minutes`: returns what arrived.
    Colleagues answer after a delay and only in their working hours; reading lets no time pass. What
    reached you with your last action (a message that came as you wrote) is returned at once."""
    with episode_call(ctx) as (session, actor):
        return presenters.wait_out(session, services.wait(session, actor, minutes, channel))
