"""Reset (a new episode), one page of a tickets query through the service, and grading."""

from __future__ import annotations

from officegym.agents import oracle_agent
from officegym.starts import delta_path, start_file

from .timing import Bench, Figure, measure
from .tools import TICKETS_QUERY

RESET_TARGETS = {"tiny": "p50 <= 10 ms", "small": "p50 <= 10 ms", "medium": "p50 <= 30 ms"}
GRADED_TASKS = ("chat.reply_with_fact", "chat.private_team_channel", "crm.close_won_deal",
                "x.close_won_announced_deal", "tickets.close_duplicates", "x.triage_reported_incident")


def bench_reset(bench: Bench) -> list[Figure]:
    """New episode from the cached world: free, and for a task with setup (start file cached); and
    a task's start file made again from the world and its delta."""
    store, scale = bench.store, bench.scale
    target = bench.target(RESET_TARGETS.get(scale, ""))

    def free():
        store.delete(store.create(scale=scale).id)

    def task():
        store.delete(store.create("chat.reply_with_fact", 0, scale).id)

    world = store.world(scale)
    inst = store.task_instance(world, "chat.reply_with_fact", 0)

    def remade():  # what a start file that was evicted costs the next reset
        start_file(store.settings, world, inst).unlink()
        start_file(store.settings, world, inst)

    delta = delta_path(start_file(store.settings, world, inst)).stat().st_size
    return [measure("reset free episode", free, bench.runs(200), target=target, note="a copy made at reset"),
            measure("reset task episode", task, bench.runs(200), target=target, note="a copy made at reset"),
            measure("start file made again from its delta", remade, bench.runs(50),
                    note=f"the world copied and the setup's rows written: {delta / 1024:.0f} KB of delta kept on "
                         f"disk instead of a {world.path.stat().st_size / 2**20:.1f} MB file per task instance")]


def bench_query(bench: Bench) -> list[Figure]:
    """The tickets query language: parse, compile and run one page of a search, as the service does."""
    from officegym.apps.tickets.services import search_tickets

    episode = bench.store.create(scale=bench.scale)
    with episode.session() as session:
        actor = episode.actor(session)
        figure = measure("tickets query, service", lambda: search_tickets(session, actor, TICKETS_QUERY, 0, 50),
                         bench.runs(200), target=bench.target("p50 <= 3 ms"))
    bench.store.delete(episode.id)
    return [figure]


def bench_grade(bench: Bench) -> list[Figure]:
    """Grading a solved task episode."""
    figures = []
    for task_id in GRADED_TASKS:
        episode = bench.store.create(task_id, 0, bench.scale)
        oracle_agent(episode)
        figures.append(measure(f"grade {task_id}", episode.grade, bench.runs(100), target=bench.target("p50 <= 20 ms")))
        bench.store.delete(episode.id)
    return figures
