"""Chat task templates about channels and conversations: a private team channel with a pinned
welcome, a topic, inviting a team, archiving a finished project, a group DM with two managers."""

from __future__ import annotations

from sqlalchemy import select

from officegym.apps.chat import services as chat
from officegym.apps.chat.models import Channel, Message, Pin
from officegym.apps.org.models import Person
from officegym.graders.checks import Allow, check, nothing_else_changed
from officegym.graders.statements import Candidate, says

from . import chat_vocab as vocab
from .base import Claim, Declaration, Ref, TaskInstance, TaskTemplate, Target, ToolCall
from .chat import _actor_and_channel, _posts_mentioning, _steps
from .common import (added_messages, allow_new_conversation, allow_posts, channel_named, channels_of, member_ids,
                     members, named, pick, team_member_ids, teams_with_members)
from .registry import register
from .split import in_split, person_in


def _other_channels(session, person_id: int, name: str, outsiders: set[int] = frozenset(), limit: int = 4) -> list[str]:
    """Look-alikes of a channel a task is about: a few other open channels the person is in (those
    none of `outsiders` is in first), never all of them."""
    found = [c for c in channels_of(session, person_id) if c.name != name]
    found.sort(key=lambda c: bool(member_ids(session, c.id) & outsiders))
    return [c.name for c in found[:max(0, min(limit, len(found) - 1))]]


def _same(text: str | None, wanted: str) -> bool:
    """Whether a text is exactly the wanted one, whitespace folded."""
    return text is not None and " ".join(text.split()) == wanted


WELCOME = Candidate.text(*vocab.WELCOME)


@register
class PrivateTeamChannel(TaskTemplate):
    id, apps, difficulty = "chat.private_team_channel", ("chat", "org"), 2
    summary = "Create a private channel for exactly one team's people and pin a welcome note in it."

    def sample(self, session, rng, instance):
        # Who creates it: the team's lead, or someone else of the team when the lead is of the other split.
        creators = {t.id: [i for i in ([t.lead_id] if person_in(self.split, t.lead_id) else
                                       sorted(team_member_ids(session, t.id))) if person_in(self.split, i)]
                    for t in teams_with_members(session, 3) if t.lead_id}
        teams = [t for t in teams_with_members(session, 3) if creators.get(t.id)]
        for _ in range(200):
            team = pick(rng, teams)
            name = f"{team.slug}-{pick(rng, vocab.CHANNEL_SUFFIXES)}"[:80]
            if channel_named(session, name) is None and in_split(self.split, "channel", name):
                break
        creator = session.get(Person, pick(rng, creators[team.id]))
        handles = [f"@{session.get(Person, i).handle}" for i in sorted(team_member_ids(session, team.id))]
        return TaskInstance(
            self.id, instance, creator.id,
            f"Create a private channel named #{name} for the people on the {team.name} team (and nobody else), "
            "then post one short welcome note in it and pin that note. Change nothing else.",
            [ToolCall("org_get_team", {"team": team.name}),
             ToolCall("chat_create_channel", {"name": name, "is_private": True, "members": handles}),
             ToolCall("chat_post_message", {"channel": name, "text": f"Welcome to #{name}, {team.name}!"}),
             ToolCall("chat_pin_message", {"message_id": Ref(2, "id")})],
            {"team": team.id, "name": name})

    def declare(self, start, inst):
        name = inst.params["name"]
        return Declaration([Target("channel", name, _other_channels(start, inst.actor_id, name))],
                           [Claim(WELCOME, [], "text", "welcome")])

    def check(self, ctx, inst):
        name, team = inst.params["name"], team_member_ids(ctx.start, inst.params["team"]) | {ctx.actor_id}
        channel = ctx.final.scalar(select(Channel).where(Channel.name == name))
        if channel is None or ctx.start.get(Channel, channel.id) is not None:
            return [check(f"You created a channel #{name}", False, "no such new channel"),
                    nothing_else_changed(ctx.diff, [])]
        inside = member_ids(ctx.final, channel.id)
        pinned = ctx.final.scalars(select(Message).join(Pin, Pin.message_id == Message.id).where(
            Pin.channel_id == channel.id, Message.author_id == ctx.actor_id)).all()
        allowed = [Allow("chat_channel", ("added",), lambda row: row["name"] == name),
                   Allow("chat_membership", ("added",), lambda row: row["channel_id"] == channel.id
                         and row["person_id"] in team, limit=len(team)),
                   Allow("chat_pin", ("added",), lambda row: row["channel_id"] == channel.id),
                   *_posts_mentioning(ctx, channel.id, team, None)]
        return [check(f"#{name} is private", channel.kind == "private", f"it is {channel.kind}", weight=2),
                check("Its members are exactly the team (and you)", inside == team,
                      f"missing {sorted(team - inside)}, extra {sorted(inside - team)}", weight=2),
                check("A note of yours is pinned in it", pinned, "no pinned message of yours there"),
                *says([m.text for m in pinned], WELCOME, [], "The pinned note welcomes them", "welcome", weight=1),
                nothing_else_changed(ctx.diff, allowed)]


