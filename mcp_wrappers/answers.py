"""The submit_answer tool, present in every episode: answer tasks read the last answer given."""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver import Context
from pydantic import BaseModel, Field

from officegym import answers

from .base import episode_call, tool


class AnswerOut(BaseModel):
    """The stored answer."""

    answer: str
    submitted_at: str


@tool()
def submit_answer(ctx: Context, answer: Annotated[str, Field(
        description="Your final answer to the question in the task, as short as possible (a number, a name, a date)",
        max_length=2000)]) -> AnswerOut:
    """Submit the answer to a question task. Submitting again replaces the earlier answer."""
    with episode_call(ctx) as (session, actor):
        stored = answers.submit_answer(session, actor, answer)
        return AnswerOut(answer=stored.text, submitted_at=stored.submitted_at)
