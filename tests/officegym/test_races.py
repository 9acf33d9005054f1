"""Two sessions racing to make the same record, on SQLite and on PostgreSQL: the loser, whose checks
passed before the winner committed, gets a Conflict in words through its MCP tool (never SQL text)
and its transaction leaves nothing behind; so does a write whose record was removed meanwhile; a
connection cut in the middle of a call is "try again". Writes racing on the company clock lose no
tick and never turn it back."""

from __future__ import annotations

import threading

import anyio
import pytest
from mcp.client import Client
from sqlalchemy import event, func, select, text

from officegym import clock
from officegym.apps.chat import services as chat
from officegym.apps.chat.models import Channel, Message, Reaction
from officegym.apps.org.models import Person
from officegym.errors import Conflict
from officegym.failures import CUT, GONE, RACED

WRITES = ("INSERT", "UPDATE", "DELETE")


def call(episode, name: str, args: dict):
    """One tool call through the SDK's client, in-process."""

    async def run():
        async with Client(episode.mcp_server()) as client:
            return await client.call_tool(name, args)

    return anyio.run(run)


def paused(episode, work, meanwhile) -> dict:
    """Run `work(result)` in a thread of its own; when a thread other than this one is about to make
    its first write, run `meanwhile(connection)` with the connection that write uses, then let it go
    on. The dict `work` filled."""
    here, reached, go, result = threading.current_thread(), threading.Event(), threading.Event(), {}

    def pause(conn, cursor, statement, parameters, context, executemany):  # the SDK runs a tool in a thread of its own
        if threading.current_thread() is not here and statement.lstrip().upper().startswith(WRITES) and not reached.is_set():
            result["connection"] = conn
            reached.set()
            go.wait(30)

    event.listen(episode.engine, "before_cursor_execute", pause)
    try:
        worker = threading.Thread(target=work, args=(result,))
        worker.start()
        assert reached.wait(30), "the work made no write"
        try:
            meanwhile(result["connection"])
        finally:
            go.set()
            worker.join(30)
    finally:
        event.remove(episode.engine, "before_cursor_execute", pause)
    return result


def paused_call(episode, name: str, args: dict, meanwhile) -> str:
    """Call tool `name`, pausing it as `paused` does when it is about to make its first write (its
    checks done). The text of its result, which must be an error."""
    answer = paused(episode, lambda result: result.update(answer=call(episode, name, args)), meanwhile)["answer"]
    said = " ".join(getattr(c, "text", "") for c in answer.content)
    assert answer.is_error, said
    assert "SQL" not in said and "Integrity" not in said and "sqlite3" not in said and "psycopg" not in said
    return said


def winner(episode, change) -> None:
    """`change(session, owner)` committed in a session of its own."""
    with episode.session("mcp") as session:
        change(session, episode.actor(session))


def count(episode, query) -> int:
    with episode.session() as session:
        return session.scalar(query)


def test_the_loser_of_a_race_to_create_a_channel_gets_a_conflict(episode):
    said = paused_call(episode, "chat_create_channel", {"name": "q3-launch"},
                       lambda _: winner(episode, lambda s, me: chat.create_channel(s, me, "q3-launch")))
    assert said == RACED
    assert count(episode, select(func.count()).select_from(Channel).where(Channel.name == "q3-launch")) == 1


def test_the_loser_of_a_race_to_open_a_conversation_gets_a_conflict(episode):
    with episode.session() as session:
        other = session.scalar(select(Person.handle).where(Person.id != episode.actor_id).order_by(Person.id.desc()))
    said = paused_call(episode, "chat_open_conversation", {"people": [other]},
                       lambda _: winner(episode, lambda s, me: chat.open_conversation(s, me, [other])))
    assert said == RACED
    assert call(episode, "chat_open_conversation", {"people": [other]}).is_error is False  # found again


def test_the_loser_of_a_race_to_react_gets_a_conflict(episode):
    with episode.session() as session:
        message_id = session.scalar(select(Message.id).join(Channel).where(Channel.name == "general")
                                    .order_by(Message.id.desc()))
    said = paused_call(episode, "chat_add_reaction", {"message_id": message_id, "emoji": "tada"},
                       lambda _: winner(episode, lambda s, me: chat.add_reaction(s, me, message_id, "tada")))
    assert said == RACED
    assert count(episode, select(func.count()).select_from(Reaction).where(Reaction.message_id == message_id,
                                                                           Reaction.emoji == "tada")) == 1


def test_writers_racing_on_the_clock_lose_no_tick_and_never_turn_it_back(episode):
    with episode.session() as session:
        start = clock.now(session)

    def advance_by(ticks: int):
        def change(result):
            with episode.session("mcp") as session:
                result["time"] = clock.advance_to(session, clock.now(session) + ticks * clock.TICK)
        return change

    def tick(result):
        with episode.session("mcp") as session:
            result["time"] = clock.advance(session)

    # each write is paused after its reads while another write of the same episode commits
    ticked = paused(episode, tick, lambda _: winner(episode, lambda s, me: clock.advance(s)))
    assert ticked["time"] == start + 2 * clock.TICK
    waited = paused(episode, advance_by(1), lambda _: winner(episode, lambda s, me: clock.advance_to(
        s, start + 12 * clock.TICK)))
    assert waited["time"] == start + 12 * clock.TICK
    with episode.session() as session:
        assert clock.now(session) == start + 12 * clock.TICK


def test_a_write_that_refers_to_a_record_removed_meanwhile_gets_a_conflict(episode):
    with pytest.raises(Conflict) as refused:
        with episode.session("mcp") as session:
            session.add(Reaction(message_id=2**31 - 1, person_id=episode.actor_id, emoji="tada"))
            session.flush()  # the database refuses the reference; the session says it in words
    assert refused.value.message == GONE


def test_a_connection_cut_in_the_middle_of_a_call_is_try_again(pg_store):
    episode = pg_store.create(scale="tiny")
    try:
        def cut(conn):
            pid = conn.connection.dbapi_connection.info.backend_pid
            with pg_store.backend.admin.connect() as admin:
                assert admin.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid}).scalar()

        said = paused_call(episode, "chat_create_channel", {"name": "cut-short"}, cut)
        assert said == CUT
        assert count(episode, select(func.count()).select_from(Channel).where(Channel.name == "cut-short")) == 0
    finally:
        pg_store.delete(episode.id)