@register
class SetTopic(TaskTemplate):
    id, apps, difficulty = "chat.set_topic", ("chat",), 1
    summary = "Set a channel's topic to a given text."

    def sample(self, session, rng, instance):
        actor, channel = _actor_and_channel(session, rng, self.split, 2, channel_split=True)
        topic = pick(rng, [t for t in vocab.TOPICS if t != channel.topic])
        return TaskInstance(self.id, instance, actor.id,
                            f"Change only the topic of #{channel.name}: set it to exactly this text: {topic}",
                            [ToolCall("chat_update_channel", {"channel": channel.name, "topic": topic})],
                            {"channel": channel.id, "topic": topic})

    def declare(self, start, inst):
        p = inst.params
        name = start.get(Channel, p["channel"]).name
        return Declaration([Target("channel", name, _other_channels(start, inst.actor_id, name))],
                           [Claim(Candidate.text(p["topic"]), [Candidate.text(t) for t in vocab.TOPICS
                                                               if t != p["topic"]], "topic", "topic")])

    def check(self, ctx, inst):
        p = inst.params
        channel = ctx.final.get(Channel, p["channel"])
        allowed = [Allow("chat_channel", ("updated",), lambda row: row["id"] == p["channel"], ("topic",))]
        return [check(f"The topic of #{channel.name} is the one asked for", _same(channel.topic, p["topic"]),
                      f"the topic is {channel.topic!r}", weight=2),
                nothing_else_changed(ctx.diff, allowed)]


@register
class InviteTeam(TaskTemplate):
    id, apps, difficulty = "chat.invite_team", ("chat", "org"), 2
    summary = "Add every missing member of a team to a channel."

    def sample(self, session, rng, instance):
        for _ in range(300):
            actor, channel = _actor_and_channel(session, rng, self.split, 2, channel_split=True)
            inside = member_ids(session, channel.id)
            elsewhere = [member_ids(session, c.id) for c in channels_of(session, actor.id) if c.id != channel.id]
            teams = [t for t in teams_with_members(session, 2) if (gap := team_member_ids(session, t.id) - inside)
                     and any(not gap & other for other in elsewhere)]  # a channel they could be invited to by mistake
            if teams:
                break
        team = pick(rng, teams)
        missing = sorted(team_member_ids(session, team.id) - inside)
        handles = [f"@{session.get(Person, i).handle}" for i in missing]
        return TaskInstance(
            self.id, instance, actor.id,
            f"Make sure everyone on the {team.name} team is a member of #{channel.name}, without adding anyone else "
            "or changing anything else.",
            [ToolCall("org_get_team", {"team": team.name}),
             ToolCall("chat_list_members", {"channel": channel.name}),
             ToolCall("chat_invite_to_channel", {"channel": channel.name, "people": handles})],
            {"team": team.id, "channel": channel.id})

    def declare(self, start, inst):
        p = inst.params
        name = start.get(Channel, p["channel"]).name
        missing = team_member_ids(start, p["team"]) - member_ids(start, p["channel"])
        return Declaration([Target("channel", name, _other_channels(start, inst.actor_id, name, missing))])

    def check(self, ctx, inst):
        p = inst.params
        team = team_member_ids(ctx.start, p["team"])
        missing, inside = team - member_ids(ctx.start, p["channel"]), member_ids(ctx.final, p["channel"])
        allowed = [Allow("chat_membership", ("added",), lambda row: row["channel_id"] == p["channel"]
                         and row["person_id"] in missing, limit=len(missing))]
        return [check("Every member of the team is in the channel", missing and team <= inside,
                      f"still missing: {sorted(team - inside)}", weight=2),
                nothing_else_changed(ctx.diff, allowed)]


