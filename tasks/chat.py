"""Chat task templates about answering people, and the helpers the chat task modules share: reply
with a fact, thank an announcer, pick up an unanswered question."""

from __future__ import annotations

import random

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from officegym.apps.chat import services as chat
from officegym.apps.chat.models import Channel, Message
from officegym.apps.org.models import Person, Team
from officegym.graders.checks import Allow, check, guard, nothing_else_changed
from officegym.graders.statements import Candidate, says

from .base import Claim, Declaration, Ref, TaskInstance, TaskTemplate, Target, ToolCall
from .common import (ANY, added_messages, allow_new_conversation, allow_posts, channel_named, channels_of,
                     evenly, find_message, member_ids, members, mentions_of, named, people_except, pick,
                     top_level_messages)
from .registry import register
from .split import in_split, person_in
from . import chat_vocab as vocab


def _actor_and_channel(session: Session, rng: random.Random, split: str, min_members: int = 3,
                       channel_split: bool = False) -> tuple[Person, Channel]:
    """A member (not the owner) of the split and one of their open channels with at least
    `min_members` people (of the split too, with `channel_split`: when the channel is what the task
    is about)."""
    people = [p for p in members(session) if person_in(split, p.id)]
    for _ in range(200):
        actor = pick(rng, people)
        options = [c for c in channels_of(session, actor.id) if len(member_ids(session, c.id)) >= min_members
                   and (not channel_split or in_split(split, "channel", c.name))]
        if options:
            return actor, pick(rng, options)
    raise RuntimeError("no member has a channel with enough people")


def _background(session: Session, rng: random.Random, split: str, before: int = 0, people: tuple = ()):
    """A setup step that gives the message a task is about an id of the task's split. Messages get
    ids in turn after the world's last, so colleagues (none of `people`) first chat in #random as
    many times as that takes (none, often); `before` is how many messages the setup posts ahead of
    the task's message. Run it first."""
    following = (session.scalar(select(func.max(Message.id))) or 0) + 1 + before
    count = next(k for k in range(64) if in_split(split, "message", following + k))
    lounge = channel_named(session, "random") or channel_named(session, "general")
    skip = {p if isinstance(p, int) else p.id for p in people}
    authors = [i for i in sorted(member_ids(session, lounge.id)) if i not in skip]
    posts = [(pick(rng, authors), pick(rng, vocab.HARMLESS)) for _ in range(count)]

    def run(session: Session) -> None:
        for author_id, text in posts:
            chat.post_message(session, session.get(Person, author_id), lounge.id, text)
    return run


def later_chatter(session: Session, rng: random.Random, channel_id: int, people: tuple = (), count: int = 2,
                  texts: list[str] = vocab.HARMLESS):
    """A setup step for after the message a task is about: `count` messages of other members of the
    channel (none of `people`), so that the task's message is not the channel's newest."""
    skip = {p if isinstance(p, int) else p.id for p in people}
    authors = [i for i in sorted(member_ids(session, channel_id)) if i not in skip]
    posts = [(pick(rng, authors), text) for text in rng.sample(texts, count)]

    def run(session: Session) -> None:
        for author_id, text in posts:
            chat.post_message(session, session.get(Person, author_id), channel_id, text)
    return run


def _colleague(session: Session, rng: random.Random, channel: Channel, *exclude: Person) -> Person:
    """Another member of `channel`, none of `exclude`."""
    ids = sorted(member_ids(session, channel.id) - {p.id for p in exclude})
    return session.get(Person, pick(rng, ids))


def _post(author_id: int, channel_id: int, text: str, parent_text: str | None = None):
    """A setup step: `author` posts `text` (in the thread of the message with `parent_text`)."""
    def run(session: Session) -> None:
        parent = None
        if parent_text is not None:
            parent = session.scalars(select(Message.id).where(Message.channel_id == channel_id,
                                                              Message.text == parent_text)).first()
        chat.post_message(session, session.get(Person, author_id), channel_id, text, parent)
    return run


