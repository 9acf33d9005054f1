"""Served tool calls against in-process ones, and where a served rollout's CPU goes.

- Each call of the tools benchmark, timed in turn through the official MCP client over streamable
  HTTP (on the free episode of a one-worker server) and through the same client in process (on a
  free episode of the benchmark's own store): the ratio is a served call's cost over its
  in-process cost.
- `cpu_seconds(pid)`: the CPU a server's processes (the supervisor and its workers) have used,
  to divide a served run's CPU between the server and the agents driving it."""

from __future__ import annotations

import os
from contextlib import AsyncExitStack
from pathlib import Path

import anyio

from .timing import Bench, Figure, measure_async_each, percentiles
from .tools import tool_calls


def cpu_seconds(pid: int) -> float:
    """User and system CPU seconds of process `pid` and of its live children."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # a process that ended while being read
        if stat.parent.name == str(pid) or fields[1] == str(pid):
            total += (int(fields[11]) + int(fields[12])) / ticks
    return total


def free_episode_url(base: str, headers: dict) -> str:
    """The MCP address of a served free episode (the one a server starts with)."""
    import httpx

    listed = httpx.get(f"{base}/api/episodes", headers=headers, timeout=30).json()
    free = next(e for e in listed["items"] if e["task_id"] is None)
    return f"{base}/e/{free['id']}/mcp"


def bench_served_calls(bench: Bench, base: str, headers: dict) -> list[Figure]:
    """Every call of the tools benchmark, served and in process, in turn; the row's p50 is the
    served one and its note the in-process p50 and the ratio."""
    import httpx2
    from mcp.client import Client
    from mcp.client.streamable_http import streamable_http_client

    local = bench.store.create(scale=bench.scale)
    runs = bench.runs(100)
    figures: list[Figure] = []

    async def run():
        async with AsyncExitStack() as stack:
            http = await stack.enter_async_context(httpx2.AsyncClient(timeout=httpx2.Timeout(120)))
            served = await stack.enter_async_context(
                Client(streamable_http_client(free_episode_url(base, headers), http_client=http)))
            inproc = await stack.enter_async_context(Client(local.mcp_server()))
            for name, args in tool_calls(local).items():
                bench.step(f"served call {name}")
                samples = await measure_async_each([lambda c=c: c.call_tool(name, args) for c in (served, inproc)],
                                                   runs)
                (p50, p95), (local_p50, _) = percentiles(samples[0]), percentiles(samples[1])
                figures.append(Figure(f"MCP {name}, served (HTTP, 1 worker)", len(samples[0]), p50, p95,
                                      "p50 <= 2x in process", note=f"in process {local_p50:.2f} ms: "
                                      f"{p50 / local_p50:.2f}x", in_process_p50=local_p50))

    try:
        anyio.run(run)
    finally:
        bench.store.delete(local.id)
    return figures
