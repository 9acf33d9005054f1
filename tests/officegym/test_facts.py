"""The acting person and the company clock are read once per episode connection and read again as
soon as anything wrote: another connection's commit (another process), this connection's own
commit, or a write that rolled back."""

from __future__ import annotations

import pytest
from sqlalchemy import event, text

from officegym import clock
from officegym.apps.org.models import Person
from officegym.db import make_sessionmaker, sqlite_engine


@pytest.fixture
def sqlite_episode(sqlite_store):
    """A fresh free episode on SQLite (the backend that keeps facts)."""
    created = sqlite_store.create(scale="tiny", seed=0)
    yield created
    sqlite_store.delete(created.id)


def _read(episode) -> tuple[str, object]:
    with episode.session("mcp") as session:
        return episode.actor(session).title, clock.now(session)


def test_a_commit_by_another_connection_is_seen(sqlite_episode):
    title, before = _read(sqlite_episode)
    assert _read(sqlite_episode) == (title, before)  # kept: the same answer
    other = sqlite_engine(str(sqlite_episode.path))  # as another process would open it
    try:
        with make_sessionmaker(other).begin() as session:
            session.get(Person, sqlite_episode.actor_id).title = "Chief Kept Facts Officer"
            clock.advance(session)
    finally:
        other.dispose()
    assert _read(sqlite_episode) == ("Chief Kept Facts Officer", before + clock.TICK)


def test_this_connections_own_writes_are_seen(sqlite_episode):
    _, before = _read(sqlite_episode)
    with sqlite_episode.session("mcp") as session:
        sqlite_episode.actor(session).title = "Renamed"
        clock.advance(session)
        assert clock.now(session) == before + clock.TICK  # within the writing session too
    assert _read(sqlite_episode) == ("Renamed", before + clock.TICK)


def test_a_write_rolled_back_leaves_the_facts_as_stored(sqlite_episode):
    title, before = _read(sqlite_episode)
    with pytest.raises(RuntimeError):
        with sqlite_episode.session("mcp") as session:
            sqlite_episode.actor(session).title = "Never"
            clock.advance(session)
            session.flush()
            assert (sqlite_episode.actor(session).title, clock.now(session)) == ("Never", before + clock.TICK)
            raise RuntimeError("the call failed")
    assert _read(sqlite_episode) == (title, before)


def test_a_kept_actor_is_a_loaded_object_of_the_session(sqlite_episode):
    _read(sqlite_episode)
    with sqlite_episode.session("mcp") as session:
        statements = []

        def count(*_args):
            statements.append(1)

        session.connection()  # the transaction's start, outside what is counted
        event.listen(session.bind, "before_cursor_execute", count)
        try:
            person = sqlite_episode.actor(session)
        finally:
            event.remove(session.bind, "before_cursor_execute", count)
        assert statements == []  # no statement: the row was kept
        assert person in session
        assert session.execute(text("SELECT handle FROM org_person WHERE id = :i"), {"i": person.id}).scalar() == \
            person.handle
