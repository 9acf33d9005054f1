"""Chat task templates about messages and threads: reply with a fact, thank an announcer, clean
up a leaked password, acknowledge a request, pin a shared link, fix a typo, pick up an
unanswered question."""

from __future__ import annotations

import random
import string

from sqlalchemy import select
from sqlalchemy.orm import Session

from officegym.apps.chat import services as chat
from officegym.apps.chat.models import Channel, Message, Pin, Reaction
from officegym.apps.org.models import Person
from officegym.graders.checks import Allow, check, nothing_else_changed

from .base import Ref, TaskInstance, TaskTemplate, ToolCall
from .common import (added_messages, allow_posts, channel_named, channels_of, contains_text, find_message,
                     member_ids, members, mentions_of, pick)
from .registry import register
from . import chat_vocab as vocab


def _actor_and_channel(session: Session, rng: random.Random, min_members: int = 3) -> tuple[Person, Channel]:
    """A member (not the owner) and one of their open channels with at least `min_members` people."""
    for _ in range(200):
        actor = pick(rng, members(session))
        options = [c for c in channels_of(session, actor.id) if len(member_ids(session, c.id)) >= min_members]
        if options:
            return actor, pick(rng, options)
    raise RuntimeError("no member has a channel with enough people")


def _colleague(session: Session, rng: random.Random, channel: Channel, *exclude: Person) -> Person:
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
    def run(session: Session) -> None:
        for step in steps:
            step(session)
    return run


@register
class ReplyWithFact(TaskTemplate):
    id, apps, difficulty = "chat.reply_with_fact", ("chat", "org"), 2
    summary = "Answer a colleague's question that mentions you, in its thread, with a fact from the directory."

    def sample(self, session, rng, instance):
        actor, channel = _actor_and_channel(session, rng)
        asker = _colleague(session, rng, channel, actor)
        subject = pick(rng, [p for p in members(session) if p.id not in (actor.id, asker.id) and p.manager_id])
        kind = pick(rng, sorted(vocab.FACT_QUESTIONS))
        text = f"@{actor.handle} {pick(rng, vocab.OPENERS)} {vocab.FACT_QUESTIONS[kind].format(name=subject.name)}"
        answer = _fact(session, subject, kind)
        return TaskInstance(
            self.id, instance, actor.id,
            f"{asker.name} asked you something in #{channel.name} and mentioned you. Look the answer up and "
            "reply in the thread of their question.",
            [ToolCall("chat_list_mentions", {"limit": 1}),
             ToolCall("chat_post_message", {"channel": channel.name, "text": f"It's {answer}.",
                                            "thread_parent_id": Ref(0, "items.0.id")})],
            {"asker": asker.id, "channel": channel.id, "text": text, "subject": subject.id, "kind": kind},
            setup=_post(asker.id, channel.id, text))

    def check(self, ctx, inst):
        p = inst.params
        question = find_message(ctx.start, p["asker"], p["channel"], p["text"])
        subject = ctx.start.get(Person, p["subject"])
        expected = _fact(ctx.start, subject, p["kind"])
        replies = [r for r in added_messages(ctx, ctx.actor_id) if r["thread_parent_id"] == question.id]
        accepted = [expected] + ([f"@{ctx.start.get(Person, subject.manager_id).handle}"] if p["kind"] == "manager" else [])
        right = [r for r in replies if any(contains_text(r["text"], a) for a in accepted)]
        return [check("You replied in the thread of the question", replies, "no reply of yours in that thread"),
                check(f"The reply gives {subject.name}'s {p['kind']}: {expected}", right,
                      f"replies found: {[r['text'] for r in replies][:3]}", weight=2),
                nothing_else_changed(ctx.diff, allow_posts(ctx, p["channel"], question.id))]


def _fact(session: Session, person: Person, kind: str) -> str:
    if kind == "manager":
        return session.get(Person, person.manager_id).name
    return {"timezone": person.timezone, "title": person.title, "location": person.location}[kind]


