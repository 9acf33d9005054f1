"""The grammar of the `officegym` command: its commands, their arguments and help."""

from __future__ import annotations

import argparse
import os
from typing import Callable

from officegym import cli_check_tasks as check_tasks


def parser(commands: dict[str, Callable], description: str) -> argparse.ArgumentParser:
    """The command-line grammar; `commands` maps each command's name to the function that runs it."""
    top = argparse.ArgumentParser(prog="officegym", description=description)
    sub = top.add_subparsers(dest="command", required=True)

    def world_args(p):
        p.add_argument("--scale", default="small", help="world scale: tiny, small, medium, large")
        p.add_argument("--seed", type=int, default=0, help="world seed")
        database_arg(p)

    def database_arg(p):
        p.add_argument("--database-url", default=None,
                       help="'sqlite' (default) or postgresql://user@host:port/database "
                            "(default: $OFFICEGYM_DATABASE_URL)")
        p.add_argument("--fleet", default=None,
                       help="the fleet whose episodes to list, serve, expire and sweep (default: $OFFICEGYM_FLEET, "
                            "else one named after the admin token or this machine)")

    serve = sub.add_parser("serve", help=commands["serve"].__doc__)
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
    serve.add_argument("--workers", type=int, default=1,
                       help="processes serving the episodes (default 1; up to one per core is useful)")
    serve.set_defaults(fn=commands["serve"])

    mcp = sub.add_parser("mcp", help=commands["mcp"].__doc__)
    world_args(mcp)
    mcp.add_argument("--episode", help="id of an existing episode (from this machine's episodes folder)")
    mcp.add_argument("--task", help="start a new episode of this task instead")
    mcp.add_argument("--instance", type=int, default=0)
    mcp.add_argument("--tools", default=None,
                     help="tools served: task (a task's default), all (the free episode's), or a comma-separated "
                          "list of apps, areas (e.g. crm.sales) and tool names")
    mcp.add_argument("--keep", action="store_true",
                     help="keep the new episode when the client disconnects (grade it with `officegym grade`)")
    mcp.set_defaults(fn=commands["mcp"])

    grade = sub.add_parser("grade", help=commands["grade"].__doc__)
    database_arg(grade)
    grade.add_argument("episode", help="the episode's id")
    grade.add_argument("--delete", action="store_true", help="delete the episode once graded")
    grade.set_defaults(fn=commands["grade"])

    trajectory = sub.add_parser("trajectory", help=commands["trajectory"].__doc__)
    database_arg(trajectory)
    trajectory.add_argument("episode", nargs="?", help="the episode's id: print its steps as JSON lines")
    trajectory.add_argument("--sft", nargs="+", metavar="PATH", default=None,
                            help="instead: the transcripts in these files or folders (of `run --trajectories`) "
                                 "as chat-format training rows, {messages, tools}, one per line")
    trajectory.add_argument("--all", action="store_true", help="with --sft: failed episodes too (default: successes)")
    trajectory.set_defaults(fn=commands["trajectory"])

    runp = sub.add_parser("run", help=commands["run"].__doc__)
    world_args(runp)
    runp.add_argument("--agent", required=True,
                      help="openai (a model behind an OpenAI-compatible endpoint: see --model, --base-url); "
                           "scripted: oracle, null, spam; adversarial: shotgun, spray, overreach, vandal, negate, "
                           "revert; judgement: lie, hollow, skip_ask, weak_reason, blind_refuse, comply; time: "
                           "ignore_events, wait_forever; near misses: wrong_record, wrong_value, extra_row; wreck")
    runp.add_argument("--model", default=os.environ.get("OFFICEGYM_MODEL", "default"),
                      help="with --agent openai: the model name (default $OFFICEGYM_MODEL or 'default')")
    runp.add_argument("--base-url", default=os.environ.get("OPENAI_BASE_URL"),
                      help="with --agent openai: the endpoint, e.g. http://127.0.0.1:8000/v1 "
                           "(default $OPENAI_BASE_URL)")
    runp.add_argument("--api-key", default=None, help="with --agent openai: the key (default $OPENAI_API_KEY)")
    runp.add_argument("--max-turns", type=int, default=30, help="with --agent openai: model turns per episode")
    runp.add_argument("--retries", type=int, default=3, help="with --agent openai: retries of a failed request")
    runp.add_argument("--request-timeout", type=float, default=120.0, metavar="SECONDS",
                      help="with --agent openai: seconds one request attempt may take (default 120)")
    runp.add_argument("--episode-timeout", type=float, default=1800.0, metavar="SECONDS",
                      help="with --agent openai: seconds one episode may take; then it stops and is graded "
                           "(default 1800; 0: no limit)")
    runp.add_argument("--temperature", type=float, default=None, help="with --agent openai: sampling temperature")
    runp.add_argument("--top-p", type=float, default=None, help="with --agent openai: nucleus sampling")
    runp.add_argument("--max-tokens", type=int, default=None, help="with --agent openai: tokens one answer may hold")
    runp.add_argument("--sampling-seed", type=int, default=None,
                      help="with --agent openai: the endpoint's sampling seed (--seed is the world's)")
    runp.add_argument("--extra-body", default=None, metavar="JSON",
                      help="with --agent openai: a JSON object sent with every request, e.g. "
                           "'{\"chat_template_kwargs\": {\"enable_thinking\": false}}'")
    runp.add_argument("--trials", type=int, default=1, help="episodes per instance (pass@k and pass^k use k = trials)")
    runp.add_argument("--trajectories", default=None, metavar="DIR",
                      help="write each episode's transcript there: messages, tool specs, tool calls, usage, grade")
    runp.add_argument("--resume", action="store_true",
                      help="with --trajectories: skip the episodes whose transcript there is complete")
    runp.add_argument("--allow-errors", action="store_true",
                      help="exit 0 even when episodes end in an error or an agent error")
    runp.add_argument("--tasks", default="*", help="glob of task ids, e.g. 'chat.*'")
    runp.add_argument("--split", choices=("train", "test"), default=None, help="only the tasks of this split")
    runp.add_argument("--tools", default=None,
                      help="each episode's tools: task (default), all, or a comma-separated list of apps, areas "
                           "and tool names")
    runp.add_argument("--instances", type=int, default=3, help="instances per task")
    runp.add_argument("--parallel", type=int, default=1, help="episodes run at once (threads)")
    runp.add_argument("--json", action="store_true", help="one JSON object per episode")
    runp.set_defaults(fn=commands["run"], scale=None)  # each task's own scale unless --scale names one

    build = sub.add_parser("build", help=commands["build"].__doc__)
    world_args(build)
    build.set_defaults(fn=commands["build"])

    prune = sub.add_parser("prune", help=commands["prune"].__doc__)
    database_arg(prune)
    prune.add_argument("--stale-worlds", action="store_true", help="also drop worlds built by older code")
    prune.set_defaults(fn=commands["prune"])

    tasks = sub.add_parser("tasks", help=commands["tasks"].__doc__)
    tasks.add_argument("--tasks", default="*", help="glob of task ids, e.g. 'chat.*'")
    tasks.set_defaults(fn=commands["tasks"], action=None)
    export = tasks.add_subparsers(dest="action").add_parser(
        "export", help="write every task instance (instruction, actor, date, tools, system prompt) as a dataset")
    export.add_argument("--tasks", default="*", help="glob of task ids, e.g. 'chat.*'")
    export.add_argument("--split", choices=("train", "test"), default=None, help="only this split")
    export.add_argument("--instances", type=int, default=3, help="instances per task (1-1000)")
    export.add_argument("--format", choices=("jsonl", "json", "parquet"), default="jsonl",
                        help="jsonl (default), json (one array) or parquet (needs pyarrow and --output)")
    export.add_argument("--output", default=None, metavar="FILE", help="write there (default: standard output)")
    export.add_argument("--scale", default=None, help="draw every task on this world (default: each task's own)")
    export.add_argument("--seed", type=int, default=0, help="world seed")
    check_tasks.add_parser(sub, commands["check-tasks"])
    return top