@register
class ArchiveFinishedProject(TaskTemplate):
    id, apps, difficulty = "chat.archive_project", ("chat",), 1
    summary = "As an admin, archive the channel of a project that has wrapped up (not its look-alike)."

    def sample(self, session, rng, instance):
        free = [c for c in vocab.CODENAMES if channel_named(session, f"proj-{c}") is None]
        done = pick(rng, [c for c in free if in_split(self.split, "channel", f"proj-{c}")])
        live = pick(rng, [c for c in free if c != done])
        admin = pick(rng, [p for p in members(session, "admin") if person_in(self.split, p.id)])
        creator = pick(rng, [p for p in members(session) if p.id != admin.id])
        return TaskInstance(
            self.id, instance, admin.id,
            f"{named(session, creator)} tells you that Project {done.title()} has wrapped up. As a workspace admin, "
            "archive its channel (and change nothing else).",
            [ToolCall("chat_list_channels", {"query": done}),
             ToolCall("chat_archive_channel", {"channel": f"proj-{done}"})],
            {"channel": f"proj-{done}", "creator": creator.id},
            setup=_steps(_create(creator.id, admin.id, f"proj-{done}", f"Project {done.title()}"),
                         _create(creator.id, admin.id, f"proj-{live}", f"Project {live.title()}"),
                         _create(creator.id, admin.id, f"proj-{done}-next", f"Follow-up of {done.title()}")))

    def declare(self, start, inst):
        name = inst.params["channel"]
        projects = start.scalars(select(Channel.name).where(Channel.name.startswith("proj-"), Channel.name != name,
                                                            Channel.is_archived.is_(False)).order_by(Channel.id.desc()))
        return Declaration([Target("channel", name, list(projects))])

    def check(self, ctx, inst):
        name = inst.params["channel"]
        was = ctx.start.scalar(select(Channel).where(Channel.name == name))
        channel = ctx.final.get(Channel, was.id)  # by id: a rename must not hide it
        allowed = [Allow("chat_channel", ("updated",), lambda row: row["id"] == was.id, ("is_archived",))]
        return [check(f"#{name} is archived", channel.is_archived and not was.is_archived, "it is still open",
                      weight=2),
                nothing_else_changed(ctx.diff, allowed)]


def _create(creator_id: int, admin_id: int, name: str, purpose: str):
    """A setup step: `creator` opens a project channel with the admin in it and posts kick-off notes."""
    def run(session):
        creator = session.get(Person, creator_id)
        chat.create_channel(session, creator, name, purpose=purpose, members=[admin_id])
        chat.post_message(session, creator, name, f"Kick-off notes for {purpose} are in the drive.")
    return run


@register
class GroupDmManagers(TaskTemplate):
    id, apps, difficulty = "chat.group_dm_managers", ("chat", "org"), 2
    summary = "Start a group DM with the managers of two named people and send them a note."

    def sample(self, session, rng, instance):
        people = members(session)
        for _ in range(500):
            actor = pick(rng, [p for p in people if person_in(self.split, p.id)])
            first, second = rng.sample([p for p in people if p.id != actor.id], 2)
            bosses = {first.manager_id, second.manager_id}
            if None not in bosses and len(bosses) == 2 and actor.id not in bosses:
                break
        managers = [session.get(Person, i) for i in (first.manager_id, second.manager_id)]
        note = pick(rng, vocab.GROUP_NOTES)
        return TaskInstance(
            self.id, instance, actor.id,
            f"Without changing anything else, start a group conversation with the managers of "
            f"{named(session, first)} and {named(session, second)} (just the three of you) and send them one message "
            f"with exactly this text: {note}",
            [ToolCall("org_get_person", {"person": f"@{first.handle}"}),
             ToolCall("org_get_person", {"person": f"@{second.handle}"}),
             ToolCall("chat_open_conversation", {"people": [f"@{m.handle}" for m in managers]}),
             ToolCall("chat_post_message", {"channel": Ref(2, "id"), "text": note})],
            {"managers": [m.id for m in managers], "note": note, "named": [first.id, second.id]})

    def declare(self, start, inst):
        p = inst.params
        managers = [start.get(Person, i) for i in p["managers"]]
        bosses = {q.manager_id for q in members(start)} - {None, inst.actor_id, *p["managers"]}
        near = [f"@{start.get(Person, i).handle}" for i in [*p["named"], *sorted(bosses)] if i not in p["managers"]]
        note = Candidate.text(p["note"])
        return Declaration([Target("person", f"@{m.handle}", near) for m in managers],
                           [Claim(note, [Candidate.text(n) for n in vocab.GROUP_NOTES if n != p["note"]], "text",
                                  "note")])

    def check(self, ctx, inst):
        p = inst.params
        group = [ctx.start.get(Person, i) for i in [ctx.actor_id, *p["managers"]]]
        dm, allowed = allow_new_conversation(ctx, group)
        sent = [r["text"] for r in added_messages(ctx, ctx.actor_id) if dm is not None and r["channel_id"] == dm.id]
        return [check("You sent a message in a group conversation with exactly you and the two managers", sent,
                      "no new message of yours in a conversation with exactly those people"),
                check("The message is exactly the note asked for", any(_same(t, p["note"]) for t in sent),
                      f"messages sent there: {sent[:3]}", weight=2),
                nothing_else_changed(ctx.diff, allowed + (allow_posts(ctx, dm.id, mentions=0) if dm else []))]
