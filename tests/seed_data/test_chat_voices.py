"""Chat reads as written by people: the same everyday reply comes out in each person's own words,
so no text repeats across a crowd of authors, and a person keeps their own habits."""

from __future__ import annotations

from collections import Counter, defaultdict

import pytest
from sqlalchemy import func, select

from officegym.apps.chat.models import Message
from officegym.apps.org.models import Person
from officegym.db import make_sessionmaker, sqlite_engine
from officegym.seed_data.chat_voice import SAME_REPLY, Voice


def authors_by_text(store, scale: str) -> tuple[dict[str, set[int]], Counter, int]:
    """For every message text of a world: who wrote it and how often it appears; and how many
    people the company has."""
    world = store.world(scale, 0)
    authors: dict[str, set[int]] = defaultdict(set)
    uses: Counter = Counter()
    with make_sessionmaker(sqlite_engine(str(world.path), readonly=True))() as session:
        for text, author in session.execute(select(Message.text, Message.author_id)):
            authors[text].add(author)
            uses[text] += 1
        people = session.scalar(select(func.count()).select_from(Person))
    return authors, uses, people


@pytest.mark.parametrize("scale", ["small", "medium"])
def test_no_sentence_is_written_word_for_word_by_a_crowd(store, scale):
    authors, uses, people = authors_by_text(store, scale)
    total = sum(uses.values())
    assert total > 1000
    sentences = [text for text in authors if len(text.split()) >= 6]
    widest = max(sentences, key=lambda text: len(authors[text]))
    assert len(authors[widest]) <= people / 6, f"{widest!r} is written by {len(authors[widest])} of {people} people"
    # Even counting short replies ("+1"), texts that a tenth of the company wrote word for word
    # are at most a tenth of the chat.
    common = sum(uses[text] for text in authors if len(authors[text]) >= people / 10)
    assert common <= total / 10, f"{common} of {total} messages are what a tenth of the company wrote"


def test_a_thanks_is_said_in_many_ways_across_a_company(store):
    _, uses, _ = authors_by_text(store, "medium")
    thanks = {text: n for text, n in uses.items() if text.lower().startswith(("thank", "thx", "cheers", "much appr"))
              and len(text) < 30}
    assert len(thanks) >= 20
    assert max(thanks.values()) <= sum(thanks.values()) / 5


def test_a_voice_is_the_same_for_the_same_person_and_differs_between_people():
    first, again, other = Voice("Acme", 7), Voice("Acme", 7), Voice("Acme", 8)
    said = [first.reply(group[0], "Ana") for group in SAME_REPLY for _ in range(3)]
    assert said == [again.reply(group[0], "Ana") for group in SAME_REPLY for _ in range(3)]
    assert said != [other.reply(group[0], "Ana") for group in SAME_REPLY for _ in range(3)]
    # A person favours one wording of each reply, so most of what they say repeats their own habit.
    picks = Counter(Voice("Acme", 9).pick(["a", "b", "c", "d", "e"]) for _ in range(200))
    assert picks.most_common(1)[0][1] >= 100


def test_a_voice_keeps_names_keys_and_numbers_as_they_are():
    for person in range(40):
        voice = Voice("Acme", person)
        for text in ["IT-42 is fixed, @lori.wright confirmed.", "#it-help has the answer", "Acme renewed, $120,000."]:
            said = voice.reply(text, "Ana")
            assert said.startswith(text.rstrip(".")), said  # at most a full stop dropped, an emoji added
