"""Host and Origin checks on every surface of a served officegym: the UI, an episode's MCP endpoint
and the control API refuse a foreign Host (DNS rebinding) and a foreign Origin before doing any
work, answer their own names on any port, and let container probes reach /healthz; the names a
server answers to follow its public URL and `--allowed-host`."""

from __future__ import annotations

import subprocess
import sys

import httpx
import pytest
from starlette.responses import PlainTextResponse
from starlette.testclient import TestClient

from officegym.host_check import HostCheck, allowed_names, host_name


@pytest.fixture(scope="module")
def surfaces(live_server):
    """(server, {surface: (method, url, headers, json body)}) for one task episode of the live server."""
    made = httpx.post(f"{live_server.base_url}/api/episodes", json={"task": "chat.set_topic"},
                      headers=live_server.admin).json()
    mcp = {"Accept": "application/json, text/event-stream"}
    yield live_server, {
        "ui": ("GET", made["ui_url"], {}, None),
        "ui form": ("POST", made["ui_url"] + "chat/c/general/messages", {}, None),
        "mcp": ("POST", made["mcp_url"], mcp, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        "control API": ("GET", f"{live_server.base_url}/api/episodes", live_server.admin, None)}
    httpx.delete(f"{live_server.base_url}/api/episodes/{made['id']}", headers=live_server.admin)


def send(surface, **headers) -> httpx.Response:
    method, url, base, body = surface
    return httpx.request(method, url, headers={**base, **headers}, json=body)


@pytest.mark.parametrize("name", ["ui", "ui form", "mcp", "control API"])
def test_every_surface_refuses_a_foreign_host_or_origin_and_changes_nothing(surfaces, name):
    server, table = surfaces
    before = {e.id: e.last_used for e in server.store.live()}
    for host in ("evil.example.com", "evil.example.com:80", "127.0.0.1.evil.example.com", "", "127.0.0.1@evil"):
        response = send(table[name], host=host)
        assert response.status_code == 421 and "Invalid Host header" in response.text, (host, response.text)
    for origin in ("http://evil.example.com", "null", "http://127.0.0.1.evil.example.com:8765", "file://"):
        response = send(table[name], origin=origin)
        assert response.status_code == 403 and "Invalid Origin header" in response.text, (origin, response.text)
    assert {e.id: e.last_used for e in server.store.live()} == before  # refused before the episode was touched


@pytest.mark.parametrize("name", ["ui", "mcp", "control API"])
def test_every_surface_answers_its_own_names_on_any_port(surfaces, name):
    server, table = surfaces
    port = server.settings.port
    for host, origin in ((f"127.0.0.1:{port}", None), (f"localhost:{port}", f"http://localhost:{port}"),
                         ("localhost:9999", "https://127.0.0.1")):
        response = send(table[name], host=host, **({"origin": origin} if origin else {}))
        assert response.status_code == 200, (host, origin, response.status_code, response.text[:200])


def test_health_answers_whatever_the_host(live_server):
    response = httpx.get(f"{live_server.base_url}/healthz", headers={"host": "10.1.2.3:8765"})
    assert response.status_code == 200 and response.json()["status"] == "ok"


def test_names_come_from_the_public_url_and_the_allowed_hosts():
    names = allowed_names("https://gym.example.org/base", ["officegym", " 10.0.0.5:8765 ", "[fd00::1]", ""])
    assert names == {"127.0.0.1", "localhost", "::1", "gym.example.org", "officegym", "10.0.0.5", "fd00::1"}
    for bad in ("http://x", "a b", "x:port", "[::1"):
        with pytest.raises(ValueError, match="is not a host name"):
            allowed_names("", [bad])
    assert [host_name(h) for h in ("LocalHost:80", "[::1]:8765", "[::1]x", "a:b", "a/b")] == [
        "localhost", "::1", None, None, None]
    app = TestClient(HostCheck(PlainTextResponse("served"), names))
    assert app.get("/", headers={"host": "gym.example.org"}).text == "served"
    assert app.get("/", headers={"host": "officegym:8765", "origin": "http://officegym:8765"}).status_code == 200
    assert app.get("/", headers={"host": "elsewhere.org"}).status_code == 421
    anyone = TestClient(HostCheck(PlainTextResponse("served"), allowed_names("", ["*"])))
    assert anyone.get("/", headers={"host": "elsewhere.org"}).status_code == 200
    assert anyone.get("/", headers={"host": "x", "origin": "null"}).status_code == 403


def test_serve_refuses_an_allowed_host_that_is_not_a_name(tmp_path):
    done = subprocess.run([sys.executable, "-m", "officegym.cli", "serve", "--allowed-host", "http://evil/"],
                          capture_output=True, text=True, timeout=60, env={"OFFICEGYM_HOME": str(tmp_path)})
    assert done.returncode == 2 and "--allowed-host: 'http://evil/' is not a host name" in done.stderr
    assert not (tmp_path / "worlds").exists()  # refused before any world was built
