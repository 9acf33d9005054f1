"""Tool tests drive an episode through the real MCP SDK client. An `Agent` wraps one episode:
calls that must succeed, refusals that must change nothing, and scenes built with the services."""

from __future__ import annotations

from typing import Any, Callable

import anyio
import pytest
from mcp.client import Client
from sqlalchemy import func, select

from officegym.apps.chat.models import Membership
from officegym.apps.org.models import Person
from officegym.journal import JournalEntry
from officegym.worlds import content_hash


class Agent:
    """One episode driven through `mcp.client.Client(server)` in-process."""

    def __init__(self, episode):
        self.episode = episode

    def call(self, name: str, args: dict | None = None):
        """One tool call; the raw CallToolResult."""

        async def run():
            async with Client(self.episode.mcp_server()) as client:
                return await client.call_tool(name, args or {})

        return anyio.run(run)

    def ok(self, name: str, args: dict | None = None) -> dict:
        """The structured output of a call that must succeed."""
        result = self.call(name, args)
        assert not result.is_error, result.content
        return result.structured_content

    def wait_out(self, channel=None) -> list[dict]:
        """Let simulated time pass until a day brings nothing more (colleagues answer after delays of
        their own, in their working hours); every message that arrived, oldest first."""
        arrived: list[dict] = []
        quiet = 0
        while quiet < 3:  # three empty waits of eight hours: a whole day, a night included
            got = self.ok("chat_wait", {"minutes": 480, **({"channel": channel} if channel else {})})["messages"]
            arrived += got
            quiet = 0 if got else quiet + 1
        return arrived

    def write(self, name: str, args: dict, action: str) -> dict:
        """A write that must succeed and be journaled exactly once, as `action` through MCP (colleagues'
        answers to it are theirs, journaled apart)."""
        seq = self.last_seq()
        out = self.ok(name, args)
        with self.episode.session() as s:
            entries = s.scalars(select(JournalEntry).where(JournalEntry.seq > seq, JournalEntry.surface != "colleague")
                                .order_by(JournalEntry.seq))
            assert [(e.surface, e.action) for e in entries] == [("mcp", action)]
        return out

    def fails(self, name: str, args: dict, says: str) -> str:
        """A call that must be an is_error result saying `says` (any case) and change no row at all."""
        before = content_hash(self.episode.engine)
        result = self.call(name, args)
        text = " ".join(getattr(c, "text", "") for c in result.content)
        assert result.is_error, result.structured_content
        assert says.lower() in text.lower(), text
        assert content_hash(self.episode.engine) == before, f"{name} changed the database while failing"
        return text

    def scene(self, build: Callable[..., Any]) -> Any:
        """Build part of a scene with the services, as `build(session, owner, member, other)`."""
        with self.episode.session("setup") as s:
            return build(s, *cast(s))

    def people(self) -> tuple[Person, Person, Person]:
        """The owner and the first two plain members (detached, for their ids and handles)."""
        return self.scene(lambda s, owner, member, other: (owner, member, other))

    def last_seq(self) -> int:
        """The newest journal entry's number."""
        with self.episode.session() as s:
            return s.scalar(select(func.max(JournalEntry.seq))) or 0

    def members_of(self, channel_id: int) -> set[str]:
        """Handles of everyone in a channel, read from the table."""
        with self.episode.session() as s:
            return set(s.scalars(select(Person.handle).join(Membership, Membership.person_id == Person.id)
                                 .where(Membership.channel_id == channel_id)))


def cast(session) -> tuple[Person, Person, Person]:
    """The workspace owner and the two plain members with the lowest ids."""
    owner = session.scalar(select(Person).where(Person.role == "owner").order_by(Person.id))
    member, other = session.scalars(select(Person).where(Person.role == "member").order_by(Person.id).limit(2))
    return owner, member, other


@pytest.fixture
def agent(episode) -> Agent:
    """The owner's fresh episode on the tiny world."""
    return Agent(episode)


@pytest.fixture(scope="session")
def member_handle(store) -> str:
    """The handle of the tiny world's first plain member."""
    probe = store.create(scale="tiny", seed=0)
    with probe.session() as s:
        handle = cast(s)[1].handle
    store.delete(probe.id)
    return handle


@pytest.fixture
def member_agent(store, member_handle) -> Agent:
    """A fresh episode on the tiny world acting as the first plain member (not an admin)."""
    created = store.create(scale="tiny", seed=0, actor=member_handle)
    yield Agent(created)
    store.delete(created.id)


@pytest.fixture
def agent_as(store):
    """A factory of MCP agents acting as a given handle on the small world; episodes deleted after."""
    made = []

    def create(handle: str) -> Agent:
        made.append(store.create(scale="small", seed=0, actor=handle))
        return Agent(made[-1])
    yield create
    for episode in made:
        store.delete(episode.id)
