"""The control API's harness features: tool sets, the episode listing, idle expiry, grade-and-delete,
trajectories of MCP calls and UI requests, and the task catalogue."""

from __future__ import annotations

import json
import re
import time

import anyio
import httpx
import pytest
from mcp.client import Client

from officegym.web import UI_BODY_LIMIT


def create(server, **body):
    response = httpx.post(f"{server.base_url}/api/episodes", json={"task": "chat.set_topic", **body},
                          headers=server.admin)
    assert response.status_code == 201, response.text
    return response.json()


def listed_tools(mcp_url: str) -> list[str]:
    async def run():
        async with Client(mcp_url) as client:
            return [t.name for t in (await client.list_tools()).tools]

    return anyio.run(run)


def test_tool_sets_over_http(live_server):
    task = create(live_server)
    narrow = create(live_server, tools=["chat_update_channel", "submit_answer"])
    try:
        assert listed_tools(task["mcp_url"]) == task["tools"] and "org_get_me" in task["tools"]
        assert not any(n.startswith("sheets_") for n in task["tools"])
        assert listed_tools(narrow["mcp_url"]) == ["submit_answer", "chat_update_channel"]
        bad = httpx.post(f"{live_server.base_url}/api/episodes", json={"task": "chat.set_topic", "tools": ["x"]},
                         headers=live_server.admin)
        assert bad.status_code == 400 and "'x' is not an app" in bad.json()["error"]
    finally:
        for episode in (task, narrow):
            httpx.delete(f"{live_server.base_url}/api/episodes/{episode['id']}", headers=live_server.admin)


def test_episodes_are_listed_graded_and_deleted_in_one_call(live_server):
    first, second = create(live_server, instance=1), create(live_server, instance=2)
    listing = httpx.get(f"{live_server.base_url}/api/episodes?limit=1", headers=live_server.admin).json()
    assert listing["total"] == len(live_server.store.entries()) >= 2 and len(listing["items"]) == 1
    assert listing["next_offset"] == 1
    everything = httpx.get(f"{live_server.base_url}/api/episodes?limit=500", headers=live_server.admin).json()
    mine = {e["id"]: e for e in everything["items"] if e["id"] in (first["id"], second["id"])}
    assert set(mine) == {first["id"], second["id"]}
    assert {e["task_id"] for e in mine.values()} == {"chat.set_topic"}
    assert {e["instance"] for e in mine.values()} == {1, 2}
    assert all(re.match(r"\d{4}-\d\d-\d\dT", e["created"]) and e["last_used"] >= e["created"] for e in mine.values())
    graded = httpx.post(f"{live_server.base_url}/api/episodes/{first['id']}/grade?delete=true",
                        headers=live_server.admin)
    assert graded.status_code == 200 and graded.json()["deleted"] == first["id"] and graded.json()["success"] is False
    assert httpx.post(first["mcp_url"], json={}).status_code == 404
    kept = httpx.post(f"{live_server.base_url}/api/episodes/{second['id']}/grade", headers=live_server.admin)
    assert kept.status_code == 200 and "deleted" not in kept.json()
    bad = httpx.post(f"{live_server.base_url}/api/episodes/{second['id']}/grade?delete=maybe",
                     headers=live_server.admin)
    assert bad.status_code == 400 and second["id"] in {e.id for e in live_server.store.live()}
    assert httpx.get(f"{live_server.base_url}/api/episodes?limit=0", headers=live_server.admin).status_code == 400
    httpx.delete(f"{live_server.base_url}/api/episodes/{second['id']}", headers=live_server.admin)


