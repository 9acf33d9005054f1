"""The server end to end: control API, MCP over streamable HTTP with the SDK client, isolation."""

from __future__ import annotations

import anyio
import httpx
import pytest
from mcp.client import Client

from officegym.tasks.base import DIFFICULTIES


def create(server, task="chat.set_topic", instance=0):
    response = httpx.post(f"{server.base_url}/api/episodes", json={"task": task, "instance": instance},
                          headers=server.admin)
    assert response.status_code == 201, response.text
    return response.json()


def test_control_api_requires_the_admin_token(live_server):
    for method, path in [("POST", "/api/episodes"), ("GET", "/api/tasks"),
                         ("POST", "/api/episodes/x/grade"), ("DELETE", "/api/episodes/abc")]:
        response = httpx.request(method, live_server.base_url + path, json={"task": "chat.set_topic"})
        assert response.status_code == 401, (method, path)
        wrong = httpx.request(method, live_server.base_url + path, headers={"Authorization": "Bearer nope"})
        assert wrong.status_code == 401
    assert live_server.store.live() == []


def test_list_tasks(live_server):
    tasks = httpx.get(f"{live_server.base_url}/api/tasks", headers=live_server.admin).json()["tasks"]
    assert {"chat.set_topic", "chat.reply_with_fact"} <= {t["id"] for t in tasks}
    assert all(set(t) == {"id", "apps", "difficulty", "kind", "split", "scale", "rules", "summary"} for t in tasks)
    assert {t["kind"] for t in tasks} <= {"task", "workflow", "decision"} and all(t["difficulty"] in DIFFICULTIES for t in tasks)


def test_create_solve_over_http_mcp_grade_delete(live_server):
    episode = create(live_server, "chat.set_topic", 1)
    assert episode["mcp_url"].endswith(f"/e/{episode['id']}/mcp") and episode["instruction"]
    assert len(episode["id"]) >= 20 and set(episode["actor"]) == {"id", "name", "handle", "title"}
    live = live_server.store.get(episode["id"])
    call = live.task.solution[0]

    async def solve():
        async with Client(episode["mcp_url"]) as client:
            tools = {t.name for t in (await client.list_tools()).tools}
            assert {"chat_update_channel", "submit_answer", "org_search_people"} <= tools
            assert not any("grade" in name for name in tools)
            result = await client.call_tool(call.tool, call.args)
            assert not result.is_error, result
            bad = await client.call_tool("chat_update_channel", {"channel": "no-such-channel", "topic": "x"})
            assert bad.is_error and "not found" in bad.content[0].text

    anyio.run(solve)
    graded = httpx.post(f"{live_server.base_url}/api/episodes/{episode['id']}/grade", headers=live_server.admin)
    assert graded.status_code == 200
    body = graded.json()
    assert body["success"] is True and body["score"] == 1.0 and body["status"] == "passed"
    assert all(c["passed"] for c in body["checks"])
    deleted = httpx.delete(f"{live_server.base_url}/api/episodes/{episode['id']}", headers=live_server.admin)
    assert deleted.status_code == 200
    again = httpx.post(f"{live_server.base_url}/api/episodes/{episode['id']}/grade", headers=live_server.admin)
    assert again.status_code == 404
    gone = httpx.post(episode["mcp_url"], json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert gone.status_code == 404
    page = httpx.get(episode["ui_url"])
    assert page.status_code == 404


def test_two_episodes_are_isolated(live_server):
    first, second = create(live_server, "chat.set_topic", 2), create(live_server, "chat.set_topic", 2)
    assert first["id"] != second["id"]
    call = live_server.store.get(first["id"]).task.solution[0]

    async def act():
        async with Client(first["mcp_url"]) as client:
            assert not (await client.call_tool(call.tool, call.args)).is_error

    anyio.run(act)
    grades = [httpx.post(f"{live_server.base_url}/api/episodes/{e['id']}/grade", headers=live_server.admin).json()
              for e in (first, second)]
    assert grades[0]["success"] is True and grades[1]["success"] is False
    for e in (first, second):
        httpx.delete(f"{live_server.base_url}/api/episodes/{e['id']}", headers=live_server.admin)


def test_episodes_of_one_tool_set_share_a_server_yet_each_call_acts_for_its_own_episode(live_server):
    # Episodes of one task serve the same tools from one session manager: the URL alone says whose
    # episode a call acts in, however their calls interleave.
    made = [create(live_server, "chat.set_topic", k) for k in range(4)]
    actors = {e["id"]: e["actor"]["handle"] for e in made}
    assert len(set(actors.values())) > 1
    seen: dict[str, set[str]] = {e["id"]: set() for e in made}

    async def ask(episode, rounds=6):
        async with Client(episode["mcp_url"]) as client:
            for _ in range(rounds):
                result = await client.call_tool("org_get_me", {})
                assert not result.is_error, result
                seen[episode["id"]].add(result.content[0].text)
                await anyio.sleep(0)

    async def together():
        async with anyio.create_task_group() as group:
            for episode in made:
                group.start_soon(ask, episode)

    anyio.run(together)
    for episode in made:
        said, = seen[episode["id"]]
        assert f"@{actors[episode['id']]}" in said or actors[episode["id"]] in said
        steps = live_server.store.get(episode["id"]).trajectory.steps()
        assert [s["name"] for s in steps if s["surface"] == "mcp"] == ["org_get_me"] * 6
        httpx.delete(f"{live_server.base_url}/api/episodes/{episode['id']}", headers=live_server.admin)


@pytest.mark.parametrize("body", [None, {}, {"task": 3}, {"task": "chat.nope"}, {"task": "chat.set_topic", "instance": -1},
                                  {"task": "chat.set_topic", "instance": "two"}])
def test_bad_create_requests_are_refused(live_server, body):
    before = len(live_server.store.live())
    response = httpx.post(f"{live_server.base_url}/api/episodes", json=body, headers=live_server.admin)
    assert response.status_code in (400, 404) and "error" in response.json()
    assert len(live_server.store.live()) == before


def test_dns_rebinding_host_is_refused(live_server):
    episode = create(live_server)
    response = httpx.post(episode["mcp_url"], headers={"Host": "evil.example.com", "Accept": "application/json"},
                          json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert response.status_code in (403, 421)
    httpx.delete(f"{live_server.base_url}/api/episodes/{episode['id']}", headers=live_server.admin)
