"""Property-based fuzzing of every MCP tool through the real SDK client, as the workspace owner and
as a plain member: arguments drawn from each tool's JSON schema, from the world's own names and ids
and from hostile text. Whatever arrives, a call either succeeds or is an error result in words
meant for an agent (never an unhandled exception), and a refused call writes nothing at all.

Examples are derandomized, so a run is the same on every machine; a failure prints the arguments
that caused it."""

from __future__ import annotations

import pytest
from anyio.from_thread import start_blocking_portal
from fuzz_helpers import WriteWitness, result_text, tool_arguments, unhandled, world_values
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp.client import Client
from sqlalchemy import select

from officegym.apps.org.models import Person
from officegym.mcp_wrappers.server import catalog

TOOLS = {tool.name: tool.parameters for tool in catalog()}
EXAMPLES = 8  # per tool and actor: 146 tools x 2 actors in about 20 seconds
FUZZ = settings(max_examples=EXAMPLES, derandomize=True, database=None, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture, HealthCheck.filter_too_much])


class Session:
    """One episode with an MCP client kept open across calls, a witness of writes to its file and
    the world's values to draw from."""

    def __init__(self, store, actor: str | None):
        self.store = store
        self.episode = store.create(scale="tiny", seed=0, actor=actor)
        with self.episode.session() as db:
            self.texts, self.ints = world_values(db)
        self.witness = WriteWitness(self.episode.database.path)
        self.strategies = {name: tool_arguments(schema, self.texts, self.ints) for name, schema in TOOLS.items()}
        self.portal_cm = start_blocking_portal()
        self.portal = self.portal_cm.__enter__()
        self.client_cm = self.portal.wrap_async_context_manager(Client(self.episode.mcp_server()))
        self.client = self.client_cm.__enter__()

    def call(self, name: str, args: dict):
        """One tool call; the raw CallToolResult."""
        return self.portal.call(self.client.call_tool, name, args)

    def close(self) -> None:
        """Close the client, the portal and the witness; delete the episode."""
        self.client_cm.__exit__(None, None, None)
        self.portal_cm.__exit__(None, None, None)
        self.witness.close()
        self.store.delete(self.episode.id)


def plain_member(store) -> str:
    """The handle of the tiny world's first plain member."""
    probe = store.create(scale="tiny", seed=0)
    try:
        with probe.session() as db:
            return db.scalar(select(Person.handle).where(Person.role == "member").order_by(Person.id))
    finally:
        store.delete(probe.id)


@pytest.fixture(scope="module", params=["owner", "member"])
def fuzzed(request, store):
    """A fuzzing session as the owner, then as a plain member (state builds up across tools)."""
    session = Session(store, None if request.param == "owner" else plain_member(store))
    yield session
    session.close()


@pytest.mark.parametrize("tool", sorted(TOOLS))
@FUZZ
@given(data=st.data())
def test_a_tool_answers_any_arguments_and_a_refusal_writes_nothing(fuzzed, tool, data):
    args = data.draw(fuzzed.strategies[tool], label="arguments")
    before = fuzzed.witness.version()
    result = fuzzed.call(tool, args)
    if result.is_error:
        text = result_text(result)
        assert text.strip(), f"{tool} refused {args!r} without a word"
        assert not unhandled(text), f"{tool}({args!r}) raised: {text[:500]}"
        assert fuzzed.witness.version() == before, f"{tool} wrote to the database while refusing {args!r}: {text}"
    else:
        assert result.structured_content is not None or result.content, f"{tool} answered nothing to {args!r}"


def test_the_witness_sees_a_write_and_an_unhandled_error_is_told_apart(fuzzed):
    before = fuzzed.witness.version()
    posted = fuzzed.call("chat_post_message", {"channel": "#general", "text": "fuzz witness"})
    assert not posted.is_error, result_text(posted)
    assert fuzzed.witness.version() != before
    refused = fuzzed.call("chat_post_message", {"channel": "#no-such-channel", "text": "x"})
    assert refused.is_error and not unhandled(result_text(refused))
    assert unhandled("Error executing tool chat_post_message: 'NoneType' object has no attribute 'id'")
