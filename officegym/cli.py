"""The `officegym` command: serve, mcp, run, build, prune, tasks, check-tasks, grade, trajectory."""

from __future__ import annotations

import json
import os
import sys

from officegym.cli_args import parser
from officegym.cli_check_tasks import cmd_check_tasks
from officegym.cli_common import build_progress as _progress
from officegym.cli_common import configuration_error, end_progress_line, listening_socket, stop_on_sigterm
from officegym.cli_common import sweep as _sweep
from officegym.cli_episode import cmd_grade, cmd_mcp, cmd_trajectory
from officegym.cli_run import cmd_run, export
from officegym.config import SettingError, load_settings


def cmd_serve(args) -> int:
    """Serve the UI, MCP and control API for many episodes in one process."""
    if args.episode_ttl < 0 or args.workers < 1:
        print("officegym serve: --episode-ttl must be 0 (never) or more seconds, --workers at least 1",
              file=sys.stderr)
        return 2
    settings = load_settings(host=args.host, port=args.port, database_url=args.database_url, fleet=args.fleet,
                             public_url=args.public_url)
    try:  # bound first (before the slow imports, and before any link is printed that could not work)
        listener = listening_socket(settings.host, settings.port)
    except OSError as error:
        print(f"officegym serve: cannot listen on {settings.host}:{settings.port}: {error.strerror or error}",
              file=sys.stderr)
        return 2
    import uvicorn

    from officegym.episodes import EpisodeStore
    from officegym.host_check import allowed_names
    from officegym.server import build_app, server_config

    settings.allowed_hosts = [*settings.allowed_hosts, *args.allowed_host]
    try:
        allowed_names("", settings.allowed_hosts)
    except ValueError as bad:
        listener.close()
        print(f"officegym serve: --allowed-host: {bad}", file=sys.stderr)
        return 2
    with listener:
        stop_on_sigterm()
        store = EpisodeStore(settings)
        _sweep(store)
        world = store.world(args.scale, args.seed, progress=_progress)
        # The link printed below stays valid however long the default episode is idle.
        default = store.create(scale=args.scale, seed=args.seed, actor=args.actor, keep_alive=True)
        shown_host = "127.0.0.1" if settings.host in ("0.0.0.0", "::") else settings.host
        base_url = settings.public_url or f"http://{shown_host}:{settings.port}"
        app = build_app(store, settings, base_url, args.scale, args.seed, episode_ttl=args.episode_ttl)
        print(f"officegym: world {world.key} (content hash {world.content_hash[:12]})")
        print(f"  UI   (open in a browser): {base_url}/e/{default.id}/")
        print(f"  MCP  (streamable HTTP):   {base_url}/e/{default.id}/mcp")
        print(f"  control API: {base_url}/api/  (Authorization: Bearer {_admin_token_source(settings)})")
        sys.stdout.flush()
        try:
            if args.workers > 1:
                _serve_workers(args, settings, store, base_url, listener)
            else:
                _serve_one(uvicorn.Server(server_config(app, settings.host, settings.port)), listener)
        finally:
            store.close()  # delete the episodes still live: their files, or their PostgreSQL databases
    return 0


def _serve_one(server, listener) -> None:
    """Serve in this process until Ctrl-C or SIGTERM: uvicorn stops, then raises the signal again,
    which ends the command normally (as `uvicorn.run` does)."""
    try:
        server.run(sockets=[listener])
    except KeyboardInterrupt:
        pass


