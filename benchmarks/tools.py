"""MCP tool calls, in process: the server's own handling (argument validation, service, result),
and the whole round trip through the SDK client, which also re-validates every structured result
against the tool's output schema with jsonschema."""

from __future__ import annotations

import anyio

from officegym.episodes import Episode

from .queries import recording
from .timing import Bench, Figure, measure_async, percentiles

TICKETS_QUERY = ('project = IT AND statusCategory != Done AND (priority >= High OR labels = customer-impact) '
                 'ORDER BY priority DESC, created')


def tool_calls(episode: Episode) -> dict[str, dict]:
    """The calls timed, on records that exist at every scale and are alike from one scale to the
    next (a deal, an account and a ticket with a handful of related records). Lists ask for pages
    of 20, which every scale fills, so that a larger world shows as a slower page, not a longer one;
    #general grows with the company, but a call still returns one page of it."""
    return {"chat_list_channels": {"limit": 20}, "chat_list_messages": {"channel": "general", "limit": 20},
            "chat_search_messages": {"query": "the"}, "org_search_people": {"query": "a", "limit": 20},
            "chat_post_message": {"channel": "general", "text": "benchmark message"},
            "crm_list_opportunities": {"stage": "open", "limit": 20}, "crm_get_opportunity": {"opportunity": 1},
            "crm_get_account": {"account": 1}, "crm_search_records": {"query": "an"},
            "crm_get_pipeline_report": {"group_by": "owner"},
            "crm_log_activity": {"record_type": "account", "record_id": 1, "kind": "note",
                                 "subject": "benchmark note"},
            "tickets_search_tickets": {"query": TICKETS_QUERY, "limit": 10}, "tickets_get_ticket": {"key": "IT-7"},
            "tickets_get_board": {"project": "ENG"},
            "tickets_add_comment": {"key": "ENG-3", "body": "benchmark comment"}}


def returned(result) -> str:
    """How much a call returned, for the note: the items of a page, the rows of a report or the
    cards of a board (the work of presenting them grows with their number)."""
    content = result.structured_content or {}
    if isinstance(content.get("items"), list):
        return f"{len(content['items'])} items of {content.get('total', '?')}"
    if isinstance(content.get("rows"), list):
        return f"{len(content['rows'])} rows"
    if isinstance(content.get("columns"), list):
        return f"{sum(len(c.get('tickets', [])) for c in content['columns'])} cards"
    return ""


def bench_tools(bench: Bench) -> list[Figure]:
    """Each tool call timed server-side and through the SDK client, with its statement count."""
    from mcp.client import Client

    episode = bench.store.create(scale=bench.scale)
    server = episode.mcp_server()
    figures: list[Figure] = []
    runs = bench.runs(100)

    async def run():
        async with Client(server) as client:
            for name, args in tool_calls(episode).items():
                for label, call in (("server", lambda: server.call_tool(name, args)),
                                    ("SDK client", lambda: client.call_tool(name, args))):
                    samples = await measure_async(call, runs)
                    p50, p95 = percentiles(samples)
                    figures.append(Figure(f"MCP {name}, {label}", len(samples), p50, p95,
                                          bench.target("p50 <= 3 ms") if label == "server" else "", kind="tool"))
                with recording(episode.engine) as statements:
                    result = await server.call_tool(name, args)
                figures[-2].queries = len(statements)
                figures[-2].note = figures[-1].note = returned(result)

    anyio.run(run)
    bench.store.delete(episode.id)
    return figures