@register
class ThankAnnouncer(TaskTemplate):
    id, apps, difficulty = "chat.thank_announcer", ("chat",), 2
    split = "test"
    summary = "Find who announced something in #general and thank them by direct message."

    def sample(self, session, rng, instance):
        general = channel_named(session, "general")
        topic, other = rng.sample(sorted(vocab.ANNOUNCEMENTS), 2)
        announcer, distractor, actor = rng.sample(members(session), 3)
        text, decoy = vocab.ANNOUNCEMENTS[topic][0], vocab.ANNOUNCEMENTS[other][0]
        return TaskInstance(
            self.id, instance, actor.id,
            f"Someone announced in #general that {vocab.ANNOUNCEMENTS[topic][1]}. Find who it was and send "
            "them a direct message thanking them.",
            [ToolCall("chat_open_conversation", {"people": [f"@{announcer.handle}"]}),
             ToolCall("chat_post_message", {"channel": Ref(0, "id"), "text": "Thanks for the announcement!"})],
            {"announcer": announcer.id, "topic": topic},
            setup=_steps(_post(announcer.id, general.id, f"Heads up everyone: {text}"),
                         _post(distractor.id, general.id, f"Also: {decoy}")))

    def check(self, ctx, inst):
        announcer = ctx.start.get(Person, inst.params["announcer"])
        name = chat.conversation_name([announcer, ctx.start.get(Person, ctx.actor_id)])
        dm = ctx.final.scalar(select(Channel).where(Channel.name == name))
        sent = [r for r in added_messages(ctx, ctx.actor_id) if dm is not None and r["channel_id"] == dm.id]
        allowed = [Allow("chat_channel", ("added",), lambda row: row["name"] == name),
                   Allow("chat_membership", ("added",), lambda row: dm is not None and row["channel_id"] == dm.id)]
        return [check(f"You sent {announcer.name} a direct message", sent,
                      "no new message of yours in a DM with the announcer", weight=2),
                nothing_else_changed(ctx.diff, allowed + allow_posts(ctx, dm.id if dm else -1))]


@register
class CleanLeakedPassword(TaskTemplate):
    id, apps, difficulty = "chat.clean_leaked_password", ("chat",), 3
    summary = "Delete your messages that leaked a password and ask #security to rotate it."

    def sample(self, session, rng, instance):
        security = channel_named(session, "security")
        for _ in range(200):
            actor = pick(rng, members(session))
            places = [c for c in channels_of(session, actor.id) if c.name != "security"]
            if len(places) >= 2:
                break
        first, second = rng.sample(places, 2)
        system = pick(rng, vocab.SYSTEMS)
        secret = "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(10)) + "!"
        leaks = [(first.id, f"the {system} admin password is {secret} if anyone needs it"),
                 (second.id, f"for {system} use {secret} until IT sets you up")]
        keep = (first.id, pick(rng, vocab.HARMLESS))
        steps = [ToolCall("chat_search_messages", {"query": secret, "author": f"@{actor.handle}"})]
        steps += [ToolCall("chat_delete_message", {"message_id": Ref(0, f"items.{i}.id")}) for i in range(2)]
        if actor.id not in member_ids(session, security.id):
            steps.append(ToolCall("chat_join_channel", {"channel": "security"}))
        steps.append(ToolCall("chat_post_message", {"channel": "security", "text":
                                                    f"I leaked the {system} password in chat; please rotate it."}))
        return TaskInstance(
            self.id, instance, actor.id,
            f"Earlier today you pasted the {system} password into chat by mistake. Delete every message of yours "
            f"that contains it, then post in #security that the {system} password must be rotated "
            "(without repeating the password).",
            steps, {"secret": secret, "system": system, "leaks": leaks, "keep": keep, "security": security.id},
            setup=_steps(*[_post(actor.id, c, t) for c, t in leaks], _post(actor.id, *keep)))

    def check(self, ctx, inst):
        p = inst.params
        leaked = [find_message(ctx.start, ctx.actor_id, c, t) for c, t in p["leaks"]]
        gone = [m for m in leaked if ctx.final.get(Message, m.id).deleted_at is not None]
        notes = [r for r in added_messages(ctx, ctx.actor_id) if r["channel_id"] == p["security"]]
        good = [r for r in notes if contains_text(r["text"], p["system"]) and p["secret"] not in r["text"]]
        ids = {m.id for m in leaked}
        allowed = allow_posts(ctx, p["security"]) + [
            Allow("chat_message", ("updated",), lambda row: row["id"] in ids, ("text", "deleted_at")),
            Allow("chat_membership", ("added",),
                  lambda row: row["person_id"] == ctx.actor_id and row["channel_id"] == p["security"])]
        for model in ("chat_reaction", "chat_mention", "chat_pin"):
            allowed.append(Allow(model, ("removed",), lambda row: row["message_id"] in ids))
        return [check("Every message of yours containing the password is deleted", len(gone) == len(leaked),
                      f"{len(leaked) - len(gone)} of {len(leaked)} leaking messages remain", weight=2),
                check("No message anywhere still contains the password",
                      not any(p["secret"] in r["text"] for r in added_messages(ctx)), "a new message repeats it"),
                check(f"You asked #security to rotate the {p['system']} password", good,
                      f"messages of yours in #security: {[r['text'] for r in notes][:3]}"),
                nothing_else_changed(ctx.diff, allowed)]


