"""The `officegym` command: serve, mcp, run, build, prune, tasks."""

from __future__ import annotations

import argparse
import os
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

    settings = load_settings(host=args.host, port=args.port, database_url=args.database_url)
    store = EpisodeStore(settings)
    world = store.world(args.scale, args.seed, progress=_progress)
    default = store.create(scale=args.scale, seed=args.seed, actor=args.actor)
    shown_host = "127.0.0.1" if settings.host in ("0.0.0.0", "::") else settings.host
    base_url = args.public_url or os.environ.get("OFFICEGYM_PUBLIC_URL") or f"http://{shown_host}:{settings.port}"
    app = build_app(store, settings, base_url, args.scale, args.seed)
    print(f"officegym: world {world.key} (content hash {world.content_hash[:12]})")
    print(f"  UI   (open in a browser): {base_url}/e/{default.id}/")
    print(f"  MCP  (streamable HTTP):   {base_url}/e/{default.id}/mcp")
    print(f"  control API: {base_url}/api/  (Authorization: Bearer {settings.admin_token})")
    sys.stdout.flush()
    try:
        uvicorn.run(app, host=settings.host, port=settings.port, log_level="warning")
    finally:
        store.close()  # delete the episodes still live: their files, or their PostgreSQL databases
    return 0


def cmd_mcp(args) -> int:
    """Serve one episode's MCP tools over stdio."""
    from officegym.episodes import EpisodeStore

    store = EpisodeStore(load_settings(database_url=args.database_url))
    episode = store.open(args.episode) if args.episode else store.create(args.task, args.instance, args.scale, args.seed)
    if not args.episode:
        print(f"officegym: episode {episode.id}: {episode.instruction or 'free world'}", file=sys.stderr)
    episode.mcp_server().run("stdio")
    return 0


def cmd_run(args) -> int:
    """Run an agent on tasks and print grades."""
    from officegym.episodes import EpisodeStore
    from officegym.runner import print_results, run

    if args.parallel < 1:
        print("officegym run: --parallel must be at least 1", file=sys.stderr)
        return 2
    store = EpisodeStore(load_settings(database_url=args.database_url))
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
    """Build (or find cached) a world and print its key and content hash; with a PostgreSQL
    database URL, also load it into its template database."""
    from officegym.episodes import EpisodeStore

    store = EpisodeStore(load_settings(database_url=args.database_url))
    world = store.world(args.scale, args.seed, progress=_progress)
    where = str(world.path)
    if store.backend.name == "postgresql":
        where += " " + store.backend.world_template(world)
    print(f"{world.key} {world.content_hash} {where}")
    return 0


def cmd_prune(args) -> int:
    """Drop PostgreSQL databases left behind: episodes without a record in this machine's
    episodes folder, half-built templates and, with --stale-worlds, worlds of older code."""
    from officegym.episodes import EpisodeStore
    from officegym.worlds import code_fingerprint

    settings = load_settings(database_url=args.database_url)
    store = EpisodeStore(settings)
    if store.backend.name != "postgresql":
        print("officegym prune: only PostgreSQL keeps databases; SQLite episodes are files in "
              f"{settings.episodes_dir}", file=sys.stderr)
        return 2
    keep = {path.stem for path in settings.episodes_dir.glob("*.json")}
    for name in store.backend.prune(keep, code_fingerprint() if args.stale_worlds else None):
        print(f"dropped {name}")
    return 0


def cmd_tasks(args) -> int:
    """List the registered tasks."""
    from officegym.tasks.registry import match_tasks

    for task in match_tasks(args.tasks):
        print(f"{task.id:<36} d{task.difficulty} {task.kind:<8} {task.split:<5} {task.scale:<6} {task.summary}")
    return 0


def parser() -> argparse.ArgumentParser:
    """The command-line grammar."""
    top = argparse.ArgumentParser(prog="officegym", description=__doc__)
    sub = top.add_subparsers(dest="command", required=True)

    def world_args(p):
        p.add_argument("--scale", default="small", help="world scale: tiny, small, medium, large")
        p.add_argument("--seed", type=int, default=0, help="world seed")
        database_arg(p)

    def database_arg(p):
        p.add_argument("--database-url", default=None,
                       help="'sqlite' (default) or postgresql://user@host:port/database "
                            "(default: $OFFICEGYM_DATABASE_URL)")

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
    runp.add_argument("--agent", required=True,
                      help="oracle, null, spam; adversarial: shotgun, spray, overreach, vandal, negate, revert; "
                           "near misses: wrong_record, wrong_value, extra_row; wreck (deletes what the task is about)")
    runp.add_argument("--tasks", default="*", help="glob of task ids, e.g. 'chat.*'")
    runp.add_argument("--instances", type=int, default=3, help="instances per task")
    runp.add_argument("--parallel", type=int, default=1, help="episodes run at once (threads)")
    runp.add_argument("--json", action="store_true", help="one JSON object per episode")
    runp.set_defaults(fn=cmd_run, scale=None)  # each task's own scale unless --scale names one

    build = sub.add_parser("build", help=cmd_build.__doc__)
    world_args(build)
    build.set_defaults(fn=cmd_build)

    prune = sub.add_parser("prune", help=cmd_prune.__doc__)
    database_arg(prune)
    prune.add_argument("--stale-worlds", action="store_true", help="also drop worlds built by older code")
    prune.set_defaults(fn=cmd_prune)

    tasks = sub.add_parser("tasks", help=cmd_tasks.__doc__)
    tasks.add_argument("--tasks", default="*")
    tasks.set_defaults(fn=cmd_tasks)
    return top


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `officegym` script."""
    from officegym.errors import OfficeError

    args = parser().parse_args(argv)
    try:
        return args.fn(args)
    except OfficeError as error:  # bad settings or arguments: one line, not a traceback
        print(f"officegym {args.command}: {error.message}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
