"""The diff API and the check library, on real episodes."""

from __future__ import annotations

from officegym.apps.chat import services as chat
from officegym.graders.checks import Allow, answer_is_number, answer_is_one_of, nothing_else_changed


def test_untouched_episode_has_empty_diff(episode):
    assert episode.diff().tables == {}


def test_diff_reports_added_updated_and_ignores_bookkeeping(episode):
    with episode.session() as s:
        actor = episode.actor(s)
        message = chat.post_message(s, actor, "general", "hello diff")
        chat.mark_read(s, actor, "general")
        general_id = message.channel_id
    with episode.session() as s:
        chat.update_channel(s, episode.actor(s), "general", topic="new topic")
    diff = episode.diff()
    assert [r["text"] for r in diff.table("chat_message").added] == ["hello diff"]
    updates = diff.table("chat_channel").updated
    assert [(u.key, u.fields) for u in updates] == [((general_id,), ["topic"])]
    # read markers, the journal and the clock are bookkeeping
    assert "chat_membership" not in diff.changed_tables
    assert not diff.changed_tables & {"og_journal", "og_meta"}


def test_diff_reports_removed_rows(episode):
    with episode.session() as s:
        actor = episode.actor(s)
        message = chat.post_message(s, actor, "general", "to react")
    with episode.session() as s:
        chat.add_reaction(s, episode.actor(s), message.id, "tada")
    with episode.session() as s:
        chat.remove_reaction(s, episode.actor(s), message.id, "tada")
        chat.leave_channel(s, episode.actor(s), _some_channel(s, episode))
    diff = episode.diff()
    assert len(diff.table("chat_membership").removed) == 1
    # a reaction added and taken back again is no change
    assert diff.table("chat_reaction").removed == [] and diff.table("chat_reaction").added == []
    assert [r["text"] for r in diff.table("chat_message").added] == ["to react"]


def _some_channel(session, episode):
    from officegym.tasks.common import channels_of

    return next(c.name for c in channels_of(session, episode.actor_id) if c.name != "general")


def test_nothing_else_changed_names_the_unexpected_change(episode):
    with episode.session() as s:
        chat.post_message(s, episode.actor(s), "general", "allowed")
        chat.update_channel(s, episode.actor(s), "general", purpose="sneaky")
    diff = episode.diff()
    result = nothing_else_changed(diff, [Allow("chat_message", ("added",))])
    assert not result.passed and "purpose" in result.detail
    allowed = [Allow("chat_message"), Allow("chat_channel", ("updated",), fields=("purpose",))]
    assert nothing_else_changed(diff, allowed).passed
    assert not nothing_else_changed(diff, [Allow("chat_message"),
                                           Allow("chat_channel", ("updated",), fields=("topic",))]).passed


def test_answer_normalisation():
    assert answer_is_number("There were 7 people.", 7).passed
    assert answer_is_number("1,250", 1250).passed
    assert not answer_is_number("7 or 8", 7).passed
    assert not answer_is_number(None, 7).passed
    assert answer_is_one_of("  ada LOVELACE. ", ["Ada Lovelace", "ada.lovelace"], "Ada").passed
    assert answer_is_one_of("@ada.lovelace", ["Ada Lovelace", "ada.lovelace"], "Ada").passed
    assert not answer_is_one_of("Ada", ["Ada Lovelace"], "Ada").passed


def test_sqlite_change_log_gives_the_whole_table_diff(sqlite_store, tmp_path):
    """Grading a SQLite episode reads only the rows its change log names; that diff equals the one
    comparing every row of every table (a copy of the file without its log), the task's setup is
    not in the log, and a change undone within the episode is no change."""
    import shutil
    import sqlite3

    from officegym.graders.diff import diff_sqlite

    episode = sqlite_store.create("tickets.close_duplicates", 0, scale="tiny")
    try:
        start = sqlite3.connect(episode.start_path)
        assert start.execute("SELECT count(*) FROM og_change").fetchone() == (0,)  # setup cleared
        start.close()
        with episode.session() as s:
            actor = episode.actor(s)
            message = chat.post_message(s, actor, "general", "logged")
            chat.add_reaction(s, actor, message.id, "tada")
            chat.update_channel(s, actor, "general", topic="logged topic")
        with episode.session() as s:
            chat.remove_reaction(s, episode.actor(s), message.id, "tada")
            chat.leave_channel(s, episode.actor(s), _some_channel(s, episode))
        logged = episode.diff()
        bare = tmp_path / "bare.sqlite"
        shutil.copyfile(episode.path, bare)
        conn = sqlite3.connect(bare)
        assert conn.execute("SELECT count(*) FROM og_change").fetchone()[0] >= 5
        conn.execute("DROP TABLE og_change")
        conn.commit()
        conn.close()
        whole = diff_sqlite(episode.start_path, bare)
        assert logged.tables == whole.tables and logged.changed_tables == {"chat_message", "chat_channel",
                                                                           "chat_membership"}
    finally:
        sqlite_store.delete(episode.id)
