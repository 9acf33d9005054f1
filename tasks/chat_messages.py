"""Chat task templates about messages already posted: clean up a leaked password, acknowledge a
review request, pin a shared link, fix a typo."""

from __future__ import annotations

import string

from sqlalchemy import func, select

from officegym.apps.chat.models import Mention, Message, Pin, Reaction
from officegym.graders.checks import Allow, check, guard, nothing_else_changed
from officegym.graders.statements import Candidate, says

from . import chat_vocab as vocab
from .base import Claim, Declaration, Ref, TaskInstance, TaskTemplate, ToolCall
from .chat import (_actor_and_channel, _added, _background, _colleague, _message_target, _post, _posts_mentioning,
                   _steps, later_chatter)
from .common import (added_messages, allow_posts, channel_named, channels_of, find_message, member_ids, members,
                     named, pick)
from .registry import register
from .split import person_in


ROTATE = Candidate.text(*vocab.ROTATE)


@register
class CleanLeakedPassword(TaskTemplate):
    id, apps, difficulty = "chat.clean_leaked_password", ("chat", "tickets"), 3
    rules = ("Leaked secrets: passwords, keys and tokens",)
    summary = "Delete your messages that leaked a password (and only those) and ask #security to rotate it."

    def sample(self, session, rng, instance):
        people = [p for p in members(session) if person_in(self.split, p.id)]
        for _ in range(200):
            actor = pick(rng, people)
            places = [c for c in channels_of(session, actor.id) if c.name != "security"]
            if len(places) >= 2:
                break
        first, second = rng.sample(places, 2)
        system = pick(rng, vocab.SYSTEMS)
        secret = "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(10)) + "!"
        harmless = rng.sample(vocab.HARMLESS, 2)
        posts = [(first.id, f"the {system} admin password is {secret} if anyone needs it"), (first.id, harmless[0]),
                 (second.id, f"for {system} use {secret} until IT sets you up"), (second.id, harmless[1])]
        steps = [ToolCall("tickets_search_articles", {"query": "leaked"}),
                 ToolCall("tickets_get_article", {"article": "Leaked secrets: passwords, keys and tokens"}),
                 ToolCall("chat_search_messages", {"query": f"{system} password", "author": f"@{actor.handle}"}),
                 ToolCall("chat_search_messages", {"query": secret, "author": f"@{actor.handle}"})]
        steps += [ToolCall("chat_delete_message", {"message_id": Ref(3, f"items.{i}.id")}) for i in range(2)]
        if actor.id not in member_ids(session, channel_named(session, "security").id):
            steps.append(ToolCall("chat_join_channel", {"channel": "security"}))
        steps.append(ToolCall("chat_post_message", {"channel": "security", "text":
                                                    f"I leaked the {system} password in chat this morning; the "
                                                    "messages are deleted and it must be rotated."}))
        return TaskInstance(
            self.id, instance, actor.id,
            f"Earlier today you pasted the {system} password into chat by mistake. Clean it up as the handbook's "
            "article on leaked secrets says, for every message of yours that contains it (leave every other message "
            "alone), with one message in #security. Change nothing else.",
            steps, {"secret": secret, "system": system},
            setup=_steps(_background(session, rng, self.split, 0, (actor,)),
                         *[_post(actor.id, c, t) for c, t in posts]))

    def declare(self, start, inst):
        p = inst.params
        leaks = list(start.scalars(select(Message).where(Message.author_id == inst.actor_id,
                                                         Message.deleted_at.is_(None),
                                                         Message.text.contains(p["secret"])).order_by(Message.id)))
        targets = [_message_target(start, m, inst.actor_id) for m in leaks]
        for target in targets:  # the other leak is no look-alike: deleting it is part of the task
            target.lookalikes = [i for i in target.lookalikes if i not in {m.id for m in leaks}]
        systems = [Candidate.text(s) for s in vocab.SYSTEMS if s != p["system"]]
        return Declaration(targets, [Claim(Candidate.text(p["system"]), systems, "text", "system"),
                                     Claim(ROTATE, [], "text", "request")], fix=True)

    def check(self, ctx, inst):
        p = inst.params
        declared = self.declare(ctx.start, inst)
        leaks = [t.ref for t in declared.targets]
        remaining = [i for i in leaks if ctx.final.get(Message, i).deleted_at is None]
        security = channel_named(ctx.start, "security").id
        notes = [r["text"] for r in added_messages(ctx, ctx.actor_id) if r["channel_id"] == security]
        written = [r["text"] for r in ctx.diff.table("chat_message").added]
        written += [u.after["text"] for u in ctx.diff.table("chat_message").updated]
        system, rotate = declared.claims
        allowed = allow_posts(ctx, security) + [
            Allow("chat_message", ("updated",), lambda row: row["id"] in leaks, ("text", "deleted_at"), len(leaks)),
            Allow("chat_membership", ("added",), lambda row: row["person_id"] == ctx.actor_id
                  and row["channel_id"] == security)]
        for model in (Reaction, Mention, Pin):  # deleting a message takes these with it
            attached = ctx.start.scalar(select(func.count()).select_from(model).where(model.message_id.in_(leaks)))
            allowed.append(Allow(model.__tablename__, ("removed",), lambda row: row["message_id"] in leaks,
                                 limit=attached))
        return [check("Every message of yours containing the password is deleted", leaks and not remaining,
                      f"{len(remaining)} of {len(leaks)} leaking messages remain", weight=2),
                *says(notes, system.right, system.others, f"Your message in #security names the {p['system']} "
                      "password", system.kind, weight=1, deniable=False),
                *says(notes, rotate.right, [], "It asks for the password to be rotated", rotate.kind, weight=1),
                guard("No new or edited message repeats the password", not any(p["secret"] in t for t in written),
                      "a message you wrote contains it"),
                nothing_else_changed(ctx.diff, allowed)]


