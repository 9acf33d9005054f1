"""Colleagues who read like people: no two people give one message the same sentence, nobody is
told to ask themselves, a handover gets an acknowledgement, a thread's starter answers only when
they know something, a report gets no reply, nobody disowns what they brought up, and a mention of
someone outside a channel warns the author."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from officegym.apps.chat import services as chat
from officegym.apps.chat.models import Channel, Membership
from officegym.apps.crm.models import Account
from officegym.apps.org.models import Person
from officegym.colleagues.wording import WORDINGS, Speaker


@pytest.fixture(scope="module")
def team(store) -> dict:
    """A manager with three reports on the small world, and someone outside that team."""
    episode = store.create(scale="small", seed=0)
    try:
        with episode.session() as s:
            for boss in s.scalars(select(Person).order_by(Person.id)):
                reports = list(s.scalars(select(Person).where(Person.manager_id == boss.id).order_by(Person.id)))
                if len(reports) >= 3:
                    outsider = s.scalars(select(Person).where(Person.manager_id != boss.id, Person.id != boss.id,
                                                              Person.id != boss.manager_id).order_by(Person.id)).first()
                    return {"boss": boss.handle, "reports": [p.handle for p in reports[:3]],
                            "names": [p.name for p in reports[:3]], "outsider": outsider.handle}
    finally:
        store.delete(episode.id)
    raise AssertionError("no manager with three reports")


def test_every_wording_pool_gives_each_replier_a_sentence_of_their_own():
    for kind, pool in WORDINGS.items():
        used: set[str] = set()
        said = [Speaker(person).say(kind, used, what="IT-1", who="@a", article="A", state="S", thing="deal",
                                    hint="H") for person in range(1, 6)]
        assert len(set(said)) == 5, kind


def test_two_people_in_one_group_dm_answer_with_different_sentences(agent_as, team):
    agent = agent_as(team["outsider"])
    first, second = team["reports"][:2]
    channel = agent.ok("chat_open_conversation", {"people": [first, second]})["id"]
    agent.ok("chat_post_message", {"channel": channel, "text": "Could one of you check the outage ticket?"})
    agent.wait_out(channel)
    replies = [m["text"] for m in agent.ok("chat_list_messages", {"channel": channel})["items"]
               if m["author"] != team["outsider"]]
    assert len(replies) == 2 and replies[0] != replies[1]
    assert all("which ticket" in r.lower() for r in replies)


def test_nobody_is_told_to_ask_themselves(agent_as, team):
    agent = agent_as(team["reports"][0])
    channel = agent.ok("chat_open_conversation", {"people": [team["boss"]]})["id"]
    agent.ok("chat_post_message", {"channel": channel, "text": f"What do you know about {team['names'][1]}, "
                                                               f"and about {team['names'][0]}?"})
    agent.wait_out(channel)
    reply = agent.ok("chat_list_messages", {"channel": channel})["items"][0]["text"]
    unsent = reply.replace(f"reports to @{team['boss']}", "")  # the facts may name them; no redirect does
    assert f"@{team['boss']}" not in unsent and unsent.count(f"@{team['reports'][0]}") == 1  # the greeting
    assert team["names"][1] in reply and team["names"][0] not in reply  # nobody is told about themselves


def test_a_handover_is_acknowledged_and_the_starter_answers_only_what_they_know(agent_as, team):
    agent = agent_as(team["reports"][0])
    with agent.episode.session("setup") as s:
        starter = s.scalar(select(Person).where(Person.handle == team["reports"][1]))
        incoming = team["reports"][2]
        channel = chat.create_channel(s, starter, "zz-incidents", members=[
            s.scalar(select(Person.id).where(Person.handle == h)) for h in (team["reports"][0], incoming)])
        top = chat.post_message(s, starter, channel.id, "Payments are failing for some customers.").id
    agent.ok("chat_post_message", {"channel": channel.id, "text": f"Handing over to @{incoming}.",
                                   "thread_parent_id": top})
    agent.wait_out()
    replies = agent.ok("chat_get_thread", {"message_id": top})["replies"]
    assert [m["author"] for m in replies] == [team["reports"][0], incoming]


def test_a_mention_of_a_non_member_in_a_channel_warns_and_nobody_answers(agent_as, team):
    agent = agent_as(team["reports"][0])
    with agent.episode.session("setup") as s:
        me = s.scalar(select(Person).where(Person.handle == team["reports"][0]))
        channel = chat.create_channel(s, me, "zz-quiet")
        assert not s.scalar(select(Membership.id).join(Person, Person.id == Membership.person_id).where(
            Membership.channel_id == channel.id, Person.handle == team["outsider"]))
    posted = agent.ok("chat_post_message", {"channel": "zz-quiet", "text": f"@{team['outsider']} can you help?"})
    assert posted["warnings"] == [f"@{team['outsider']} is not in #zz-quiet: invite them or message them directly."]
    assert agent.wait_out() == []
    assert agent.ok("chat_get_thread", {"message_id": posted["id"]})["replies"] == []
    with agent.episode.session() as s:
        assert s.scalar(select(Channel.id).where(Channel.name == "zz-quiet")) == posted["channel_id"]


def test_people_they_do_not_work_with_are_answered_from_the_directory_not_redirected(agent_as, team):
    agent = agent_as(team["boss"])
    channel = agent.ok("chat_open_conversation", {"people": [team["outsider"]]})["id"]
    names = team["names"]
    agent.ok("chat_post_message", {"channel": channel, "text": f"Do you know {names[0]}, {names[1]} and {names[2]}? "
                                                               "Who do they report to?"})
    agent.wait_out(channel)
    reply = [m["text"] for m in agent.ok("chat_list_messages", {"channel": channel})["items"]
             if m["author"] == team["outsider"]][0]
    assert all(name in reply for name in names) and reply.count(f"reports to @{team['boss']}") == 3, reply
    assert "ask" not in reply.lower() and "try @" not in reply.lower(), reply


def test_a_report_gets_no_reply_and_nobody_disowns_what_they_brought_up(agent_as, team):
    agent = agent_as(team["reports"][0])
    with agent.episode.session("setup") as s:
        asker = s.scalar(select(Person).where(Person.handle == team["outsider"]))
        reports = select(Person.id).where(Person.manager_id == asker.id)
        account = s.scalar(select(Account).where(Account.owner_id != asker.id, Account.owner_id.not_in(reports))
                           .order_by(Account.id))  # an account they neither own nor manage: they don't know it
        channel = chat.open_conversation(s, asker, [s.scalar(select(Person.id).where(
            Person.handle == team["reports"][0]))]).id
        chat.post_message(s, asker, channel, f"Could you pull the contacts of {account.name} for me? Invoice "
                                             "INV-2026-0166 is theirs.")
        name = account.name
    before = len(agent.ok("chat_list_messages", {"channel": channel})["items"])
    agent.ok("chat_post_message", {"channel": channel, "text": f"Done: I sent you {name}'s contacts."})
    agent.ok("chat_post_message", {"channel": channel, "text": f"Which of {name}'s contacts is the buyer?"})
    agent.wait_out(channel)
    said = [m["text"] for m in agent.ok("chat_list_messages", {"channel": channel})["items"]][before + 2:]
    assert said == [], said  # no recital of the report, no "I don't know about" what they asked about
