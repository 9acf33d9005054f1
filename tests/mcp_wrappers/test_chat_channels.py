"""Chat channel and DM tools through the real MCP client: each result, and the tables after it.
Scenes are built with the services; names starting with zz- never clash with seeded channels."""

from __future__ import annotations

from sqlalchemy import func, select

from officegym.apps.chat import services as chat
from officegym.apps.chat.models import Channel, Membership


def test_list_channels_shows_public_and_own_private_channels(agent):
    agent.scene(lambda s, o, m, x: (chat.create_channel(s, m, "zz-hidden", is_private=True),
                                    chat.create_channel(s, o, "zz-mine", is_private=True)))
    got = agent.ok("chat_list_channels", {"limit": 200})
    with agent.episode.session() as s:
        owner = agent.episode.actor(s)
        mine = set(s.scalars(select(Membership.channel_id).where(Membership.person_id == owner.id)))
        expected = [c for c in s.scalars(select(Channel).where(Channel.is_archived.is_(False)).order_by(Channel.name))
                    if c.kind == "public" or (c.kind == "private" and c.id in mine)]
        counts = {c.id: len(c.memberships) for c in expected}
    names = [c["name"] for c in got["items"]]
    assert names == [c.name for c in expected] and got["total"] == len(expected) and got["next_offset"] is None
    assert "zz-mine" in names and "zz-hidden" not in names
    assert all(c["is_member"] == (c["id"] in mine) and c["member_count"] == counts[c["id"]] for c in got["items"])


def test_list_channels_pages(agent):
    everything = agent.ok("chat_list_channels", {"limit": 200})
    first = agent.ok("chat_list_channels", {"limit": 2})
    second = agent.ok("chat_list_channels", {"limit": 2, "offset": first["next_offset"]})
    assert first["next_offset"] == 2 and first["total"] == everything["total"]
    assert [c["id"] for c in first["items"] + second["items"]] == [c["id"] for c in everything["items"][:4]]


def test_list_channels_query_member_only_and_archived(agent):
    agent.scene(lambda s, o, m, x: (chat.create_channel(s, m, "zz-open"),
                                    chat.archive_channel(s, o, chat.create_channel(s, o, "zz-old").id)))
    assert [c["name"] for c in agent.ok("chat_list_channels", {"query": "#zz-"})["items"]] == ["zz-open"]
    both = agent.ok("chat_list_channels", {"query": "zz-", "include_archived": True})["items"]
    assert [(c["name"], c["is_archived"]) for c in both] == [("zz-old", True), ("zz-open", False)]
    mine = agent.ok("chat_list_channels", {"member_only": True, "limit": 200})["items"]
    assert mine and all(c["is_member"] for c in mine) and "zz-open" not in [c["name"] for c in mine]
    assert agent.ok("chat_list_channels", {"query": "%"})["total"] == 0  # LIKE wildcards match themselves


def test_get_channel_by_name_and_id(agent):
    made = agent.scene(lambda s, o, m, x: chat.create_channel(s, o, "zz-plans", topic="Q3", purpose="Plans",
                                                              members=[m.handle]))
    by_name = agent.ok("chat_get_channel", {"channel": "#zz-plans"})
    assert agent.ok("chat_get_channel", {"channel": made.id}) == by_name
    assert agent.ok("chat_get_channel", {"channel": str(made.id)}) == by_name
    assert by_name == {
        "id": made.id, "name": "zz-plans", "display_name": "#zz-plans", "kind": "public", "topic": "Q3",
        "purpose": "Plans", "is_archived": False, "is_member": True, "member_count": 2, "members": None,
        "unread_count": 0, "created_at": made.created_at.isoformat()}


def test_list_members(agent):
    owner, member, _ = agent.people()
    made = agent.scene(lambda s, o, m, x: chat.create_channel(s, o, "zz-pair", members=[m.id]))
    got = agent.ok("chat_list_members", {"channel": "zz-pair"})
    assert {p["handle"] for p in got["items"]} == {owner.handle, member.handle} == agent.members_of(made.id)
    assert got["total"] == 2 and got["next_offset"] is None


def test_create_channel(agent):
    owner, member, _ = agent.people()
    got = agent.write("chat_create_channel", {"name": "#Launch-Q3", "is_private": True, "topic": "Launch",
                                              "purpose": "Ship it", "members": [f"@{member.handle}"]},
                      "chat.create_channel")
    assert (got["name"], got["kind"], got["member_count"], got["is_member"]) == ("launch-q3", "private", 2, True)
    with agent.episode.session() as s:
        row = s.get(Channel, got["id"])
        assert (row.name, row.kind, row.topic, row.purpose, row.created_by_id, row.is_archived) == (
            "launch-q3", "private", "Launch", "Ship it", owner.id, False)
    assert agent.members_of(got["id"]) == {owner.handle, member.handle}


