"""`officegym serve`: one ASGI process hosting many episodes.

- `/e/<id>/...`       the Flask UI (through a WSGI bridge)
- `/e/<id>/mcp`       that episode's MCP server over streamable HTTP
- `/api/...`          the control API, behind the admin token (agents never get it): control_api.py
- `/healthz`          liveness for container health checks, without a token

Every request but `/healthz` must name this server in its Host (and Origin, if any): host_check.py.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import socket
from collections import OrderedDict
from typing import Any

import anyio
import uvicorn
from a2wsgi import WSGIMiddleware
from mcp.server.transport_security import TransportSecuritySettings
from sqlalchemy.exc import SQLAlchemyError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse
from starlette.routing import Route

from officegym.apps.sheets import services as sheets_services
from officegym.config import Settings, load_settings
from officegym.episodes import EpisodeStore
from officegym.errors import OfficeError
from officegym.failures import translated
from officegym.host_check import HostCheck, allowed_names
from officegym.http_limits import BoundedHttpProtocol
from officegym.mcp_direct import answer_directly
from officegym.mcp_wrappers.server import SERVED_EPISODE, shared_server

MCP_PATH = re.compile(r"^/e/([A-Za-z0-9_-]{8,64})/mcp/?$")
# The largest MCP request body taken: any argument within its tool's advertised limit fits, however
# JSON escapes it (a CSV of control characters grows sixfold), with room for the rest of the request.
MCP_BODY_LIMIT = 6 * sheets_services.MAX_CSV_CHARS + 1_048_576
MAX_TOOL_SETS = 64  # session managers kept running, one per tool set in use (a task's, or one asked for)


def too_large(scope) -> JSONResponse | None:
    """A JSON-RPC error for a request whose declared body exceeds MCP_BODY_LIMIT (refused unread),
    saying what the import tools take; None for any other request."""
    declared = dict(scope.get("headers", [])).get(b"content-length", b"0")
    if not declared.isdigit() or int(declared) <= MCP_BODY_LIMIT:
        return None
    message = (f"The request is {int(declared):,} bytes; this server takes MCP requests of at most {MCP_BODY_LIMIT:,} "
               f"bytes. sheets_import_csv takes at most {sheets_services.MAX_CSV_CHARS:,} characters of CSV, "
               f"sheets_import_xlsx an XLSX file of at most {sheets_services.MAX_XLSX_BYTES:,} bytes "
               f"({sheets_services.MAX_XLSX_BASE64:,} characters of base64).")
    return JSONResponse({"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": message}}, status_code=413)


BAD_ID = ("Invalid Request: the id of a JSON-RPC request must be a string or a whole number "
          "(a notification has none).")


def _has_bad_id(body: bytes) -> bool:
    """Whether `body` is one JSON-RPC message whose id is of a type no answer can carry back."""
    try:
        message = json.loads(body)
    except ValueError:
        return False
    if not isinstance(message, dict) or "id" not in message:
        return False
    return isinstance(message["id"], bool) or not isinstance(message["id"], (str, int))


async def refuse_bad_ids(handle, scope, receive, send) -> None:
    """Run `handle` (the SDK's transport) on a request. The transport answers 202 Accepted, with no
    body, to a notification and also to a request whose id is an object, an array, a fraction or
    null, which then never gets an answer: such a request gets a JSON-RPC error (Invalid Request)
    instead. The body is parsed again only in that rare case."""
    chunks: list[bytes] = []
    refused = False

    async def receiving():
        message = await receive()
        if message["type"] == "http.request":
            chunks.append(message.get("body", b""))
        return message

    async def sending(message):
        nonlocal refused
        if (message["type"] == "http.response.start" and message["status"] == 202
                and _has_bad_id(b"".join(chunks))):
            refused = True
            error = {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": BAD_ID}}
            await JSONResponse(error, status_code=400)(scope, receive, send)
        if not refused:
            await send(message)

    await handle(scope, receiving, sending)


class McpHost:
    """Serves every episode's MCP endpoint from one streamable-HTTP session manager per tool set,
    started on first use: the request's episode, named by its URL, is set in SERVED_EPISODE around
    the request. A deleted episode's URL answers 404 before any server sees it. With `direct_calls`,
    a plain stateless JSON-RPC request is answered without the session manager's per-request
    machinery (mcp_direct.py); every other request goes through the session manager."""

    direct_calls = True

    def __init__(self, store: EpisodeStore, host: str):
        self.store = store
        self.host = host
        self._running: OrderedDict[frozenset[str], tuple[Any, anyio.Event]] = OrderedDict()
        self._busy: dict[frozenset[str], int] = {}  # requests under way, per tool set
        self._task_group = None
        self._lock = anyio.Lock()

    def _security(self) -> TransportSecuritySettings:
        # Host and Origin are checked in front of every surface, this one included (host_check.py).
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)

    async def _manager(self, tools: frozenset[str]):
        async with self._lock:
            if tools not in self._running:
                server = shared_server(tools)
                server.streamable_http_app(stateless_http=True, json_response=True,
                                           transport_security=self._security(), host=self.host,
                                           max_request_body_size=MCP_BODY_LIMIT)
                manager, stop = server.session_manager, anyio.Event()

                async def serve(*, task_status=anyio.TASK_STATUS_IGNORED):
                    async with manager.run():
                        task_status.started()
                        await stop.wait()

                await self._task_group.start(serve)
                self._running[tools] = (manager, stop)
                self._retire_idle()
            self._running.move_to_end(tools)
        return self._running[tools][0]

    def _retire_idle(self) -> None:
        """Stop the least recently used tool sets' managers beyond MAX_TOOL_SETS, when idle."""
        for tools in list(self._running)[:max(0, len(self._running) - MAX_TOOL_SETS)]:
            if not self._busy.get(tools):
                self._running.pop(tools)[1].set()

    async def __call__(self, scope, receive, send, episode_id: str) -> None:
        try:  # in a thread when it may wait: opening another process's episode, a registry on a server
            if self.store.opened_here(episode_id) and self.store.registry.name == "file":
                episode = self.store.get(episode_id)  # a dictionary lookup and one file's mtime
            else:
                episode = await anyio.to_thread.run_sync(self.store.get, episode_id)
        except OfficeError:
            await PlainTextResponse("No such episode.", status_code=404)(scope, receive, send)
            return
        except (SQLAlchemyError, OSError) as error:  # the registry's database lost, or a full disk
            said = translated(error)
            if said is None:
                raise
            failed = {"jsonrpc": "2.0", "id": None, "error": {"code": -32603, "message": said.message}}
            await JSONResponse(failed, status_code=said.http_status)(scope, receive, send)
            return
        refused = too_large(scope)
        if refused is not None:
            await refused(scope, receive, send)
            return
        tools = frozenset(episode.tools)
        manager = await self._manager(tools)
        self._busy[tools] = self._busy.get(tools, 0) + 1
        token = SERVED_EPISODE.set(episode)  # copied into the tasks and threads the request runs in
        try:
            sdk_path = functools.partial(refuse_bad_ids, manager.handle_request)
            if self.direct_calls:
                await answer_directly(manager, scope, receive, send, sdk_path)
            else:
                await sdk_path(scope, receive, send)
        finally:
            SERVED_EPISODE.reset(token)
            self._busy[tools] -= 1

    @contextlib.asynccontextmanager
    async def running(self):
        """Own the task group every session manager runs in."""
        async with anyio.create_task_group() as group:
            self._task_group = group
            try:
                yield
            finally:
                for _, stop in self._running.values():
                    stop.set()
                self._running.clear()


def health_route(store: EpisodeStore) -> Route:
    """`GET /healthz` for container health checks: open to anyone, so it says only that the process
    serves and how many episodes are live."""

    async def health(request: Request):
        return JSONResponse({"status": "ok", "episodes": len(await anyio.to_thread.run_sync(store.entries))})

    return Route("/healthz", health, methods=["GET"])


def build_app(store: EpisodeStore, settings: Settings, base_url: str, scale: str = "small", seed: int = 0,
              episode_ttl: float = 0, worker: bool = False):
    """The whole server as one ASGI app, answering to the loopback names, `base_url`'s host and
    `settings.allowed_hosts`. With `episode_ttl` > 0, episodes unused for that many seconds are
    deleted (a crashed rollout's episode does not stay forever). A `worker` (one of several
    processes of one server) releases its hold on the episodes when it stops; the server that
    started it deletes them."""
    from officegym.control_api import control_routes
    from officegym.web import create_app

    host = McpHost(store, settings.host)
    flask_app = create_app(store)
    ui = WSGIMiddleware(flask_app, workers=8)
    api = Starlette(routes=[*control_routes(store, settings, base_url, scale, seed), health_route(store)])

    async def app(scope, receive, send):
        if scope["type"] == "lifespan":
            await _lifespan(scope, receive, send, host, store, episode_ttl, worker)
            return
        path = scope.get("path", "")
        match = MCP_PATH.match(path)
        if match:
            await host(scope, receive, send, match.group(1))
        elif path.startswith("/api/") or path == "/healthz":
            await api(scope, receive, send)
        else:
            await ui(scope, receive, send)

    checked = HostCheck(app, allowed_names(base_url, settings.allowed_hosts))
    return checked


async def _expire_idle(store: EpisodeStore, ttl: float) -> None:
    """Delete idle episodes, checking a few times per `ttl` (at least every minute)."""
    while True:
        await anyio.sleep(min(60.0, max(ttl / 4, 0.05)))
        await anyio.to_thread.run_sync(lambda: store.expire(ttl))


async def _lifespan(scope, receive, send, host: McpHost, store: EpisodeStore, episode_ttl: float,
                    worker: bool) -> None:
    message = await receive()
    assert message["type"] == "lifespan.startup"
    async with host.running(), anyio.create_task_group() as chores:
        if episode_ttl > 0:
            chores.start_soon(_expire_idle, store, episode_ttl)
        await send({"type": "lifespan.startup.complete"})
        message = await receive()
        chores.cancel_scope.cancel()
    if worker:
        await anyio.to_thread.run_sync(store.release)
    await send({"type": "lifespan.shutdown.complete"})


# How long a served connection may stay idle. uvicorn closes it after 5 s, the same time as httpx's
# (and the MCP SDK client's) own default, so a client reusing a connection at that moment met a
# connection the server had just closed (a read error on a request it never saw). Clients and
# gateways with the usual idle timeouts now close first.
KEEP_ALIVE_SECONDS = 75


def server_config(app, host: str, port: int, **options) -> "TcpConfig":
    """uvicorn's configuration of every server `officegym serve` runs (one process, or each worker):
    the limits of http_limits.py on request heads, and the idle time below."""
    return TcpConfig(app, host=host, port=port, log_level="warning", timeout_keep_alive=KEEP_ALIVE_SECONDS,
                     http=BoundedHttpProtocol, **options)


class TcpConfig(uvicorn.Config):
    """uvicorn's configuration, whose listening socket says it is TCP. uvicorn makes it with
    protocol 0, which the connections accepted on it keep; asyncio then leaves Nagle's algorithm on
    for them (it sets TCP_NODELAY only on sockets marked TCP), and each response waits about 40 ms
    for the client's delayed acknowledgement."""

    def bind_socket(self) -> socket.socket:
        """The listening socket, marked TCP."""
        bound = super().bind_socket()
        if bound.family in (socket.AF_INET, socket.AF_INET6) and bound.proto == 0:
            marked = socket.socket(bound.family, bound.type, socket.IPPROTO_TCP, fileno=bound.detach())
            marked.set_inheritable(True)
            return marked
        return bound


# The configuration a `serve --workers N` server hands its workers (JSON, in their environment).
WORKER_CONFIG = "OFFICEGYM_WORKER_CONFIG"


def worker_app():
    """The app of one worker process of `officegym serve --workers N` (uvicorn's factory): the
    server's settings, world and owner come from the configuration its supervisor set."""
    config = json.loads(os.environ[WORKER_CONFIG])
    settings = load_settings(**config["settings"])
    store = EpisodeStore(settings, owner=config["owner"])
    store.world(config["scale"], config["seed"])
    return build_app(store, settings, config["base_url"], config["scale"], config["seed"],
                     episode_ttl=config["episode_ttl"], worker=True)
