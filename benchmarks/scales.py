"""One scale on one backend: build the world (timed, into a fresh cache unless told to use the
normal one), then every benchmark on it, each row stamped with its scale and backend."""

from __future__ import annotations

import tempfile
import threading
import time
import traceback
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

from officegym.episodes import EpisodeStore
from officegym.worlds import world_key

from .backends import settings_for, world_size
from .core import bench_grade, bench_query, bench_reset
from .page_trees import bench_page_trees
from .pages import bench_pages
from .live import bench_live
from .memory import bench_memory
from .pool import bench_pool
from .rollouts import bench_rollouts
from .served import bench_served
from .served_cpu import bench_server_cpu
from .sheets import bench_sheets
from .tau2 import bench_tau2
from .throughput import bench_throughput
from .timing import Bench, Figure, progress
from .tools import bench_tools

BENCHES: dict[str, Callable[[Bench], list[Figure]]] = {
    "reset": bench_reset, "pool": bench_pool, "tools": bench_tools, "pages": bench_pages, "query": bench_query,
    "sheets": bench_sheets, "grade": bench_grade, "throughput": bench_throughput,
    "served": bench_served, "memory": bench_memory, "trees": bench_page_trees, "tau2": bench_tau2,
    "rollouts": bench_rollouts, "live": bench_live, "server_cpu": bench_server_cpu}
BUILD_TARGETS = {"medium": "p50 <= 60 s", "large": "p50 <= 600 s"}


@contextmanager
def ticking(label: str, every: float = 15.0) -> Iterator[dict]:
    """Report a long step's stage as it changes and, in between, every `every` seconds."""
    state, done, start = {"stage": "starting"}, threading.Event(), time.perf_counter()

    def tick():
        while not done.wait(every):
            progress(f"{label}: still {state['stage']} ({time.perf_counter() - start:.0f} s)")
    thread = threading.Thread(target=tick, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        done.set()
        thread.join()


def bench_build(bench: Bench, cached: bool) -> list[Figure]:
    """Build the world (or find it in the cache with --cached) and time it, then the first episode."""
    label = f"[{bench.scale}/{bench.backend}] world"
    settings = bench.store.settings
    was_cached = (settings.worlds_dir / f"{world_key(bench.scale, 0)}.json").exists()
    progress(f"{label}: {'opening the cached world' if was_cached else 'building'} ...")
    start = time.perf_counter()
    with ticking(label) as state:
        def report(stage: str, fraction: float) -> None:
            if fraction >= 1:  # the builder's last word; the file is still to be compacted and hashed
                stage = "compacting and hashing the file"
            # Every new part of the world is shown; steps within one part at most every 2 seconds.
            now = time.perf_counter()
            part_changed = stage.split(":")[0] != state["stage"].split(":")[0]
            if stage != state["stage"] and (part_changed or now - state.get("shown", 0) >= 2):
                state["shown"] = now
                progress(f"{label}: {stage} ({fraction:.0%}, {now - start:.0f} s)")
            state["stage"] = stage
        world = bench.store.world(bench.scale, 0, progress=report)
        seconds = time.perf_counter() - start
    progress(f"{label}: ready in {seconds:.1f} s")
    if was_cached:
        built = Figure("build world", 1, seconds, seconds, "", f"{world_size(world)}, from the cache (not a build)",
                       unit="s")
    else:
        built = Figure("build world", 1, seconds, seconds, BUILD_TARGETS.get(bench.scale, ""), world_size(world),
                       unit="s")
    # A backend may prepare its own copy of the world on first use (PostgreSQL: the template database).
    start = time.perf_counter()
    bench.store.delete(bench.store.create(scale=bench.scale).id)
    seconds = time.perf_counter() - start
    progress(f"{label}: first episode in {seconds:.1f} s")
    return [built, Figure("first episode of a new world", 1, seconds, seconds, note="includes the backend's copy "
                          "of the world, if it keeps one", unit="s")]


def run_scale(backend: str, scale: str, benches: list[str], quick: bool, cached: bool) -> list[Figure]:
    """Every benchmark in `benches` at one scale on one backend."""
    with tempfile.TemporaryDirectory(prefix="officegym-bench-") as folder:
        home = None if cached else Path(folder) / "home"
        store = EpisodeStore(settings_for(backend, home, Path(folder) / "episodes"))
        bench = Bench(store, scale, backend, quick)
        figures = []
        try:
            figures += bench_build(bench, cached)
            for name in benches:
                bench.step(name)
                figures += BENCHES[name](bench)
        except Exception as error:  # one backend or scale failing still prints the others
            traceback.print_exc()
            first_line = (str(error).splitlines() or [""])[0]
            figures.append(Figure("FAILED", 0, float("nan"), None, note=f"{type(error).__name__}: {first_line}"[:200]))
        finally:
            store.close()
    for figure in figures:
        figure.scale, figure.backend = scale, backend
    return figures
