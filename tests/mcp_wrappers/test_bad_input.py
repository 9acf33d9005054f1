"""Bad input for every chat tool, as a plain member meets it: unknown ids, empty and oversized
text, wrong types, unknown arguments, channels they may not see, other people's messages, admin-only
actions. Each call must be an is_error result that says what was wrong, and change no row at all."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from sqlalchemy import select

from officegym.apps.chat import messages as chat_messages, services as chat
from officegym.apps.org.models import Person
from officegym.errors import Invalid
from officegym.mcp_wrappers.server import catalog


@dataclass
class Scene:
    """What the member (M) meets; the owner (O) and another member (X) built it."""

    vault: int  # private channel of O and X, invisible to M
    vault_msg: int
    outside_msg: int  # in #zz-outside: public, M is not a member
    theirs: int  # O's message in #zz-open (M, O and X are members), pinned
    mine: int  # M's message in #zz-open, with M's :tada:
    gone: int  # M's deleted message in #zz-open
    frozen_msg: int  # O's message in archived #zz-frozen
    dm: int  # DM of M and X
    dm_msg: int  # X's message in it
    others_dm: int  # DM of O and X
    me: str  # M's handle
    other: str  # X's handle
    crowd: list[str]  # nine people besides M


def build(s, o, m, x) -> Scene:
    """The scene, built with the services."""
    vault = chat.create_channel(s, o, "zz-vault", is_private=True, members=[x.id])
    chat.create_channel(s, o, "zz-open", members=[m.id, x.id])
    chat.create_channel(s, o, "zz-outside")
    chat.create_channel(s, m, "zz-mine")
    chat.create_channel(s, o, "zz-frozen")
    theirs, mine, gone = (chat.post_message(s, who, "zz-open", text).id
                          for who, text in [(o, "owner's words"), (m, "member's words"), (m, "oops")])
    chat.pin_message(s, o, theirs)
    chat.add_reaction(s, m, mine, "tada")
    chat.delete_message(s, m, gone)
    frozen_msg = chat.post_message(s, o, "zz-frozen", "old news").id
    chat.archive_channel(s, o, "zz-frozen")
    dm = chat.open_conversation(s, m, [x.id])
    crowd = [p.handle for p in s.scalars(select(Person).where(Person.id != m.id).order_by(Person.id).limit(9))]
    return Scene(vault.id, chat.post_message(s, o, vault.id, "zebracorn plan").id,
                 chat.post_message(s, o, "zz-outside", "hi").id, theirs, mine, gone, frozen_msg, dm.id,
                 chat.post_message(s, x, dm.id, "psst").id, chat.open_conversation(s, o, [x.id]).id,
                 m.handle, x.handle, crowd)


@pytest.fixture
def scene(member_agent) -> Scene:
    """The member's episode with the scene in place."""
    return member_agent.scene(build)


def case(tool: str, why: str, args, says: str):
    """One row of the table: `args` is a dict or a function of the Scene."""
    return pytest.param(tool, args, says, id=f"{tool}-{why}")