@register
class AcknowledgeRequest(TaskTemplate):
    id, apps, difficulty = "chat.acknowledge_request", ("chat",), 1
    summary = "React with a check mark to the message in which a colleague asked you for something."

    def sample(self, session, rng, instance):
        actor, channel = _actor_and_channel(session, rng, 4)
        asker = _colleague(session, rng, channel, actor)
        other = _colleague(session, rng, channel, actor, asker)
        doc = pick(rng, vocab.DOCUMENTS)
        text = f"@{actor.handle} could you review the {doc} when you have a minute?"
        return TaskInstance(
            self.id, instance, actor.id,
            f"{asker.name} asked you in #{channel.name} to review the {doc}. Acknowledge it by reacting to "
            "their message with :white_check_mark:.",
            [ToolCall("chat_search_messages", {"query": f"review the {doc}", "channel": channel.name,
                                               "author": f"@{asker.handle}"}),
             ToolCall("chat_add_reaction", {"message_id": Ref(0, "items.0.id"), "emoji": "white_check_mark"})],
            {"asker": asker.id, "channel": channel.id, "text": text},
            setup=_steps(_post(asker.id, channel.id, text),
                         _post(other.id, channel.id, f"could someone review the {doc} draft too?")))

    def check(self, ctx, inst):
        p = inst.params
        target = find_message(ctx.start, p["asker"], p["channel"], p["text"])
        found = ctx.final.scalar(select(Reaction.id).where(Reaction.message_id == target.id,
                                                           Reaction.person_id == ctx.actor_id,
                                                           Reaction.emoji == "white_check_mark"))
        allowed = [Allow("chat_reaction", ("added",), lambda row: row["message_id"] == target.id
                         and row["person_id"] == ctx.actor_id and row["emoji"] == "white_check_mark")]
        return [check("You reacted with :white_check_mark: to the request", found,
                      "no such reaction of yours on that message", weight=2),
                nothing_else_changed(ctx.diff, allowed)]


@register
class PinSharedLink(TaskTemplate):
    id, apps, difficulty = "chat.pin_shared_link", ("chat",), 1
    summary = "Pin the message in which a named colleague shared a document link."

    def sample(self, session, rng, instance):
        actor, channel = _actor_and_channel(session, rng, 4)
        sharer = _colleague(session, rng, channel, actor)
        other = _colleague(session, rng, channel, actor, sharer)
        doc, decoy = rng.sample(vocab.DOCUMENTS, 2)
        slug = lambda d: d.replace(" ", "-")  # noqa: E731
        text = f"Here is the {doc}: https://docs.example.com/{slug(doc)}-{rng.randrange(1000, 9999)}"
        return TaskInstance(
            self.id, instance, actor.id,
            f"Pin the message in #{channel.name} where {sharer.name} shared the link to the {doc}.",
            [ToolCall("chat_search_messages", {"query": f"{doc} https", "channel": channel.name,
                                               "author": f"@{sharer.handle}"}),
             ToolCall("chat_pin_message", {"message_id": Ref(0, "items.0.id")})],
            {"sharer": sharer.id, "channel": channel.id, "text": text},
            setup=_steps(_post(sharer.id, channel.id, text),
                         _post(other.id, channel.id, f"and the {decoy}: https://docs.example.com/{slug(decoy)}")))

    def check(self, ctx, inst):
        p = inst.params
        target = find_message(ctx.start, p["sharer"], p["channel"], p["text"])
        pinned = ctx.final.scalar(select(Pin.id).where(Pin.message_id == target.id))
        allowed = [Allow("chat_pin", ("added",), lambda row: row["message_id"] == target.id)]
        return [check("The message with the link is pinned", pinned, "it is not pinned", weight=2),
                nothing_else_changed(ctx.diff, allowed)]


