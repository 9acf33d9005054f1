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
    from officegym.host_check import allowed_names
    from officegym.server import build_app

    settings = load_settings(host=args.host, port=args.port, database_url=args.database_url)
    settings.allowed_hosts = [*settings.allowed_hosts, *args.allowed_host]
    try:
        allowed_names("", settings.allowed_hosts)
    except ValueError as bad:
        print(f"officegym serve: --allowed-host: {bad}", file=sys.stderr)
        return 2
    store = EpisodeStore(settings)
    world = store.world(args.scale, args.seed, progress=_progress)
    default = store.create(scale=args.scale, seed=args.seed, actor=args.actor)
    default.keep_alive = True  # the link printed below stays valid however long it is idle
    shown_host = "127.0.0.1" if settings.host in ("0.0.0.0", "::") else settings.host
    base_url = args.public_url or os.environ.get("OFFICEGYM_PUBLIC_URL") or f"http://{shown_host}:{settings.port}"
    if args.episode_ttl < 0:
        print("officegym serve: --episode-ttl must be 0 (never) or more seconds", file=sys.stderr)
        return 2
    app = build_app(store, settings, base_url, args.scale, args.seed, episode_ttl=args.episode_ttl)
    print(f"officegym: world {world.key} (content hash {world.content_hash[:12]})")
    print(f"  UI   (open in a browser): {base_url}/e/{default.id}/")
    print(f"  MCP  (streamable HTTP):   {base_url}/e/{default.id}/mcp")
    print(f"  control API: {base_url}/api/  (Authorization: Bearer {_admin_token_source(settings)})")
    sys.stdout.flush()
    try:
        uvicorn.run(app, host=settings.host, port=settings.port, log_level="warning")
    finally:
        store.close()  # delete the episodes still live: their files, or their PostgreSQL databases
    return 0


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
    store = EpisodeStore(load_settings(database_url=args.database_url))
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
    serve.add_argument("--public-url", default=None, help="base URL printed in links (its host is always allowed)")
    serve.add_argument("--allowed-host", action="append", default=[], metavar="NAME",
                       help="another name requests may give as their Host, e.g. a compose service's name; repeat "
                            "for more, '*' for any (default: the loopback names and the public URL's host; "
                            "$OFFICEGYM_ALLOWED_HOSTS adds comma-separated names)")
    serve.add_argument("--episode-ttl", type=float, default=3600,
                       help="delete task episodes unused for this many seconds (default 3600; 0: never)")
    serve.set_defaults(fn=cmd_serve)

    mcp = sub.add_parser("mcp", help=cmd_mcp.__doc__)
    world_args(mcp)
    mcp.add_argument("--episode", help="id of an existing episode (from this machine's episodes folder)")
    mcp.add_argument("--task", help="start a new episode of this task instead")
    mcp.add_argument("--instance", type=int, default=0)
    mcp.add_argument("--tools", default=None,
                     help="tools served: task (a task's default), all (the free episode's), or a comma-separated "
                          "list of apps, areas (e.g. crm.sales) and tool names")
    mcp.set_defaults(fn=cmd_mcp)

    runp = sub.add_parser("run", help=cmd_run.__doc__)
    world_args(runp)
    runp.add_argument("--agent", required=True,
                      help="openai (a model behind an OpenAI-compatible endpoint: see --model, --base-url); "
                           "scripted: oracle, null, spam; adversarial: shotgun, spray, overreach, vandal, negate, "
                           "revert; near misses: wrong_record, wrong_value, extra_row; wreck")
    runp.add_argument("--model", default=os.environ.get("OFFICEGYM_MODEL", "default"),
                      help="with --agent openai: the model name (default $OFFICEGYM_MODEL or 'default')")
    runp.add_argument("--base-url", default=os.environ.get("OPENAI_BASE_URL"),
                      help="with --agent openai: the endpoint, e.g. http://127.0.0.1:8000/v1 "
                           "(default $OPENAI_BASE_URL)")
    runp.add_argument("--api-key", default=None, help="with --agent openai: the key (default $OPENAI_API_KEY)")
    runp.add_argument("--max-turns", type=int, default=30, help="with --agent openai: model turns per episode")
    runp.add_argument("--retries", type=int, default=3, help="with --agent openai: retries of a failed request")
    runp.add_argument("--temperature", type=float, default=None, help="with --agent openai: sampling temperature")
    runp.add_argument("--trials", type=int, default=1, help="episodes per instance (pass^k uses k = trials)")
    runp.add_argument("--trajectories", default=None, metavar="DIR",
                      help="write one JSONL per episode there: every tool call and UI action, then the grade")
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
    tasks.add_argument("--tasks", default="*", help="glob of task ids, e.g. 'chat.*'")
    tasks.set_defaults(fn=cmd_tasks, action=None)
    export = tasks.add_subparsers(dest="action").add_parser(
        "export", help="write every task instance (instruction, actor, date, tools, system prompt) as a dataset")
    export.add_argument("--tasks", default="*", help="glob of task ids, e.g. 'chat.*'")
    export.add_argument("--split", choices=("train", "test"), default=None, help="only this split")
    export.add_argument("--instances", type=int, default=3, help="instances per task (1-1000)")
    export.add_argument("--format", choices=("jsonl", "json"), default="jsonl")
    export.add_argument("--scale", default=None, help="draw every task on this world (default: each task's own)")
    export.add_argument("--seed", type=int, default=0, help="world seed")
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
