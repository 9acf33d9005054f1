"""MCP requests answered directly (mcp_direct.py) against the same requests through the SDK's session
manager: the same HTTP answers, the same trajectory steps, and every other request still the SDK's."""

from __future__ import annotations

import json

import anyio
import httpx
import pytest
from mcp.client import Client
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from pydantic import BaseModel

from officegym.mcp_direct import answer_directly
from officegym.server import MCP_BODY_LIMIT, McpHost

JSON_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


class Confirmation(BaseModel):
    """What a tool asks the client to confirm."""

    sure: bool


@pytest.fixture
def sdk_requests(monkeypatch) -> list[str]:
    """The HTTP methods of the requests the SDK's session manager handles, in order."""
    handled: list[str] = []
    handle = StreamableHTTPSessionManager.handle_request

    async def counted(manager, scope, receive, send):
        handled.append(scope["method"])
        await handle(manager, scope, receive, send)

    monkeypatch.setattr(StreamableHTTPSessionManager, "handle_request", counted)
    return handled


@pytest.fixture
def twins(live_server):
    """Two episodes of one task instance, in the same state: one for each path."""
    made = []
    for _ in range(2):
        answer = httpx.post(f"{live_server.base_url}/api/episodes", json={"task": "chat.set_topic", "instance": 0},
                            headers=live_server.admin)
        assert answer.status_code == 201, answer.text
        made.append(answer.json())
    yield made
    for episode in made:
        live_server.store.delete(episode["id"])


def steps(server, episode: dict) -> list[dict]:
    """An episode's trajectory, without each step's time."""
    return [{k: v for k, v in step.items() if k != "ms"} for step in server.store.get(episode["id"]).trajectory.steps()]


def rpc(method: str, params: dict | None = None, request_id: int | str = 1) -> dict:
    return {"jsonrpc": "2.0", "id": request_id, "method": method, **({} if params is None else {"params": params})}


def call(tool: str, arguments) -> dict:
    return rpc("tools/call", {"name": tool, "arguments": arguments}, request_id=f"call-{tool}")


def answers(url: str, requests: list[dict], headers: dict | None = None) -> list[tuple[int, object, dict]]:
    """Each request's status, JSON body (None when it has none) and headers but the date, posted one
    by one to `url`."""
    found = []
    for body in requests:
        answer = httpx.post(url, json=body, headers={**JSON_HEADERS, **(headers or {})}, timeout=60)
        found.append((answer.status_code, answer.json() if answer.content else None, undated(answer)))
    return found


def undated(answer: httpx.Response) -> dict:
    """An answer's headers but its date."""
    return {k: v for k, v in answer.headers.items() if k != "date"}


def on_both_paths(twins, run):
    """`run(episode)` on the first twin with direct answers, on the second through the SDK."""
    direct = run(twins[0])
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(McpHost, "direct_calls", False)
        through_sdk = run(twins[1])
    return direct, through_sdk


