"""Chat message tools through the real MCP client: posting, threads, edits, search, mentions,
reactions, pins and unread state; each result, and the tables after it."""

from __future__ import annotations

from sqlalchemy import func, select

from officegym.apps.chat import services as chat
from officegym.apps.chat.models import Membership, Mention, Message, Pin, Reaction


def in_new_channel(agent, name: str, *texts: str) -> list[Message]:
    """The owner creates channel `name` (the first member joins it too) and posts `texts` there."""
    return agent.scene(lambda s, o, m, x: (c := chat.create_channel(s, o, name, members=[m.id]),
                                           [chat.post_message(s, o, c.id, t) for t in texts])[1])


def test_post_message_with_mention_and_thread_reply(agent):
    owner, member, _ = agent.people()
    made = agent.scene(lambda s, o, m, x: chat.create_channel(s, o, "zz-talk", members=[m.id]))
    posted = agent.write("chat_post_message", {"channel": "#zz-talk", "text": f" Hi @{member.handle}, any news? "},
                         "chat.post_message")
    assert (posted["text"], posted["author"], posted["mentions"], posted["channel_id"]) == (
        f"Hi @{member.handle}, any news?", owner.handle, [member.handle], made.id)
    assert [m["author"] for m in agent.wait_out()] == [member.handle]  # the member answers after a delay
    reply = agent.write("chat_post_message", {"channel": made.id, "text": "in thread",
                                              "thread_parent_id": posted["id"]}, "chat.post_message")
    assert reply["thread_parent_id"] == posted["id"]
    with agent.episode.session() as s:
        row = s.get(Message, posted["id"])
        assert (row.channel_id, row.author_id, row.text) == (made.id, owner.id, f"Hi @{member.handle}, any news?")
        assert list(s.scalars(select(Mention.person_id).where(Mention.message_id == row.id))) == [member.id]
        assert s.get(Message, reply["id"]).thread_parent_id == posted["id"]
    # The member mentioned answered the question in the thread (a colleague), before the owner's reply.
    thread = agent.ok("chat_get_thread", {"message_id": posted["id"]})["replies"]
    assert [m["author"] for m in thread] == [member.handle, owner.handle]
    assert agent.ok("chat_get_message", {"message_id": posted["id"]})["reply_count"] == 2


def test_reply_to_a_reply_joins_the_same_thread(agent):
    parent, reply = agent.scene(lambda s, o, m, x: (
        p := chat.post_message(s, o, chat.create_channel(s, o, "zz-nest").id, "question"),
        chat.post_message(s, o, "zz-nest", "answer", thread_parent_id=p.id)))
    got = agent.ok("chat_post_message", {"channel": "zz-nest", "text": "more", "thread_parent_id": reply.id})
    assert got["thread_parent_id"] == parent.id
    with agent.episode.session() as s:
        assert s.get(Message, got["id"]).thread_parent_id == parent.id


def test_edit_and_delete_message(agent):
    _, member, other = agent.people()
    message = agent.scene(lambda s, o, m, x: chat.post_message(
        s, o, chat.create_channel(s, o, "zz-edit").id, f"ping @{m.handle}"))
    got = agent.write("chat_edit_message", {"message_id": message.id, "text": f"ping @{other.handle}"},
                      "chat.edit_message")
    assert got["edited"] and got["mentions"] == [other.handle] and got["text"] == f"ping @{other.handle}"
    with agent.episode.session() as s:
        row = s.get(Message, message.id)
        assert row.text == f"ping @{other.handle}" and row.edited_at is not None
        assert list(s.scalars(select(Mention.person_id).where(Mention.message_id == message.id))) == [other.id]
    agent.ok("chat_add_reaction", {"message_id": message.id, "emoji": "tada"})
    agent.ok("chat_pin_message", {"message_id": message.id})
    got = agent.write("chat_delete_message", {"message_id": message.id}, "chat.delete_message")
    assert got["deleted"] and got["text"] == "" and got["reactions"] == [] and not got["pinned"]
    with agent.episode.session() as s:
        row = s.get(Message, message.id)
        assert row.deleted_at is not None and row.text == ""
        for model in (Reaction, Mention, Pin):
            assert s.scalar(select(func.count()).where(model.message_id == message.id)) == 0


def test_get_message(agent):
    owner, _, _ = agent.people()
    (message,) = in_new_channel(agent, "zz-get", "x")
    got = agent.ok("chat_get_message", {"message_id": message.id})
    assert (got["id"], got["channel_name"], got["author"], got["author_name"], got["pinned"], got["deleted"]) == (
        message.id, "zz-get", owner.handle, owner.name, False, False)
    assert got["created_at"] == message.created_at.isoformat()


def test_list_messages_pages_back_with_before_id(agent):
    ids = [m.id for m in in_new_channel(agent, "zz-log", "m0", "m1", "m2")]
    first = agent.ok("chat_list_messages", {"channel": "#zz-log", "limit": 2})
    assert [m["id"] for m in first["items"]] == ids[:0:-1] and first["next_before_id"] == ids[1]
    assert first["total"] == 3
    second = agent.ok("chat_list_messages", {"channel": "#zz-log", "limit": 2, "before_id": first["next_before_id"]})
    assert [m["text"] for m in second["items"]] == ["m0"] and second["next_before_id"] is None