@register
class AcknowledgeRequest(TaskTemplate):
    id, apps, difficulty = "chat.acknowledge_request", ("chat",), 2
    summary = "Acknowledge a review request: confirm its deadline in the thread and react with a check mark."

    def sample(self, session, rng, instance):
        actor, channel = _actor_and_channel(session, rng, self.split, 4)
        asker = _colleague(session, rng, channel, actor)
        other = _colleague(session, rng, channel, actor, asker)
        doc = pick(rng, vocab.DOCUMENTS)
        day, other_day = rng.sample(vocab.WEEKDAYS, 2)
        text = f"@{actor.handle} could you review the {doc} by {day}?"
        return TaskInstance(
            self.id, instance, actor.id,
            f"{named(session, asker)} asked you in #{channel.name} to review the {doc}. Acknowledge it: reply once in the "
            "thread of their message confirming the day they need it by, and react to their message with "
            ":white_check_mark: (nothing else).",
            [ToolCall("chat_search_messages", {"query": f"review the {doc}", "channel": channel.name,
                                               "author": f"@{asker.handle}"}),
             ToolCall("chat_post_message", {"channel": channel.name, "thread_parent_id": Ref(0, "items.0.id"),
                                            "text": f"Sure, I'll have it reviewed by {day}."}),
             ToolCall("chat_add_reaction", {"message_id": Ref(0, "items.0.id"), "emoji": "white_check_mark"})],
            {"asker": asker.id, "channel": channel.id, "text": text, "day": day},
            setup=_steps(_background(session, rng, self.split, 0, (actor, asker, other)),
                         _post(asker.id, channel.id, text),
                         _post(other.id, channel.id, f"could someone review the {doc} draft too, by {other_day}?")))

    def declare(self, start, inst):
        p = inst.params
        days = [Candidate.text(d) for d in vocab.WEEKDAYS if d != p["day"]]
        return Declaration([_message_target(start, find_message(start, p["asker"], p["channel"], p["text"]))],
                           [Claim(Candidate.text(p["day"]), days, "text", "day")])

    def check(self, ctx, inst):
        p = inst.params
        declared = self.declare(ctx.start, inst)
        target, day = declared.targets[0].ref, declared.claims[0]
        replies = [r["text"] for r in _added(ctx, "chat_message", author_id=ctx.actor_id, thread_parent_id=target)]
        wanted = {"message_id": target, "person_id": ctx.actor_id, "emoji": "white_check_mark"}
        allowed = [Allow("chat_reaction", ("added",), lambda row: all(row[k] == v for k, v in wanted.items())),
                   *_posts_mentioning(ctx, p["channel"], {p["asker"]}, target)]
        return [check("You replied in the thread of the request", replies, "no reply of yours in that thread"),
                *says(replies, day.right, day.others, f"The reply confirms {p['day']}", day.kind, weight=1),
                check("You reacted with :white_check_mark: to the request", _added(ctx, "chat_reaction", **wanted),
                      "no new reaction of yours with that emoji on that message", weight=2),
                nothing_else_changed(ctx.diff, allowed)]


