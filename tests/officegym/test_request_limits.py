"""Requests beyond the server's limits on every surface (the UI, MCP, the control API): a head with
too many bytes or too many headers gets 431 and is never read whole, even at 64 MB; a JSON-RPC
request whose id no answer can carry gets a JSON-RPC error instead of no answer."""

from __future__ import annotations

import socket
import time

import httpx
import pytest
from serving import Serving

from officegym.http_limits import MAX_HEAD_BYTES, MAX_HEADERS


@pytest.fixture(scope="module")
def free_episode(live_server):
    """A free episode of the served store, deleted afterwards."""
    made = live_server.store.create(scale="tiny")
    yield made
    live_server.store.delete(made.id)


def surfaces(episode_id: str) -> dict[str, str]:
    """A path of each surface, answering 200 to the admin."""
    return {"ui": f"/e/{episode_id}/", "control API": "/api/tasks", "mcp": f"/e/{episode_id}/mcp"}


def exchange(port: int, request: bytes) -> tuple[bytes, float]:
    """Send `request` whole on a new connection (the server may stop reading it), then read the answer
    until the server closes; the answer and the seconds it all took."""
    started = time.perf_counter()
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        try:
            sock.sendall(request)
        except (BrokenPipeError, ConnectionResetError):
            pass
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return answer, time.perf_counter() - started


def head(server, path: str, headers: list[tuple[str, str]]) -> bytes:
    """A GET request's head (POST with an empty JSON body for MCP) with the admin's token."""
    method = "POST" if path.endswith("/mcp") else "GET"
    lines = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{server.settings.port}",
             f"Authorization: {server.admin['Authorization']}", "Connection: close"]
    if method == "POST":
        lines += ["Content-Type: application/json", "Accept: application/json, text/event-stream",
                  "Content-Length: 0"]
    return ("\r\n".join(lines + [f"{k}: {v}" for k, v in headers]) + "\r\n\r\n").encode()


def status(answer: bytes) -> int:
    return int(answer.split(b" ", 2)[1])


@pytest.mark.parametrize("surface", ["ui", "control API", "mcp"])
def test_too_many_headers_or_too_many_bytes_get_431_on_every_surface(live_server, free_episode, surface):
    path = surfaces(free_episode.id)[surface]
    port = live_server.settings.port
    within = [(f"X-Within-{k}", "v" * 500) for k in range(MAX_HEADERS - 10)]
    assert status(exchange(port, head(live_server, path, within))[0]) != 431
    answer, _ = exchange(port, head(live_server, path, [(f"X-Many-{k}", "v") for k in range(MAX_HEADERS + 1)]))
    assert status(answer) == 431 and b"at most 100 headers" in answer
    answer, _ = exchange(port, head(live_server, path, [("X-Large", "v" * MAX_HEAD_BYTES)]))
    assert status(answer) == 431 and b"Request Header Fields Too Large" in answer.split(b"\r\n")[0]


def test_a_64_mb_header_is_refused_without_being_read_whole(live_server):
    started = time.process_time()
    answer, seconds = exchange(live_server.settings.port, head(live_server, "/api/tasks", [("X-Huge", "v" * 64_000_000)]))
    assert status(answer) == 431, answer[:200]
    # The client's own sending is most of the time; reading and parsing 64 MB used to take 18 s of CPU.
    assert seconds < 20 and time.process_time() - started < 20
    assert httpx.get(f"{live_server.base_url}/api/tasks", headers=live_server.admin).status_code == 200


@pytest.mark.parametrize("options", [(), ("--workers", "2")], ids=["one process", "two workers"])
def test_the_served_command_applies_the_limits(tmp_path, settings, options):
    server = Serving(tmp_path, settings, *options)
    try:
        server.answering()
        lines = ["GET /healthz HTTP/1.1", f"Host: 127.0.0.1:{server.port}"]
        many = ("\r\n".join(lines + [f"X-{k}: v" for k in range(MAX_HEADERS + 1)]) + "\r\n\r\n").encode()
        assert status(exchange(server.port, many)[0]) == 431
        huge = ("\r\n".join(lines) + "\r\nX-Huge: ").encode() + b"v" * 64_000_000 + b"\r\n\r\n"
        assert status(exchange(server.port, huge)[0]) == 431
        assert httpx.get(f"http://127.0.0.1:{server.port}/healthz").status_code == 200
    finally:
        server.stop()


def test_requests_before_and_after_a_pipelined_one_are_answered(live_server):
    one = head(live_server, "/api/tasks", []).replace(b"Connection: close\r\n", b"")
    answer, _ = exchange(live_server.settings.port, one * 3 + head(live_server, "/api/tasks", []))
    assert answer.count(b"HTTP/1.1 200 OK") == 4


@pytest.mark.parametrize("request_id", [{"a": 1}, [1], 1.5, None, True], ids=["object", "array", "fraction", "null", "bool"])
def test_a_json_rpc_request_whose_id_cannot_be_answered_gets_invalid_request(live_server, free_episode, request_id):
    url = f"{live_server.base_url}/e/{free_episode.id}/mcp"
    headers = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-06-18"}
    answer = httpx.post(url, headers=headers, json={"jsonrpc": "2.0", "id": request_id, "method": "tools/list"})
    assert answer.status_code == 400
    error = answer.json()
    assert error["id"] is None and error["error"]["code"] == -32600
    assert "must be a string or a whole number" in error["error"]["message"]
    fine = httpx.post(url, headers=headers, json={"jsonrpc": "2.0", "id": 7, "method": "tools/list"})
    assert fine.status_code == 200 and fine.json()["id"] == 7 and fine.json()["result"]["tools"]
    notified = httpx.post(url, headers=headers, json={"jsonrpc": "2.0", "method": "notifications/initialized"})
    assert notified.status_code == 202 and notified.content == b""


def test_a_large_body_is_not_counted_as_part_of_the_head(live_server):
    body = {"task": "chat.set_topic", "instance": 0, "padding": "x" * 2_000_000}
    answer = httpx.post(f"{live_server.base_url}/api/episodes", json=body, headers=live_server.admin, timeout=60)
    assert answer.status_code == 201, answer.text[:200]
    live_server.store.delete(answer.json()["id"])