def test_the_trajectory_holds_every_call_and_ui_request(live_server):
    episode = create(live_server)
    step = live_server.store.get(episode["id"]).task.solution[0]

    async def act():
        async with Client(episode["mcp_url"]) as client:
            await client.call_tool("chat_list_channels", {"limit": 2})
            await client.call_tool("chat_update_channel", {"channel": "no-such-channel", "topic": "x"})
            await client.call_tool("crm_list_accounts", {})
            await client.call_tool(step.tool, step.args)

    anyio.run(act)
    with httpx.Client(base_url=episode["ui_url"]) as browser:
        assert browser.get("org/").status_code == 200
        assert browser.get("crm/opportunities/999999999").status_code == 404
        huge = browser.post("act-as", content=b"x" * (UI_BODY_LIMIT + 1),
                            headers={"content-type": "application/x-www-form-urlencoded"})
        assert huge.status_code == 413
    lines = httpx.get(f"{live_server.base_url}/api/episodes/{episode['id']}/trajectory", headers=live_server.admin)
    steps = [json.loads(line) for line in lines.text.splitlines()]
    assert [(s["surface"], s["name"], s["ok"]) for s in steps] == [
        ("mcp", "chat_list_channels", True), ("mcp", "chat_update_channel", False),
        ("mcp", "crm_list_accounts", False), ("mcp", step.tool, True),
        ("ui", "GET /org/", True), ("ui", "GET /crm/opportunities/<int:record_id>", False),
        ("ui", "POST /act-as", False)]
    assert steps[0]["args"] == {"limit": 2} and steps[0]["result_chars"] > 0 and steps[0]["ms"] >= 0
    assert "not found" in steps[1]["error"].lower() and "not among this episode's tools" in steps[2]["error"]
    assert steps[5]["args"] == {"record_id": 999999999} and steps[5]["error"]
    assert steps[6]["args"] == {"body": f"<not read: {UI_BODY_LIMIT + 1} bytes>"}
    graded = httpx.post(f"{live_server.base_url}/api/episodes/{episode['id']}/grade?delete=true",
                        headers=live_server.admin).json()
    assert graded["success"] is True  # the journal of reads and refusals is no part of the grade


def test_idle_episodes_expire_but_used_ones_stay(settings, serve):
    with serve(settings, "tiny", episode_ttl=1.0) as server:
        idle, busy = create(server), create(server)
        deadline = time.monotonic() + 2.5
        while time.monotonic() < deadline:
            assert httpx.get(busy["ui_url"]).status_code == 200
            time.sleep(0.2)
        live = {e.id for e in server.store.live()}
        assert busy["id"] in live and idle["id"] not in live
        assert httpx.post(idle["mcp_url"], json={}).status_code == 404


def test_the_catalogue_lists_instances_without_episodes(live_server):
    before = len(live_server.store.live())
    url = f"{live_server.base_url}/api/instances?split=train&tasks=chat.set_*&instances=2"
    page = httpx.get(url, headers=live_server.admin).json()
    assert page["total"] == 2 and [r["instance"] for r in page["items"]] == [0, 1]
    row = page["items"][0]
    assert {"task_id", "instance", "split", "apps", "difficulty", "actor", "now", "instruction", "expects_answer",
            "tools", "system_prompt"} <= set(row)
    assert row["actor"]["name"] in row["system_prompt"] and row["split"] == "train" and not row["expects_answer"]
    episode = create(live_server, instance=1)
    assert episode["instruction"] == page["items"][1]["instruction"] and episode["tools"] == page["items"][1]["tools"]
    assert "solution" not in json.dumps(page) and "topic" not in {k.lower() for k in row}
    httpx.delete(f"{live_server.base_url}/api/episodes/{episode['id']}", headers=live_server.admin)
    assert len(live_server.store.live()) == before
    for query in ("split=dev", "instances=0", "instances=x", "limit=501", "limit=%C2%B2", "offset=%D9%A1"):
        bad = httpx.get(f"{live_server.base_url}/api/instances?{query}", headers=live_server.admin)
        assert bad.status_code == 400 and bad.json()["error"], query


@pytest.mark.parametrize("path", ["/api/episodes", "/api/instances", "/api/episodes/abcdefgh/trajectory"])
def test_harness_routes_need_the_admin_token(live_server, path):
    assert httpx.get(live_server.base_url + path).status_code == 401
