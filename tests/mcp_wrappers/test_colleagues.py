"""Colleagues who answer, through the real MCP client: who a message reaches, what they say, the
discount decisions a manager makes, and that their writes are theirs (journal surface
"colleague", never in the diff a grader reads)."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from officegym import colleagues
from officegym.apps.chat import services as chat
from officegym.apps.chat.models import Channel, Membership, Message
from officegym.apps.crm import services as crm
from officegym.apps.crm.models import DiscountApproval, LineItem, Opportunity
from officegym.apps.org.models import Person
from officegym.journal import JournalEntry



@pytest.fixture(scope="module")
def deal_facts(store):
    """An open deal with a line item on the small world: (deal id, name, owner handle, manager handle,
    line item id), and a person who neither owns it nor manages its owner."""
    episode = store.create(scale="small", seed=0)
    try:
        with episode.session() as s:
            deals = s.scalars(select(Opportunity).where(Opportunity.stage.in_(("Proposal", "Negotiation")))
                              .order_by(Opportunity.id))
            deal = next(d for d in deals if s.get(Person, d.owner_id).manager_id
                        and s.scalar(select(LineItem.id).where(LineItem.opportunity_id == d.id)))
            owner = s.get(Person, deal.owner_id)
            boss = s.get(Person, owner.manager_id)
            item = s.scalar(select(LineItem.id).where(LineItem.opportunity_id == deal.id).order_by(LineItem.id))
            stranger = s.scalars(select(Person).where(Person.id.not_in((owner.id, boss.id)),
                                                      Person.manager_id != boss.id,
                                                      Person.id != boss.manager_id).order_by(Person.id)).first()
            return {"deal": deal.id, "name": deal.name, "stage": deal.stage, "owner": owner.handle,
                    "boss": boss.handle, "item": item, "stranger": stranger.handle}
    finally:
        store.delete(episode.id)


def dm(agent, handle: str, text: str) -> tuple[int, list[dict]]:
    """Open a DM with `handle`, post `text`, and return the DM's id and its messages, oldest first."""
    channel = agent.ok("chat_open_conversation", {"people": [handle]})["id"]
    agent.ok("chat_post_message", {"channel": channel, "text": text})
    agent.wait_out(channel)  # colleagues answer after a delay of their own
    messages = agent.ok("chat_list_messages", {"channel": channel})["items"]
    return channel, sorted(messages, key=lambda m: m["id"])


def test_the_owner_answers_a_dm_naming_their_deal_with_its_state(agent_as, deal_facts):
    agent = agent_as(deal_facts["boss"])
    _, messages = dm(agent, deal_facts["owner"], f"Where are we on {deal_facts['name']}?")
    assert [m["author"] for m in messages] == [deal_facts["boss"], deal_facts["owner"]]
    reply = messages[1]["text"]
    assert reply.startswith(f"@{deal_facts['boss']} ") and deal_facts["name"] in reply
    assert f"is in {deal_facts['stage']}" in reply
    with agent.episode.session() as s:
        surfaces = [(e.surface, e.action) for e in s.scalars(select(JournalEntry).where(
            JournalEntry.action != "chat.wait").order_by(JournalEntry.seq))]
    assert surfaces[-2:] == [("mcp", "chat.post_message"), ("colleague", "chat.post_message")]


def test_someone_who_does_not_know_says_whom_to_ask(agent_as, deal_facts):
    agent = agent_as(deal_facts["boss"])
    _, messages = dm(agent, deal_facts["stranger"], f"Do you know anything about {deal_facts['name']}?")
    reply = messages[-1]["text"]
    assert reply.startswith(f"@{deal_facts['boss']} ") and deal_facts["name"] in reply
    assert f"@{deal_facts['owner']}" in reply and deal_facts["stage"] not in reply


def test_a_message_naming_nothing_gets_a_question_back(agent_as, deal_facts):
    agent = agent_as(deal_facts["boss"])
    _, messages = dm(agent, deal_facts["owner"], "Hi, got a minute?")
    assert messages[-1]["author"] == deal_facts["owner"] and "?" in messages[-1]["text"]
    _, messages = dm(agent, deal_facts["owner"], "Can you check the discount for me?")
    assert messages[-1]["author"] == deal_facts["owner"] and "which deal" in messages[-1]["text"].lower()