def test_get_thread(agent):
    parent, replies = agent.scene(lambda s, o, m, x: (
        p := chat.post_message(s, o, chat.create_channel(s, o, "zz-thread").id, "q"),
        [chat.post_message(s, o, "zz-thread", f"a{i}", thread_parent_id=p.id).id for i in range(3)]))
    got = agent.ok("chat_get_thread", {"message_id": replies[1]})
    assert got["parent"]["id"] == parent.id and got["parent"]["reply_count"] == 3
    assert [r["id"] for r in got["replies"]] == replies and got["total"] == 3
    page = agent.ok("chat_get_thread", {"message_id": parent.id, "offset": 1, "limit": 1})
    assert [r["id"] for r in page["replies"]] == [replies[1]] and page["next_offset"] == 2


def test_search_messages_by_words_channel_author_and_day(agent):
    owner, member, _ = agent.people()
    message = agent.scene(lambda s, o, m, x: chat.post_message(
        s, o, chat.create_channel(s, o, "zz-find", members=[m.id]).id, "The Quokka budget is 50% final"))
    theirs = agent.scene(lambda s, o, m, x: chat.post_message(s, m, "zz-find", "quokka party"))
    day = message.created_at.date().isoformat()
    for args, expected in [({"query": "quokka BUDGET"}, [message.id]),
                           ({"channel": "#zz-find"}, [theirs.id, message.id]),
                           ({"query": "quokka", "author": owner.email}, [message.id]),
                           ({"query": "quokka", "author": f"@{member.handle}"}, [theirs.id]),
                           ({"query": "quokka", "after": day}, [theirs.id, message.id]),
                           ({"query": "50%"}, [message.id]), ({"query": "quokka", "before": day}, [])]:
        got = agent.ok("chat_search_messages", args)
        assert [m["id"] for m in got["items"]] == expected and got["total"] == len(expected), args


def test_list_mentions(member_agent):
    _, member, _ = member_agent.people()
    message = member_agent.scene(lambda s, o, m, x: chat.post_message(
        s, o, chat.create_channel(s, o, "zz-ask", members=[m.id]).id, f"@{m.handle} can you check?"))
    got = member_agent.ok("chat_list_mentions", {"limit": 200})
    with member_agent.episode.session() as s:
        expected = list(s.scalars(select(Mention.message_id).where(Mention.person_id == member.id)
                                  .order_by(Mention.message_id.desc())))
    assert got["items"][0]["id"] == message.id and [m["id"] for m in got["items"]] == expected
    assert all(member.handle in m["mentions"] for m in got["items"])


def test_add_and_remove_reaction(agent):
    owner, _, _ = agent.people()
    (message,) = in_new_channel(agent, "zz-re", "x")
    got = agent.write("chat_add_reaction", {"message_id": message.id, "emoji": ":Thumbsup:"}, "chat.add_reaction")
    assert got["reactions"] == [{"emoji": "thumbsup", "count": 1, "people": [owner.handle]}]
    with agent.episode.session() as s:
        assert list(s.scalars(select(Reaction.emoji).where(Reaction.message_id == message.id))) == ["thumbsup"]
    got = agent.write("chat_remove_reaction", {"message_id": message.id, "emoji": "thumbsup"}, "chat.remove_reaction")
    assert got["reactions"] == []
    with agent.episode.session() as s:
        assert s.scalar(select(func.count()).where(Reaction.message_id == message.id)) == 0


def test_pin_list_and_unpin(agent):
    first, second = in_new_channel(agent, "zz-pin", "one", "two")
    assert agent.write("chat_pin_message", {"message_id": first.id}, "chat.pin_message")["pinned"]
    agent.ok("chat_pin_message", {"message_id": second.id})
    with agent.episode.session() as s:
        assert set(s.scalars(select(Pin.message_id).where(Pin.channel_id == first.channel_id))) == {first.id, second.id}
    pins = agent.ok("chat_list_pins", {"channel": "#zz-pin"})
    assert [m["id"] for m in pins["items"]] == [second.id, first.id] and pins["total"] == 2
    assert [m["id"] for m in agent.ok("chat_list_pins", {"channel": "#zz-pin", "offset": 1})["items"]] == [first.id]
    assert not agent.write("chat_unpin_message", {"message_id": second.id}, "chat.unpin_message")["pinned"]
    with agent.episode.session() as s:
        assert list(s.scalars(select(Pin.message_id).where(Pin.channel_id == first.channel_id))) == [first.id]


def test_list_unreads_and_mark_read(agent):
    owner, _, _ = agent.people()
    made, posted = agent.scene(lambda s, o, m, x: (
        c := chat.create_channel(s, o, "zz-news", members=[m.id]),
        [chat.post_message(s, m, c.id, f"news {i}").id for i in range(3)]))
    unread = agent.ok("chat_list_unreads", {"limit": 200})
    with agent.episode.session() as s:
        counts = chat.unread_counts(s, agent.episode.actor(s))
    assert [c["unread_count"] for c in unread["items"]] == sorted(counts.values(), reverse=True)
    assert {c["id"]: c["unread_count"] for c in unread["items"]}[made.id] == 3
    assert unread["total_unread"] == sum(counts.values()) and unread["total"] == len(counts)
    got = agent.write("chat_mark_read", {"channel": "#zz-news", "message_id": posted[1]}, "chat.mark_read")
    assert got["unread_count"] == 1
    got = agent.write("chat_mark_read", {"channel": made.id}, "chat.mark_read")
    assert got["unread_count"] == 0
    with agent.episode.session() as s:
        assert s.scalar(select(Membership.last_read_message_id).where(
            Membership.channel_id == made.id, Membership.person_id == owner.id)) == posted[-1]
    assert made.id not in [c["id"] for c in agent.ok("chat_list_unreads", {"limit": 200})["items"]]
