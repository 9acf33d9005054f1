"""Counting the SQL statements a call runs on an episode's engine, to tell a query per row (a
count that grows with the world) from a fixed handful.

`python -m benchmarks.queries --scale large` prints, for every tool call and UI page of the
benchmark, its statement count and the statements it repeats most (run it at two scales to see
which counts grow).
"""

from __future__ import annotations

import argparse
import sys

import anyio

from officegym.config import load_settings
from officegym.episodes import temporary_store

from .pages import page_urls
from .timing import recording, repeated
from .tools import tool_calls


def main(argv: list[str] | None = None) -> int:
    """Print statement counts per tool call and UI page at one scale (from the normal world cache)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", default="small")
    parser.add_argument("--database-url", default=None)
    options = parser.parse_args(argv)
    with temporary_store(load_settings(database_url=options.database_url)) as store:
        from officegym.web import create_app

        episode = store.create(scale=options.scale)
        server, client = episode.mcp_server(), create_app(store).test_client()
        rows = []
        for name, args in tool_calls(episode).items():
            with recording(episode.engine) as statements:
                result = anyio.run(lambda: server.call_tool(name, args))
            assert not result.is_error, result
            rows.append((f"MCP {name}", statements))
        for name, url in page_urls(episode).items():
            with recording(episode.engine) as statements:
                assert client.get(url).status_code == 200, url
            rows.append((f"UI {name}", statements))
        for name, statements in rows:
            print(f"{len(statements):5d}  {name}")
            for n, text in repeated(statements):
                print(f"{'':7}{n:4d} x {text}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
