"""Chat tools through the real MCP client: every tool's result, the database after it, the journal,
and the permission rules as an agent meets them. Scenes are built with the services themselves."""

from __future__ import annotations

import anyio
import pytest
from mcp.client import Client
from sqlalchemy import func, select

from officegym.apps.chat import services as chat
from officegym.apps.chat.models import Channel, Membership, Mention, Message, Pin, Reaction
from officegym.apps.org.models import Person
from officegym.journal import JournalEntry
from officegym.worlds import content_hash


def call(episode, name: str, args: dict | None = None):
    """One tool call through the SDK client, in-process."""

    async def run():
        async with Client(episode.mcp_server()) as client:
            return await client.call_tool(name, args or {})

    return anyio.run(run)


def ok(episode, name: str, args: dict | None = None) -> dict:
    """The structured content of a call that must succeed."""
    result = call(episode, name, args)
    assert not result.is_error, result.content
    return result.structured_content


def refused(episode, name: str, args: dict, says: str) -> None:
    """A call that must fail with `says` in its message and change nothing."""
    before = content_hash(episode.engine)
    result = call(episode, name, args)
    assert result.is_error and says in result.content[0].text, result.content
    assert content_hash(episode.engine) == before


def setup(episode, fn):
    """Build part of a scene through the services, as `fn(session, owner, member, other)`."""
    with episode.session("setup") as s:
        owner = s.scalar(select(Person).where(Person.role == "owner").order_by(Person.id))
        member, other = s.scalars(select(Person).where(Person.role == "member").order_by(Person.id).limit(2))
        return fn(s, owner, member, other)


def people(episode) -> tuple[Person, Person, Person]:
    """The owner and the first two plain members."""
    return setup(episode, lambda s, o, m, x: (o, m, x))


def journal_since(episode, seq: int) -> list[tuple[str, str]]:
    with episode.session() as s:
        return [(e.surface, e.action) for e in s.scalars(select(JournalEntry).where(JournalEntry.seq > seq)
                                                         .order_by(JournalEntry.seq))]


def last_seq(episode) -> int:
    with episode.session() as s:
        return s.scalar(select(func.max(JournalEntry.seq))) or 0


def members_of(episode, channel_id: int) -> set[str]:
    with episode.session() as s:
        return set(s.scalars(select(Person.handle).join(Membership, Membership.person_id == Person.id)
                             .where(Membership.channel_id == channel_id)))


@pytest.fixture
def member(store, episode):
    """An episode on the same world acting as the first plain member."""
    created = store.create(scale="tiny", seed=0, actor=people(episode)[1].handle)
    yield created
    store.delete(created.id)


def write(episode, name: str, args: dict, action: str) -> dict:
    """A write that must succeed and be journaled once, as an MCP action."""
    seq = last_seq(episode)
    out = ok(episode, name, args)
    assert journal_since(episode, seq) == [("mcp", action)]
    return out


# ---------------------------------------------------------------- channels

def test_list_channels_shows_public_and_own_private_channels(episode):
    setup(episode, lambda s, o, m, x: (chat.create_channel(s, m, "zz-hidden", is_private=True),
                                       chat.create_channel(s, o, "zz-mine", is_private=True)))
    got = ok(episode, "chat_list_channels", {"limit": 200})
    with episode.session() as s:
        owner = episode.actor(s)
        mine = set(s.scalars(select(Membership.channel_id).where(Membership.person_id == owner.id)))
        expected = [c for c in s.scalars(select(Channel).where(Channel.is_archived.is_(False)).order_by(Channel.name))
                    if c.kind == "public" or (c.kind == "private" and c.id in mine)]
        counts = {c.id: len(c.memberships) for c in expected}
    assert [c["name"] for c in got["items"]] == [c.name for c in expected] and got["total"] == len(expected)
    assert "zz-mine" in [c["name"] for c in got["items"]] and "zz-hidden" not in [c["name"] for c in got["items"]]
    assert all(c["is_member"] == (c["id"] in mine) and c["member_count"] == counts[c["id"]] for c in got["items"])


