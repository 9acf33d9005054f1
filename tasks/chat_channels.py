"""Chat task templates about channels and conversations: a private team channel with a pinned
welcome, a topic, inviting a team, archiving a finished project, a group DM with two managers."""

from __future__ import annotations

from sqlalchemy import select

from officegym.apps.chat import services as chat
from officegym.apps.chat.models import Channel, Message, Pin
from officegym.apps.org.models import Person
from officegym.graders.checks import Allow, check, nothing_else_changed

from . import chat_vocab as vocab
from .base import Ref, TaskInstance, TaskTemplate, ToolCall
from .chat import _actor_and_channel, _steps
from .common import (added_messages, allow_posts, channel_named, contains_text, member_ids, members, pick,
                     team_member_ids, teams_with_members)
from .registry import register


@register
class PrivateTeamChannel(TaskTemplate):
    id, apps, difficulty = "chat.private_team_channel", ("chat", "org"), 2
    summary = "Create a private channel for exactly one team's people and pin a welcome note in it."

    def sample(self, session, rng, instance):
        for _ in range(200):
            team = pick(rng, [t for t in teams_with_members(session, 3) if t.lead_id])
            name = f"{team.slug}-{pick(rng, vocab.CHANNEL_SUFFIXES)}"[:80]
            if channel_named(session, name) is None:
                break
        lead = session.get(Person, team.lead_id)
        handles = [f"@{session.get(Person, i).handle}" for i in sorted(team_member_ids(session, team.id))]
        return TaskInstance(
            self.id, instance, lead.id,
            f"Create a private channel named #{name} for the people on the {team.name} team (and nobody else), "
            "then post a short welcome note in it and pin that note.",
            [ToolCall("chat_create_channel", {"name": name, "is_private": True, "members": handles}),
             ToolCall("chat_post_message", {"channel": name, "text": f"Welcome to #{name}, {team.name}!"}),
             ToolCall("chat_pin_message", {"message_id": Ref(1, "id")})],
            {"team": team.id, "name": name})

    def check(self, ctx, inst):
        name, team_ids = inst.params["name"], team_member_ids(ctx.start, inst.params["team"])
        channel = ctx.final.scalar(select(Channel).where(Channel.name == name))
        if channel is None:
            return [check(f"A channel #{name} exists", False, "no such channel"),
                    nothing_else_changed(ctx.diff, [])]
        inside = member_ids(ctx.final, channel.id)
        pinned = ctx.final.scalars(select(Message).join(Pin, Pin.message_id == Message.id).where(
            Pin.channel_id == channel.id, Message.author_id == ctx.actor_id)).all()
        allowed = [Allow("chat_channel", ("added",), lambda row: row["name"] == name),
                   Allow("chat_membership", ("added",), lambda row: row["channel_id"] == channel.id),
                   Allow("chat_pin", ("added",), lambda row: row["channel_id"] == channel.id)]
        return [check(f"#{name} is private", channel.kind == "private", f"it is {channel.kind}"),
                check("Its members are exactly the team (and you)", inside == team_ids | {ctx.actor_id},
                      f"missing {sorted(team_ids - inside)}, extra {sorted(inside - team_ids - {ctx.actor_id})}",
                      weight=2),
                check("A welcome note of yours is pinned in it", pinned, "no pinned message of yours there"),
                nothing_else_changed(ctx.diff, allowed + allow_posts(ctx, channel.id))]


@register
class SetTopic(TaskTemplate):
    id, apps, difficulty = "chat.set_topic", ("chat",), 1
    summary = "Set a channel's topic to a given text."

    def sample(self, session, rng, instance):
        actor, channel = _actor_and_channel(session, rng, 2)
        topic = pick(rng, [t for t in vocab.TOPICS if t != channel.topic])
        return TaskInstance(self.id, instance, actor.id, f"Set the topic of #{channel.name} to: {topic}",
                            [ToolCall("chat_update_channel", {"channel": channel.name, "topic": topic})],
                            {"channel": channel.id, "topic": topic})

    def check(self, ctx, inst):
        p = inst.params
        channel = ctx.final.get(Channel, p["channel"])
        allowed = [Allow("chat_channel", ("updated",), lambda row: row["id"] == p["channel"], ("topic",))]
        return [check(f"The topic of #{channel.name} is the one asked for",
                      " ".join(channel.topic.split()) == p["topic"], f"the topic is {channel.topic!r}", weight=2),
                nothing_else_changed(ctx.diff, allowed)]


