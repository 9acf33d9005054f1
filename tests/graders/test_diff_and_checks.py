"""The diff API and the check library, on real episodes."""

from __future__ import annotations

from officegym.apps.chat import services as chat
from officegym.graders.checks import Allow, nothing_else_changed
from officegym.tasks.common import everyone


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


def test_allowances_count_the_rows_they_let_through(episode):
    with episode.session() as s:
        for text in ("one", "two", "three"):
            chat.post_message(s, episode.actor(s), "general", text)
    diff = episode.diff()
    assert nothing_else_changed(diff, [Allow("chat_message", limit=3)]).passed
    result = nothing_else_changed(diff, [Allow("chat_message")])
    assert not result.passed and result.guard and "beyond the 1 allowed" in result.detail
    assert result.detail.count("beyond") == 2
    only_first = nothing_else_changed(diff, [Allow("chat_message", where=lambda r: r["text"] == "one", limit=5)])
    assert not only_first.passed and "two" in only_first.detail and "three" in only_first.detail


def test_an_allowance_of_updates_must_name_its_fields():
    import pytest

    with pytest.raises(ValueError, match="fields"):
        Allow("chat_channel", ("updated",))
    with pytest.raises(ValueError, match="kinds"):
        Allow("chat_channel", ("changed",))


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


def test_opening_a_conversation_without_writing_in_it_changes_nothing(episode):
    with episode.session() as s:
        actor = episode.actor(s)
        other = next(p for p in everyone(s) if p.id != actor.id)
        chat.open_conversation(s, actor, [other.id])
    diff = episode.diff()
    assert diff.table("chat_channel").added  # the conversation is there
    assert nothing_else_changed(diff, []).passed  # but nobody wrote in it
    with episode.session() as s:
        chat.post_message(s, episode.actor(s), chat.conversation_name([episode.actor(s), other]), "hi")
    assert not nothing_else_changed(episode.diff(), [Allow("chat_message")]).passed  # now it is a change
