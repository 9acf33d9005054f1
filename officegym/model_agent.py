"""A model as an agent: any OpenAI-compatible chat-completions endpoint (vLLM, llama.cpp's server,
hosted APIs) plays an episode through the episode's MCP tools.

The model gets the standard system prompt (officegym.catalogue) and the task's instruction, and the
episode's tools as functions. Each turn it may call tools; their results (or their errors) go back
as tool messages. The episode ends when the model answers without a tool call, after the turn limit
or at the episode's time limit. The whole conversation is kept as a transcript (officegym.transcripts).

Who failed: transport errors, timeouts, rate limits and server errors are retried by the `openai`
client; a request that still fails is the endpoint's failure, not the model's, and so is a refusal
(HTTP 4xx) of the first request, which holds nothing the model wrote (a wrong model name, key or
sampling option). The episode then reports `endpoint_error` and the runner counts it as an
`agent_error`. A refusal later in the episode (the conversation outgrew the context window) ends the
episode as the model's own doing, and it is graded.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, field

import anyio

from officegym.catalogue import episode_prompt
from officegym.episodes import Episode
from officegym.transcripts import Transcript, bounded, compact

RETRIED_STATUSES = (408, 409, 429)  # besides 5xx: what the `openai` client retries, then gives up on


@dataclass
class ModelSettings:
    """Which model, where, how it samples, and how long an episode may go on."""

    model: str
    base_url: str | None = None
    api_key: str | None = None
    max_turns: int = 30
    retries: int = 3
    request_timeout: float = 120.0  # seconds of one request attempt
    episode_timeout: float | None = None  # seconds of one whole episode (None: no limit)
    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int | None = None
    seed: int | None = None
    extra_body: dict = field(default_factory=dict)  # sent as is with every request (e.g. vLLM's options)

    def sampling(self) -> dict:
        """The sampling settings sent with every request (those set)."""
        chosen = {"temperature": self.temperature, "top_p": self.top_p, "max_tokens": self.max_tokens,
                  "seed": self.seed}
        return {key: value for key, value in chosen.items() if value is not None}


def function_specs(tools) -> list[dict]:
    """MCP tools as chat-completions function definitions."""
    return [{"type": "function", "function": {"name": t.name, "description": t.description or "",
                                              "parameters": t.input_schema}} for t in tools]


def result_text(result) -> str:
    """What a model reads of a tool result: its text as compact JSON, bounded, marked when an error."""
    text = "\n".join(getattr(c, "text", "") for c in result.content) or json.dumps(result.structured_content or {})
    text = bounded(compact(text))
    return f"Error: {text}" if result.is_error else text


def endpoint_failed(error: Exception, first_request: bool) -> bool:
    """Whether a failed request is the endpoint's failure (no answer, or a refusal of a request the
    model had no part in) rather than the model's."""
    from openai import APIConnectionError, APIResponseValidationError, APIStatusError

    if isinstance(error, (APIConnectionError, APIResponseValidationError)):
        return True
    if isinstance(error, APIStatusError):
        return error.status_code >= 500 or error.status_code in RETRIED_STATUSES or first_request
    return False


def describe(error: BaseException) -> str:
    """An error in one line: its type and its message."""
    return f"{type(error).__name__}: {' '.join(str(error).split())}"[:2000]


async def play_model(episode: Episode, settings: ModelSettings, transcript: Transcript) -> dict:
    """Play one episode with the model, keeping the conversation in `transcript`; returns how it
    ended: turns, tool calls, the stop reason and, when the endpoint failed, `endpoint_error`."""
    from mcp.client import Client
    from openai import APIError, AsyncOpenAI

    llm = AsyncOpenAI(base_url=settings.base_url, api_key=settings.api_key or "not-needed",
                      max_retries=settings.retries, timeout=settings.request_timeout)
    extra = {"extra_body": settings.extra_body} if settings.extra_body else {}
    ended = {"turns": 0, "tool_calls": 0, "stop": "time limit", "final": ""}
    try:
        async with Client(episode.mcp_server()) as mcp:
            transcript.tools = function_specs((await mcp.list_tools()).tools)
            messages: list[dict] = [{"role": "system", "content": episode_prompt(episode)},
                                    {"role": "user", "content": episode.instruction}]
            for message in messages:
                transcript.add_message(message)
            with anyio.move_on_after(settings.episode_timeout or math.inf):
                for turn in range(1, settings.max_turns + 1):
                    ended["turns"], started = turn, time.perf_counter()
                    try:
                        response = await llm.chat.completions.create(
                            model=settings.model, messages=messages, tools=transcript.tools, **settings.sampling(),
                            **extra)
                    except APIError as error:
                        if endpoint_failed(error, first_request=turn == 1):
                            return {**ended, "stop": "endpoint error", "endpoint_error": describe(error)}
                        return {**ended, "stop": "request refused", "refusal": describe(error)}
                    if not response.choices:
                        return {**ended, "stop": "endpoint error", "endpoint_error": "the answer has no choices"}
                    choice = response.choices[0]
                    message = choice.message.model_dump(exclude_none=True, exclude_unset=True)
                    messages.append(message)
                    transcript.add_message(message)
                    transcript.add_turn(response.usage, 1000 * (time.perf_counter() - started), choice.finish_reason)
                    if not choice.message.tool_calls:
                        return {**ended, "stop": "answered", "final": bounded(choice.message.content or "")}
                    for call in choice.message.tool_calls:
                        ended["tool_calls"] += 1
                        reply = await _run_call(mcp, transcript, call)
                        messages.append(reply)
                        transcript.add_message(reply)
                return {**ended, "stop": "turn limit"}
            return ended
    finally:
        await llm.close()


async def _run_call(mcp, transcript: Transcript, call) -> dict:
    """Run one tool call of the model and keep it; the tool message that answers it."""
    function = getattr(call, "function", None)
    name, arguments = getattr(function, "name", "") or "", getattr(function, "arguments", None) or "{}"
    started, error = time.perf_counter(), None
    try:
        args = json.loads(arguments)
    except ValueError as bad:
        args, error = None, f"the arguments of {name} are not valid JSON ({bad}); send one JSON object."
    if error is None and not isinstance(args, dict):
        error = f"the arguments of {name} must be one JSON object."
    if error is None:
        result = await mcp.call_tool(name, args)
        text = result_text(result)
        error = text[len("Error: "):] if result.is_error else None
    else:
        text = f"Error: {error}"
    transcript.add_call(call.id, name, arguments, error, 1000 * (time.perf_counter() - started))
    return {"role": "tool", "tool_call_id": call.id, "content": text}


def model_agent(settings: ModelSettings):
    """An agent function for the runner: plays the model on an episode and returns how it ended, with
    the episode's transcript under "transcript". A failure of the harness itself (not of the model
    or its endpoint) ends the episode with `harness_error`, keeping the transcript so far."""

    def agent(episode: Episode) -> dict:
        transcript = Transcript(settings.model, {**settings.sampling(), **({"extra_body": settings.extra_body}
                                                                          if settings.extra_body else {})})
        try:
            ended = anyio.run(play_model, episode, settings, transcript)
        except Exception as error:
            cause: BaseException = error
            while isinstance(cause, BaseExceptionGroup):  # the MCP client's task group wraps the error
                cause = cause.exceptions[0]
            ended = {"turns": len(transcript.turns), "tool_calls": len(transcript.calls), "stop": "harness error",
                     "final": "", "harness_error": describe(cause)}
        return {**ended, "transcript": transcript.to_dict()}

    return agent