@register
class FixTypo(TaskTemplate):
    id, apps, difficulty = "chat.fix_typo", ("chat",), 1
    summary = "Edit your own message to correct a misspelt word."

    def sample(self, session, rng, instance):
        actor, channel = _actor_and_channel(session, rng)
        wrong, right = pick(rng, vocab.TYPOS)
        template = pick(rng, vocab.TYPO_SENTENCES)
        text = template.format(word=wrong)
        return TaskInstance(
            self.id, instance, actor.id,
            f"Your latest message in #{channel.name} misspells \"{right}\" as \"{wrong}\". Edit it to fix the "
            "spelling and change nothing else.",
            [ToolCall("chat_search_messages", {"query": wrong, "channel": channel.name, "author": f"@{actor.handle}"}),
             ToolCall("chat_edit_message", {"message_id": Ref(0, "items.0.id"), "text": template.format(word=right)})],
            {"channel": channel.id, "text": text, "fixed": template.format(word=right)},
            setup=_post(actor.id, channel.id, text))

    def check(self, ctx, inst):
        p = inst.params
        target = find_message(ctx.start, ctx.actor_id, p["channel"], p["text"])
        now = ctx.final.get(Message, target.id)
        allowed = [Allow("chat_message", ("updated",), lambda row: row["id"] == target.id, ("text", "edited_at"))]
        return [check("The message now reads with the word spelt right", now.text.strip() == p["fixed"]
                      and now.deleted_at is None, f"it reads {now.text!r}", weight=2),
                nothing_else_changed(ctx.diff, allowed)]


@register
class PickUpUnanswered(TaskTemplate):
    id, apps, difficulty = "chat.pick_up_unanswered", ("chat", "org"), 3
    split = "test"
    summary = "Find today's unanswered question in #it-help and reply in its thread mentioning the IT support lead."

    def sample(self, session, rng, instance):
        it_help = channel_named(session, "it-help")
        lead = _it_lead(session)
        people = sorted(member_ids(session, it_help.id) - {lead.id})
        actor, asker, helped, helper = [session.get(Person, i) for i in rng.sample(people, 4)]
        lonely, answered = rng.sample(vocab.IT_QUESTIONS, 2)
        return TaskInstance(
            self.id, instance, actor.id,
            "One question posted today in #it-help has had no reply yet. Reply in its thread and mention the "
            "lead of the IT support team (by @handle) so they pick it up.",
            [ToolCall("chat_search_messages", {"query": lonely, "channel": "it-help"}),
             ToolCall("chat_post_message", {"channel": "it-help", "thread_parent_id": Ref(0, "items.0.id"),
                                            "text": f"@{lead.handle} could you take this one?"})],
            {"asker": asker.id, "text": lonely, "channel": it_help.id},
            setup=_steps(_post(helped.id, it_help.id, answered), _post(asker.id, it_help.id, lonely),
                         _post(helper.id, it_help.id, "Try restarting it, that fixed it for me.", answered)))

    def check(self, ctx, inst):
        p = inst.params
        question = find_message(ctx.start, p["asker"], p["channel"], p["text"])
        lead = _it_lead(ctx.start)
        replies = [r for r in added_messages(ctx, ctx.actor_id) if r["thread_parent_id"] == question.id]
        tagged = [r for r in replies if lead.id in mentions_of(ctx.final, r["id"])]
        return [check("You replied in the thread of the unanswered question", replies, "no reply in that thread"),
                check(f"The reply mentions the IT support lead @{lead.handle}", tagged,
                      f"replies: {[r['text'] for r in replies][:3]}", weight=2),
                nothing_else_changed(ctx.diff, allow_posts(ctx, p["channel"], question.id))]


def _it_lead(session: Session) -> Person:
    from officegym.apps.org.models import Team

    team = session.scalar(select(Team).where(Team.slug == "it-support"))
    return session.get(Person, team.lead_id)
