"""CRM graders check the real requirement: near-miss solutions (right record, wrong value; wrong
record; wrong decision) fail, and the reference solution passes."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from officegym.answers import submit_answer
from officegym.apps.chat import services as chat
from officegym.apps.crm import services as crm
from officegym.apps.crm.models import DiscountApproval, Opportunity
from officegym.runner import AGENTS


def _win(session, actor, deal_id: int, amount: float | None = None):
    deal = session.get(Opportunity, deal_id)
    if amount is not None:
        crm.update_opportunity(session, actor, deal_id, amount=amount)
    path = ["Prospecting", "Qualification", "Proposal", "Negotiation"]
    for stage in path[path.index(deal.stage) + 1:] + ["Closed Won"]:
        crm.move_stage(session, actor, deal_id, stage)


def test_closing_an_announced_deal_at_the_old_amount_fails(task_episode):
    episode = task_episode("x.close_won_announced_deal", 1)
    p = episode.task.params
    with episode.session() as s:
        actor = episode.actor(s)
        _win(s, actor, p["deal"])
        crm.log_activity(s, actor, "opportunity", p["deal"], "note", "Verbal yes")
    result = episode.grade()
    assert result.success is False
    assert [c.requirement for c in result.checks if not c.passed] == [f"Its amount is {_money(p['amount'])}"]


def test_closing_an_announced_deal_at_the_said_amount_passes(task_episode):
    episode = task_episode("x.close_won_announced_deal", 1)
    p = episode.task.params
    with episode.session() as s:
        actor = episode.actor(s)
        _win(s, actor, p["deal"], p["amount"] / 100)
        crm.log_activity(s, actor, "opportunity", p["deal"], "note", "Customer said yes")
    assert episode.grade().success is True


def test_closing_won_without_the_signing_day_fails(task_episode):
    episode = task_episode("crm.close_won_deal", 2)
    with episode.session() as s:
        _win(s, episode.actor(s), episode.task.params["deal"])
    result = episode.grade()
    assert result.success is False and result.score < 1


def test_wrong_discount_decision_fails(task_episode):
    for k in range(24):
        episode = task_episode("crm.approve_discount", k)
        if not episode.task.params["approve"]:
            break
    else:
        pytest.skip("no instance that must be rejected")
    with episode.session() as s:
        pending = s.scalar(select(DiscountApproval).where(DiscountApproval.line_item_id == episode.task.params["item"],
                                                          DiscountApproval.status == "Pending"))
        crm.approve_discount(s, episode.actor(s), pending.id)
    assert episode.grade().success is False


def test_wrong_answer_to_biggest_deal_fails(task_episode):
    episode = task_episode("crm.biggest_open_deal", 0)
    with episode.session() as s:
        submit_answer(s, episode.actor(s), "1")
    assert episode.grade().success is False


def test_announcing_the_wrong_deal_fails(task_episode):
    episode = task_episode("x.announce_biggest_deal", 0)
    with episode.session() as s:
        actor = episode.actor(s)
        deals = crm.list_opportunities(s, actor, stage="open", sort="amount", descending=False, limit=1).items
        chat.post_message(s, actor, "deals", f"Biggest: {deals[0].account.name}, ${deals[0].amount_cents / 100:,.2f}")
    assert episode.grade().success is False


@pytest.mark.parametrize("task_id", ["crm.convert_lead", "x.convert_dm_lead"])
def test_converting_without_the_opportunity_fails(task_episode, task_id):
    episode = task_episode(task_id, 3)
    p = episode.task.params
    with episode.session() as s:
        crm.convert_lead(s, episode.actor(s), p["lead"], p["into"], create_opportunity=False)
    result = episode.grade()
    assert result.success is False
    assert any(c.requirement.startswith("The new opportunity") and not c.passed for c in result.checks)


def test_reference_solutions_still_pass(task_episode):
    episode = task_episode("crm.escalate_case", 4)
    AGENTS["oracle"](episode)
    assert episode.grade().success is True


def _money(cents: int) -> str:
    from officegym.tasks.crm import money

    return money(cents)
