"""Colleagues share only what the asker may see: for every kind of record a colleague speaks about,
crossed with askers who may and may not see it, the asker's own tool says "not found" exactly when
the colleague who knows the record reveals nothing of it, and a hidden record gets the very reply a
nonexistent one gets. Also: who a colleague acts for, and mentions of people outside a conversation."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from officegym.apps.chat import services as chat
from officegym.apps.crm import services as crm
from officegym.apps.crm.access import sales_department_id, scope_of
from officegym.apps.crm.models import DiscountApproval, LineItem, Opportunity
from officegym.apps.org.models import Person
from officegym.apps.tickets.access import can_see
from officegym.apps.tickets.models import Project, Ticket
from officegym.colleagues.wording import WORDINGS


def _deal_case(s) -> dict:
    """A deal, its owner, a teammate who sees it, and people who don't (outside Sales, another team)."""
    sales = sales_department_id(s)
    for deal in s.scalars(select(Opportunity).where(Opportunity.stage.in_(("Proposal", "Negotiation")))
                          .order_by(Opportunity.id)):
        owner = s.get(Person, deal.owner_id)
        mate = s.scalars(select(Person).where(Person.team_id == owner.team_id, Person.id != owner.id,
                                              Person.department_id == sales)
                         .order_by(Person.id)).first()
        rival = next((p for p in s.scalars(select(Person).where(Person.department_id == sales,
                                                                Person.role == "member").order_by(Person.id))
                      if not scope_of(s, p).can_read(owner.id)), None)
        if mate is None:
            continue
        outsider = s.scalars(select(Person).where(Person.department_id != sales, Person.role == "member")
                             .order_by(Person.id)).first()
        return {"tool": ("crm_get_opportunity", {"opportunity": deal.id}), "label": deal.name,
                "fake": "Quillfeather Dynamics - Platform pilot", "facts": [deal.stage, deal.close_date.isoformat()],
                "colleague": owner.handle, "may": [mate.handle],
                "may_not": [outsider.handle] + ([rival.handle] if rival else [])}
    raise AssertionError("no open deal whose owner has a teammate on the small world")


def _ticket_case(s) -> dict:
    """A private service-desk request, its assignee, its reporter, and someone who cannot see it."""
    desks = select(Project.id).where(Project.kind == "service_desk")
    for ticket in s.scalars(select(Ticket).where(Ticket.project_id.in_(desks), Ticket.assignee_id.is_not(None),
                                                 Ticket.reporter_id != Ticket.assignee_id).order_by(Ticket.id)):
        stranger = next((p for p in s.scalars(select(Person).order_by(Person.id))
                         if not can_see(s, p, ticket)), None)
        if stranger is not None:
            prefix = ticket.key.split("-")[0]
            return {"tool": ("tickets_get_ticket", {"key": ticket.key}), "label": ticket.key,
                    "fake": f"{prefix}-99999", "facts": [ticket.summary, ticket.status],
                    "colleague": s.get(Person, ticket.assignee_id).handle,
                    "may": [s.get(Person, ticket.reporter_id).handle], "may_not": [stranger.handle]}
    raise AssertionError("no private ticket hidden from someone on the small world")


@pytest.fixture(scope="module")
def cases(store):
    """One case per record kind a colleague speaks about (accounts and people: everyone sees them)."""
    episode = store.create(scale="small", seed=0)
    try:
        with episode.session() as s:
            deal, ticket = _deal_case(s), _ticket_case(s)
            account = s.get(Opportunity, s.scalar(select(Opportunity.id).where(
                Opportunity.owner_id == s.scalar(select(Person.id).where(Person.handle == deal["colleague"]))))).account
            person = s.scalar(select(Person).where(Person.handle == deal["may"][0]))
            boss = s.get(Person, s.scalar(select(Person.manager_id).where(Person.id == person.id)))
            return {"opportunity": deal, "ticket": ticket,
                    "account": {"tool": ("crm_get_account", {"account": account.id}), "label": account.name,
                                "facts": [account.industry], "colleague": s.get(Person, account.owner_id).handle,
                                "may": deal["may_not"], "may_not": []},
                    "person": {"tool": ("org_get_person", {"person": person.handle}), "label": person.name,
                               "facts": [person.title], "colleague": boss.handle,
                               "may": deal["may_not"], "may_not": []}}
    finally:
        store.delete(episode.id)


def ask(agent, handle: str, text: str) -> str:
    """DM `handle` with `text`; the reply's text ("" when they say nothing)."""
    channel = agent.ok("chat_open_conversation", {"people": [handle]})["id"]
    posted = agent.ok("chat_post_message", {"channel": channel, "text": text})
    agent.wait_out(channel)
    after = [m for m in agent.ok("chat_list_messages", {"channel": channel})["items"] if m["id"] > posted["id"]]
    return after[0]["text"] if after else ""


@pytest.mark.parametrize("kind", ["opportunity", "ticket", "account", "person"])
def test_tools_say_not_found_exactly_when_the_colleague_reveals_nothing(agent_as, cases, kind):
    case = cases[kind]
    for asker, allowed in [(h, True) for h in case["may"]] + [(h, False) for h in case["may_not"]]:
        agent = agent_as(asker)
        tool, args = case["tool"]
        assert agent.call(tool, args).is_error is (not allowed), (kind, asker)
        reply = ask(agent, case["colleague"], f"What's the latest on {case['label']}?")
        revealed = [fact for fact in case["facts"] if fact and fact in reply]
        assert bool(revealed) is allowed, (kind, asker, reply)
        if not allowed:  # the same words as for a record that does not exist: nothing to enumerate
            fake = ask(agent, case["colleague"], f"What's the latest on {case['fake']}?")
            assert reply == fake.replace(case["fake"], case["label"]), (reply, fake)