@register
class InviteTeam(TaskTemplate):
    id, apps, difficulty = "chat.invite_team", ("chat", "org"), 2
    summary = "Add every missing member of a team to a channel."

    def sample(self, session, rng, instance):
        for _ in range(300):
            actor, channel = _actor_and_channel(session, rng, 2)
            inside = member_ids(session, channel.id)
            teams = [t for t in teams_with_members(session, 2) if team_member_ids(session, t.id) - inside]
            if teams:
                break
        team = pick(rng, teams)
        missing = sorted(team_member_ids(session, team.id) - inside)
        handles = [f"@{session.get(Person, i).handle}" for i in missing]
        return TaskInstance(
            self.id, instance, actor.id,
            f"Make sure everyone on the {team.name} team is a member of #{channel.name}.",
            [ToolCall("chat_invite_to_channel", {"channel": channel.name, "people": handles})],
            {"team": team.id, "channel": channel.id})

    def check(self, ctx, inst):
        p = inst.params
        team_ids = team_member_ids(ctx.start, p["team"])
        inside = member_ids(ctx.final, p["channel"])
        allowed = [Allow("chat_membership", ("added",),
                         lambda row: row["channel_id"] == p["channel"] and row["person_id"] in team_ids)]
        return [check("Every member of the team is in the channel", team_ids <= inside,
                      f"still missing: {sorted(team_ids - inside)}", weight=2),
                nothing_else_changed(ctx.diff, allowed)]


@register
class ArchiveFinishedProject(TaskTemplate):
    id, apps, difficulty = "chat.archive_project", ("chat",), 2
    summary = "As an admin, archive the channel of a project that has wrapped up (not its look-alike)."

    def sample(self, session, rng, instance):
        free = [c for c in vocab.CODENAMES if channel_named(session, f"proj-{c}") is None]
        done, live = rng.sample(free, 2)
        admin = pick(rng, members(session, "admin"))
        creator = pick(rng, members(session))
        return TaskInstance(
            self.id, instance, admin.id,
            f"{creator.name} tells you that Project {done.title()} has wrapped up. As a workspace admin, "
            "archive its channel.",
            [ToolCall("chat_archive_channel", {"channel": f"proj-{done}"})],
            {"channel": f"proj-{done}", "creator": creator.id},
            setup=_steps(_create(creator.id, f"proj-{done}", f"Project {done.title()}"),
                         _create(creator.id, f"proj-{live}", f"Project {live.title()}"),
                         _create(creator.id, f"proj-{done}-next", f"Follow-up of {done.title()}")))

    def check(self, ctx, inst):
        name = inst.params["channel"]
        channel = ctx.final.scalar(select(Channel).where(Channel.name == name))
        allowed = [Allow("chat_channel", ("updated",), lambda row: row["name"] == name, ("is_archived",))]
        return [check(f"#{name} is archived", channel.is_archived, "it is still open", weight=2),
                nothing_else_changed(ctx.diff, allowed)]


def _create(creator_id: int, name: str, purpose: str):
    def run(session):
        creator = session.get(Person, creator_id)
        chat.create_channel(session, creator, name, purpose=purpose)
        chat.post_message(session, creator, name, f"Kick-off notes for {purpose} are in the drive.")
    return run


@register
class GroupDmManagers(TaskTemplate):
    id, apps, difficulty = "chat.group_dm_managers", ("chat", "org"), 2
    summary = "Start a group DM with the managers of two named people and send them a note."

    def sample(self, session, rng, instance):
        people = members(session)
        for _ in range(500):
            actor, first, second = rng.sample(people, 3)
            bosses = {first.manager_id, second.manager_id}
            if None not in bosses and len(bosses) == 2 and actor.id not in bosses:
                break
        managers = [session.get(Person, i) for i in (first.manager_id, second.manager_id)]
        note = pick(rng, vocab.GROUP_NOTES)
        return TaskInstance(
            self.id, instance, actor.id,
            f"Start a group conversation with the managers of {first.name} and {second.name} (just the three of "
            f"you) and send them this message: {note}",
            [ToolCall("chat_open_conversation", {"people": [f"@{m.handle}" for m in managers]}),
             ToolCall("chat_post_message", {"channel": Ref(0, "id"), "text": note})],
            {"managers": [m.id for m in managers], "note": note})

    def check(self, ctx, inst):
        p = inst.params
        group = [ctx.start.get(Person, i) for i in [ctx.actor_id, *p["managers"]]]
        name = chat.conversation_name(group)
        dm = ctx.final.scalar(select(Channel).where(Channel.name == name))
        sent = [r for r in added_messages(ctx, ctx.actor_id)
                if dm is not None and r["channel_id"] == dm.id and contains_text(r["text"], p["note"])]
        allowed = [Allow("chat_channel", ("added",), lambda row: row["name"] == name),
                   Allow("chat_membership", ("added",), lambda row: dm is not None and row["channel_id"] == dm.id)]
        return [check("A group conversation with exactly you and the two managers exists", dm is not None,
                      "no conversation with exactly those people"),
                check("The note was sent there", sent, "the note is not in that conversation", weight=2),
                nothing_else_changed(ctx.diff, allowed + allow_posts(ctx, dm.id if dm else -1))]