def _steps(*steps):
    """A setup made of several steps, run in order."""
    def run(session: Session) -> None:
        for step in steps:
            step(session)
    return run


def _message_target(session: Session, message: Message, mine_first: int | None = None) -> Target:
    """A message as a target: its look-alikes are the channel's newest top-level messages, led by
    the other messages of `mine_first` there (the ones that person could also edit or delete)."""
    own = list(session.scalars(select(Message.id).where(
        Message.channel_id == message.channel_id, Message.author_id == mine_first, Message.id != message.id,
        Message.deleted_at.is_(None)).order_by(Message.id.desc()).limit(10))) if mine_first else []
    rest = [i for i in top_level_messages(session, message.channel_id, [message.id]) if i not in own]
    return Target("message", message.id, own + rest, {"channel": session.get(Channel, message.channel_id).name})


def _posts_mentioning(ctx, channel_id: int, people: set[int], thread_parent_id=ANY, limit: int = 1) -> list[Allow]:
    """Allow `limit` new messages of the actor in one channel (or thread) that @mention none but
    `people`."""
    message, mention = allow_posts(ctx, channel_id, thread_parent_id, limit, len(people))
    return [message, Allow("chat_mention", ("added",), lambda row: mention.where(row) and row["person_id"] in people,
                           limit=mention.limit)]


def _added(ctx, table: str, **match) -> list[dict]:
    """Rows the episode added to `table` whose fields equal `match`."""
    return [r for r in ctx.diff.table(table).added if all(r[k] == v for k, v in match.items())]


@register
class ReplyWithFact(TaskTemplate):
    id, apps, difficulty = "chat.reply_with_fact", ("chat", "org"), 2
    summary = "Answer a colleague's question that mentions you, in its thread, with a fact from the directory."

    def sample(self, session, rng, instance):
        actor, channel = _actor_and_channel(session, rng, self.split)
        asker = _colleague(session, rng, channel, actor)
        kind = pick(rng, sorted(vocab.FACT_QUESTIONS))
        subject = evenly(rng, instance, [p for p in members(session) if p.id not in (actor.id, asker.id)
                                         and p.manager_id], lambda p: _fact(session, p, kind).label)
        question = vocab.FACT_QUESTIONS[kind].format(name=named(session, subject))
        text = f"@{actor.handle} {pick(rng, vocab.OPENERS)} {question}"
        answer = _fact(session, subject, kind).label
        return TaskInstance(
            self.id, instance, actor.id,
            f"{named(session, asker)} asked you something in #{channel.name} and mentioned you. Look the answer up "
            "and reply once in the thread of their question. Change nothing else.",
            [ToolCall("chat_list_mentions", {"limit": 1}),
             ToolCall("org_get_person", {"person": f"@{subject.handle}"}),
             ToolCall("chat_post_message", {"channel": channel.name, "text": f"It's {answer}.",
                                            "thread_parent_id": Ref(0, "items.0.id")})],
            {"asker": asker.id, "channel": channel.id, "text": text, "subject": subject.id, "kind": kind},
            setup=_steps(_background(session, rng, self.split, 0, (actor, asker)), _post(asker.id, channel.id, text),
                         later_chatter(session, rng, channel.id, (actor, asker))))

    def declare(self, start, inst):
        p = inst.params
        question = find_message(start, p["asker"], p["channel"], p["text"])
        subject = start.get(Person, p["subject"])
        right = _fact(start, subject, p["kind"])
        if p["kind"] == "manager":  # any other person, but those a natural reply names
            others = people_except(start, subject.manager_id, subject, p["asker"], inst.actor_id)
        else:  # the other values of the directory, each written only in ways the right one is not
            values = start.scalars(select(getattr(Person, p["kind"])).distinct().order_by(getattr(Person, p["kind"])))
            spelt = {s.casefold() for s in right.spellings}
            others = [Candidate.text(*[s for s in _fact_value(p["kind"], v).spellings if s.casefold() not in spelt])
                      for v in values if v and v != right.label]
        return Declaration([_message_target(start, question)], [Claim(right, others, "text", p["kind"])])

    def check(self, ctx, inst):
        p = inst.params
        declared = self.declare(ctx.start, inst)
        question, claim = declared.targets[0].ref, declared.claims[0]
        subject = ctx.start.get(Person, p["subject"])
        named = {p["asker"], subject.id} | ({subject.manager_id} if p["kind"] == "manager" else set())
        replies = [r["text"] for r in added_messages(ctx, ctx.actor_id) if r["thread_parent_id"] == question]
        return [check("You replied in the thread of the question", replies, "no reply of yours in that thread"),
                *says(replies, claim.right, claim.others, f"The reply gives {subject.name}'s {p['kind']}: "
                      f"{claim.right.label}", claim.kind),
                nothing_else_changed(ctx.diff, _posts_mentioning(ctx, p["channel"], named, question))]


