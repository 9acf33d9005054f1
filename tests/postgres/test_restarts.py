"""PostgreSQL restarted or stopped under a server, on a cluster of the test's own (the machine's shared
server stays up): the next call after a restart succeeds and its grade is a grade, SIGTERM ends the
server promptly even while PostgreSQL is down, and the next server's sweep drops the episode
databases its fleet left behind, with a record of a dead process or with none and a dead maker."""

from __future__ import annotations

import os
import signal
import time

import anyio
import httpx
import pytest
from mcp.client import Client
from own_postgres import OwnPostgres, server_bin
from serving import Serving
from sqlalchemy import text

from officegym.config import load_settings
from officegym.episodes import EpisodeStore
from officegym.leftovers import maker_note, sweep

pytestmark = pytest.mark.skipif(server_bin() is None, reason="PostgreSQL's server programs are not installed")


@pytest.fixture(scope="module")
def cluster():
    """A running cluster of this module's own, removed afterwards."""
    own = OwnPostgres()
    own.start()
    yield own
    own.remove()


def call(mcp_url: str, tool: str, args: dict):
    """One tool call over streamable HTTP; its result."""
    async def go():
        async with Client(mcp_url) as client:
            return await client.call_tool(tool, args)

    return anyio.run(go)


def episode_databases(cluster) -> list[str]:
    """The episode databases on the cluster."""
    store = EpisodeStore(load_settings(database_url=cluster.url, pool_size=0))
    try:
        return store.backend.databases("og_e_")
    finally:
        store.release()


def test_a_served_episode_answers_after_a_restart_and_sigterm_ends_the_server_while_postgresql_is_down(
        cluster, tmp_path, settings):
    server = Serving(tmp_path, settings, database_url=cluster.url)
    try:
        server.answering()
        made = httpx.post(f"{server.api}/episodes", json={"task": "chat.set_topic"}, headers=server.headers(),
                          timeout=60).json()
        assert not call(made["mcp_url"], "chat_list_channels", {}).is_error
        cluster.restart()  # every pooled connection of the server is cut
        listed = httpx.get(f"{server.api}/episodes", headers=server.headers(), timeout=30)
        assert listed.status_code == 200 and made["id"] in listed.text, listed.text
        result = call(made["mcp_url"], "chat_update_channel", {"channel": "general", "topic": "after the restart"})
        assert not result.is_error, result
        grade = httpx.post(f"{server.api}/episodes/{made['id']}/grade", headers=server.headers(), timeout=60).json()
        assert grade["status"] in ("passed", "failed"), grade  # graded, not a grader error
        assert len(episode_databases(cluster)) == 2  # the default episode and the task's
        cluster.stop()
        started = time.monotonic()
        code = server.stop(signal.SIGTERM)
        assert code == 128 + signal.SIGTERM and time.monotonic() - started < 20
    finally:
        if not cluster.running():
            cluster.start()
        server.stop()
    # the databases it could not drop are left for the next server's sweep (below)


def test_the_sweep_drops_episode_databases_no_record_names_whose_maker_died(cluster, tmp_path):
    store = EpisodeStore(load_settings(episodes_dir=tmp_path / "episodes", database_url=cluster.url, pool_size=0))
    other_fleet = EpisodeStore(load_settings(episodes_dir=tmp_path / "episodes", database_url=cluster.url,
                                             pool_size=0, fleet="another-fleet"))
    try:
        registered, orphan, unmarked = store.create(scale="tiny"), store.create(scale="tiny"), store.create(scale="tiny")
        theirs = other_fleet.create(scale="tiny")
        dead = maker_note(store.settings.fleet).replace(f"pid={os.getpid()} ", f"pid={2**22 + 1} ")
        their_dead = dead.replace(store.settings.fleet, "another-fleet")
        for owner, episode, note in ((store, orphan, dead), (store, unmarked, None), (other_fleet, theirs, their_dead)):
            owner.registry.remove(episode.id)  # as a process killed before its drop ran leaves it
            owner._forget(episode.id)
            with store.backend.admin.connect() as conn:
                conn.execute(text(f"COMMENT ON DATABASE {store.backend.quoted(episode.database.name)} IS "
                                  + ("NULL" if note is None else f"'{note}'")))
        left = set(episode_databases(cluster)) - {registered.database.name, unmarked.database.name,
                                                  theirs.database.name}
        assert orphan.database.name in left  # with what the server above left, if it could not drop
        assert sorted(sweep(store)) == sorted(name[len("og_e_"):] for name in left)
        store.backend.settle()
        assert episode_databases(cluster) == sorted([registered.database.name, unmarked.database.name,
                                                     theirs.database.name])
    finally:
        store.close()
        other_fleet.close()
