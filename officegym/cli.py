"""The `officegym` command: serve, mcp, run, build, prune, tasks."""

from __future__ import annotations

import os
import signal
import sys

from officegym.cli_args import parser
from officegym.config import load_settings


def stop_on_sigterm() -> None:
    """End on SIGTERM (Docker's and systemd's stop) as on Ctrl-C, through the `finally` that deletes
    the live episodes (uvicorn restores this handler and raises the signal again after shutting down)."""
    signal.signal(signal.SIGTERM, lambda sig, frame: sys.exit(128 + sig))


def _sweep(store) -> None:
    """Delete what stopped processes left behind, and say so."""
    from officegym.leftovers import sweep

    removed = sweep(store)
    if removed:
        print(f"officegym: deleted {len(removed)} episode(s) left by processes that no longer run", file=sys.stderr)


def _progress(stage: str, fraction: float) -> None:
    print(f"\rbuilding world: {stage:<24} {fraction:6.1%}", end="", file=sys.stderr, flush=True)
    if fraction >= 1:
        print(file=sys.stderr)


def cmd_serve(args) -> int:
    """Serve the UI, MCP and control API for many episodes in one process."""
    import uvicorn

    from officegym.episodes import EpisodeStore
    from officegym.host_check import allowed_names
    from officegym.server import KEEP_ALIVE_SECONDS, build_app

    if args.episode_ttl < 0 or args.workers < 1:
        print("officegym serve: --episode-ttl must be 0 (never) or more seconds, --workers at least 1",
              file=sys.stderr)
        return 2
    settings = load_settings(host=args.host, port=args.port, database_url=args.database_url)
    settings.allowed_hosts = [*settings.allowed_hosts, *args.allowed_host]
    try:
        allowed_names("", settings.allowed_hosts)
    except ValueError as bad:
        print(f"officegym serve: --allowed-host: {bad}", file=sys.stderr)
        return 2
    stop_on_sigterm()
    store = EpisodeStore(settings)
    _sweep(store)
    world = store.world(args.scale, args.seed, progress=_progress)
    # The link printed below stays valid however long the default episode is idle.
    default = store.create(scale=args.scale, seed=args.seed, actor=args.actor, keep_alive=True)
    shown_host = "127.0.0.1" if settings.host in ("0.0.0.0", "::") else settings.host
    base_url = args.public_url or os.environ.get("OFFICEGYM_PUBLIC_URL") or f"http://{shown_host}:{settings.port}"
    app = build_app(store, settings, base_url, args.scale, args.seed, episode_ttl=args.episode_ttl)
    print(f"officegym: world {world.key} (content hash {world.content_hash[:12]})")
    print(f"  UI   (open in a browser): {base_url}/e/{default.id}/")
    print(f"  MCP  (streamable HTTP):   {base_url}/e/{default.id}/mcp")
    print(f"  control API: {base_url}/api/  (Authorization: Bearer {_admin_token_source(settings)})")
    sys.stdout.flush()
    try:
        if args.workers > 1:
            _serve_workers(args, settings, store, base_url)
        else:
            uvicorn.run(app, host=settings.host, port=settings.port, log_level="warning",
                        timeout_keep_alive=KEEP_ALIVE_SECONDS)
    finally:
        store.close()  # delete the episodes still live: their files, or their PostgreSQL databases
    return 0


def _serve_workers(args, settings, store, base_url: str) -> None:
    """Serve with `args.workers` processes (the supervisor hands each connection to the least busy
    one and restarts a worker that dies); each opens the episodes of the shared registry. This
    process owns them and deletes them at the end."""
    import json

    from officegym.server import KEEP_ALIVE_SECONDS, WORKER_CONFIG, TcpConfig
    from officegym.supervisor import Supervisor

    os.environ[WORKER_CONFIG] = json.dumps({
        "settings": {"home": str(settings.home), "episodes_dir": str(settings.episodes_dir),
                     "database_url": settings.database_url, "host": settings.host, "port": settings.port,
                     "allowed_hosts": settings.allowed_hosts, "admin_token": settings.admin_token},
        "owner": store.owner, "base_url": base_url, "scale": args.scale, "seed": args.seed,
        "episode_ttl": args.episode_ttl})
    config = TcpConfig("officegym.server:worker_app", factory=True, workers=args.workers, host=settings.host,
                       port=settings.port, log_level="warning", timeout_keep_alive=KEEP_ALIVE_SECONDS)
    Supervisor(config, args.workers).run()


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


def cmd_mcp(args) -> int:
    """Serve one episode's MCP tools over stdio."""
    from officegym.episodes import EpisodeStore

    store = EpisodeStore(load_settings(database_url=args.database_url))
    episode = store.open(args.episode) if args.episode else store.create(
        args.task, args.instance, args.scale, args.seed, tools=_tools_arg(args.tools))
    if not args.episode:
        print(f"officegym: episode {episode.id}: {episode.instruction or 'free world'}", file=sys.stderr)
    episode.mcp_server().run("stdio")
    return 0


