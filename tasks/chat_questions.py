"""Chat answer tasks: the agent submits an answer, compared after normalisation. Expected values
are recomputed from the start state when grading."""

from __future__ import annotations

from sqlalchemy import func, select

from officegym.apps.chat.models import Channel, Message, Reaction
from officegym.apps.org.models import Person
from officegym.graders.answers import answer_is_number, answer_is_one_of
from officegym.graders.checks import nothing_else_changed
from officegym.graders.statements import Candidate

from . import chat_vocab as vocab
from .base import Claim, Declaration, TaskInstance, TaskTemplate, Target, ToolCall
from .chat import _background, _post, _steps
from .common import (channel_named, everyone, evenly, find_message, member_ids, members, named, other_counts, owner,
                     pick, top_level_messages)
from .registry import register
from .split import in_split, person_in

EMOJIS = ["thumbsup", "tada", "heart", "rocket", "eyes", "100", "clap", "raised_hands"]


def _react(person_id: int, channel_id: int, text: str, emoji: str):
    def run(session):
        from officegym.apps.chat import services as chat

        message = session.scalars(select(Message).where(Message.channel_id == channel_id,
                                                         Message.text == text)).first()
        chat.add_reaction(session, session.get(Person, person_id), message.id, emoji)
    return run


@register
class CountReactions(TaskTemplate):
    id, apps, difficulty = "chat.count_reactions", ("chat",), 1
    summary = "Count the different people who reacted to the CEO's announcement."
    answered = True

    def sample(self, session, rng, instance):
        general, ceo = channel_named(session, "general"), owner(session)
        topic, decoy = rng.sample(sorted(vocab.ANNOUNCEMENTS), 2)
        text, paraphrase = vocab.ANNOUNCEMENTS[topic]
        decoy_text = vocab.ANNOUNCEMENTS[decoy][0]
        crowd = [p for p in members(session) if p.id in member_ids(session, general.id)]
        reactors = rng.sample(crowd, evenly(rng, instance, range(3, min(14, len(crowd) - 2) + 1), int))
        steps = [_post(ceo.id, general.id, text), _post(ceo.id, general.id, decoy_text)]
        for person in reactors:
            for emoji in rng.sample(EMOJIS, rng.choice((1, 1, 2))):
                steps.append(_react(person.id, general.id, text, emoji))
        for person in rng.sample(crowd, 3):
            steps.append(_react(person.id, general.id, decoy_text, "eyes"))
        asker = pick(rng, [p for p in crowd if p not in reactors and person_in(self.split, p.id)])
        steps.insert(0, _background(session, rng, self.split, 0, (ceo, asker)))
        return TaskInstance(
            self.id, instance, asker.id,
            f"How many different people reacted to {named(session, ceo)}'s announcement in #general saying that "
            f"{paraphrase}? Submit the number with submit_answer.",
            [ToolCall("chat_search_messages", {"query": text, "channel": "general"}),
             ToolCall("submit_answer", {"answer": str(len(reactors))})],
            {"channel": general.id, "text": text, "author": ceo.id}, setup=_steps(*steps))

    def declare(self, start, inst):
        p = inst.params
        message = find_message(start, p["author"], p["channel"], p["text"])
        expected = _reactors(start, message.id)
        decoys = top_level_messages(start, p["channel"], [message.id])
        return Declaration([Target("message", message.id, decoys, {"channel": "general"})],
                           [Claim(Candidate.text(str(expected)), other_counts(expected), "answer", "count")])

    def check(self, ctx, inst):
        declared = self.declare(ctx.start, inst)
        return [answer_is_number(ctx.answer, _reactors(ctx.start, declared.targets[0].ref)),
                nothing_else_changed(ctx.diff, [])]


def _reactors(session, message_id: int) -> int:
    """How many different people reacted to a message."""
    return session.scalar(select(func.count(func.distinct(Reaction.person_id)))
                          .where(Reaction.message_id == message_id))


@register
class BusiestPoster(TaskTemplate):
    id, apps, difficulty = "chat.busiest_poster", ("chat",), 2
    split = "test"
    summary = "Name the person who posted the most messages in a channel (thread replies included or not)."
    answered = True

    def sample(self, session, rng, instance):
        # Each channel asked about with thread replies counted or not: the tests' split has few channels.
        tallies: dict[tuple[int, bool], list[tuple[int, int]]] = {}
        for replies in (True, False):
            for (channel_id, author), n in sorted(_counts(session, replies).items()):
                tallies.setdefault((channel_id, replies), []).append((n, author))
        for tally in tallies.values():
            tally.sort(reverse=True)
        people = everyone(session)
        channels = {channel.id: channel for channel in session.scalars(select(Channel).order_by(Channel.id))
                    if channel.kind in ("public", "private") and not channel.is_archived
                    and in_split(self.split, "channel", channel.name) and _askers(session, channel, people, self.split)}
        busy = [(channels[c], replies) for c, replies in sorted(tallies)
                if c in channels and sum(n for n, _ in tallies[(c, replies)]) >= 8]
        channel, replies = evenly(rng, instance, busy, lambda o: tallies[(o[0].id, o[1])][0][1])  # over the winners
        tally = tallies[(channel.id, replies)]
        steps = []
        if len(tally) > 1 and tally[0][0] == tally[1][0]:  # break a tie so the answer is unique
            steps.append(_post(tally[0][1], channel.id, "One more update from me on this."))
        winner = session.get(Person, tally[0][1])
        asker = pick(rng, _askers(session, channel, people, self.split))
        counting = "counting thread replies" if replies else "not counting thread replies (top-level messages only)"
        return TaskInstance(
            self.id, instance, asker.id,
            f"Who has posted the most messages in #{channel.name}, {counting}? Submit their full "
            "name with submit_answer.",
            [ToolCall("chat_list_messages", {"channel": channel.name, "limit": 100}),
             *([ToolCall("chat_search_messages", {"channel": channel.name, "limit": 100})] if replies else []),
             ToolCall("submit_answer", {"answer": winner.name})],
            {"channel": channel.id, "replies": replies}, setup=_steps(*steps) if steps else None)

    def declare(self, start, inst):
        channel = start.get(Channel, inst.params["channel"])
        counts = _counts(start, inst.params["replies"])
        tally = sorted(((n, a) for (c, a), n in counts.items() if c == channel.id), reverse=True)
        winner = start.get(Person, tally[0][1])
        posters = [start.get(Person, a) for _, a in tally[1:]]
        return Declaration([Target("channel", channel.name, [], {})],
                           [Claim(Candidate.person(winner), [Candidate.person(q) for q in posters], "answer",
                                  "person")])

    def check(self, ctx, inst):
        winner = self.declare(ctx.start, inst).claims[0].right
        return [answer_is_one_of(ctx.answer, list(winner.spellings), winner.label), nothing_else_changed(ctx.diff, [])]


def _counts(session, replies: bool = True) -> dict[tuple[int, int], int]:
    """Messages per (channel, author), thread replies included or not."""
    stmt = select(Message.channel_id, Message.author_id, func.count()).where(Message.deleted_at.is_(None))
    if not replies:
        stmt = stmt.where(Message.thread_parent_id.is_(None))
    rows = session.execute(stmt.group_by(Message.channel_id, Message.author_id))
    return {(c, a): n for c, a, n in rows}


def _askers(session, channel: Channel, people: list[Person], split: str) -> list[Person]:
    """Who of the split may ask about a channel: anyone who can read it (everyone, for a public one)."""
    inside = None if channel.kind == "public" else member_ids(session, channel.id)
    return [p for p in people if person_in(split, p.id) and (inside is None or p.id in inside)]
