"""The control API of `officegym serve`, behind the admin token (agents never get it).

- `POST /api/episodes`                  create a task episode: {"task", "instance", "tools"}
- `GET /api/episodes`                   the live episodes: id, task, created, last used (paginated)
- `POST /api/episodes/<id>/grade`       grade it; `?delete=true` also deletes it
- `GET /api/episodes/<id>/trajectory`   its steps as JSON lines (tool calls and UI requests)
- `DELETE /api/episodes/<id>`           delete it
- `GET /api/tasks`                      the task templates
- `GET /api/instances`                  the task catalogue: `?split=&tasks=&instances=&offset=&limit=`
"""

from __future__ import annotations

import json
import secrets
from datetime import datetime, timezone

import anyio
from sqlalchemy.exc import SQLAlchemyError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from officegym.config import Settings
from officegym.episode_registry import Entry
from officegym.episodes import EpisodeStore
from officegym.errors import Invalid, OfficeError
from officegym.failures import translated

MAX_PAGE = 500


def _stamp(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, timezone.utc).isoformat(timespec="seconds")


def _whole(request: Request, name: str, default: int, low: int, high: int) -> int:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    if not (raw.isascii() and raw.isdecimal()) or not low <= int(raw) <= high:
        raise Invalid(f"{name} must be a whole number from {low} to {high}, got {raw!r}.")
    return int(raw)


def _flag(request: Request, name: str) -> bool:
    raw = request.query_params.get(name, "false").lower()
    if raw not in ("true", "false", "1", "0"):
        raise Invalid(f"{name} must be true or false, got {raw!r}.")
    return raw in ("true", "1")


def episode_summary(store: EpisodeStore, entry: Entry) -> dict:
    """What the listing says of one registered episode."""
    task_id = entry.record.get("task_id")
    return {"id": entry.id, "task_id": task_id, "instance": entry.record.get("instance") if task_id else None,
            "created": _stamp(entry.created), "last_used": _stamp(entry.last_used),
            "tools": len(entry.record.get("tools") or ()), "steps": store.registry.step_count(entry.id)}


def control_routes(store: EpisodeStore, settings: Settings, base_url: str, scale: str, seed: int) -> list[Route]:
    """The admin-only routes."""

    def authorised(request: Request) -> bool:
        given = request.headers.get("authorization", "")
        return secrets.compare_digest(given.encode(), f"Bearer {settings.admin_token}".encode())

    def guarded(handler):
        async def endpoint(request: Request):
            if not authorised(request):
                return JSONResponse({"error": "admin token required (Authorization: Bearer ...)"}, 401)
            try:
                return await handler(request)
            except (OfficeError, SQLAlchemyError, OSError) as error:
                said = translated(error)  # a race, a full disk or a lost database, in words
                if said is None:
                    raise
                return JSONResponse({"error": said.message, "kind": said.kind}, said.http_status)
        return endpoint

    async def delete(episode_id: str) -> None:
        await anyio.to_thread.run_sync(store.delete, episode_id)

    async def create_episode(request: Request):
        try:
            body = await request.json()
        except ValueError:
            body = None
        if not isinstance(body, dict) or not isinstance(body.get("task"), str):
            return JSONResponse({"error": 'send JSON {"task": "<task id>", "instance": <int>, "tools": "task"}'}, 400)
        instance = body.get("instance", body.get("seed", 0))
        if isinstance(instance, bool) or not isinstance(instance, int) or instance < 0:
            return JSONResponse({"error": "instance must be a whole number >= 0"}, 400)
        tools = body.get("tools", "task")

        def create():
            made = store.create(body["task"], instance, scale, seed, tools=tools)
            with made.session() as session:
                actor = made.actor(session)
                return made, {"id": actor.id, "name": actor.name, "handle": actor.handle, "title": actor.title}

        episode, who = await anyio.to_thread.run_sync(create)
        return JSONResponse({"id": episode.id, "ui_url": f"{base_url}/e/{episode.id}/",
                             "mcp_url": f"{base_url}/e/{episode.id}/mcp", "instruction": episode.instruction,
                             "actor": who, "task_id": episode.task_id, "tools": list(episode.tools)}, 201)

    async def list_episodes(request: Request):
        offset, limit = _whole(request, "offset", 0, 0, 10**9), _whole(request, "limit", 100, 1, MAX_PAGE)
        live = await anyio.to_thread.run_sync(store.entries)
        page = live[offset:offset + limit]
        items = await anyio.to_thread.run_sync(lambda: [episode_summary(store, e) for e in page])
        return JSONResponse({"items": items, "total": len(live), "offset": offset,
                             "next_offset": offset + limit if offset + limit < len(live) else None})

    async def grade_episode(request: Request):
        episode_id = request.path_params["episode_id"]
        then_delete = _flag(request, "delete")
        episode = await anyio.to_thread.run_sync(store.get, episode_id)
        if not episode.is_task:
            return JSONResponse({"error": "the free episode has no task to grade"}, 400)
        result = (await anyio.to_thread.run_sync(episode.grade)).to_dict()
        if then_delete:
            await delete(episode_id)
            result["deleted"] = episode_id
        return JSONResponse(result)

    async def trajectory(request: Request):
        steps = await anyio.to_thread.run_sync(lambda: store.get(request.path_params["episode_id"]).trajectory.steps())
        return Response("".join(json.dumps(step) + "\n" for step in steps), media_type="application/x-ndjson")

    async def delete_episode(request: Request):
        await delete(request.path_params["episode_id"])
        return JSONResponse({"deleted": request.path_params["episode_id"]})

    async def list_tasks(request: Request):
        from officegym.tasks.registry import all_tasks

        return JSONResponse({"tasks": [{"id": t.id, "apps": list(t.apps), "difficulty": t.difficulty,
                                        "kind": t.kind, "split": t.split, "scale": t.scale,
                                        "rules": list(t.rules), "summary": t.summary} for t in all_tasks()]})

    async def list_instances(request: Request):
        from officegym.catalogue import jobs, rows

        pairs = jobs(request.query_params.get("tasks", "*"), request.query_params.get("split"),
                     _whole(request, "instances", 3, 1, 1000))
        offset, limit = _whole(request, "offset", 0, 0, 10**9), _whole(request, "limit", 100, 1, MAX_PAGE)
        page = pairs[offset:offset + limit]
        items = await anyio.to_thread.run_sync(lambda: list(rows(store, page, scale, seed)))
        return JSONResponse({"items": items, "total": len(pairs), "offset": offset,
                             "next_offset": offset + limit if offset + limit < len(pairs) else None})

    return [Route("/api/episodes", guarded(create_episode), methods=["POST"]),
            Route("/api/episodes", guarded(list_episodes), methods=["GET"]),
            Route("/api/episodes/{episode_id}/grade", guarded(grade_episode), methods=["POST"]),
            Route("/api/episodes/{episode_id}/trajectory", guarded(trajectory), methods=["GET"]),
            Route("/api/episodes/{episode_id}", guarded(delete_episode), methods=["DELETE"]),
            Route("/api/tasks", guarded(list_tasks), methods=["GET"]),
            Route("/api/instances", guarded(list_instances), methods=["GET"])]
