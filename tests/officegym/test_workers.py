"""Several processes serve one set of episodes: two servers on one registry (files, or PostgreSQL
tables), as replicas behind a load balancer are, and `serve --workers 2`, whose worker can die
mid-run while its episodes carry on in the other."""

from __future__ import annotations

import os
import signal
import socket
import time
from pathlib import Path

import anyio
import httpx
import pytest
from mcp.client import Client
from serving import Serving

from officegym.server import TcpConfig


def solve(mcp_url: str, calls) -> None:
    """Make a task's reference calls through the official MCP client."""

    async def run():
        async with Client(mcp_url) as client:
            for call in calls:
                assert not (await client.call_tool(call.tool, call.args)).is_error

    anyio.run(run)


def create(server: Serving, instance: int) -> dict:
    made = httpx.post(f"{server.api}/episodes", json={"task": "chat.set_topic", "instance": instance},
                      headers=server.headers(), timeout=60)
    assert made.status_code == 201, made.text
    return made.json()


def other_url(episode: dict, server: Serving) -> str:
    """The episode's MCP address on another server."""
    return f"http://127.0.0.1:{server.port}/e/{episode['id']}/mcp"


@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
def test_an_episode_made_on_one_server_is_served_graded_and_deleted_on_another(database, tmp_path, settings, store,
                                                                             postgres_url):
    url = postgres_url if database == "postgresql" else "sqlite"
    first = Serving(tmp_path, settings, database_url=url, admin_token="fleet-admin-token-0123456789")
    second = Serving(tmp_path, settings, database_url=url, admin_token="fleet-admin-token-0123456789")
    try:
        first.answering()
        second.answering()
        headers, second_headers = first.headers(), second.headers()
        episode = create(first, 3)
        solution = store.task_instance(store.world("tiny"), "chat.set_topic", 3).solution
        solve(other_url(episode, second), solution)
        graded = httpx.post(f"{second.api}/episodes/{episode['id']}/grade", headers=second_headers, timeout=60)
        assert graded.status_code == 200 and graded.json()["success"] is True, graded.text
        steps = httpx.get(f"{first.api}/episodes/{episode['id']}/trajectory", headers=headers).text.splitlines()
        assert len(steps) == len(solution)
        listed = httpx.get(f"{second.api}/episodes", headers=second_headers).json()
        assert episode["id"] in {e["id"] for e in listed["items"]}
        assert httpx.delete(f"{first.api}/episodes/{episode['id']}", headers=headers).status_code == 200
        assert httpx.post(f"{second.api}/episodes/{episode['id']}/grade", headers=second_headers).status_code == 404
        assert httpx.post(other_url(episode, second), json={}).status_code == 404
    finally:
        assert second.stop(signal.SIGTERM) == 128 + signal.SIGTERM
        assert first.stop(signal.SIGTERM) == 128 + signal.SIGTERM
    assert list(first.episodes.glob("*.sqlite")) == [] and list(first.episodes.glob("*.json")) == []