def test_a_message_that_asks_nothing_and_names_nothing_gets_no_reply(agent_as, deal_facts):
    agent = agent_as(deal_facts["boss"])
    _, messages = dm(agent, deal_facts["owner"], "Thanks, all sorted now.")
    assert [m["author"] for m in messages] == [deal_facts["boss"]]


def test_the_same_message_gets_the_same_reply_every_run(agent_as, deal_facts):
    text = f"Status of {deal_facts['name']} please, and who is @{deal_facts['stranger']}?"
    replies = [dm(agent_as(deal_facts["boss"]), deal_facts["owner"], text)[1][-1]["text"] for _ in range(2)]
    assert replies[0] == replies[1] and deal_facts["name"] in replies[0] and deal_facts["stage"] in replies[0]


def test_in_a_channel_only_the_people_mentioned_answer_in_the_thread(agent_as, deal_facts):
    agent = agent_as(deal_facts["boss"])
    with agent.episode.session() as s:
        me = s.scalar(select(Person).where(Person.handle == deal_facts["boss"]))
        owner = s.scalar(select(Person).where(Person.handle == deal_facts["owner"]))
        mine = set(s.scalars(select(Membership.channel_id).where(Membership.person_id == me.id)))
        theirs = set(s.scalars(select(Membership.channel_id).where(Membership.person_id == owner.id)))
        channel = s.scalars(select(Channel).where(Channel.id.in_(mine & theirs), Channel.kind == "public",
                                                  Channel.is_archived.is_(False)).order_by(Channel.id)).first()
    plain = agent.ok("chat_post_message", {"channel": channel.id, "text": f"Note on {deal_facts['name']}."})
    assert agent.wait_out() == []
    assert agent.ok("chat_get_thread", {"message_id": plain["id"]})["replies"] == []
    asked = agent.ok("chat_post_message", {"channel": channel.id,
                                           "text": f"@{deal_facts['owner']} what is next on {deal_facts['name']}?"})
    agent.wait_out()
    thread = agent.ok("chat_get_thread", {"message_id": asked["id"]})["replies"]
    assert [m["author"] for m in thread] == [deal_facts["owner"]] and "next step" in thread[0]["text"]
    # A reply in that thread reaches the thread's starter, who is the agent: nobody else answers.
    agent.ok("chat_post_message", {"channel": channel.id, "text": "Thanks!", "thread_parent_id": asked["id"]})
    assert agent.wait_out() == []
    assert [m["author"] for m in agent.ok("chat_get_thread", {"message_id": asked["id"]})["replies"]] == [
        deal_facts["owner"], deal_facts["boss"]]


def test_a_reply_in_a_thread_reaches_the_person_who_started_it(agent_as, deal_facts):
    agent = agent_as(deal_facts["boss"])
    with agent.episode.session("setup") as s:
        owner = s.scalar(select(Person).where(Person.handle == deal_facts["owner"]))
        channel = chat.open_conversation(s, owner, [deal_facts["boss"], deal_facts["stranger"]])
        started = chat.post_message(s, owner, channel.id, "Quick one for both of you.").id
    agent.ok("chat_post_message", {"channel": channel.id, "text": f"About {deal_facts['name']}: "
                                   f"@{deal_facts['stranger']} any news?", "thread_parent_id": started})
    agent.wait_out()
    replies = agent.ok("chat_get_thread", {"message_id": started})["replies"]
    assert sorted(m["author"] for m in replies[1:]) == sorted([deal_facts["owner"], deal_facts["stranger"]])


def test_a_planted_note_is_said_by_the_person_who_knows(agent_as, deal_facts, store):
    agent = agent_as(deal_facts["boss"])
    with agent.episode.session("setup") as s:
        owner = s.scalar(select(Person).where(Person.handle == deal_facts["owner"]))
        colleagues.plant_note(s, owner, "opportunity", deal_facts["deal"], "The customer agreed to 40 seats.")
    _, messages = dm(agent, deal_facts["owner"], f"How many seats on {deal_facts['name']}?")
    assert messages[-1]["text"].endswith("The customer agreed to 40 seats.")
    _, other = dm(agent, deal_facts["stranger"], f"How many seats on {deal_facts['name']}?")
    assert "40 seats" not in other[-1]["text"]


