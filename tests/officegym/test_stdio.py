"""`officegym mcp` over stdio with the SDK's client: an existing episode's tools (`--episode ID`), or a
new task episode that offers its task as a prompt and resources and is deleted when the client leaves
unless kept for `officegym grade`."""

from __future__ import annotations

import json
import os
import sys

import anyio
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from sqlalchemy import select

from officegym.apps.chat.models import Message
from officegym.cli import main


def test_stdio_server_acts_on_the_episode(store, settings):
    created = store.create(scale="tiny", seed=0)
    env = dict(os.environ, OFFICEGYM_HOME=str(settings.home), OFFICEGYM_EPISODES_DIR=str(settings.episodes_dir))
    params = StdioServerParameters(command=sys.executable, args=["-m", "officegym.cli", "mcp", "--episode", created.id],
                                   env=env)

    async def session():
        async with Client(stdio_client(params)) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            posted = await client.call_tool("chat_post_message", {"channel": "general", "text": "hello over stdio"})
            refused = await client.call_tool("chat_post_message", {"channel": "no-such-channel", "text": "x"})
            return names, posted, refused

    try:
        names, posted, refused = anyio.run(session)
        assert {"chat_post_message", "org_search_people", "submit_answer"} <= names
        assert not posted.is_error and refused.is_error and "not found" in refused.content[0].text
        with created.session() as db:
            texts = list(db.scalars(select(Message.text).where(Message.id == posted.structured_content["id"])))
        assert texts == ["hello over stdio"]
    finally:
        store.delete(created.id)


def test_a_task_over_stdio_offers_its_task_and_ends_with_the_client_unless_kept(store, settings, monkeypatch, capsys):
    """Two servers at once: one deleted when its client leaves, one kept for `officegym grade`."""
    env = dict(os.environ, OFFICEGYM_HOME=str(settings.home), OFFICEGYM_EPISODES_DIR=str(settings.episodes_dir))
    inst = store.task_instance(store.world("small", 0), "chat.set_topic", 2)
    before = {e.id for e in store.entries()}

    async def session(keep: bool, seen: dict):
        args = ["-m", "officegym.cli", "mcp", "--task", "chat.set_topic", "--instance", "2", *(["--keep"] if keep else [])]
        async with Client(stdio_client(StdioServerParameters(command=sys.executable, args=args, env=env))) as client:
            prompt = await client.get_prompt("task")
            seen["prompt"] = prompt.messages[0].content.text
            seen["resources"] = sorted(str(r.uri) for r in (await client.list_resources()).resources)
            seen["instruction"] = (await client.read_resource("officegym://task/instruction")).contents[0].text
            seen["live"] = {e.id for e in store.entries()} - before
            if keep:  # solve it, to grade it later
                for step in inst.solution:
                    assert not (await client.call_tool(step.tool, step.resolved_args([]))).is_error

    async def both():
        async with anyio.create_task_group() as group:
            group.start_soon(session, False, gone)
            group.start_soon(session, True, kept)

    gone, kept = {}, {}
    anyio.run(both)
    for seen in (gone, kept):
        assert seen["instruction"] == inst.instruction and inst.instruction in seen["prompt"]
        assert "company time" in seen["prompt"] and seen["resources"] == [
            "officegym://task/instruction", "officegym://task/system-prompt"]
    left = {e.id for e in store.entries()} - before
    [kept_id] = left  # the other one was deleted when its client disconnected
    assert kept_id in kept["live"] and len(gone["live"] | kept["live"]) == 2
    monkeypatch.setenv("OFFICEGYM_EPISODES_DIR", str(settings.episodes_dir))
    assert main(["trajectory", kept_id]) == 0
    steps = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [s["name"] for s in steps] == [step.tool for step in inst.solution]
    assert main(["grade", kept_id, "--delete"]) == 0
    grade = json.loads(capsys.readouterr().out)
    assert grade["success"] is True and grade["deleted"] == kept_id
    assert kept_id not in {e.id for e in store.entries()}
