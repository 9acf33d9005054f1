"""`officegym mcp --episode ID` serves an existing episode's tools over stdio to the SDK's client."""

from __future__ import annotations

import os
import sys

import anyio
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from sqlalchemy import select

from officegym.apps.chat.models import Message


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