def test_list_channels_query_member_only_and_archived(episode):
    setup(episode, lambda s, o, m, x: (chat.create_channel(s, m, "zz-open"),
                                       chat.archive_channel(s, o, chat.create_channel(s, o, "zz-old").id)))
    assert [c["name"] for c in ok(episode, "chat_list_channels", {"query": "#zz-"})["items"]] == ["zz-open"]
    both = ok(episode, "chat_list_channels", {"query": "zz-", "include_archived": True})["items"]
    assert [(c["name"], c["is_archived"]) for c in both] == [("zz-old", True), ("zz-open", False)]
    mine = ok(episode, "chat_list_channels", {"member_only": True, "limit": 200})["items"]
    assert mine and all(c["is_member"] for c in mine) and "zz-open" not in [c["name"] for c in mine]


def test_get_channel_by_name_and_id(episode):
    made = setup(episode, lambda s, o, m, x: chat.create_channel(s, o, "zz-plans", topic="Q3", purpose="Plans",
                                                                 members=[m.handle]))
    by_name = ok(episode, "chat_get_channel", {"channel": "#zz-plans"})
    assert ok(episode, "chat_get_channel", {"channel": made.id}) == by_name
    assert by_name | {"created_at": None} == {
        "id": made.id, "name": "zz-plans", "display_name": "#zz-plans", "kind": "public", "topic": "Q3",
        "purpose": "Plans", "is_archived": False, "is_member": True, "member_count": 2, "members": None,
        "unread_count": 0, "created_at": None}


def test_list_members(episode):
    owner, member, _ = people(episode)
    made = setup(episode, lambda s, o, m, x: chat.create_channel(s, o, "zz-pair", members=[m.id]))
    got = ok(episode, "chat_list_members", {"channel": "zz-pair"})
    assert {p["handle"] for p in got["items"]} == {owner.handle, member.handle} == members_of(episode, made.id)
    assert got["total"] == 2 and got["next_offset"] is None


def test_create_channel(episode):
    owner, member, _ = people(episode)
    got = write(episode, "chat_create_channel", {"name": "#Launch-Q3", "is_private": True, "topic": "Launch",
                                                 "members": [f"@{member.handle}"]}, "chat.create_channel")
    assert (got["name"], got["kind"], got["member_count"], got["is_member"]) == ("launch-q3", "private", 2, True)
    with episode.session() as s:
        row = s.get(Channel, got["id"])
        assert (row.name, row.kind, row.topic, row.created_by_id) == ("launch-q3", "private", "Launch", owner.id)
    assert members_of(episode, got["id"]) == {owner.handle, member.handle}


def test_update_channel_topic_and_name(episode):
    made = setup(episode, lambda s, o, m, x: chat.create_channel(s, o, "zz-draft"))
    got = write(episode, "chat_update_channel", {"channel": "#zz-draft", "topic": "Final", "name": "zz-final"},
                "chat.update_channel")
    assert (got["name"], got["topic"]) == ("zz-final", "Final")
    with episode.session() as s:
        assert (s.get(Channel, made.id).name, s.get(Channel, made.id).topic) == ("zz-final", "Final")


def test_archive_and_unarchive_channel(episode):
    made = setup(episode, lambda s, o, m, x: chat.create_channel(s, o, "zz-done"))
    assert write(episode, "chat_archive_channel", {"channel": made.id}, "chat.archive_channel")["is_archived"]
    with episode.session() as s:
        assert s.get(Channel, made.id).is_archived
    assert not write(episode, "chat_unarchive_channel", {"channel": made.id}, "chat.unarchive_channel")["is_archived"]
    with episode.session() as s:
        assert not s.get(Channel, made.id).is_archived


def test_join_and_leave_channel(episode):
    owner, _, _ = people(episode)
    made = setup(episode, lambda s, o, m, x: chat.create_channel(s, m, "zz-club"))
    got = write(episode, "chat_join_channel", {"channel": "zz-club"}, "chat.join_channel")
    assert got["is_member"] and got["member_count"] == 2 and owner.handle in members_of(episode, made.id)
    got = write(episode, "chat_leave_channel", {"channel": "zz-club"}, "chat.leave_channel")
    assert not got["is_member"] and got["unread_count"] is None and owner.handle not in members_of(episode, made.id)


