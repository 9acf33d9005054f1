"""`officegym serve`: one ASGI process hosting many episodes.

- `/e/<id>/...`       the Flask UI (through a WSGI bridge)
- `/e/<id>/mcp`       that episode's MCP server over streamable HTTP
- `/api/...`          the control API, behind the admin token (agents never get it)
- `/healthz`          liveness for container health checks, without a token
"""

from __future__ import annotations

import contextlib
import re
import secrets
from typing import Any

import anyio
from a2wsgi import WSGIMiddleware
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse
from starlette.routing import Route

from officegym.config import Settings
from officegym.episodes import EpisodeStore
from officegym.errors import OfficeError

MCP_PATH = re.compile(r"^/e/([A-Za-z0-9_-]{8,64})/mcp/?$")
LOOPBACK = ("127.0.0.1", "localhost", "::1")


class McpHost:
    """Starts each episode's streamable-HTTP session manager on first use and stops it when the
    episode is deleted."""

    def __init__(self, store: EpisodeStore, host: str):
        self.store = store
        self.host = host
        self._running: dict[str, tuple[Any, anyio.Event]] = {}
        self._task_group = None
        self._lock = anyio.Lock()

    def _security(self) -> TransportSecuritySettings:
        if self.host in LOOPBACK:
            return TransportSecuritySettings(
                enable_dns_rebinding_protection=True,
                allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
                allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"])
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)

    async def _manager(self, episode_id: str):
        async with self._lock:
            if episode_id not in self._running:
                server = self.store.get(episode_id).mcp_server()
                server.streamable_http_app(stateless_http=True, json_response=True,
                                           transport_security=self._security(), host=self.host)
                manager, stop = server.session_manager, anyio.Event()

                async def serve(*, task_status=anyio.TASK_STATUS_IGNORED):
                    async with manager.run():
                        task_status.started()
                        await stop.wait()

                await self._task_group.start(serve)
                self._running[episode_id] = (manager, stop)
        return self._running[episode_id][0]

    async def __call__(self, scope, receive, send, episode_id: str) -> None:
        try:
            self.store.get(episode_id)
        except OfficeError:
            await PlainTextResponse("No such episode.", status_code=404)(scope, receive, send)
            return
        manager = await self._manager(episode_id)
        await manager.handle_request(scope, receive, send)

    def forget(self, episode_id: str) -> None:
        """Stop serving a deleted episode."""
        entry = self._running.pop(episode_id, None)
        if entry:
            entry[1].set()

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


def control_routes(store: EpisodeStore, settings: Settings, host: McpHost, base_url: str,
                   scale: str, seed: int) -> list[Route]:
    """The admin-only control API."""

    def authorised(request: Request) -> bool:
        given = request.headers.get("authorization", "")
        return secrets.compare_digest(given.encode(), f"Bearer {settings.admin_token}".encode())

    def guarded(handler):
        async def endpoint(request: Request):
            if not authorised(request):
                return JSONResponse({"error": "admin token required (Authorization: Bearer ...)"}, 401)
            try:
                return await handler(request)
            except OfficeError as error:
                return JSONResponse({"error": error.message}, error.http_status)
        return endpoint

    async def create_episode(request: Request):
        try:
            body = await request.json()
        except ValueError:
            body = None
        if not isinstance(body, dict) or not isinstance(body.get("task"), str):
            return JSONResponse({"error": 'send JSON {"task": "<task id>", "instance": <int>}'}, 400)
        instance = body.get("instance", body.get("seed", 0))
        if isinstance(instance, bool) or not isinstance(instance, int) or instance < 0:
            return JSONResponse({"error": "instance must be a whole number >= 0"}, 400)
        episode = await anyio.to_thread.run_sync(lambda: store.create(body["task"], instance, scale, seed))
        with episode.session() as session:
            actor = episode.actor(session)
            who = {"id": actor.id, "name": actor.name, "handle": actor.handle, "title": actor.title}
        return JSONResponse({"id": episode.id, "ui_url": f"{base_url}/e/{episode.id}/",
                             "mcp_url": f"{base_url}/e/{episode.id}/mcp", "instruction": episode.instruction,
                             "actor": who, "task_id": episode.task_id}, 201)

    async def grade_episode(request: Request):
        episode = store.get(request.path_params["episode_id"])
        if not episode.is_task:
            return JSONResponse({"error": "the free episode has no task to grade"}, 400)
        result = await anyio.to_thread.run_sync(episode.grade)
        return JSONResponse(result.to_dict())

    async def delete_episode(request: Request):
        episode_id = request.path_params["episode_id"]
        store.delete(episode_id)
        host.forget(episode_id)
        return JSONResponse({"deleted": episode_id})

    async def list_tasks(request: Request):
        from officegym.tasks.registry import all_tasks

        return JSONResponse({"tasks": [{"id": t.id, "apps": list(t.apps), "difficulty": t.difficulty,
                                        "kind": t.kind, "split": t.split, "scale": t.scale,
                                        "rules": list(t.rules), "summary": t.summary} for t in all_tasks()]})

    return [Route("/api/episodes", guarded(create_episode), methods=["POST"]),
            Route("/api/episodes/{episode_id}/grade", guarded(grade_episode), methods=["POST"]),
            Route("/api/episodes/{episode_id}", guarded(delete_episode), methods=["DELETE"]),
            Route("/api/tasks", guarded(list_tasks), methods=["GET"])]


def health_route(store: EpisodeStore) -> Route:
    """`GET /healthz` for container health checks: open to anyone, so it says only that the process
    serves and how many episodes are live."""

    async def health(request: Request):
        return JSONResponse({"status": "ok", "episodes": len(store.live())})

    return Route("/healthz", health, methods=["GET"])


def build_app(store: EpisodeStore, settings: Settings, base_url: str, scale: str = "small", seed: int = 0):
    """The whole server as one ASGI app."""
    from officegym.web import create_app

    host = McpHost(store, settings.host)
    flask_app = create_app(store)
    ui = WSGIMiddleware(flask_app, workers=8)
    api = Starlette(routes=[*control_routes(store, settings, host, base_url, scale, seed), health_route(store)])

    async def app(scope, receive, send):
        if scope["type"] == "lifespan":
            await _lifespan(scope, receive, send, host)
            return
        path = scope.get("path", "")
        match = MCP_PATH.match(path)
        if match:
            await host(scope, receive, send, match.group(1))
        elif path.startswith("/api/") or path == "/healthz":
            await api(scope, receive, send)
        else:
            await ui(scope, receive, send)

    app.mcp_host = host  # type: ignore[attr-defined]
    return app


async def _lifespan(scope, receive, send, host: McpHost) -> None:
    message = await receive()
    assert message["type"] == "lifespan.startup"
    async with host.running():
        await send({"type": "lifespan.startup.complete"})
        message = await receive()
        await send({"type": "lifespan.shutdown.complete"})
