"""The `officegym` command: serve, mcp, run, build, tasks."""

from __future__ import annotations

import argparse
import sys

from officegym.config import load_settings


def _progress(stage: str, fraction: float) -> None:
    print(f"\rbuilding world: {stage:<24} {fraction:6.1%}", end="", file=sys.stderr, flush=True)
    if fraction >= 1:
        print(file=sys.stderr)


def cmd_serve(args) -> int:
    """Serve the UI, MCP and control API for many episodes in one process."""
    import uvicorn

    from officegym.episodes import EpisodeStore
    from officegym.server import build_app

    settings = load_settings(host=args.host, port=args.port)
    store = EpisodeStore(settings)
    world = store.world(args.scale, args.seed, progress=_progress)
    default = store.create(scale=args.scale, seed=args.seed, actor=args.actor)
    shown_host = "127.0.0.1" if settings.host in ("0.0.0.0", "::") else settings.host
    base_url = args.public_url or f"http://{shown_host}:{settings.port}"
    app = build_app(store, settings, base_url, args.scale, args.seed)
    print(f"officegym: world {world.key} (content hash {world.content_hash[:12]})")
    print(f"  UI   (open in a browser): {base_url}/e/{default.id}/")
    print(f"  MCP  (streamable HTTP):   {base_url}/e/{default.id}/mcp")
    print(f"  control API: {base_url}/api/  (Authorization: Bearer {settings.admin_token})")
    sys.stdout.flush()
    uvicorn.run(app, host=settings.host, port=settings.port, log_level="warning")
    return 0


def cmd_mcp(args) -> int:
    """Serve one episode's MCP tools over stdio."""
    from officegym.episodes import EpisodeStore

    store = EpisodeStore(load_settings())
    episode = store.open(args.episode) if args.episode else store.create(args.task, args.instance, args.scale, args.seed)
    if not args.episode:
        print(f"officegym: episode {episode.id}: {episode.instruction or 'free world'}", file=sys.stderr)
    episode.mcp_server().run("stdio")
    return 0


def cmd_run(args) -> int:
    """Run an agent on tasks and print grades."""
    from officegym.episodes import EpisodeStore
    from officegym.runner import print_results, run

    store = EpisodeStore(load_settings())
    try:
        results = print_results(run(store, args.agent, args.tasks, args.instances, args.scale, args.seed,
                                    args.parallel), args.json)
    except ValueError as error:
        print(f"officegym run: {error}", file=sys.stderr)
        return 2
    finally:
        store.close()
    return 0 if all(r["status"] != "error" for r in results) else 1


def cmd_build(args) -> int:
    """Build (or find cached) a world and print its key and content hash."""
    from officegym.worlds import ensure_world

    world = ensure_world(args.scale, args.seed, load_settings(), _progress)
    print(f"{world.key} {world.content_hash} {world.path}")
    return 0


def cmd_tasks(args) -> int:
    """List the registered tasks."""
    from officegym.tasks.registry import match_tasks

    for task in match_tasks(args.tasks):
        print(f"{task.id:<36} d{task.difficulty} {task.split:<5} {task.summary}")
    return 0


def parser() -> argparse.ArgumentParser:
    """The command-line grammar."""
    top = argparse.ArgumentParser(prog="officegym", description=__doc__)
    sub = top.add_subparsers(dest="command", required=True)

    def world_args(p):
        p.add_argument("--scale", default="small", help="world scale: tiny, small, medium, large")
        p.add_argument("--seed", type=int, default=0, help="world seed")

    serve = sub.add_parser("serve", help=cmd_serve.__doc__)
    world_args(serve)
    serve.add_argument("--host", default=None, help="bind address (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=None, help="port (default 8765)")
    serve.add_argument("--actor", default=None, help="whom the default episode acts as (@handle)")
    serve.add_argument("--public-url", default=None, help="base URL printed in links")
    serve.set_defaults(fn=cmd_serve)

    mcp = sub.add_parser("mcp", help=cmd_mcp.__doc__)
    world_args(mcp)
    mcp.add_argument("--episode", help="id of an existing episode (from this machine's episodes folder)")
    mcp.add_argument("--task", help="start a new episode of this task instead")
    mcp.add_argument("--instance", type=int, default=0)
    mcp.set_defaults(fn=cmd_mcp)

    runp = sub.add_parser("run", help=cmd_run.__doc__)
    world_args(runp)
    runp.add_argument("--agent", choices=("oracle", "null", "spam"), required=True)
    runp.add_argument("--tasks", default="*", help="glob of task ids, e.g. 'chat.*'")
    runp.add_argument("--instances", type=int, default=3, help="instances per task")
    runp.add_argument("--parallel", type=int, default=1, help="episodes run at once")
    runp.add_argument("--json", action="store_true", help="one JSON object per episode")
    runp.set_defaults(fn=cmd_run)

    build = sub.add_parser("build", help=cmd_build.__doc__)
    world_args(build)
    build.set_defaults(fn=cmd_build)

    tasks = sub.add_parser("tasks", help=cmd_tasks.__doc__)
    tasks.add_argument("--tasks", default="*")
    tasks.set_defaults(fn=cmd_tasks)
    return top


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `officegym` script."""
    args = parser().parse_args(argv)
    return args.fn(args)


if __name__ == "__main__":
    sys.exit(main())