def test_invite_to_and_remove_from_channel(episode):
    owner, member, other = people(episode)
    made = setup(episode, lambda s, o, m, x: chat.create_channel(s, o, "zz-team"))
    got = write(episode, "chat_invite_to_channel", {"channel": "#zz-team", "people": [member.email, other.id]},
                "chat.invite_to_channel")
    assert got["member_count"] == 3 and members_of(episode, made.id) == {owner.handle, member.handle, other.handle}
    got = write(episode, "chat_remove_from_channel", {"channel": "#zz-team", "person": f"@{other.handle}"},
                "chat.remove_from_channel")
    assert got["member_count"] == 2 and members_of(episode, made.id) == {owner.handle, member.handle}


# ---------------------------------------------------------------- direct messages

def test_open_conversation_once_and_list_conversations(episode):
    owner, member, other = people(episode)
    dm = write(episode, "chat_open_conversation", {"people": [f"@{member.handle}"]}, "chat.open_conversation")
    assert (dm["kind"], dm["display_name"], set(dm["members"])) == ("dm", member.name, {owner.handle, member.handle})
    with episode.session() as s:
        channels = s.scalar(select(func.count()).select_from(Channel))
    assert ok(episode, "chat_open_conversation", {"people": [member.handle]})["id"] == dm["id"]
    group = ok(episode, "chat_open_conversation", {"people": [member.handle, other.handle]})
    assert group["kind"] == "group_dm" and members_of(episode, group["id"]) == {owner.handle, member.handle,
                                                                                other.handle}
    with episode.session() as s:
        assert s.scalar(select(func.count()).select_from(Channel)) == channels + 1
    ok(episode, "chat_post_message", {"channel": dm["id"], "text": "hello"})
    listed = ok(episode, "chat_list_conversations")["items"]
    assert listed[0]["id"] == dm["id"] and group["id"] in [c["id"] for c in listed]


# ---------------------------------------------------------------- messages

def test_post_message_with_mention_and_thread_reply(episode):
    owner, member, _ = people(episode)
    made = setup(episode, lambda s, o, m, x: chat.create_channel(s, o, "zz-talk", members=[m.id]))
    posted = write(episode, "chat_post_message", {"channel": "#zz-talk", "text": f" Hi @{member.handle} "},
                   "chat.post_message")
    assert (posted["text"], posted["author"], posted["mentions"]) == (f"Hi @{member.handle}", owner.handle,
                                                                      [member.handle])
    reply = ok(episode, "chat_post_message", {"channel": made.id, "text": "in thread",
                                              "thread_parent_id": posted["id"]})
    assert reply["thread_parent_id"] == posted["id"]
    with episode.session() as s:
        row = s.get(Message, posted["id"])
        assert (row.channel_id, row.author_id, row.text) == (made.id, owner.id, f"Hi @{member.handle}")
        assert s.scalar(select(Mention.person_id).where(Mention.message_id == row.id)) == member.id
        assert s.get(Message, reply["id"]).thread_parent_id == posted["id"]
    assert ok(episode, "chat_get_message", {"message_id": posted["id"]})["reply_count"] == 1


def test_edit_and_delete_message(episode):
    _, member, other = people(episode)
    message = setup(episode, lambda s, o, m, x: chat.post_message(
        s, o, chat.create_channel(s, o, "zz-edit").id, f"ping @{m.handle}"))
    got = write(episode, "chat_edit_message", {"message_id": message.id, "text": f"ping @{other.handle}"},
                "chat.edit_message")
    assert got["edited"] and got["mentions"] == [other.handle]
    with episode.session() as s:
        assert s.get(Message, message.id).text == f"ping @{other.handle}" and s.get(Message, message.id).edited_at
        assert list(s.scalars(select(Mention.person_id).where(Mention.message_id == message.id))) == [other.id]
    ok(episode, "chat_add_reaction", {"message_id": message.id, "emoji": "tada"})
    got = write(episode, "chat_delete_message", {"message_id": message.id}, "chat.delete_message")
    assert got["deleted"] and got["text"] == "" and got["reactions"] == []
    with episode.session() as s:
        row = s.get(Message, message.id)
        assert row.deleted_at is not None and row.text == ""
        assert s.scalar(select(func.count()).where(Reaction.message_id == message.id)) == 0