LONG = "x" * 4001
CASES = [
    case("chat_list_channels", "query-too-long", {"query": "x" * 81}, "at most 80 characters"),
    case("chat_list_channels", "limit-zero", {"limit": 0}, "greater than or equal to 1"),
    case("chat_list_channels", "limit-too-big", {"limit": 201}, "less than or equal to 200"),
    case("chat_list_channels", "negative-offset", {"offset": -1}, "greater than or equal to 0"),
    case("chat_list_channels", "not-a-bool", {"include_archived": "maybe"}, "valid boolean"),
    case("chat_list_channels", "unknown-argument", {"archived": True}, "has no argument 'archived'"),
    case("chat_get_channel", "unknown-name", {"channel": "#no-such-channel"}, "not found. Channels you can see"),
    case("chat_get_channel", "private-by-name", {"channel": "#zz-vault"}, "not found"),
    case("chat_get_channel", "private-by-id", lambda s: {"channel": s.vault}, "not found"),
    case("chat_get_channel", "huge-id", {"channel": 10**30}, "not found"),
    case("chat_get_channel", "empty", {"channel": " "}, "Name a channel"),
    case("chat_get_channel", "bool", {"channel": True}, "not true/false"),
    case("chat_get_channel", "list", {"channel": ["general"]}, "valid string"),
    case("chat_get_channel", "missing", {}, "channel: field required"),
    case("chat_list_members", "private", {"channel": "zz-vault"}, "not found"),
    case("chat_list_members", "limit-text", {"channel": "general", "limit": "ten"}, "valid integer"),
    case("chat_create_channel", "taken", {"name": "general"}, "already exists"),
    case("chat_create_channel", "taken-by-private", {"name": "zz-vault"}, "already exists"),
    case("chat_create_channel", "spaces", {"name": "Bad Name!"}, "is not valid"),
    case("chat_create_channel", "empty", {"name": ""}, "is not valid"),
    case("chat_create_channel", "digits-only", {"name": "2024"}, "at least one letter"),
    case("chat_create_channel", "dm-prefix", {"name": "dm-1-2"}, "is not valid"),
    case("chat_create_channel", "name-too-long", {"name": "a" * 101}, "at most 100 characters"),
    case("chat_create_channel", "topic-too-long", {"name": "zz-new", "topic": "t" * 251}, "at most 250"),
    case("chat_create_channel", "unknown-member", {"name": "zz-new", "members": ["@nobody.here"]}, "No person matches"),
    case("chat_create_channel", "members-not-list", {"name": "zz-new", "members": 5}, "valid list"),
    case("chat_create_channel", "private-not-bool", {"name": "zz-new", "is_private": "maybe"}, "valid boolean"),
    case("chat_update_channel", "nothing", {"channel": "zz-open"}, "Give a new topic"),
    case("chat_update_channel", "not-member", {"channel": "zz-outside", "topic": "x"}, "not a member"),
    case("chat_update_channel", "rename-not-creator", {"channel": "zz-open", "name": "zz-x"}, "Only the creator"),
    case("chat_update_channel", "rename-taken", {"channel": "zz-mine", "name": "general"}, "already exists"),
    case("chat_update_channel", "dm", lambda s: {"channel": s.dm, "topic": "x"}, "Direct messages"),
    case("chat_update_channel", "archived", {"channel": "zz-frozen", "topic": "x"}, "archived"),
    case("chat_update_channel", "private", {"channel": "zz-vault", "topic": "x"}, "not found"),
    case("chat_update_channel", "topic-too-long", {"channel": "zz-open", "topic": "t" * 251}, "at most 250"),
    case("chat_archive_channel", "not-admin", {"channel": "zz-mine"}, "Only workspace admins or owners"),
    case("chat_archive_channel", "private", {"channel": "zz-vault"}, "not found"),
    case("chat_unarchive_channel", "not-admin", {"channel": "zz-frozen"}, "Only workspace admins or owners"),
    case("chat_join_channel", "private", {"channel": "zz-vault"}, "not found"),
    case("chat_join_channel", "already-member", {"channel": "zz-open"}, "already a member"),
    case("chat_join_channel", "archived", {"channel": "zz-frozen"}, "archived"),
    case("chat_leave_channel", "general", {"channel": "general"}, "cannot leave #general"),
    case("chat_leave_channel", "dm", lambda s: {"channel": s.dm}, "cannot leave a direct message"),
    case("chat_leave_channel", "not-member", {"channel": "zz-outside"}, "not a member"),
    case("chat_invite_to_channel", "not-member", lambda s: {"channel": "zz-outside", "people": [s.other]},
         "not a member"),
    case("chat_invite_to_channel", "already-in", lambda s: {"channel": "zz-open", "people": [s.other]},
         "Already in #zz-open"),
    case("chat_invite_to_channel", "unknown-person", {"channel": "zz-open", "people": ["@nobody.here"]},
         "No person matches"),
    case("chat_invite_to_channel", "nobody", {"channel": "zz-open", "people": []}, "at least 1 item"),
    case("chat_invite_to_channel", "dm", lambda s: {"channel": s.dm, "people": [s.crowd[0]]}, "direct message"),
    case("chat_invite_to_channel", "archived", lambda s: {"channel": "zz-frozen", "people": [s.crowd[1]]}, "archived"),
    case("chat_remove_from_channel", "not-creator", lambda s: {"channel": "zz-open", "person": s.other},
         "Only the creator"),
    case("chat_remove_from_channel", "general", lambda s: {"channel": "general", "person": s.other},
         "Nobody can be removed"),
    case("chat_remove_from_channel", "not-in-it", lambda s: {"channel": "zz-mine", "person": s.other},
         "is not a member"),
    case("chat_open_conversation", "only-me", lambda s: {"people": [f"@{s.me}"]}, "at least one other person"),
    case("chat_open_conversation", "unknown", {"people": ["@nobody.here"]}, "No person matches"),
    case("chat_open_conversation", "too-many", lambda s: {"people": s.crowd}, "at most 8"),
    case("chat_open_conversation", "nobody", {"people": []}, "at least 1 item"),
    case("chat_list_conversations", "limit-zero", {"limit": 0}, "greater than or equal to 1"),
    case("chat_post_message", "empty", {"channel": "zz-open", "text": ""}, "empty"),
    case("chat_post_message", "blank", {"channel": "zz-open", "text": "   \n"}, "empty"),
    case("chat_post_message", "too-long", {"channel": "zz-open", "text": LONG}, "at most 4000 characters"),
    case("chat_post_message", "number-text", {"channel": "zz-open", "text": 5}, "valid string"),
    case("chat_post_message", "private", {"channel": "zz-vault", "text": "hi"}, "not found"),
    case("chat_post_message", "not-member", {"channel": "zz-outside", "text": "hi"}, "not a member"),
    case("chat_post_message", "archived", {"channel": "zz-frozen", "text": "hi"}, "archived"),
    case("chat_post_message", "dm-of-others", lambda s: {"channel": s.others_dm, "text": "hi"}, "not found"),
    case("chat_post_message", "parent-elsewhere",
         lambda s: {"channel": "zz-open", "text": "hi", "thread_parent_id": s.outside_msg}, "another conversation"),
    case("chat_post_message", "parent-unknown", {"channel": "zz-open", "text": "hi", "thread_parent_id": 10**9},
         "not found"),
    case("chat_post_message", "parent-private", lambda s: {"channel": "zz-open", "text": "hi",
                                                           "thread_parent_id": s.vault_msg}, "not found"),
    case("chat_post_message", "parent-deleted", lambda s: {"channel": "zz-open", "text": "hi",
                                                           "thread_parent_id": s.gone}, "was deleted"),
    case("chat_post_message", "parent-zero", {"channel": "zz-open", "text": "hi", "thread_parent_id": 0},
         "greater than or equal to 1"),
    case("chat_post_message", "misspelt-argument", {"channel": "zz-open", "text": "hi", "thread_id": 1},
         "has no argument 'thread_id'"),
    case("chat_edit_message", "someone-elses", lambda s: {"message_id": s.theirs, "text": "mine now"},
         "Only the author"),
    case("chat_edit_message", "unknown", {"message_id": 10**9, "text": "x"}, "not found"),
    case("chat_edit_message", "empty", lambda s: {"message_id": s.mine, "text": ""}, "empty"),
    case("chat_edit_message", "too-long", lambda s: {"message_id": s.mine, "text": LONG}, "at most 4000"),
    case("chat_edit_message", "id-text", {"message_id": "abc", "text": "x"}, "valid integer"),
    case("chat_edit_message", "deleted", lambda s: {"message_id": s.gone, "text": "back"}, "already deleted"),
    case("chat_edit_message", "private", lambda s: {"message_id": s.vault_msg, "text": "x"}, "not found"),
    case("chat_delete_message", "someone-elses", lambda s: {"message_id": s.theirs}, "Only the author"),
    case("chat_delete_message", "someone-elses-dm", lambda s: {"message_id": s.dm_msg}, "Only the author"),
    case("chat_delete_message", "unknown", {"message_id": 10**9}, "not found"),
    case("chat_delete_message", "deleted", lambda s: {"message_id": s.gone}, "already deleted"),
    case("chat_delete_message", "bool", {"message_id": True}, "not true/false"),
    case("chat_get_message", "unknown", {"message_id": 10**9}, "not found"),
    case("chat_get_message", "private", lambda s: {"message_id": s.vault_msg}, "not found"),
    case("chat_get_message", "zero", {"message_id": 0}, "greater than or equal to 1"),
    case("chat_list_messages", "private", {"channel": "zz-vault"}, "not found"),
    case("chat_list_messages", "before-text", {"channel": "general", "before_id": "x"}, "valid integer"),
    case("chat_list_messages", "limit-too-big", {"channel": "general", "limit": 500}, "less than or equal to 200"),
    case("chat_get_thread", "unknown", {"message_id": 10**9}, "not found"),
    case("chat_get_thread", "private", lambda s: {"message_id": s.vault_msg}, "not found"),
    case("chat_get_thread", "negative-offset", lambda s: {"message_id": s.mine, "offset": -1}, "greater than or equal"),
    case("chat_search_messages", "nothing", {}, "Give search words"),
    case("chat_search_messages", "bad-date", {"query": "x", "after": "last week"}, "YYYY-MM-DD"),
    case("chat_search_messages", "unknown-author", {"author": "@nobody.here"}, "No person matches"),
    case("chat_search_messages", "private-channel", {"channel": "zz-vault"}, "not found"),
    case("chat_search_messages", "query-too-long", {"query": "q" * 501}, "at most 500"),
    case("chat_list_mentions", "negative-offset", {"offset": -1}, "greater than or equal to 0"),
    case("chat_add_reaction", "bad-emoji", lambda s: {"message_id": s.mine, "emoji": "not an emoji!"}, "not valid"),
    case("chat_add_reaction", "twice", lambda s: {"message_id": s.mine, "emoji": ":tada:"}, "already reacted"),
    case("chat_add_reaction", "private", lambda s: {"message_id": s.vault_msg, "emoji": "tada"}, "not found"),
    case("chat_add_reaction", "deleted", lambda s: {"message_id": s.gone, "emoji": "tada"}, "was deleted"),
    case("chat_add_reaction", "archived", lambda s: {"message_id": s.frozen_msg, "emoji": "tada"}, "archived"),
    case("chat_add_reaction", "no-emoji", lambda s: {"message_id": s.mine}, "emoji: field required"),
    case("chat_remove_reaction", "not-reacted", lambda s: {"message_id": s.theirs, "emoji": "tada"},
         "no :tada: reaction"),
    case("chat_remove_reaction", "unknown", {"message_id": 10**9, "emoji": "tada"}, "not found"),
    case("chat_pin_message", "not-member", lambda s: {"message_id": s.outside_msg}, "not a member"),
    case("chat_pin_message", "already", lambda s: {"message_id": s.theirs}, "already pinned"),
    case("chat_pin_message", "archived", lambda s: {"message_id": s.frozen_msg}, "archived"),
    case("chat_pin_message", "deleted", lambda s: {"message_id": s.gone}, "was deleted"),
    case("chat_unpin_message", "not-pinned", lambda s: {"message_id": s.mine}, "is not pinned"),
    case("chat_unpin_message", "not-member", lambda s: {"message_id": s.outside_msg}, "not a member"),
    case("chat_list_pins", "private", {"channel": "zz-vault"}, "not found"),
    case("chat_list_pins", "unknown", {"channel": 10**9}, "not found"),
    case("chat_list_unreads", "limit-zero", {"limit": 0}, "greater than or equal to 1"),
    case("chat_list_unreads", "unknown-argument", {"channel": "general"}, "has no argument 'channel'"),
    case("chat_mark_read", "not-member", {"channel": "zz-outside"}, "not a member"),
    case("chat_mark_read", "other-channel", lambda s: {"channel": "zz-open", "message_id": s.outside_msg},
         "is not in #zz-open"),
    case("chat_mark_read", "private", {"channel": "zz-vault"}, "not found"),
    case("chat_wait", "zero", {"minutes": 0}, "greater than or equal to 1"),
    case("chat_wait", "over-a-day", {"minutes": 481}, "less than or equal to 480"),
    case("chat_wait", "private", {"channel": "zz-vault"}, "not found"),
    case("submit_answer", "empty", {"answer": " "}, "The answer is empty"),
    case("submit_answer", "too-long", {"answer": "a" * 2001}, "at most 2000"),
]


