"""MCP tool calls, in process: the server's own handling (argument validation, service, result),
and the whole round trip through the SDK client, which also re-validates every structured result
against the tool's output schema with jsonschema."""

from __future__ import annotations

from contextlib import AsyncExitStack

import anyio

from officegym.episodes import Episode

from .timing import Bench, Figure, figure_of, measure_async_each, recording

TICKETS_QUERY = ('project = IT AND statusCategory != Done AND (priority >= High OR labels = customer-impact) '
                 'ORDER BY priority DESC, created')


def tool_calls(episode: Episode) -> dict[str, dict]:
    """The calls timed, on records that exist at every scale and are alike from one scale to the
    next (a deal, an account and a ticket with a handful of related records). Lists ask for pages
    of 20, which every scale fills, so that a larger world shows as a slower page, not a longer one;
    #general grows with the company, but a call still returns one page of it. The board shows its
    default 10 cards a column (small's sprint has fewer)."""
    return {"chat_list_channels": {"limit": 20}, "chat_list_messages": {"channel": "general", "limit": 20},
            "chat_search_messages": {"query": "the"}, "org_search_people": {"query": "a", "limit": 20},
            "chat_post_message": {"channel": "general", "text": "benchmark message"},
            "crm_list_opportunities": {"stage": "open", "limit": 20}, "crm_get_opportunity": {"opportunity": 1},
            "crm_get_account": {"account": 1}, "crm_search_records": {"query": "an"},
            "crm_get_pipeline_report": {"group_by": "owner", "limit": 20},
            "crm_log_activity": {"record_type": "account", "record_id": 1, "kind": "note",
                                 "subject": "benchmark note"},
            "tickets_search_tickets": {"query": TICKETS_QUERY, "limit": 10}, "tickets_get_ticket": {"key": "IT-7"},
            "tickets_get_board": {"project": "ENG"},
            "tickets_add_comment": {"key": "ENG-3", "body": "benchmark comment"}}


def returned(result) -> str:
    """How much a call returned, for the note: the items of a page, the rows of a report or the
    cards of a board (the work of presenting them grows with their number)."""
    content = result.structured_content or {}
    total = f"{content.get('total', '?')}{'' if content.get('total_is_exact', True) else '+'}"
    if isinstance(content.get("items"), list):
        return f"{len(content['items'])} items of {total}"
    if isinstance(content.get("rows"), list):
        return f"{len(content['rows'])} rows of {total}"
    if isinstance(content.get("columns"), list):
        cards = sum(len(c.get("tickets", [])) for c in content["columns"])
        return f"{cards} cards of {sum(c.get('total', 0) for c in content['columns'])}"
    return ""


def bench_tools(bench: Bench) -> list[Figure]:
    """Each tool call timed server-side and through the SDK client, with its statement count; at
    medium and large, in turn with the same call on a small episode (the row's `small_p50`)."""
    from mcp.client import Client

    episodes = [bench.store.create(scale=bench.scale)] + ([bench.store.create(scale="small")] if bench.paired else [])
    servers = [episode.mcp_server() for episode in episodes]
    figures: list[Figure] = []
    runs = bench.runs(100)

    async def run():
        async with AsyncExitStack() as stack:
            clients = [await stack.enter_async_context(Client(server)) for server in servers]
            for name, args in tool_calls(episodes[0]).items():
                for label, callers in (("server", servers), ("SDK client", clients)):
                    samples = await measure_async_each([lambda c=c: c.call_tool(name, args) for c in callers], runs)
                    figures.append(figure_of(f"MCP {name}, {label}", samples,
                                             bench.target("p50 <= 3 ms") if label == "server" else "", kind="tool"))
                with recording(episodes[0].engine) as statements:
                    result = await servers[0].call_tool(name, args)
                figures[-2].queries = len(statements)
                figures[-2].note = figures[-1].note = returned(result)

    anyio.run(run)
    for episode in episodes:
        bench.store.delete(episode.id)
    return figures