def _request(agent, facts: dict, percent: float, reason: str) -> int:
    """The deal owner requests a discount (as the story would, before the agent acts)."""
    with agent.episode.session("setup") as s:
        owner = s.scalar(select(Person).where(Person.handle == facts["owner"]))
        return crm.request_discount(s, owner, facts["item"], percent, reason).id


@pytest.mark.parametrize("percent,reason,status,said", [
    (30, "Their budget is capped at $40,000 this year", "Approved", "Approved the 30% discount"),
    (30, "The customer asked for it", "Rejected", "The reason names a competitor the CRM knows"),
    (30, "Matching a competitor's three-year price", "Rejected", "The reason names a competitor the CRM knows"),
    (40, "Their budget is capped at $40,000 this year", "Pending", "stays pending"),
])
def test_a_manager_asked_about_a_deal_decides_its_discount_by_the_handbook(agent_as, deal_facts, percent, reason,
                                                                           status, said):
    agent = agent_as(deal_facts["owner"])
    approval = _request(agent, deal_facts, percent, reason)
    _, messages = dm(agent, deal_facts["boss"], f"Could you look at the discount on {deal_facts['name']}?")
    assert said in messages[-1]["text"]
    with agent.episode.session() as s:
        assert s.get(DiscountApproval, approval).status == status
        discount = s.get(LineItem, deal_facts["item"]).discount_bp
        decided = [e.action for e in s.scalars(select(JournalEntry).where(JournalEntry.surface == "colleague"))]
    assert (discount == percent * 100) == (status == "Approved")
    assert decided == ({"Approved": ["crm.approve_discount"], "Rejected": ["crm.reject_discount"]}.get(status, [])
                       + ["chat.post_message"])
    # The colleague's reply is not in the diff; what they did because of the agent's message (the
    # decision, the line item's discount) is, as the agent's doing, and the journal says so.
    diff = agent.episode.diff()
    assert len({r["author_id"] for r in diff.table("chat_message").added}) == 1
    assert bool(diff.table("crm_line_item")) == (status == "Approved")
    assert [r["status"] for r in diff.table("crm_discount_approval").added] == [status]
    with agent.episode.session() as s:
        asked = s.scalar(select(Message.id).where(Message.author_id == s.scalar(
            select(Person.id).where(Person.handle == deal_facts["owner"]))).order_by(Message.id.desc()))
        causes = [e.args.get("caused_by") for e in s.scalars(select(JournalEntry).where(
            JournalEntry.surface == "colleague", JournalEntry.action != "chat.post_message"))]
    assert len(causes) == (status != "Pending") and all(c["message_id"] == asked for c in causes)


def test_writes_outside_the_agents_surfaces_draw_no_reply(agent_as, deal_facts):
    agent = agent_as(deal_facts["boss"])
    with agent.episode.session("api") as s:
        me = s.scalar(select(Person).where(Person.handle == deal_facts["boss"]))
        channel = chat.open_conversation(s, me, [deal_facts["owner"]])
        chat.post_message(s, me, channel.id, f"Where are we on {deal_facts['name']}?")
    with agent.episode.session() as s:
        assert s.scalar(select(Message.author_id).where(Message.channel_id == channel.id)
                        .order_by(Message.id.desc())) == me.id


def test_a_reason_naming_a_competitor_the_crm_knows_is_approved(agent_as, deal_facts):
    agent = agent_as(deal_facts["owner"])
    with agent.episode.session() as s:
        rival = s.scalar(select(Opportunity.competitor).where(Opportunity.competitor != "").order_by(Opportunity.id))
    approval = _request(agent, deal_facts, 25, f"{rival} quoted them lower last week")
    dm(agent, deal_facts["boss"], f"Could you look at the discount on {deal_facts['name']}?")
    with agent.episode.session() as s:
        assert s.get(DiscountApproval, approval).status == "Approved"
