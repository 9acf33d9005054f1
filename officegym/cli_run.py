"""`officegym run` (play an agent on task instances) and `officegym tasks export` (the task catalogue
as a dataset)."""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path

from officegym.cli_common import build_progress, stop_on_sigterm, sweep, tools_arg
from officegym.config import load_settings
from officegym.setting_checks import web_address


def cmd_run(args) -> int:
    """Run an agent (scripted, or a model with --agent openai) on tasks and print grades."""
    from officegym.episodes import EpisodeStore
    from officegym.reports import ProgressBar
    from officegym.runner import print_results, run
    from officegym.tasks.registry import match_tasks

    if args.parallel < 1 or args.trials < 1 or args.instances < 1 or args.max_turns < 1:
        print("officegym run: --parallel, --instances, --trials and --max-turns must be at least 1", file=sys.stderr)
        return 2
    if args.request_timeout <= 0 or args.episode_timeout < 0:
        print("officegym run: --request-timeout must be more than 0 seconds, --episode-timeout 0 (no limit) or more",
              file=sys.stderr)
        return 2
    agent = args.agent
    if agent == "openai":
        agent = _model_agent(args)
        if agent is None:
            return 2
    stop_on_sigterm()
    store = EpisodeStore(load_settings(database_url=args.database_url, fleet=args.fleet))
    sweep(store)
    total = len([t for t in match_tasks(args.tasks) if not args.split or t.split == args.split])
    try:
        results = print_results(run(store, agent, args.tasks, args.instances, args.scale, args.seed, args.parallel,
                                    args.trials, Path(args.trajectories) if args.trajectories else None,
                                    ProgressBar(total * args.instances * args.trials), split=args.split,
                                    tools=tools_arg(args.tools), resume=args.resume), args.json)
    except ValueError as error:
        print(f"officegym run: {error}", file=sys.stderr)
        return 2
    finally:
        store.close()
    if args.trajectories:
        print(f"trajectories: {len(results)} files in {args.trajectories}", file=sys.stderr)
    return _run_outcome(results, args.allow_errors)


def _model_agent(args):
    """The model agent the `run` options describe (None after saying what is wrong with them)."""
    from officegym.model_agent import ModelSettings, model_agent

    try:
        extra_body = json.loads(args.extra_body) if args.extra_body else {}
    except ValueError as error:
        extra_body = error
    if not isinstance(extra_body, dict):
        print(f"officegym run: --extra-body must be one JSON object ({extra_body})", file=sys.stderr)
        return None
    base_url = args.base_url and web_address("--base-url (default $OPENAI_BASE_URL)", args.base_url)
    return model_agent(ModelSettings(
        model=args.model, base_url=base_url, api_key=args.api_key or os.environ.get("OPENAI_API_KEY"),
        max_turns=args.max_turns, retries=args.retries, request_timeout=args.request_timeout,
        episode_timeout=args.episode_timeout or None, temperature=args.temperature, top_p=args.top_p,
        max_tokens=args.max_tokens, seed=args.sampling_seed, extra_body=extra_body))


def _run_outcome(results: list[dict], allow_errors: bool) -> int:
    """The exit status of a run: 1 when an episode ended in an error or an agent error (said on
    standard error, with the first messages) unless they are allowed, else 0."""
    failed = [r for r in results if r["status"] in ("error", "agent_error")]
    if not failed:
        return 0
    agent_errors = sum(1 for r in failed if r["status"] == "agent_error")
    print(f"officegym run: {agent_errors} agent error(s), {len(failed) - agent_errors} error(s)", file=sys.stderr)
    for message in list(dict.fromkeys(r.get("agent_error") or r.get("error") or "" for r in failed))[:3]:
        print(f"  {message}", file=sys.stderr)
    return 0 if allow_errors else 1


def export(args) -> int:
    """`officegym tasks export`: the catalogue, with each row's tool specs and chat-format prompt, as
    JSON lines or one JSON array (on standard output or into --output) or Parquet (into --output)."""
    from officegym.catalogue import jobs, rows
    from officegym.episodes import EpisodeStore

    if args.format == "parquet" and not args.output:
        print("officegym tasks export: --format parquet writes a file: name it with --output", file=sys.stderr)
        return 2
    if args.format == "parquet" and importlib.util.find_spec("pyarrow") is None:
        print("officegym tasks export: --format parquet needs pyarrow (pip install pyarrow)", file=sys.stderr)
        return 2
    pairs = jobs(args.tasks, args.split, args.instances)
    store = EpisodeStore(load_settings(database_url="sqlite"))
    for needed in sorted({args.scale or template.scale for template, _ in pairs}):
        store.world(needed, args.seed, progress=build_progress)
    out = open(args.output, "w", encoding="utf-8") if args.output and args.format != "parquet" else sys.stdout
    written, failed = [], 0
    try:
        for done, row in enumerate(rows(store, pairs, args.scale, args.seed, tool_specs=True), 1):
            if "error" in row:
                failed += 1
                print(f"\nofficegym tasks export: left out {row['task_id']} #{row['instance']}: {row['error']}",
                      file=sys.stderr)
            elif args.format == "jsonl":
                out.write(json.dumps(row) + "\n")
                out.flush()
            else:
                written.append(row)
            print(f"\rtask instances: {done}/{len(pairs)}", end="", file=sys.stderr, flush=True)
        print(file=sys.stderr)
        if args.format == "json":
            out.write(json.dumps(written, indent=1) + "\n")
        elif args.format == "parquet":
            _write_parquet(written, Path(args.output))
    finally:
        if out is not sys.stdout:
            out.close()
    return 1 if failed else 0


def _write_parquet(written: list[dict], path: Path) -> None:
    """The rows as a Parquet file; `tools` is kept as JSON text (the tools' parameter schemas differ,
    and one Arrow type for all of them would give every tool every other tool's parameters)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pylist([{**row, "tools": json.dumps(row["tools"])} for row in written])
    pq.write_table(table, path)
