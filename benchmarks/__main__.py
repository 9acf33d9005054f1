"""Run every benchmark on the small world and print the table: reset, in-process MCP tool call,
UI page load, sheets recalculation, grade, and the world build (once, into a fresh cache)."""

from __future__ import annotations

import argparse
import sys
import tempfile
import time

import anyio

from officegym.config import load_settings
from officegym.episodes import EpisodeStore
from officegym.runner import oracle_agent
from officegym.worlds import ensure_world

from .sheets import bench_sheets
from .timing import Figure, measure, table


TICKETS_QUERY = ('project = IT AND statusCategory != Done AND (priority >= High OR labels = customer-impact) '
                 'ORDER BY priority DESC, created')


def bench_reset(store: EpisodeStore, scale: str) -> list[Figure]:
    """New episode from the cached world: free, and for a task with setup (start file cached)."""
    def free():
        store.delete(store.create(scale=scale).id)

    def task():
        store.delete(store.create("chat.reply_with_fact", 0, scale).id)

    return [measure(f"reset free episode ({scale})", free, 200, target="p50 <= 10 ms"),
            measure(f"reset task episode ({scale})", task, 200, target="p50 <= 10 ms")]


def bench_tools(store: EpisodeStore, scale: str) -> list[Figure]:
    """MCP tool calls, in process: the server's own handling (argument validation, service,
    result), and the whole round trip through the SDK client, which also re-validates every
    structured result against the tool's output schema with jsonschema."""
    from mcp.client import Client

    episode = store.create(scale=scale)
    server = episode.mcp_server()
    figures: list[Figure] = []
    calls = {"chat_list_channels": {}, "chat_list_messages": {"channel": "general"},
             "chat_search_messages": {"query": "the"}, "org_search_people": {"query": "a"},
             "chat_post_message": {"channel": "general", "text": "benchmark message"},
             "crm_list_opportunities": {"stage": "open"}, "crm_get_opportunity": {"opportunity": 1},
             "crm_get_account": {"account": 1}, "crm_search_records": {"query": "an"},
             "crm_get_pipeline_report": {"group_by": "owner"},
             "crm_log_activity": {"record_type": "account", "record_id": 1, "kind": "note",
                                  "subject": "benchmark note"},
             "tickets_search_tickets": {"query": TICKETS_QUERY}, "tickets_get_ticket": {"key": "IT-7"},
             "tickets_get_board": {"project": "ENG"},
             "tickets_add_comment": {"key": "ENG-3", "body": "benchmark comment"}}

    async def timed(call) -> list[float]:
        samples = []
        for i in range(120):
            start = time.perf_counter()
            result = await call()
            if i >= 20:
                samples.append((time.perf_counter() - start) * 1000)
            assert not result.is_error, result
        return sorted(samples)

    async def run():
        async with Client(server) as client:
            for name, args in calls.items():
                for label, call in (("server", lambda: server.call_tool(name, args)),
                                    ("SDK client", lambda: client.call_tool(name, args))):
                    samples = await timed(call)
                    figures.append(Figure(f"MCP {name}, {label} ({scale})", len(samples), samples[len(samples) // 2],
                                          samples[int(0.95 * (len(samples) - 1))],
                                          "p50 <= 3 ms" if label == "server" else ""))

    anyio.run(run)
    store.delete(episode.id)
    return figures


def bench_pages(store: EpisodeStore, scale: str) -> list[Figure]:
    """UI page loads through the Flask app (no network)."""
    from officegym.web import create_app

    episode = store.create(scale=scale)
    client = create_app(store).test_client()
    base = f"/e/{episode.id}"
    pages = {"channel page": f"{base}/chat/c/general", "people list": f"{base}/org/?q=a",
             "search page": f"{base}/chat/search?q=the", "CRM opportunity list": f"{base}/crm/opportunities?stage=open",
             "CRM opportunity page": f"{base}/crm/opportunities/1", "CRM account page": f"{base}/crm/accounts/1",
             "CRM pipeline report": f"{base}/crm/reports/pipeline?group_by=owner",
             "tickets board": f"{base}/tickets/projects/ENG/board", "tickets ticket page": f"{base}/tickets/IT-7",
             "tickets search page": f"{base}/tickets/search?q=project%20%3D%20IT%20ORDER%20BY%20priority%20DESC"}
    figures = []
    for name, url in pages.items():
        def load(url=url):
            response = client.get(url)
            assert response.status_code == 200, (url, response.status_code)
        figures.append(measure(f"UI {name} ({scale})", load, 100, target="p50 <= 30 ms"))
    store.delete(episode.id)
    return figures


def bench_query(store: EpisodeStore, scale: str) -> list[Figure]:
    """The tickets query language: parse, compile and run one page of a search, as the service does."""
    from officegym.apps.tickets.services import search_tickets

    episode = store.create(scale=scale)
    with episode.session() as session:
        actor = episode.actor(session)

        def search():
            search_tickets(session, actor, TICKETS_QUERY, 0, 50)
        figure = measure(f"tickets query, service ({scale})", search, 200, target="p50 <= 3 ms")
    store.delete(episode.id)
    return [figure]


def bench_grade(store: EpisodeStore, scale: str) -> list[Figure]:
    """Grading a solved task episode."""
    figures = []
    for task_id in ("chat.reply_with_fact", "chat.private_team_channel", "crm.close_won_deal",
                    "x.close_won_announced_deal", "tickets.close_duplicates", "x.triage_reported_incident"):
        episode = store.create(task_id, 0, scale)
        oracle_agent(episode)
        figures.append(measure(f"grade {task_id} ({scale})", episode.grade, 100, target="p50 <= 20 ms"))
        store.delete(episode.id)
    return figures


def bench_build(scale: str) -> Figure:
    """Build a world from nothing (fresh cache)."""
    with tempfile.TemporaryDirectory() as home:
        start = time.perf_counter()
        world = ensure_world(scale, 0, load_settings(home=home))
        seconds = time.perf_counter() - start
        size = world.path.stat().st_size / 1e6
    return Figure(f"build world ({scale})", 1, seconds * 1000, seconds * 1000, "",
                  f"{size:.1f} MB")


def main(argv: list[str] | None = None) -> int:
    """Print the benchmark table."""
    args = argparse.ArgumentParser(description=__doc__)
    args.add_argument("--scale", default="small")
    options = args.parse_args(argv)
    with tempfile.TemporaryDirectory() as episodes:
        store = EpisodeStore(load_settings(episodes_dir=episodes))
        store.world(options.scale)
        figures = [bench_build(options.scale)]
        for bench in (bench_reset, bench_tools, bench_pages, bench_query, bench_sheets, bench_grade):
            print(f"running {bench.__name__} ...", file=sys.stderr, flush=True)
            figures += bench(store, options.scale)
        store.close()
    print(table(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
