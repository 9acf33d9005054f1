"""compose.yaml's topology with processes: two officegym servers on one PostgreSQL server behind a
round-robin balancer with no stickiness (each connection to the next server, as the gateway
does). Whole episodes run through the balancer, whichever server each request reaches."""

from __future__ import annotations

import signal
import socket
import threading
from collections import Counter

import anyio
import httpx
from mcp.client import Client
from serving import Serving


class RoundRobin:
    """A TCP balancer in threads: each new connection goes to the next server's port."""

    def __init__(self):
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.ports: list[int] = []
        self.served: Counter[int] = Counter()

    def start(self, ports: list[int]) -> None:
        """Forward to these servers from now on."""
        self.ports = ports
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        turn = 0
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:  # closed
                return
            port = self.ports[turn % len(self.ports)]
            turn += 1
            self.served[port] += 1
            upstream = socket.create_connection(("127.0.0.1", port))
            for source, target in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(source, target), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, target: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                target.sendall(data)
        except OSError:
            pass
        finally:
            for end in (source, target):
                try:
                    end.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def close(self) -> None:
        """Stop accepting."""
        self.listener.close()


def test_episodes_run_through_a_balancer_over_two_servers_on_postgresql(tmp_path, settings, store, postgres_url):
    balancer = RoundRobin()
    public = f"http://127.0.0.1:{balancer.port}"
    fleet = [Serving(tmp_path, settings, "--public-url", public, database_url=postgres_url,
                     admin_token="fleet-admin-token-0123456789") for _ in range(2)]
    balancer.start([server.port for server in fleet])
    headers = fleet[0].headers()
    try:
        for server in fleet:
            server.answering()

        def episode(instance: int) -> None:
            made = httpx.post(f"{public}/api/episodes", json={"task": "chat.set_topic", "instance": instance},
                              headers=headers, timeout=60)
            assert made.status_code == 201, made.text
            body = made.json()
            assert body["mcp_url"].startswith(public + "/e/")  # agents are sent to the balancer too

            async def solve():
                for call in store.task_instance(store.world("tiny"), "chat.set_topic", instance).solution:
                    async with Client(body["mcp_url"]) as client:  # one connection per call: either server
                        assert not (await client.call_tool(call.tool, call.args)).is_error

            anyio.run(solve)
            page = httpx.get(body["ui_url"] + "chat/c/general", follow_redirects=True, timeout=30)
            assert page.status_code == 200
            graded = httpx.post(f"{public}/api/episodes/{body['id']}/grade?delete=true", headers=headers, timeout=60)
            assert graded.status_code == 200 and graded.json()["success"] is True, graded.text
            assert httpx.delete(f"{public}/api/episodes/{body['id']}", headers=headers).status_code == 404

        for instance in range(4):
            episode(instance)
        assert all(balancer.served[server.port] >= 8 for server in fleet), balancer.served
    finally:
        balancer.close()
        codes = [server.stop(signal.SIGTERM) for server in fleet]
    assert codes == [128 + signal.SIGTERM] * 2