@pytest.mark.parametrize("tool, args, says", CASES)
def test_bad_input_is_refused_and_changes_nothing(member_agent, scene, tool, args, says):
    member_agent.fails(tool, args(scene) if callable(args) else args, says)


def test_every_chat_tool_has_bad_input_cases():
    covered = {c.values[0] for c in CASES}
    assert {t.name for t in catalog() if t.name.startswith("chat_")} <= covered


def test_a_private_channel_does_not_leak_through_lists_or_search(member_agent, scene):
    assert "zz-vault" not in [c["name"] for c in member_agent.ok("chat_list_channels", {"limit": 200})["items"]]
    assert member_agent.ok("chat_search_messages", {"query": "zebracorn"})["total"] == 0
    assert "zz-vault" not in [c["name"] for c in member_agent.ok("chat_list_unreads", {"limit": 200})["items"]]


@pytest.mark.parametrize("fault", ["refusal", "crash"])
def test_a_call_that_fails_after_writing_is_rolled_back(member_agent, scene, monkeypatch, fault):
    # Fault injection: every real refusal comes before the first write, so one is forced after it.
    def fail(session, message):
        raise Invalid("refused late") if fault == "refusal" else RuntimeError("mentions crashed")

    monkeypatch.setattr(chat_messages, "_sync_mentions", fail)  # where post_message looks it up
    member_agent.fails("chat_post_message", {"channel": "zz-open", "text": "half-done"},
                       "refused late" if fault == "refusal" else "mentions crashed")