def workers_of(server: Serving) -> list[int]:
    """The pids of a `serve --workers N` server's worker processes."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            ppid = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            command = (stat.parent / "cmdline").read_bytes()
        except (OSError, ValueError, IndexError):
            continue
        if ppid == server.process.pid and b"spawn_main" in command:
            found.append(int(stat.parent.name))
    return found


def opened_episodes(pid: int, folder: Path) -> set[str]:
    """The episodes whose SQLite file a process has open."""
    names = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = Path(os.readlink(fd))
        except OSError:
            continue
        if target.parent == folder and target.suffix == ".sqlite":
            names.add(target.stem)
    return names


def test_a_killed_workers_episodes_carry_on_in_another_and_sigterm_leaves_nothing(tmp_path, settings, store):
    server = Serving(tmp_path, settings, "--workers", "2")
    try:
        server.answering()
        episodes = [create(server, k) for k in range(8)]
        workers = workers_of(server)
        assert len(workers) == 2
        made_in = {pid: opened_episodes(pid, server.episodes.resolve()) for pid in workers}
        victim = max(workers, key=lambda pid: len(made_in[pid]))
        orphaned = [e for e in episodes if e["id"] in made_in[victim]]
        assert orphaned, made_in  # the busier worker created some of them
        os.kill(victim, signal.SIGKILL)
        for episode in orphaned:
            instance = episodes.index(episode)
            solve(episode["mcp_url"], store.task_instance(store.world("tiny"), "chat.set_topic", instance).solution)
            graded = httpx.post(f"{server.api}/episodes/{episode['id']}/grade", headers=server.headers(), timeout=60)
            assert graded.status_code == 200 and graded.json()["success"] is True, (instance, graded.text)
        assert victim not in workers_of(server)
        live = httpx.get(f"{server.api}/episodes", headers=server.headers()).json()
        assert live["total"] == len(episodes) + 1  # and the default episode
    finally:
        code = server.stop(signal.SIGTERM)
    assert code == 0  # the supervisor stops its workers, deletes every episode and ends normally
    assert list(server.episodes.glob("*.sqlite")) == [] and list(server.episodes.glob("*.json")) == []


def test_the_workers_shared_socket_is_marked_tcp_so_that_every_connection_gets_tcp_nodelay():
    """uvicorn's own shared socket has protocol 0; asyncio turns Nagle's algorithm off only on
    sockets marked TCP, and responses would wait ~40 ms for delayed acknowledgements."""
    config = TcpConfig("officegym.server:worker_app", factory=True, workers=2, host="127.0.0.1", port=0)
    listener = config.bind_socket()
    try:
        assert listener.proto == socket.IPPROTO_TCP and listener.get_inheritable()
        listener.listen()  # as the event loop does in each worker
        with socket.create_connection(listener.getsockname()) as client:
            accepted, _ = listener.accept()
            with accepted:
                assert accepted.proto == socket.IPPROTO_TCP
                client.sendall(b"ping")
                assert accepted.recv(4) == b"ping"
    finally:
        listener.close()


def established_sockets(port: int) -> set[int]:
    """Inodes of the established TCP connections whose local port is `port` (the server's side)."""
    inodes = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if int(fields[1].split(":")[1], 16) == port and fields[3] == "01":
            inodes.add(int(fields[9]))
    return inodes


def connections_held(pid: int, port: int) -> int:
    """How many of the server's established connections process `pid` holds."""
    return len(established_sockets(port) & socket_inodes(pid))


def socket_inodes(pid: int) -> set[int]:
    """The inodes of the sockets process `pid` holds."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(int(target[8:-1]))
    return inodes


def workers_registered(server: Serving) -> int:
    """How many workers are connected to the supervisor's hand-off socket (ready for connections)."""
    held = socket_inodes(server.process.pid)
    registered = 0
    for line in Path("/proc/net/unix").read_text().splitlines()[1:]:
        fields = line.split()
        if len(fields) == 8 and fields[7].endswith("/handoff.sock") and fields[5] == "03" \
                and int(fields[6]) in held:
            registered += 1
    return registered


def test_connections_opened_together_are_spread_over_the_workers(tmp_path, settings):
    """A harness's keep-alive connections, opened at once, go to the worker holding the fewest:
    with a shared listening socket, the first worker to wake would accept them all."""
    server = Serving(tmp_path, settings, "--workers", "2")
    clients = []
    try:
        server.answering()
        workers = workers_of(server)
        assert len(workers) == 2
        deadline = time.monotonic() + 120
        while workers_registered(server) < 2:  # a worker takes connections once its app has started
            assert time.monotonic() < deadline, "a worker never asked for connections"
            time.sleep(0.1)
        for _ in range(8):
            client = httpx.Client(base_url=server.api, headers=server.headers(), timeout=30)
            clients.append(client)
            assert client.get("/episodes").status_code == 200  # the connection stays open after it
        held = sorted(connections_held(pid, server.port) for pid in workers)
        assert held == [4, 4]
        assert connections_held(server.process.pid, server.port) == 0  # the supervisor kept none
    finally:
        for client in clients:
            client.close()
        assert server.stop(signal.SIGTERM) == 0