def _serve_workers(args, settings, store, base_url: str, listener) -> None:
    """Serve with `args.workers` processes on `listener` (the supervisor hands each connection to the
    least busy one and restarts a worker that dies); each opens the episodes of the shared registry.
    This process owns them and deletes them at the end."""
    from officegym.server import WORKER_CONFIG, server_config
    from officegym.supervisor import Supervisor

    os.environ[WORKER_CONFIG] = json.dumps({
        "settings": {"home": str(settings.home), "episodes_dir": str(settings.episodes_dir),
                     "database_url": settings.database_url, "host": settings.host, "port": settings.port,
                     "allowed_hosts": settings.allowed_hosts, "admin_token": settings.admin_token,
                     "fleet": settings.fleet},
        "owner": store.owner, "base_url": base_url, "scale": args.scale, "seed": args.seed,
        "episode_ttl": args.episode_ttl})
    config = server_config("officegym.server:worker_app", settings.host, settings.port, factory=True,
                           workers=args.workers)
    Supervisor(config, args.workers, listener).run()


def _admin_token_source(settings) -> str:
    """Where the control API's admin token is, never the token itself (logs keep what is printed):
    $OFFICEGYM_ADMIN_TOKEN when set, else a file readable by this user only, written now."""
    if os.environ.get("OFFICEGYM_ADMIN_TOKEN"):
        return "$OFFICEGYM_ADMIN_TOKEN"
    path = settings.home / "admin-token"
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as out:
        out.write(settings.admin_token + "\n")
    os.chmod(path, 0o600)  # a file left by an earlier run keeps its own mode otherwise
    return f"<the token in {path}>"


def cmd_build(args) -> int:
    """Build (or find cached) a world and print its key and content hash; with a PostgreSQL
    database URL, also load it into its template database."""
    from officegym.episodes import EpisodeStore

    store = EpisodeStore(load_settings(database_url=args.database_url, fleet=args.fleet))
    world = store.world(args.scale, args.seed, progress=_progress)
    where = str(world.path)
    if store.backend.name == "postgresql":
        where += " " + store.backend.world_template(world)
    print(f"{world.key} {world.content_hash} {where}")
    return 0


def cmd_prune(args) -> int:
    """Drop PostgreSQL databases left behind: episodes without a record in the episode registry,
    half-built templates and, with --stale-worlds, worlds of older code."""
    from officegym.episodes import EpisodeStore
    from officegym.postgres_prune import prune
    from officegym.worlds import code_fingerprint

    settings = load_settings(database_url=args.database_url, fleet=args.fleet)
    store = EpisodeStore(settings)
    if store.backend.name != "postgresql":
        print("officegym prune: only PostgreSQL keeps databases; SQLite episodes are files in "
              f"{settings.episodes_dir}", file=sys.stderr)
        return 2
    keep = store.registry.every_fleets_ids()  # an episode of another fleet is no orphan
    for name in prune(store.backend, keep, code_fingerprint() if args.stale_worlds else None):
        print(f"dropped {name}")
    return 0


def cmd_tasks(args) -> int:
    """List the registered tasks, or with `export`, write the task catalogue (one row per instance)."""
    from officegym.tasks.registry import match_tasks

    if args.action == "export":
        return export(args)
    for task in match_tasks(args.tasks):
        print(f"{task.id:<36} d{task.difficulty} {task.kind:<8} {task.split:<5} {task.scale:<6} {task.summary}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `officegym` script."""
    from officegym.errors import OfficeError

    commands = {"serve": cmd_serve, "mcp": cmd_mcp, "run": cmd_run, "build": cmd_build, "prune": cmd_prune,
                "tasks": cmd_tasks, "check-tasks": cmd_check_tasks, "grade": cmd_grade, "trajectory": cmd_trajectory}
    args = parser(commands, __doc__).parse_args(argv)
    try:
        return args.fn(args)
    except OfficeError as error:  # bad settings or arguments: one line, not a traceback
        print(f"officegym {args.command}: {error.message}", file=sys.stderr)
        return 2
    except SettingError as error:
        print(f"officegym {args.command}: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # Ctrl-C: what was under way cleaned up after itself
        end_progress_line()
        print(f"officegym {args.command}: interrupted", file=sys.stderr)
        return 130
    except OSError as error:
        said = configuration_error(error)
        if said is None:
            raise
        end_progress_line()
        print(f"officegym {args.command}: {said}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
