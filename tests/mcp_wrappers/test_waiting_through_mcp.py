"""Time that passes, through the real MCP client: a colleague's answer is due when their working
hours and delay say, `chat_wait` brings it (and moves the clock to it), reading moves nothing;
someone out of office answers at once with an auto-reply naming their cover; a task's events
happen at their time or after the agent's k-th write; the same actions meet the same replies at
the same simulated times."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from sqlalchemy import select

from officegym import clock
from officegym.apps.org.models import Absence, Person
from officegym.colleagues import availability, events
from officegym.colleagues.models import PendingReply
from officegym.journal import JournalEntry


@pytest.fixture(scope="module")
def cast(store) -> dict:
    """On the small world: the owner, a colleague with working hours, and someone away with their cover."""
    episode = store.create(scale="small", seed=0)
    try:
        with episode.session() as s:
            owner = episode.actor(s)
            absence = s.scalars(select(Absence).order_by(Absence.id)).first()
            away, cover = s.get(Person, absence.person_id), s.get(Person, absence.cover_id)
            colleague = s.scalars(select(Person).where(Person.id.not_in((owner.id, away.id)))
                                  .order_by(Person.id)).first()
            return {"owner": owner.handle, "colleague": colleague.handle, "away": away.handle, "cover": cover.handle,
                    "back": absence.ends_at}
    finally:
        store.delete(episode.id)


def _now(agent) -> datetime:
    with agent.episode.session() as s:
        return clock.now(s)


def test_a_wait_with_nothing_to_come_lasts_its_bound(agent_as, cast):
    agent = agent_as(cast["owner"])
    before = _now(agent)
    got = agent.ok("chat_wait", {"minutes": 45})
    assert got["messages"] == [] and got["minutes_waited"] == 45
    assert _now(agent) == before + timedelta(minutes=45) and got["now"] == _now(agent).isoformat()


def test_the_answer_comes_when_the_colleague_is_due_and_reading_moves_no_time(agent_as, cast):
    agent = agent_as(cast["owner"])
    channel = agent.ok("chat_open_conversation", {"people": [cast["colleague"]]})["id"]
    posted = agent.ok("chat_post_message", {"channel": channel, "text": "Hi, got a minute?"})
    with agent.episode.session() as s:
        owed = s.scalar(select(PendingReply).where(PendingReply.message_id == posted["id"]))
        due = availability.reply_due(s.get(Person, owed.person_id), posted["id"], datetime.fromisoformat(
            posted["created_at"]))
    assert owed.due_at == due > datetime.fromisoformat(posted["created_at"])
    read_at = _now(agent)
    for _ in range(3):
        agent.ok("chat_list_messages", {"channel": channel})
    assert _now(agent) == read_at
    assert agent.ok("chat_list_messages", {"channel": channel})["items"][0]["id"] == posted["id"]  # still the newest
    got = agent.ok("chat_wait", {"minutes": 480, "channel": channel})
    assert [m["author"] for m in got["messages"]] == [cast["colleague"]] and "?" in got["messages"][0]["text"]
    assert due <= _now(agent) < due + clock.TICK  # the wait stopped when the answer came
    assert datetime.fromisoformat(got["messages"][0]["created_at"]) == _now(agent)


def test_the_same_actions_meet_the_same_replies_at_the_same_times(agent_as, cast):
    seen = []
    for _ in range(2):
        agent = agent_as(cast["owner"])
        channel = agent.ok("chat_open_conversation", {"people": [cast["colleague"]]})["id"]
        agent.ok("chat_post_message", {"channel": channel, "text": "Can you check the discount for me?"})
        got = agent.ok("chat_wait", {"minutes": 480})["messages"]
        seen.append([(m["author"], m["text"], m["created_at"]) for m in got])
    assert seen[0] == seen[1] and seen[0]


def test_someone_away_answers_at_once_with_their_cover_and_nothing_else(agent_as, cast):
    agent = agent_as(cast["owner"])
    channel = agent.ok("chat_open_conversation", {"people": [cast["away"]]})["id"]
    agent.ok("chat_post_message", {"channel": channel, "text": "Could you send me the onboarding checklist?"})
    replies = [m for m in agent.ok("chat_list_messages", {"channel": channel})["items"] if m["author"] == cast["away"]]
    assert len(replies) == 1 and f"@{cast['cover']}" in replies[0]["text"]
    assert "out of office until" in replies[0]["text"] and cast["back"].strftime("%B") in replies[0]["text"]
    # The auto-reply came with the post, so the first wait hands it over; no other answer follows,
    # however long the agent waits.
    assert [m["id"] for m in agent.wait_out(channel)] == [replies[0]["id"]]


def _plant(agent, *planned: events.Event) -> None:
    with agent.episode.session("setup") as s:
        events.schedule(s, list(planned))


def test_an_event_at_a_time_arrives_when_the_clock_gets_there(agent_as, cast):
    agent = agent_as(cast["owner"])
    with agent.episode.session() as s:
        them, at = s.scalar(select(Person.id).where(Person.handle == cast["colleague"])), clock.now(s)
    _plant(agent, events.Event("message", them, {"dm_with": cast["owner"], "text": "Change of plan: use 12 seats."},
                               at=at + timedelta(minutes=40)))
    assert agent.ok("chat_wait", {"minutes": 30})["messages"] == []
    got = agent.ok("chat_wait", {"minutes": 30})
    assert [m["text"] for m in got["messages"]] == ["Change of plan: use 12 seats."]
    assert got["minutes_waited"] == 10
    with agent.episode.session() as s:
        journaled = s.scalars(select(JournalEntry.action).where(JournalEntry.surface == "event")).all()
    assert journaled[-1] == "chat.post_message"
    assert not agent.episode.diff().table("chat_message").added  # the world's doing, not the agent's


def test_an_event_after_the_kth_write_happens_with_that_write(agent_as, cast):
    agent = agent_as(cast["owner"])
    with agent.episode.session() as s:
        them = s.scalar(select(Person.id).where(Person.handle == cast["colleague"]))
    _plant(agent, events.Event("message", them, {"dm_with": cast["owner"], "text": "Correction: it was 14."},
                               after_writes=2))
    channel = agent.ok("chat_open_conversation", {"people": [cast["colleague"]]})["id"]  # write 1
    agent.ok("chat_wait", {"minutes": 5})  # waiting is no write
    assert "Correction: it was 14." not in [m["text"] for m in agent.ok("chat_list_messages", {"channel": channel})["items"]]
    agent.ok("chat_post_message", {"channel": channel, "text": "Thanks, noted."})  # write 2
    texts = [m["text"] for m in agent.ok("chat_list_messages", {"channel": channel})["items"]]
    assert "Correction: it was 14." in texts


def test_what_came_with_a_write_is_handed_over_by_the_next_wait_at_once(agent_as, cast):
    agent = agent_as(cast["owner"])
    with agent.episode.session() as s:
        them = s.scalar(select(Person.id).where(Person.handle == cast["colleague"]))
    _plant(agent, events.Event("message", them, {"dm_with": cast["owner"], "text": "Scratch that: make it 16."},
                               after_writes=1))
    agent.ok("chat_open_conversation", {"people": [cast["colleague"]]})  # the write the event comes with
    before = _now(agent)
    got = agent.ok("chat_wait", {"minutes": 60})
    assert [m["text"] for m in got["messages"]] == ["Scratch that: make it 16."]
    assert got["minutes_waited"] == 0 and _now(agent) == before
    again = agent.ok("chat_wait", {"minutes": 60})  # handed over once: the next wait lets time pass
    assert again["messages"] == [] and again["minutes_waited"] == 60 and _now(agent) == before + timedelta(hours=1)