def _fact(session: Session, person: Person, kind: str) -> Candidate:
    """The fact of the directory a question asks about a person, as a reply may state it."""
    if kind == "manager":
        return Candidate.person(session.get(Person, person.manager_id))
    return _fact_value(kind, {"timezone": person.timezone, "title": person.title, "location": person.location}[kind])


def _fact_value(kind: str, value: str) -> Candidate:
    """A title or an office as written; a time zone by its IANA name or a common name of its time."""
    if kind != "timezone":
        return Candidate.text(value)
    return Candidate.text(value, value.replace("_", " "), *vocab.TIMEZONE_NAMES.get(value, ()))


THANKS = Candidate.text(*vocab.THANKS)


@register
class ThankAnnouncer(TaskTemplate):
    id, apps, difficulty = "chat.thank_announcer", ("chat",), 2
    split = "test"
    summary = "Find who announced something in #general and thank them by direct message."

    def sample(self, session, rng, instance):
        general = channel_named(session, "general")
        topic, other = rng.sample(sorted(vocab.ANNOUNCEMENTS), 2)
        actor = pick(rng, [p for p in members(session) if person_in(self.split, p.id)])
        announcer, distractor = rng.sample([p for p in members(session) if p.id != actor.id], 2)
        text, decoy = vocab.ANNOUNCEMENTS[topic][0], vocab.ANNOUNCEMENTS[other][0]
        return TaskInstance(
            self.id, instance, actor.id,
            f"Someone announced in #general that {vocab.ANNOUNCEMENTS[topic][1]}. Find who it was and send "
            "them one direct message thanking them. Change nothing else.",
            [ToolCall("chat_list_messages", {"channel": "general", "limit": 20}),
             ToolCall("chat_open_conversation", {"people": [f"@{announcer.handle}"]}),
             ToolCall("chat_post_message", {"channel": Ref(1, "id"), "text": "Thanks for the announcement!"})],
            {"announcer": announcer.id, "distractor": distractor.id, "topic": topic},
            setup=_steps(_post(announcer.id, general.id, f"Heads up everyone: {text}"),
                         _post(distractor.id, general.id, f"Also: {decoy}")))

    def declare(self, start, inst):
        p = inst.params
        announcer, distractor = start.get(Person, p["announcer"]), start.get(Person, p["distractor"])
        others = [f"@{q.handle}" for q in members(start) if q.id not in (announcer.id, distractor.id, inst.actor_id)]
        return Declaration([Target("person", f"@{announcer.handle}", [f"@{distractor.handle}", *others])],
                           [Claim(THANKS, [], "text", "thanks")])

    def check(self, ctx, inst):
        announcer = ctx.start.get(Person, inst.params["announcer"])
        dm, allowed = allow_new_conversation(ctx, [announcer, ctx.start.get(Person, ctx.actor_id)])
        sent = [r["text"] for r in added_messages(ctx, ctx.actor_id) if dm is not None and r["channel_id"] == dm.id]
        return [check(f"You sent {announcer.name} a direct message", sent,
                      "no new message of yours in a DM with the announcer"),
                *says(sent, THANKS, [], "The message thanks them", "thanks"),
                nothing_else_changed(ctx.diff, allowed + (_posts_mentioning(ctx, dm.id, {announcer.id}) if dm else []))]