def test_tool_calls_and_listings_answer_as_the_sdk_does(live_server, twins, sdk_requests):
    solution = live_server.store.get(twins[0]["id"]).task.solution[0]
    requests = [
        rpc("tools/list"),
        call("org_get_me", {}),
        call(solution.tool, solution.args),  # a write
        call("chat_update_channel", {"channel": "no-such-channel", "topic": "x"}),  # the service refuses
        call("chat_update_channel", {"channel": 5}),  # a bad argument and a missing one
        call("chat_update_channel", {"channel": "general", "topik": "x"}),  # an unknown argument
        call("no_such_tool", {}),
        rpc("tools/call", {"arguments": {}}, request_id=9),  # no tool named: invalid params
        rpc("tools/call", {"name": "org_get_me", "arguments": []}, request_id=10),
        rpc("ping", request_id=11),
        rpc("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                           "clientInfo": {"name": "test", "version": "1"}}, request_id=12),
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    ]

    def run(episode):
        found = answers(episode["mcp_url"], requests)
        found += answers(episode["mcp_url"], requests[:3], {"MCP-Protocol-Version": "2025-11-25"})
        return found + answers(episode["mcp_url"], requests[:2], {"Accept": "*/*"})

    direct, through_sdk = on_both_paths(twins, run)
    assert direct == through_sdk
    assert sdk_requests == ["POST"] * (len(requests) + 5)  # only the SDK path's requests reached its session manager
    results = [body.get("result", {}) for _, body, _ in direct if body]
    assert results[1]["structuredContent"] and not results[1]["isError"] and not results[2]["isError"]
    assert [r.get("isError") for r in results[3:7]] == [True] * 4
    assert "not found" in results[3]["content"][0]["text"] and "topik" in results[5]["content"][0]["text"]
    assert direct[7][1]["error"]["code"] == -32602 and direct[11][:2] == (202, None)
    assert steps(live_server, twins[0]) == steps(live_server, twins[1])
    assert [s["name"] for s in steps(live_server, twins[0])][:3] == ["org_get_me", solution.tool, "chat_update_channel"]


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_the_sdk_client_gets_the_same_answers(live_server, twins, sdk_requests, mode):
    """The handshake era's requests are answered directly; the 2026 era's go through the SDK both times."""
    solution = live_server.store.get(twins[0]["id"]).task.solution[0]

    def run(episode):
        before = len(sdk_requests)

        async def session():
            async with Client(episode["mcp_url"], mode=mode) as client:
                listed = await client.list_tools()
                called = [await client.call_tool(tool, args) for tool, args in [
                    ("org_get_me", {}), (solution.tool, solution.args), ("chat_update_channel", {"channel": 5}),
                    ("no_such_tool", {})]]
                return listed.model_dump(), [result.model_dump() for result in called]

        return anyio.run(session), len(sdk_requests) - before

    (direct, sdk_handled_direct), (through_sdk, sdk_handled) = on_both_paths(twins, run)
    assert direct == through_sdk
    assert sdk_handled >= 6 and sdk_handled_direct == (0 if mode == "legacy" else sdk_handled)
    assert steps(live_server, twins[0]) == steps(live_server, twins[1])
    assert [s["ok"] for s in steps(live_server, twins[0])] == [True, True, False, False]


def test_other_requests_go_through_the_sdk(live_server, twins, sdk_requests):
    listing = b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}'
    cancelled = b'{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}'
    sent = [
        ("GET", None, {"Accept": "application/json"}),  # a stream is asked for with text/event-stream
        ("DELETE", None, {}),
        ("PUT", b"{}", JSON_HEADERS),
        ("POST", listing, {**JSON_HEADERS, "Accept": "text/event-stream"}),
        ("POST", listing, {**JSON_HEADERS, "Accept": "text/html"}),
        ("POST", listing, {**JSON_HEADERS, "Content-Type": "text/plain"}),
        ("POST", listing, {**JSON_HEADERS, "Content-Type": "application/jsonp"}),
        ("POST", b"[" + listing + b"]", JSON_HEADERS),
        ("POST", b'{"jsonrpc": "2.0", "id": 1, "method": ', JSON_HEADERS),
        ("POST", listing.replace(b"1", b"null"), JSON_HEADERS),
        ("POST", listing.replace(b'"tools/list"', b'"resources/list"'), JSON_HEADERS),
        ("POST", listing.replace(b'"tools/list"', b'"no/such/method"'), JSON_HEADERS),
        ("POST", listing.replace(b'"tools/list"', b'"tools/list", "params": [1]'), JSON_HEADERS),
        ("POST", cancelled, JSON_HEADERS),
        ("POST", b'{"jsonrpc": "2.0", "id": 1, "result": {}}', JSON_HEADERS),
        ("POST", listing, {**JSON_HEADERS, "MCP-Protocol-Version": "1999-01-01"}),
        ("POST", listing, {**JSON_HEADERS, "MCP-Protocol-Version": "2026-07-28"}),
    ]

    def run(episode):
        found = []
        for method, body, headers in sent:
            answer = httpx.request(method, episode["mcp_url"], content=body, headers=headers, timeout=60)
            found.append((answer.status_code, undated(answer), answer.content))
        return found

    direct, through_sdk = on_both_paths(twins, run)
    assert direct == through_sdk
    assert sdk_requests == [method for method, *_ in sent] * 2
    assert [status for status, *_ in direct] == [406, 405, 405, 406, 406, 400, 415, 400, 400, 400, 200, 200, 400,
                                                 202, 202, 400, 400]


def test_a_body_beyond_the_limit_is_refused_as_the_sdk_refuses_it(live_server, twins, sdk_requests):
    def chunks():
        piece = b" " * 1_048_576
        yield b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"padding": "'
        for _ in range(MCP_BODY_LIMIT // len(piece) + 1):
            yield piece
        yield b'"}}'

    def run(episode):
        answer = httpx.post(episode["mcp_url"], content=chunks(), headers=JSON_HEADERS, timeout=120)
        return answer.status_code, answer.content

    direct, through_sdk = on_both_paths(twins, run)
    assert direct == through_sdk == (413, b"Request body too large")
    assert sdk_requests == ["POST", "POST"]


@pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")  # logging, before 2026-07-28
def test_a_handler_has_the_request_context_the_sdk_gives_it():
    """Logging, progress, the HTTP request and a request to the client, from a tool answered each way."""
    server = MCPServer("probe")

    @server.tool()
    async def probe(ctx: Context) -> dict:
        """Use what the request context offers."""
        await ctx.info("a log line")
        await ctx.report_progress(0.5, 1.0)
        try:
            await ctx.elicit("Sure?", schema=Confirmation)
            asked = "answered"
        except Exception as error:
            asked = type(error).__name__
        request = ctx.request_context.request
        return {"agent": request.headers["user-agent"], "body": len(await request.body()), "asked": asked,
                "id": ctx.request_id, "version": ctx.protocol_version, "headers": ctx.headers is None}

    body_sent = {**call("probe", {}), "params": {"name": "probe", "arguments": {}, "_meta": {"progressToken": 7}}}

    async def answers_of(direct: bool) -> list:
        server.streamable_http_app(stateless_http=True, json_response=True, max_request_body_size=MCP_BODY_LIMIT,
                                   transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False))
        manager = server.session_manager

        async def app(scope, receive, send):
            if direct:
                await answer_directly(manager, scope, receive, send, manager.handle_request)
            else:
                await manager.handle_request(scope, receive, send)

        async with manager.run(), httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://probe") as http:
            found = []
            for headers in ({}, {"MCP-Protocol-Version": "2025-06-18"}):
                answer = await http.post("/mcp", content=json.dumps(body_sent),
                                         headers={**JSON_HEADERS, "User-Agent": "probe", **headers})
                found.append((answer.status_code, undated(answer), answer.json()))
            return found

    direct, through_sdk = anyio.run(answers_of, True), anyio.run(answers_of, False)
    assert direct == through_sdk
    said = [json.loads(body["result"]["content"][0]["text"]) for _, _, body in direct]
    assert said[0] == {"agent": "probe", "body": len(json.dumps(body_sent)), "asked": "NoBackChannelError",
                       "id": "call-probe", "version": "2025-03-26", "headers": False}
    assert said[1]["version"] == "2025-06-18"
