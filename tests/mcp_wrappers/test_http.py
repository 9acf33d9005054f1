"""The tools over streamable HTTP, as a remote agent meets them: episodes made through the control
API, the SDK client connected to each episode's mcp_url, writes checked in that episode's database
and nowhere else."""

from __future__ import annotations

import anyio
import httpx
import pytest
from mcp.client import Client
from sqlalchemy import func, select

from officegym.apps.chat.models import Message
from officegym.journal import JournalEntry
from officegym.worlds import content_hash

TASK = "chat.set_topic"


def over_http(url: str, *calls: tuple[str, dict]) -> list:
    """Run tool calls in one streamable-HTTP session; their CallToolResults."""

    async def run():
        async with Client(url) as client:
            return [await client.call_tool(name, args) for name, args in calls]

    return anyio.run(run)


@pytest.fixture
def served(live_server):
    """A factory of task episodes made through the control API; all deleted afterwards."""
    made = []

    def create() -> dict:
        response = httpx.post(f"{live_server.base_url}/api/episodes", json={"task": TASK, "instance": 0},
                              headers=live_server.admin)
        assert response.status_code == 201, response.text
        made.append(response.json())
        return made[-1]

    yield create
    for body in made:
        httpx.delete(f"{live_server.base_url}/api/episodes/{body['id']}", headers=live_server.admin)


def test_the_catalogue_over_http_is_the_in_process_one(live_server, served):
    body = served()

    async def both():
        async with Client(body["mcp_url"]) as remote, Client(live_server.store.get(body["id"]).mcp_server()) as local:
            return (await remote.list_tools()).tools, (await local.list_tools()).tools

    remote, local = anyio.run(both)
    assert [t.name for t in remote] == [t.name for t in local] and len(remote) > 30
    assert [(t.input_schema, t.output_schema, t.annotations) for t in remote] == [
        (t.input_schema, t.output_schema, t.annotations) for t in local]


def test_a_write_over_http_lands_in_its_episode_only(live_server, served):
    first, second = served(), served()
    untouched = live_server.store.get(second["id"])
    before = content_hash(untouched.engine)
    (channels,) = over_http(first["mcp_url"], ("chat_list_channels", {"member_only": True, "limit": 1}))
    channel = channels.structured_content["items"][0]
    text = "Status over HTTP: the zz-heron rollout is done"
    (posted,) = over_http(first["mcp_url"], ("chat_post_message", {"channel": channel["id"], "text": text}))
    assert not posted.is_error, posted.content
    out = posted.structured_content
    assert (out["text"], out["channel_id"], out["author"]) == (text, channel["id"], first["actor"]["handle"])
    with live_server.store.get(first["id"]).session() as s:
        row = s.get(Message, out["id"])
        assert (row.text, row.channel_id, row.author_id) == (text, channel["id"], first["actor"]["id"])
        last = s.scalars(select(JournalEntry).order_by(JournalEntry.seq.desc())).first()
        assert (last.surface, last.action, last.actor_id) == ("mcp", "chat.post_message", first["actor"]["id"])
    with untouched.session() as s:
        assert s.scalar(select(func.count()).where(Message.text == text)) == 0
    (search,) = over_http(second["mcp_url"], ("chat_search_messages", {"query": "zz-heron"}))
    assert search.structured_content["total"] == 0
    assert content_hash(untouched.engine) == before


def test_refusals_over_http_are_tool_errors_and_change_nothing(live_server, served):
    body = served()
    episode = live_server.store.get(body["id"])
    before = content_hash(episode.engine)
    empty, misspelt, unknown, private = over_http(
        body["mcp_url"], ("chat_post_message", {"channel": "general", "text": " "}),
        ("chat_post_message", {"channel": "general", "text": "hi", "thread_id": 1}),
        ("chat_get_message", {"message_id": 10**9}), ("chat_list_messages", {"channel": "zz-no-such-room"}))
    assert [r.is_error for r in (empty, misspelt, unknown, private)] == [True] * 4
    assert "empty" in empty.content[0].text and "no argument 'thread_id'" in misspelt.content[0].text
    assert "not found" in unknown.content[0].text and "Channels you can see" in private.content[0].text
    assert content_hash(episode.engine) == before


def test_a_deeply_nested_request_is_refused_without_a_crash(live_server, served):
    episode = served()
    nested = "[" * 100_000 + "]" * 100_000
    body = ('{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "chat_list_channels", '
            '"arguments": {"deep": ' + nested + '}}}')
    response = httpx.post(episode["mcp_url"], content=body, headers={
        "content-type": "application/json", "accept": "application/json, text/event-stream"}, timeout=30)
    assert response.status_code == 400 and response.json()["error"]["code"] == -32700  # a JSON-RPC parse error
    assert "recursion limit" in response.json()["error"]["message"]
    listed = over_http(episode["mcp_url"], ("chat_list_channels", {}))
    assert not listed[0].is_error  # the server still answers


def test_every_import_within_its_advertised_limit_passes_the_transport_and_larger_requests_are_told_why(
        live_server):
    from officegym.apps.sheets import services
    from officegym.server import MCP_BODY_LIMIT

    made = httpx.post(f"{live_server.base_url}/api/episodes", json={"task": TASK, "tools": ["sheets"]},
                      headers=live_server.admin).json()
    try:
        # The longest CSV allowed, of characters JSON escapes sixfold: the service reads it (and refuses it).
        created, = over_http(made["mcp_url"], ("sheets_create_workbook", {"title": "Imports"}))
        book = created.structured_content["id"]
        csv_result, = over_http(made["mcp_url"], ("sheets_import_csv", {
            "workbook": book, "sheet": "Data", "csv": "\x01" * services.MAX_CSV_CHARS}))
        assert csv_result.is_error and "The CSV does not parse: field larger than field limit" in \
            csv_result.content[0].text
        xlsx_result, = over_http(made["mcp_url"], ("sheets_import_xlsx", {
            "workbook": book, "data": "A" * services.MAX_XLSX_BASE64}))
        assert xlsx_result.is_error and "not a readable XLSX file" in xlsx_result.content[0].text
        response = httpx.post(made["mcp_url"], content=b" " * (MCP_BODY_LIMIT + 1), timeout=60, headers={
            "content-type": "application/json", "accept": "application/json, text/event-stream"})
        assert response.status_code == 413 and response.json()["error"]["code"] == -32600
        assert response.json()["error"]["message"] == (
            f"The request is {MCP_BODY_LIMIT + 1:,} bytes; this server takes MCP requests of at most "
            f"{MCP_BODY_LIMIT:,} bytes. sheets_import_csv takes at most 2,000,000 characters of CSV, "
            "sheets_import_xlsx an XLSX file of at most 3,000,000 bytes (4,000,000 characters of base64).")
    finally:
        httpx.delete(f"{live_server.base_url}/api/episodes/{made['id']}", headers=live_server.admin)