def test_deal_amounts_are_said_in_deals_only_and_askers_outside_sales_are_declined(agent_as, cases, store):
    case = cases["opportunity"]
    reply = ask(agent_as(case["may"][0]), case["colleague"], f"How much is {case['label']} worth?")
    assert case["facts"][0] in reply and "$" not in reply and "#deals" in reply
    declined = ask(agent_as(case["may_not"][0]), case["colleague"], f"How is the deal {case['label']} going?")
    assert "Sales" in declined and not any(fact in declined for fact in case["facts"])
    assert declined == ask(agent_as(case["may_not"][0]), case["colleague"], f"How is the deal {case['fake']} going?")


@pytest.fixture(scope="module")
def discount_cast(store) -> dict:
    """A deal in Negotiation with a line item, its owner, the owner's manager, and a teammate of
    the owner (reporting to the same manager) who sees the deal but neither owns it nor requested."""
    episode = store.create(scale="small", seed=0)
    try:
        with episode.session() as s:
            for item in s.scalars(select(LineItem).join(Opportunity).where(Opportunity.stage == "Negotiation")
                                  .order_by(LineItem.id)):
                deal = s.get(Opportunity, item.opportunity_id)
                owner = s.get(Person, deal.owner_id)
                mate = s.scalars(select(Person).where(Person.manager_id == owner.manager_id, Person.id != owner.id,
                                                      Person.manager_id.is_not(None)).order_by(Person.id)).first()
                if mate is not None and scope_of(s, mate).can_read(owner.id):
                    return {"item": item.id, "deal": deal.name, "owner": owner.handle,
                            "boss": s.get(Person, owner.manager_id).handle, "mate": mate.handle}
    finally:
        store.delete(episode.id)
    raise AssertionError("no deal with a teammate on the small world")


@pytest.mark.parametrize("who,decided", [("mate", False), ("owner", True)])
def test_a_manager_decides_only_for_the_owner_or_the_requester(agent_as, discount_cast, who, decided):
    agent = agent_as(discount_cast[who])
    with agent.episode.session("setup") as s:
        owner = s.scalar(select(Person).where(Person.handle == discount_cast["owner"]))
        request = crm.request_discount(s, owner, discount_cast["item"], 30,
                                       "Their budget is capped at $40,000 this year").id
    reply = ask(agent, discount_cast["boss"], f"Can you approve the discount on {discount_cast['deal']}?")
    with agent.episode.session() as s:
        assert (s.get(DiscountApproval, request).status == "Approved") is decided
    assert ("owner" in reply) is not decided, reply
    if not decided:  # nothing the agent caused changed: the diff holds their message and nothing else
        assert set(agent.episode.diff().changed_tables) <= {"chat_message", "chat_channel", "chat_membership",
                                                            "chat_mention", "crm_discount_approval"}


def test_a_mention_of_someone_outside_the_channel_warns_and_reaches_nobody(agent_as, cases):
    case = cases["opportunity"]
    agent = agent_as(case["may"][0])
    channel = agent.ok("chat_open_conversation", {"people": [case["colleague"]]})["id"]
    outsider = case["may_not"][0]
    posted = agent.ok("chat_post_message", {"channel": channel, "text": f"@{outsider} can you look at this?"})
    assert posted["warnings"] == [f"@{outsider} is not in this conversation: message them directly."]
    plain = agent.ok("chat_post_message", {"channel": channel, "text": f"@{case['colleague']} thanks"})
    assert plain["warnings"] == []
    agent.wait_out(channel)
    authors = {m["author"] for m in agent.ok("chat_list_messages", {"channel": channel})["items"]}
    assert outsider not in authors


def test_a_private_request_is_discussed_in_a_dm_only(agent_as, cases):
    case = cases["ticket"]
    agent = agent_as(case["may"][0])
    with agent.episode.session("setup") as s:
        me = s.scalar(select(Person).where(Person.handle == case["may"][0]))
        them = s.scalar(select(Person.id).where(Person.handle == case["colleague"]))
        channel = chat.create_channel(s, me, "zz-open", members=[them]).id
    asked = agent.ok("chat_post_message", {"channel": channel,
                                           "text": f"@{case['colleague']} any news on {case['label']}?"})
    agent.wait_out()
    reply = agent.ok("chat_get_thread", {"message_id": asked["id"]})["replies"][0]["text"]
    assert "DM" in reply and not any(fact in reply for fact in case["facts"])


def test_a_ticket_the_asker_sees_is_never_called_unseen_when_others_are_named_first(agent_as, cases, store):
    """An answer speaks of a few records; a ticket the asker sees that it has no room for is left
    out, never called one the asker cannot see (a hidden one still is)."""
    case = cases["ticket"]
    episode = store.create(scale="small", seed=0)
    try:
        with episode.session() as s:
            others = s.scalars(select(Person.handle).where(Person.handle.not_in(
                [case["colleague"], *case["may"], *case["may_not"]])).order_by(Person.id).limit(4)).all()
    finally:
        store.delete(episode.id)
    text = f"Quick one, with @{' @'.join(others)} in copy: where is {case['label']}?"
    for asker, sees in [(case["may"][0], True), (case["may_not"][0], False)]:
        reply = ask(agent_as(asker), case["colleague"], text)
        unseen = [w.format(what=case["label"]) for w in WORDINGS["unseen"] if w.format(what=case["label"]) in reply]
        assert bool(unseen) is not sees, (asker, reply)
