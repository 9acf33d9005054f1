"""A model as an agent: any OpenAI-compatible chat-completions endpoint (vLLM, llama.cpp's server,
hosted APIs) plays an episode through the episode's MCP tools.

The model gets the standard system prompt (officegym.catalogue) and the task's instruction, and the
episode's tools as functions. Each turn it may call tools; their results (or their errors) go back
as tool messages. The episode ends when the model answers without a tool call or the turn limit is
reached. Transport errors, rate limits and server errors are retried by the `openai` client.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import anyio

from officegym.catalogue import episode_prompt
from officegym.episodes import Episode

MAX_RESULT_CHARS = 60_000  # of one tool result sent back to the model


@dataclass
class ModelSettings:
    """Which model, where, and how long an episode may go on."""

    model: str
    base_url: str | None = None
    api_key: str | None = None
    max_turns: int = 30
    retries: int = 3
    timeout: float = 120.0
    temperature: float | None = None


def function_specs(tools) -> list[dict]:
    """MCP tools as chat-completions function definitions."""
    return [{"type": "function", "function": {"name": t.name, "description": t.description or "",
                                              "parameters": t.input_schema}} for t in tools]


def result_text(result) -> str:
    """What the model reads of a tool result: its text (the JSON of a structured result), marked when an error."""
    text = "\n".join(getattr(c, "text", "") for c in result.content) or json.dumps(result.structured_content or {})
    if len(text) > MAX_RESULT_CHARS:
        text = text[:MAX_RESULT_CHARS] + f"\n[cut: the result has {len(text)} characters; ask for a smaller page]"
    return f"Error: {text}" if result.is_error else text


async def play_model(episode: Episode, settings: ModelSettings) -> dict:
    """Play one episode with the model; returns how it ended: turns, tool calls and the stop reason."""
    from mcp.client import Client
    from openai import AsyncOpenAI

    llm = AsyncOpenAI(base_url=settings.base_url, api_key=settings.api_key or "not-needed",
                      max_retries=settings.retries, timeout=settings.timeout)
    extra = {} if settings.temperature is None else {"temperature": settings.temperature}
    calls = 0
    try:
        async with Client(episode.mcp_server()) as mcp:
            specs = function_specs((await mcp.list_tools()).tools)
            messages: list[dict] = [{"role": "system", "content": episode_prompt(episode)},
                                    {"role": "user", "content": episode.instruction}]
            for turn in range(1, settings.max_turns + 1):
                response = await llm.chat.completions.create(model=settings.model, messages=messages,
                                                             tools=specs, **extra)
                message = response.choices[0].message
                messages.append(message.model_dump(exclude_none=True, exclude_unset=True))
                if not message.tool_calls:
                    return {"turns": turn, "tool_calls": calls, "stop": "answered", "final": message.content or ""}
                for call in message.tool_calls:
                    calls += 1
                    messages.append({"role": "tool", "tool_call_id": call.id,
                                     "content": await _run_call(mcp, call.function.name, call.function.arguments)})
            return {"turns": settings.max_turns, "tool_calls": calls, "stop": "turn limit", "final": ""}
    finally:
        await llm.close()


async def _run_call(mcp, name: str, arguments: str | None) -> str:
    try:
        args = json.loads(arguments or "{}")
    except ValueError as error:
        return f"Error: the arguments of {name} are not valid JSON ({error}); send one JSON object."
    if not isinstance(args, dict):
        return f"Error: the arguments of {name} must be one JSON object."
    return result_text(await mcp.call_tool(name, args))


def model_agent(settings: ModelSettings):
    """An agent function for the runner: plays the model on an episode and returns how it ended."""

    def agent(episode: Episode) -> dict:
        try:
            return anyio.run(play_model, episode, settings)
        except BaseExceptionGroup as group:  # the MCP client's task group wraps the error: report the error
            cause: BaseException = group
            while isinstance(cause, BaseExceptionGroup):
                cause = cause.exceptions[0]
            raise cause from None

    return agent
