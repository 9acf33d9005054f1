"""The `officegym` command as a user runs it."""

from __future__ import annotations

import http.client
import json
import os
import signal
import stat
import subprocess
import sys
import time

import anyio
import httpx
import pytest
from serving import Serving


def officegym(*args: str, env_home: str | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    return subprocess.run([sys.executable, "-m", "officegym.cli", *args], capture_output=True, text=True,
                          env=env, timeout=600)


def test_run_oracle_json_lines_all_succeed():
    done = officegym("run", "--agent", "oracle", "--tasks", "chat.set_topic,chat.fix_typo", "--instances", "2",
                     "--json", "--scale", "tiny")
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(rows) == 4
    assert {r["task_id"] for r in rows} == {"chat.set_topic", "chat.fix_typo"}
    assert all(r["success"] is True and r["score"] == 1.0 and r["status"] == "passed" for r in rows)
    assert all(set(r) >= {"task_id", "success", "score", "status", "checks"} for r in rows)


def test_run_null_agent_fails_and_table_is_printed():
    done = officegym("run", "--agent", "null", "--tasks", "chat.set_topic", "--instances", "2", "--scale", "tiny")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split()[:3] == ["task", "episodes", "success"]
    row = next(line for line in lines if line.startswith("chat.set_topic"))
    assert row.split()[1:3] == ["2", "0"]


def test_run_unknown_pattern_is_a_clear_error():
    done = officegym("run", "--agent", "oracle", "--tasks", "nothing.*", "--scale", "tiny")
    assert done.returncode == 2 and "no task matches" in done.stderr


def test_tasks_lists_the_registry():
    done = officegym("tasks", "--tasks", "chat.*")
    assert done.returncode == 0
    assert len(done.stdout.splitlines()) >= 12 and "chat.reply_with_fact" in done.stdout


def test_a_template_that_cannot_draw_an_instance_is_reported_and_the_run_goes_on():
    # the tiny world has no open production incident for an on-call hand-over
    done = officegym("run", "--agent", "null", "--tasks", "tickets.hand_incident_over,chat.set_topic",
                     "--instances", "1", "--json", "--scale", "tiny")
    assert done.returncode == 1, done.stderr
    rows = {r["task_id"]: r for r in map(json.loads, done.stdout.splitlines())}
    assert rows["tickets.hand_incident_over"]["status"] == "error"
    assert "could not create the episode" in rows["tickets.hand_incident_over"]["error"]
    assert rows["chat.set_topic"]["status"] == "failed"


def test_tasks_export_writes_the_catalogue_as_json_lines():
    done = officegym("tasks", "export", "--tasks", "chat.set_topic,crm.*", "--split", "test", "--instances", "2",
                     "--scale", "small")
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert rows and {r["split"] for r in rows} == {"test"} and {r["scale"] for r in rows} == {"small"}
    assert all(r["task_id"].startswith("crm.") for r in rows) and len(rows) % 2 == 0
    assert [r["instance"] for r in rows[:2]] == [0, 1] and rows[0]["instruction"] != rows[1]["instruction"]
    for row in rows:
        assert f"@{row['actor']['handle']}" in row["system_prompt"] and row["now"][:4] in row["system_prompt"]
        names = [tool["function"]["name"] for tool in row["tools"]]  # definitions in the OpenAI function format
        assert len(names) <= 100 and "submit_answer" in names
        assert ("submit_answer tool" in row["system_prompt"]) == row["expects_answer"]
    assert f"task instances: {len(rows)}/{len(rows)}" in done.stderr
    wrong = officegym("tasks", "export", "--instances", "0")
    assert wrong.returncode == 2 and "instances must be" in wrong.stderr
    partial = officegym("tasks", "export", "--tasks", "crm.*", "--instances", "1", "--scale", "tiny")
    left_out = partial.stderr.count("left out crm.")
    assert partial.returncode == 1 and 0 < left_out and len(partial.stdout.splitlines()) + left_out == len(
        [line for line in officegym("tasks", "--tasks", "crm.*").stdout.splitlines() if line.strip()])


def test_serve_never_prints_the_admin_token_and_says_which_file_holds_it(tmp_path, settings):
    server = Serving(tmp_path, settings)
    try:
        token_file = server.home / "admin-token"
        assert f"<the token in {token_file}>" in server.printed[-1]
        token = server.token()
        assert len(token) >= 24 and token not in "".join(server.printed)
        assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
        server.answering()
        assert httpx.get(f"{server.api}/episodes").status_code == 401
    finally:
        server.stop()


def test_serve_stopped_with_sigterm_deletes_every_live_episode(tmp_path, settings):
    server = Serving(tmp_path, settings)
    try:
        server.answering()
        for instance in (0, 1):
            made = httpx.post(f"{server.api}/episodes", json={"task": "chat.set_topic", "instance": instance},
                              headers=server.headers())
            assert made.status_code == 201, made.text
        assert len(list(server.episodes.glob("*.sqlite"))) >= 3  # the default episode and the two made
    finally:
        code = server.stop(signal.SIGTERM)
    assert code == 128 + signal.SIGTERM
    assert list(server.episodes.glob("*.sqlite")) == []


def test_a_server_deletes_at_start_what_a_killed_server_left_behind(tmp_path, settings):
    killed = Serving(tmp_path, settings)
    killed.answering()
    made = httpx.post(f"{killed.api}/episodes", json={"task": "chat.set_topic"}, headers=killed.headers())
    assert made.status_code == 201, made.text
    assert killed.stop(signal.SIGKILL) == -signal.SIGKILL  # no cleanup at all
    left = sorted(path.stem for path in killed.episodes.glob("*.sqlite"))
    assert len(left) == 2  # the default episode and the task's
    successor = Serving(tmp_path, settings)
    try:
        assert any("deleted 2 episode(s) left by processes that no longer run" in line for line in successor.printed)
        assert not set(left) & {path.stem for path in successor.episodes.glob("*.sqlite")}
        assert len(list(successor.episodes.glob("*.json"))) == 1  # its own default episode
    finally:
        successor.stop()



@pytest.mark.parametrize("options", [(), ("--workers", "2")], ids=["one process", "two workers"])
def test_an_idle_connection_outlives_the_clients_own_keep_alive(tmp_path, settings, options):
    """httpx (and the MCP SDK's client) drop an idle connection after 5 s; the server keeps it
    longer, so a client reusing one never meets a connection the server has just closed."""
    server = Serving(tmp_path, settings, *options)
    try:
        server.answering()
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        try:
            conn.request("GET", "/healthz")
            first = conn.getresponse()
            assert first.status == 200 and first.read()
            opened = conn.sock
            time.sleep(6)  # longer than httpx's keep-alive expiry, and than uvicorn's own default
            conn.request("GET", "/healthz")  # a closed connection raises RemoteDisconnected here
            second = conn.getresponse()
            assert second.status == 200 and second.read()
            assert conn.sock is opened  # the same connection answered both
        finally:
            conn.close()
    finally:
        server.stop()


@pytest.mark.parametrize("options", [(), ("--workers", "2")], ids=["one process", "two workers"])
def test_served_tool_calls_write_no_line_per_request(tmp_path, settings, options):
    """The SDK logs "Terminating session" at INFO for every stateless request, through a handler
    it puts on the root logger: a line per call on the server's output, a third of a call's CPU."""
    from mcp.client import Client

    server = Serving(tmp_path, settings, *options)
    try:
        server.answering()
        made = httpx.post(f"{server.api}/episodes", json={"task": "chat.set_topic", "instance": 0},
                          headers=server.headers(), timeout=60)
        assert made.status_code == 201, made.text

        async def calls():
            async with Client(made.json()["mcp_url"]) as client:
                for _ in range(5):
                    assert not (await client.call_tool("org_get_me", {})).is_error

        anyio.run(calls)
    finally:
        server.stop(signal.SIGTERM)
    printed = "".join(server.printed) + server.process.stdout.read()
    assert "Terminating session" not in printed and "session manager" not in printed, printed[-2000:]