def test_update_channel_topic_purpose_and_name(agent):
    made = agent.scene(lambda s, o, m, x: chat.create_channel(s, o, "zz-draft", purpose="old"))
    got = agent.write("chat_update_channel", {"channel": "#zz-draft", "topic": "Final", "name": "zz-final"},
                      "chat.update_channel")
    assert (got["name"], got["topic"], got["purpose"]) == ("zz-final", "Final", "old")
    agent.write("chat_update_channel", {"channel": made.id, "purpose": ""}, "chat.update_channel")
    with agent.episode.session() as s:
        row = s.get(Channel, made.id)
        assert (row.name, row.topic, row.purpose) == ("zz-final", "Final", "")


def test_archive_and_unarchive_channel(agent):
    made = agent.scene(lambda s, o, m, x: chat.create_channel(s, o, "zz-done"))
    assert agent.write("chat_archive_channel", {"channel": made.id}, "chat.archive_channel")["is_archived"]
    with agent.episode.session() as s:
        assert s.get(Channel, made.id).is_archived
    got = agent.write("chat_unarchive_channel", {"channel": "zz-done"}, "chat.unarchive_channel")
    assert not got["is_archived"]
    with agent.episode.session() as s:
        assert not s.get(Channel, made.id).is_archived


def test_join_and_leave_channel(agent):
    owner, _, _ = agent.people()
    made = agent.scene(lambda s, o, m, x: chat.create_channel(s, m, "zz-club"))
    got = agent.write("chat_join_channel", {"channel": "zz-club"}, "chat.join_channel")
    assert got["is_member"] and got["member_count"] == 2 and owner.handle in agent.members_of(made.id)
    got = agent.write("chat_leave_channel", {"channel": "zz-club"}, "chat.leave_channel")
    assert not got["is_member"] and got["unread_count"] is None and owner.handle not in agent.members_of(made.id)


def test_invite_to_and_remove_from_channel(agent):
    owner, member, other = agent.people()
    made = agent.scene(lambda s, o, m, x: chat.create_channel(s, o, "zz-team", is_private=True))
    got = agent.write("chat_invite_to_channel", {"channel": "#zz-team", "people": [member.email, other.id]},
                      "chat.invite_to_channel")
    assert got["member_count"] == 3 and agent.members_of(made.id) == {owner.handle, member.handle, other.handle}
    got = agent.write("chat_remove_from_channel", {"channel": "#zz-team", "person": f"@{other.handle}"},
                      "chat.remove_from_channel")
    assert got["member_count"] == 2 and agent.members_of(made.id) == {owner.handle, member.handle}


def test_open_conversation_once_and_list_conversations(agent):
    owner, member, other = agent.people()
    dm = agent.write("chat_open_conversation", {"people": [f"@{member.handle}"]}, "chat.open_conversation")
    assert (dm["kind"], dm["display_name"], set(dm["members"])) == ("dm", member.name, {owner.handle, member.handle})
    assert agent.members_of(dm["id"]) == {owner.handle, member.handle}
    with agent.episode.session() as s:
        channels = s.scalar(select(func.count()).select_from(Channel))
    assert agent.ok("chat_open_conversation", {"people": [member.handle, owner.handle]})["id"] == dm["id"]
    group = agent.ok("chat_open_conversation", {"people": [member.name, other.id]})
    assert group["kind"] == "group_dm" and agent.members_of(group["id"]) == {owner.handle, member.handle,
                                                                             other.handle}
    with agent.episode.session() as s:
        assert s.scalar(select(func.count()).select_from(Channel)) == channels + 1
        assert s.get(Channel, group["id"]).kind == "group_dm"
    agent.ok("chat_post_message", {"channel": dm["id"], "text": "hello"})
    listed = agent.ok("chat_list_conversations")
    with agent.episode.session() as s:
        mine = s.scalar(select(func.count()).select_from(Channel).join(Membership).where(
            Membership.person_id == owner.id, Channel.kind.in_(("dm", "group_dm"))))
    assert listed["items"][0]["id"] == dm["id"] and group["id"] in [c["id"] for c in listed["items"]]
    assert listed["total"] == mine and all(c["kind"] in ("dm", "group_dm") for c in listed["items"])