def test_get_message(episode):
    owner, _, _ = people(episode)
    message = setup(episode, lambda s, o, m, x: chat.post_message(s, o, chat.create_channel(s, o, "zz-get").id, "x"))
    got = ok(episode, "chat_get_message", {"message_id": message.id})
    assert (got["id"], got["channel_name"], got["author_name"], got["pinned"]) == (message.id, "zz-get",
                                                                                   owner.name, False)
    assert got["created_at"] == message.created_at.isoformat()


def test_list_messages_pages_back_with_before_id(episode):
    _, ids = setup(episode, lambda s, o, m, x: (
        c := chat.create_channel(s, o, "zz-log"), [chat.post_message(s, o, c.id, f"m{i}").id for i in range(3)]))
    first = ok(episode, "chat_list_messages", {"channel": "#zz-log", "limit": 2})
    assert [m["id"] for m in first["items"]] == ids[:0:-1] and first["next_before_id"] == ids[1]
    second = ok(episode, "chat_list_messages", {"channel": "#zz-log", "limit": 2,
                                                "before_id": first["next_before_id"]})
    assert [m["text"] for m in second["items"]] == ["m0"] and second["next_before_id"] is None


def test_get_thread(episode):
    parent, replies = setup(episode, lambda s, o, m, x: (
        p := chat.post_message(s, o, chat.create_channel(s, o, "zz-thread").id, "q"),
        [chat.post_message(s, o, "zz-thread", f"a{i}", thread_parent_id=p.id).id for i in range(2)]))
    got = ok(episode, "chat_get_thread", {"message_id": replies[1]})
    assert got["parent"]["id"] == parent.id and got["parent"]["reply_count"] == 2
    assert [r["id"] for r in got["replies"]] == replies and got["total"] == 2


def test_search_messages_by_words_channel_author_and_day(episode):
    owner, _, _ = people(episode)
    message = setup(episode, lambda s, o, m, x: chat.post_message(
        s, o, chat.create_channel(s, o, "zz-find").id, "The Quokka budget is final"))
    day = message.created_at.date().isoformat()
    for args in ({"query": "quokka BUDGET"}, {"channel": "#zz-find"}, {"query": "quokka", "author": owner.email},
                 {"query": "quokka", "after": day}):
        assert [m["id"] for m in ok(episode, "chat_search_messages", args)["items"]][:1] == [message.id], args
    assert ok(episode, "chat_search_messages", {"query": "quokka", "before": day})["total"] == 0


def test_list_mentions(member):
    message = setup(member, lambda s, o, m, x: chat.post_message(
        s, o, chat.create_channel(s, o, "zz-ask", members=[m.id]).id, f"@{m.handle} can you check?"))
    got = ok(member, "chat_list_mentions")
    assert got["items"][0]["id"] == message.id and got["total"] >= 1


# ---------------------------------------------------------------- reactions, pins, unread state

def test_add_and_remove_reaction(episode):
    owner, _, _ = people(episode)
    message = setup(episode, lambda s, o, m, x: chat.post_message(s, o, chat.create_channel(s, o, "zz-re").id, "x"))
    got = write(episode, "chat_add_reaction", {"message_id": message.id, "emoji": ":Thumbsup:"}, "chat.add_reaction")
    assert got["reactions"] == [{"emoji": "thumbsup", "count": 1, "people": [owner.handle]}]
    with episode.session() as s:
        assert list(s.scalars(select(Reaction.emoji).where(Reaction.message_id == message.id))) == ["thumbsup"]
    got = write(episode, "chat_remove_reaction", {"message_id": message.id, "emoji": "thumbsup"},
                "chat.remove_reaction")
    assert got["reactions"] == []
    with episode.session() as s:
        assert s.scalar(select(func.count()).where(Reaction.message_id == message.id)) == 0