@register
class PinSharedLink(TaskTemplate):
    id, apps, difficulty = "chat.pin_shared_link", ("chat",), 1
    summary = "Pin the message in which a named colleague shared a document link."

    def sample(self, session, rng, instance):
        actor, channel = _actor_and_channel(session, rng, self.split, 4)
        sharer = _colleague(session, rng, channel, actor)
        other = _colleague(session, rng, channel, actor, sharer)
        doc, decoy = rng.sample(vocab.DOCUMENTS, 2)
        slug = lambda d: d.replace(" ", "-")  # noqa: E731
        text = f"Here is the {doc}: https://docs.example.com/{slug(doc)}-{rng.randrange(1000, 9999)}"
        return TaskInstance(
            self.id, instance, actor.id,
            f"Pin the message in #{channel.name} where {named(session, sharer)} shared the link to the {doc}, and "
            "change nothing else.",
            [ToolCall("chat_search_messages", {"query": f"{doc} https", "channel": channel.name,
                                               "author": f"@{sharer.handle}"}),
             ToolCall("chat_pin_message", {"message_id": Ref(0, "items.0.id")})],
            {"sharer": sharer.id, "channel": channel.id, "text": text},
            setup=_steps(_background(session, rng, self.split, 0, (actor, sharer, other)),
                         _post(sharer.id, channel.id, text),
                         _post(other.id, channel.id, f"and the {decoy}: https://docs.example.com/{slug(decoy)}")))

    def declare(self, start, inst):
        p = inst.params
        return Declaration([_message_target(start, find_message(start, p["sharer"], p["channel"], p["text"]))])

    def check(self, ctx, inst):
        target = self.declare(ctx.start, inst).targets[0].ref
        allowed = [Allow("chat_pin", ("added",), lambda row: row["message_id"] == target)]
        return [check("The message with the link is pinned", _added(ctx, "chat_pin", message_id=target),
                      "it is not pinned", weight=2),
                nothing_else_changed(ctx.diff, allowed)]


@register
class FixTypo(TaskTemplate):
    id, apps, difficulty = "chat.fix_typo", ("chat",), 1
    summary = "Edit your own message to correct a misspelt word."

    def sample(self, session, rng, instance):
        actor, channel = _actor_and_channel(session, rng, self.split)
        wrong, right = pick(rng, vocab.TYPOS)
        template, later = rng.sample(vocab.TYPO_SENTENCES, 2)
        text = template.format(word=wrong)
        spelt_right = later.format(word=pick(rng, [r for _, r in vocab.TYPOS if r != right]))
        return TaskInstance(
            self.id, instance, actor.id,
            f"One of your recent messages in #{channel.name} misspells \"{right}\" as \"{wrong}\". Edit it to fix "
            "the spelling and change nothing else.",
            [ToolCall("chat_search_messages", {"query": wrong, "channel": channel.name, "author": f"@{actor.handle}"}),
             ToolCall("chat_edit_message", {"message_id": Ref(0, "items.0.id"), "text": template.format(word=right)})],
            {"channel": channel.id, "text": text, "fixed": template.format(word=right), "right": right},
            setup=_steps(_post(actor.id, channel.id, pick(rng, vocab.HARMLESS)),
                         _background(session, rng, self.split, 1, (actor,)), _post(actor.id, channel.id, text),
                         later_chatter(session, rng, channel.id, (actor,), 1),
                         _post(actor.id, channel.id, spelt_right)))

    def declare(self, start, inst):
        p = inst.params
        message = find_message(start, inst.actor_id, p["channel"], p["text"])
        others = [Candidate.text(t.format(word=p["right"])) for t in vocab.TYPO_SENTENCES]
        return Declaration([_message_target(start, message, inst.actor_id)],
                           [Claim(Candidate.text(p["fixed"]), [c for c in others if c.label != p["fixed"]],
                                  "text", "message text")], fix=True)

    def check(self, ctx, inst):
        target = self.declare(ctx.start, inst).targets[0].ref
        now = ctx.final.get(Message, target)
        allowed = [Allow("chat_message", ("updated",), lambda row: row["id"] == target, ("text", "edited_at"))]
        return [check("The message now reads with the word spelt right, and nothing else changed in it",
                      now.text == inst.params["fixed"] and now.deleted_at is None, f"it reads {now.text!r}", weight=2),
                nothing_else_changed(ctx.diff, allowed)]