@register
class PickUpUnanswered(TaskTemplate):
    id, apps, difficulty = "chat.pick_up_unanswered", ("chat", "org"), 3
    split = "test"
    summary = "Find today's unanswered question in #it-help and reply in its thread mentioning the IT support lead."

    def sample(self, session, rng, instance):
        it_help = channel_named(session, "it-help")
        lead = _it_lead(session)
        people = sorted(member_ids(session, it_help.id) - {lead.id})
        actor = session.get(Person, pick(rng, [i for i in people if person_in(self.split, i)]))
        others = [i for i in people if i != actor.id]
        asker, helped, helper, later = [session.get(Person, i) for i in rng.sample(others, 4)]
        lonely, answered, followed = rng.sample(vocab.IT_QUESTIONS, 3)
        return TaskInstance(
            self.id, instance, actor.id,
            "One question posted today in #it-help has had no reply yet. Reply once in its thread and @mention the "
            "lead of the IT support team by their @handle so they pick it up; mention nobody else (the person who "
            "asked at most) and change nothing else.",
            [ToolCall("chat_list_messages", {"channel": "it-help", "limit": 20}),
             ToolCall("org_list_teams", {}),
             ToolCall("org_get_team", {"team": "IT Support"}),
             ToolCall("chat_post_message", {"channel": "it-help", "thread_parent_id": Ref(0, "items.1.id"),
                                            "text": f"@{lead.handle} could you take this one?"})],
            {"asker": asker.id, "text": lonely, "channel": it_help.id},
            setup=_steps(_background(session, rng, self.split, 1, (actor, asker, helped, helper, later, lead)),
                         _post(helped.id, it_help.id, answered), _post(asker.id, it_help.id, lonely),
                         _post(helper.id, it_help.id, "Try restarting it, that fixed it for me.", answered),
                         _post(later.id, it_help.id, followed),
                         _post(helper.id, it_help.id, "Known issue, a fix goes out this afternoon.", followed)))

    def declare(self, start, inst):
        p = inst.params
        lead = _it_lead(start)
        question = find_message(start, p["asker"], p["channel"], p["text"])
        return Declaration([_message_target(start, question)],
                           [Claim(Candidate.person(lead), people_except(start, lead, p["asker"], inst.actor_id),
                                  "text", "person")])

    def check(self, ctx, inst):
        p = inst.params
        declared = self.declare(ctx.start, inst)
        question, claim, lead = declared.targets[0].ref, declared.claims[0], _it_lead(ctx.start)
        replies = [r for r in added_messages(ctx, ctx.actor_id) if r["thread_parent_id"] == question]
        tagged = set().union(*[mentions_of(ctx.final, r["id"]) for r in replies])
        return [check("You replied in the thread of the unanswered question", replies, "no reply in that thread"),
                check(f"The reply @mentions the IT support lead @{lead.handle}", lead.id in tagged,
                      f"replies: {[r['text'] for r in replies][:3]}", weight=2),
                says([r["text"] for r in replies], claim.right, claim.others, f"The reply names {lead.name}",
                     claim.kind)[1],  # the requirement is the mention above; this is the guard
                guard("The reply mentions nobody but the lead (and the asker)", tagged <= {lead.id, p["asker"]},
                      f"it also mentions person ids {sorted(tagged - {lead.id, p['asker']})}"),
                nothing_else_changed(ctx.diff, allow_posts(ctx, p["channel"], question))]


def _it_lead(session: Session) -> Person:
    """The lead of the IT support team."""
    return session.get(Person, session.scalar(select(Team.lead_id).where(Team.slug == "it-support")))