def test_pin_list_and_unpin(episode):
    message = setup(episode, lambda s, o, m, x: chat.post_message(s, o, chat.create_channel(s, o, "zz-pin").id, "x"))
    assert write(episode, "chat_pin_message", {"message_id": message.id}, "chat.pin_message")["pinned"]
    with episode.session() as s:
        assert s.scalar(select(Pin.message_id).where(Pin.channel_id == message.channel_id)) == message.id
    pins = ok(episode, "chat_list_pins", {"channel": "#zz-pin"})
    assert [m["id"] for m in pins["items"]] == [message.id] and pins["items"][0]["pinned"]
    assert not write(episode, "chat_unpin_message", {"message_id": message.id}, "chat.unpin_message")["pinned"]
    assert ok(episode, "chat_list_pins", {"channel": "#zz-pin"})["total"] == 0


def test_list_unreads_and_mark_read(episode):
    owner, _, _ = people(episode)
    made, newest = setup(episode, lambda s, o, m, x: (
        c := chat.create_channel(s, o, "zz-news", members=[m.id]),
        [chat.post_message(s, m, c.id, f"news {i}").id for i in range(3)][-1]))
    unread = ok(episode, "chat_list_unreads")
    assert {"id": made.id, "unread_count": 3} in [{"id": c["id"], "unread_count": c["unread_count"]}
                                                   for c in unread["items"]]
    got = write(episode, "chat_mark_read", {"channel": "#zz-news"}, "chat.mark_read")
    assert got["unread_count"] == 0
    with episode.session() as s:
        assert s.scalar(select(Membership.last_read_message_id).where(
            Membership.channel_id == made.id, Membership.person_id == owner.id)) == newest
    assert made.id not in [c["id"] for c in ok(episode, "chat_list_unreads")["items"]]


# ---------------------------------------------------------------- permissions

def test_private_channel_is_invisible_to_non_members(member):
    hidden = setup(member, lambda s, o, m, x: chat.post_message(
        s, o, chat.create_channel(s, o, "zz-vault", is_private=True).id, f"zebracorn plan @{m.handle}"))
    for name, args in [("chat_get_channel", {"channel": "#zz-vault"}), ("chat_get_channel", {"channel": hidden.channel_id}),
                       ("chat_list_messages", {"channel": "zz-vault"}), ("chat_get_message", {"message_id": hidden.id}),
                       ("chat_join_channel", {"channel": "zz-vault"})]:
        refused(member, name, args, "not found")
    assert "zz-vault" not in [c["name"] for c in ok(member, "chat_list_channels", {"limit": 200})["items"]]
    assert ok(member, "chat_search_messages", {"query": "zebracorn"})["total"] == 0
    assert hidden.id not in [m["id"] for m in ok(member, "chat_list_mentions", {"limit": 200})["items"]]


def test_only_the_author_edits_or_deletes(member):
    message = setup(member, lambda s, o, m, x: chat.post_message(
        s, o, chat.create_channel(s, o, "zz-own", members=[m.id]).id, "owner's words"))
    refused(member, "chat_edit_message", {"message_id": message.id, "text": "mine now"}, "Only the author")
    refused(member, "chat_delete_message", {"message_id": message.id}, "Only the author")


def test_only_admins_archive(member):
    setup(member, lambda s, o, m, x: chat.create_channel(s, m, "zz-members"))
    refused(member, "chat_archive_channel", {"channel": "zz-members"}, "Only workspace admins or owners")


def test_no_posting_in_an_archived_channel(episode):
    setup(episode, lambda s, o, m, x: chat.archive_channel(s, o, chat.create_channel(s, o, "zz-frozen").id))
    refused(episode, "chat_post_message", {"channel": "zz-frozen", "text": "hello?"}, "archived")


def test_non_members_cannot_post(episode):
    setup(episode, lambda s, o, m, x: chat.create_channel(s, m, "zz-theirs"))
    refused(episode, "chat_post_message", {"channel": "zz-theirs", "text": "hello"}, "not a member")
