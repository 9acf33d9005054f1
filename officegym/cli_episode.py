"""The commands about one episode: `officegym mcp` (its tools over stdio, as Claude Desktop or the MCP
Inspector start a server), `officegym grade` and `officegym trajectory` (and the transcripts of a
run as training rows)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from officegym.cli_common import stop_on_sigterm, tools_arg
from officegym.config import load_settings

KEPT = {"kept_by": "officegym mcp --keep"}  # an owner no sweep deletes: the episode waits for `grade`


def offer_task(server, episode) -> None:
    """Give an MCP client the task the way it asks for one: the prompt `task` (the standard system
    prompt and the instruction, as the user's message) and the resources officegym://task/instruction
    and officegym://task/system-prompt."""
    from officegym.catalogue import episode_prompt

    system = episode_prompt(episode)

    @server.prompt(name="task", title="The task", description="Who you are, the company's date and your task")
    def task() -> list[dict]:
        return [{"role": "user", "content": f"{system}\n\nYour task: {episode.instruction}"}]

    @server.resource("officegym://task/instruction", name="instruction", mime_type="text/plain",
                     description="What you are asked to do")
    def instruction() -> str:
        return episode.instruction

    @server.resource("officegym://task/system-prompt", name="system-prompt", mime_type="text/plain",
                     description="Who you are, the company's date, how to work and how to answer")
    def system_prompt() -> str:
        return system


def cmd_mcp(args) -> int:
    """Serve one episode's MCP tools over stdio; a new episode is deleted when the client disconnects
    (unless --keep)."""
    from officegym.episodes import EpisodeStore

    settings = load_settings(database_url=args.database_url, fleet=args.fleet)
    store = EpisodeStore(settings, owner=KEPT if args.keep else None)
    created = not args.episode
    episode = store.open(args.episode) if args.episode else store.create(
        args.task, args.instance, args.scale, args.seed, tools=tools_arg(args.tools), keep_alive=args.keep)
    if created:
        kept = "; kept after the client leaves: `officegym grade ID --delete` when done" if args.keep else ""
        print(f"officegym: episode {episode.id}: {episode.instruction or 'free world'}{kept}", file=sys.stderr)
    server = episode.mcp_server()
    if episode.is_task:
        offer_task(server, episode)
    stop_on_sigterm()
    try:
        server.run("stdio")
    finally:
        if created and not args.keep:
            store.delete(episode.id)
        store.release()
    return 0


def cmd_grade(args) -> int:
    """Grade a task episode (of this machine's episodes, or of the PostgreSQL registry) and print the
    grade as JSON; exit 1 when the grader failed."""
    from officegym.episodes import EpisodeStore

    store = EpisodeStore(load_settings(database_url=args.database_url, fleet=args.fleet))
    try:
        episode = store.open(args.episode)
        if not episode.is_task:
            print("officegym grade: the free episode has no task to grade", file=sys.stderr)
            return 2
        result = episode.grade().to_dict()
        if args.delete:
            store.delete(episode.id)
            result["deleted"] = episode.id
    finally:
        store.release()
    print(json.dumps(result, indent=1))
    return 1 if result["status"] == "error" else 0


def cmd_trajectory(args) -> int:
    """Print an episode's steps (every tool call and UI request) as JSON lines, or with --sft the
    transcripts of `run --trajectories` as chat-format training rows."""
    if bool(args.episode) == bool(args.sft):
        print("officegym trajectory: give an episode id, or --sft with transcript files or folders", file=sys.stderr)
        return 2
    if args.sft:
        return _sft(args.sft, args.all)
    from officegym.episodes import EpisodeStore

    store = EpisodeStore(load_settings(database_url=args.database_url, fleet=args.fleet))
    try:
        steps = store.open(args.episode).trajectory.steps()
    finally:
        store.release()
    for step in steps:
        print(json.dumps(step))
    return 0


def _sft(paths: list[str], everything: bool) -> int:
    from officegym.transcripts import sft_rows

    files = []
    for given in map(Path, paths):
        if not given.exists():
            print(f"officegym trajectory: no file or folder {given}", file=sys.stderr)
            return 2
        files += sorted(given.glob("*.jsonl")) if given.is_dir() else [given]
    records = (json.loads(line) for path in files for line in path.read_text().splitlines() if line.strip())
    for row in sft_rows(records, successful_only=not everything):
        print(json.dumps(row, ensure_ascii=False))
    return 0