def _tools_arg(text: str | None) -> str | list[str] | None:
    """`--tools`: task, all, or apps, areas and tool names separated by commas."""
    if text in (None, "", "task", "all"):
        return text or None
    return [word.strip() for word in text.split(",") if word.strip()]


def cmd_run(args) -> int:
    """Run an agent (scripted, or a model with --agent openai) on tasks and print grades."""
    from pathlib import Path

    from officegym.episodes import EpisodeStore
    from officegym.reports import ProgressBar
    from officegym.runner import print_results, run
    from officegym.tasks.registry import match_tasks

    if args.parallel < 1 or args.trials < 1 or args.instances < 1 or args.max_turns < 1:
        print("officegym run: --parallel, --instances, --trials and --max-turns must be at least 1", file=sys.stderr)
        return 2
    agent = args.agent
    if agent == "openai":
        from officegym.model_agent import ModelSettings, model_agent

        agent = model_agent(ModelSettings(
            model=args.model, base_url=args.base_url, api_key=args.api_key or os.environ.get("OPENAI_API_KEY"),
            max_turns=args.max_turns, retries=args.retries, temperature=args.temperature))
    stop_on_sigterm()
    store = EpisodeStore(load_settings(database_url=args.database_url))
    _sweep(store)
    total = len(match_tasks(args.tasks)) * args.instances * args.trials
    try:
        results = print_results(run(store, agent, args.tasks, args.instances, args.scale, args.seed, args.parallel,
                                    args.trials, Path(args.trajectories) if args.trajectories else None,
                                    ProgressBar(total)), args.json)
    except ValueError as error:
        print(f"officegym run: {error}", file=sys.stderr)
        return 2
    finally:
        store.close()
    if args.trajectories:
        print(f"trajectories: {len(results)} files in {args.trajectories}", file=sys.stderr)
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
    """Drop PostgreSQL databases left behind: episodes without a record in the episode registry,
    half-built templates and, with --stale-worlds, worlds of older code."""
    from officegym.episodes import EpisodeStore
    from officegym.postgres_prune import prune
    from officegym.worlds import code_fingerprint

    settings = load_settings(database_url=args.database_url)
    store = EpisodeStore(settings)
    if store.backend.name != "postgresql":
        print("officegym prune: only PostgreSQL keeps databases; SQLite episodes are files in "
              f"{settings.episodes_dir}", file=sys.stderr)
        return 2
    keep = {entry.id for entry in store.entries()}
    for name in prune(store.backend, keep, code_fingerprint() if args.stale_worlds else None):
        print(f"dropped {name}")
    return 0


def cmd_tasks(args) -> int:
    """List the registered tasks, or with `export`, write the task catalogue (one row per instance)."""
    from officegym.tasks.registry import match_tasks

    if args.action == "export":
        return _export(args)
    for task in match_tasks(args.tasks):
        print(f"{task.id:<36} d{task.difficulty} {task.kind:<8} {task.split:<5} {task.scale:<6} {task.summary}")
    return 0


def _export(args) -> int:
    """`officegym tasks export`: the catalogue as JSON lines (or one JSON array) on standard output."""
    import json

    from officegym.catalogue import jobs, rows
    from officegym.episodes import EpisodeStore

    pairs = jobs(args.tasks, args.split, args.instances)
    store = EpisodeStore(load_settings(database_url="sqlite"))
    for needed in sorted({args.scale or template.scale for template, _ in pairs}):
        store.world(needed, args.seed, progress=_progress)
    written, failed = [], 0
    for done, row in enumerate(rows(store, pairs, args.scale, args.seed), 1):
        if "error" in row:
            failed += 1
            print(f"\nofficegym tasks export: left out {row['task_id']} #{row['instance']}: {row['error']}",
                  file=sys.stderr)
        elif args.format == "jsonl":
            print(json.dumps(row), flush=True)
        else:
            written.append(row)
        print(f"\rtask instances: {done}/{len(pairs)}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    if args.format == "json":
        print(json.dumps(written, indent=1))
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `officegym` script."""
    from officegym.errors import OfficeError

    commands = {"serve": cmd_serve, "mcp": cmd_mcp, "run": cmd_run, "build": cmd_build, "prune": cmd_prune,
                "tasks": cmd_tasks}
    args = parser(commands, __doc__).parse_args(argv)
    try:
        return args.fn(args)
    except OfficeError as error:  # bad settings or arguments: one line, not a traceback
        print(f"officegym {args.command}: {error.message}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
