"""The PostgreSQL backend against the real server on 127.0.0.1:5432: template databases with the
same content hash as the SQLite world, an episode database per episode, diffs equal to SQLite's,
and many live episodes within the server's connection limit."""

from __future__ import annotations

import pytest
from sqlalchemy import text, update

from officegym.apps.chat import services as chat
from officegym.apps.crm import services as crm
from officegym.apps.crm.models import Account
from officegym.episodes import EpisodeStore
from officegym.errors import NotFound
from officegym.postgres import OPEN_POOLS
from officegym.worlds import content_hash


@pytest.fixture
def pg(pg_store):
    """The run's PostgreSQL store (the one the ALSO_ON_POSTGRES modules use)."""
    return pg_store


@pytest.fixture
def lite(sqlite_store):
    """The run's SQLite store."""
    return sqlite_store


@pytest.mark.parametrize("scale", ["tiny", "small"])
def test_world_template_has_the_sqlite_worlds_content_hash(pg, scale):
    episode = pg.create(scale=scale)
    try:
        assert f"og_w_{episode.world.key}" in pg.backend.databases("og_w_")
        assert content_hash(episode.engine) == episode.world.content_hash
        with episode.engine.connect() as conn:
            assert conn.scalar(text("SELECT current_database()")) == f"og_e_{episode.id}"
            assert conn.scalar(text("SELECT count(*) FROM og_change")) == 0
    finally:
        pg.delete(episode.id)


def test_an_episode_is_a_database_created_from_its_start_template_and_dropped_with_it(pg):
    episode = pg.create("crm.close_won_deal", 0, "tiny")
    name = episode.database.name
    assert name == f"og_e_{episode.id}" and name in pg.backend.databases("og_e_")
    with episode.engine.connect() as conn:  # the task's setup is in the start state, not in the change log
        assert conn.scalar(text("SELECT count(*) FROM og_change")) == 0
    assert episode.diff().tables == {}
    pg.delete(episode.id)
    pg.backend.settle()  # databases are dropped in the background
    assert name not in pg.backend.databases("og_e_")


def _same_work(episode) -> None:
    with episode.session() as s:
        actor = episode.actor(s)
        message = chat.post_message(s, actor, "general", "parity check")
        chat.add_reaction(s, actor, message.id, "tada")
        chat.update_channel(s, actor, "general", topic="parity topic")
    with episode.session() as s:
        actor = episode.actor(s)
        chat.remove_reaction(s, actor, message.id, "tada")
        account = crm.list_accounts(s, actor, limit=1).items[0]
        crm.update_account(s, actor, account.id, phone="+1 555 0100")


def test_the_same_work_gives_the_same_diff_on_both_backends(pg, lite):
    on_pg, on_sqlite = pg.create(scale="tiny"), lite.create(scale="tiny")
    try:
        _same_work(on_pg)
        _same_work(on_sqlite)
        pg_diff, sqlite_diff = on_pg.diff(), on_sqlite.diff()
        assert pg_diff.changed_tables == sqlite_diff.changed_tables >= {"chat_message", "chat_channel", "crm_account"}
        for name in sqlite_diff.changed_tables:
            a, b = pg_diff.table(name), sqlite_diff.table(name)
            assert a.added == b.added, name
            assert a.removed == b.removed, name
            assert [(u.key, u.before, u.after) for u in a.updated] == [(u.key, u.before, u.after) for u in b.updated]
        assert content_hash(on_pg.engine) == content_hash(on_sqlite.engine)
    finally:
        pg.delete(on_pg.id)
        lite.delete(on_sqlite.id)


def test_the_change_log_sees_writes_that_bypass_the_services(pg):
    episode = pg.create(scale="tiny")
    try:
        with episode.session() as s:
            first = s.scalar(Account.__table__.select().with_only_columns(Account.id).order_by(Account.id).limit(1))
            s.execute(update(Account).where(Account.id == first).values(name="Renamed behind the services' back"))
        diff = episode.diff()
        assert [(u.key, u.fields) for u in diff.table("crm_account").updated] == [((first,), ["name"])]
    finally:
        pg.delete(episode.id)


def test_another_process_reopens_an_episode_and_a_sqlite_store_does_not_find_it(pg, settings):
    episode = pg.create(scale="tiny")
    try:
        with episode.session() as s:
            chat.post_message(s, episode.actor(s), "general", "seen from elsewhere")
        other = EpisodeStore(pg.settings)  # what `officegym mcp --episode` does in its own process
        reopened = other.open(episode.id)
        assert [r["text"] for r in reopened.diff().table("chat_message").added] == ["seen from elsewhere"]
        reopened.engine.dispose()
        with pytest.raises(NotFound, match="SQLite episodes"):  # a SQLite store looks in its own registry
            EpisodeStore(settings).open(episode.id)
    finally:
        pg.delete(episode.id)


def test_more_live_episodes_than_open_pools_stay_within_the_connection_limit(pg):
    episodes = [pg.create("chat.set_topic", k % 20, "tiny") for k in range(OPEN_POOLS + 16)]
    try:
        for episode in episodes:  # every episode used once, most recent last
            with episode.session() as s:
                assert episode.actor(s).id == episode.actor_id
        with pg.backend.admin.connect() as conn:
            open_to_episodes = conn.scalar(text("SELECT count(*) FROM pg_stat_activity WHERE starts_with(datname, 'og_e_')"))
        assert open_to_episodes <= OPEN_POOLS * 2
        # the least recently used episodes reconnect when used again
        with episodes[0].session() as s:
            assert episodes[0].actor(s).id == episodes[0].actor_id
    finally:
        for episode in episodes:
            pg.delete(episode.id)
    pg.backend.settle()
    assert not any(e.database.name in pg.backend.databases("og_e_") for e in episodes)
