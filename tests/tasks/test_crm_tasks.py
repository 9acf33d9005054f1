"""CRM graders check the real requirement: near-miss solutions (right record, wrong value; wrong
record; wrong decision) fail, and so do the cheats a grader must not reward (every candidate
listed, a statement denied, extra rows, an unasked edit beside the task); the reference solution
passes."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from officegym.answers import submit_answer
from officegym.apps.chat import services as chat
from officegym.apps.chat.models import Message
from officegym.apps.crm import services as crm
from officegym.apps.crm.models import Account, Case, DiscountApproval, Opportunity
from officegym.apps.org.models import Person
from officegym.runner import AGENTS
from officegym.tasks.crm import money
from officegym.tasks.x_crm import VERBAL_YES


def _win(session, actor, deal_id: int, amount: float | None = None):
    deal = session.get(Opportunity, deal_id)
    if amount is not None:
        crm.update_opportunity(session, actor, deal_id, amount=amount)
    path = ["Prospecting", "Qualification", "Proposal", "Negotiation"]
    for stage in path[path.index(deal.stage) + 1:] + ["Closed Won"]:
        crm.move_stage(session, actor, deal_id, stage)


def _failed(result) -> list[str]:
    return [c.requirement for c in result.checks if not c.passed]


def _instance(task_episode, task_id: str, wanted) -> object:
    """The first episode of a template whose instance `wanted(params)` accepts."""
    for k in range(24):
        episode = task_episode(task_id, k)
        if wanted(episode.task.params):
            return episode
    pytest.skip(f"no instance of {task_id} fits")


def test_closing_an_announced_deal_at_the_old_amount_fails(task_episode):
    episode = task_episode("x.close_won_announced_deal", 1)
    p = episode.task.params
    with episode.session() as s:
        actor = episode.actor(s)
        _win(s, actor, p["deal"])
        crm.log_activity(s, actor, "opportunity", p["deal"], "note", VERBAL_YES)
    result = episode.grade()
    assert result.success is False
    assert _failed(result) == [f"Its amount is {money(p['amount'])}"]


def test_closing_an_announced_deal_at_the_said_amount_passes(task_episode):
    episode = task_episode("x.close_won_announced_deal", 1)
    p = episode.task.params
    with episode.session() as s:
        actor = episode.actor(s)
        _win(s, actor, p["deal"], p["amount"] / 100)
        crm.log_activity(s, actor, "opportunity", p["deal"], "note", VERBAL_YES)
    assert episode.grade().success is True


def test_a_second_note_on_the_announced_deal_fails(task_episode):
    episode = task_episode("x.close_won_announced_deal", 1)
    p = episode.task.params
    with episode.session() as s:
        actor = episode.actor(s)
        _win(s, actor, p["deal"], p["amount"] / 100)
        for subject in (VERBAL_YES, "Order form signed"):
            crm.log_activity(s, actor, "opportunity", p["deal"], "note", subject)
    result = episode.grade()
    assert result.success is False and result.score == 0


def test_closing_won_without_the_signing_day_fails(task_episode):
    episode = task_episode("crm.close_won_deal", 2)
    with episode.session() as s:
        _win(s, episode.actor(s), episode.task.params["deal"])
    result = episode.grade()
    assert result.success is False and result.score < 1


def test_a_denied_competitor_fails(task_episode):
    episode = _instance(task_episode, "crm.close_lost_with_reason", lambda p: p["rival"])
    p = episode.task.params
    with episode.session() as s:
        crm.move_stage(s, episode.actor(s), p["deal"], "Closed Lost", "Competitor", f"not {p['rival']}")
    result = episode.grade()
    assert result.success is False and result.score == 0


def test_a_next_step_with_more_added_fails(task_episode):
    episode = task_episode("crm.update_next_step", 0)
    p = episode.task.params
    with episode.session() as s:
        crm.update_opportunity(s, episode.actor(s), p["deal"], next_step=f"{p['step']}, then book the kickoff")
    assert episode.grade().success is False


def test_thirty_follow_up_tasks_fail(task_episode):
    episode = task_episode("crm.follow_up_task", 0)
    p = episode.task.params
    with episode.session() as s:
        for _ in range(30):
            crm.log_activity(s, episode.actor(s), "opportunity", p["deal"], "task", p["subject"], due_date=p["due"])
    result = episode.grade()
    assert result.success is False and result.score == 0


def test_wrong_discount_decision_fails(task_episode):
    episode = _instance(task_episode, "crm.approve_discount", lambda p: not p["approve"])
    with episode.session() as s:
        pending = s.scalar(select(DiscountApproval).where(DiscountApproval.line_item_id == episode.task.params["item"],
                                                          DiscountApproval.status == "Pending"))
        crm.approve_discount(s, episode.actor(s), pending.id)
    assert episode.grade().success is False


def test_a_discount_reason_in_other_words_fails(task_episode):
    episode = task_episode("crm.request_discount", 0)
    p = episode.task.params
    with episode.session() as s:
        crm.request_discount(s, episode.actor(s), p["item"], p["discount"], f"Because: {p['reason'].lower()} (mostly)")
    result = episode.grade()
    assert result.success is False
    assert _failed(result) == [f"Its reason reads \"{p['reason']}\""]


def test_two_product_lines_fail(task_episode):
    episode = task_episode("crm.add_products", 0)
    p = episode.task.params
    with episode.session() as s:
        actor = episode.actor(s)
        crm.add_line_item(s, actor, p["deal"], p["product"], p["quantity"], p["discount"], p["book"])
        crm.add_line_item(s, actor, p["deal"], p["product"], 1, 0, p["book"])
    result = episode.grade()
    assert result.success is False and result.score == 0


def test_escalating_with_a_denied_reason_fails(task_episode):
    episode = task_episode("crm.escalate_case", 4)
    p = episode.task.params
    with episode.session() as s:
        case = s.scalars(select(Case).where(Case.account_id == p["account"], Case.status.in_(("New", "Working")),
                                            Case.priority.in_(("High", "Urgent")))
                         .order_by(Case.created_at, Case.id)).first()
        crm.escalate_case(s, episode.actor(s), case.id, f"It is not true that {p['reason'].lower()}")
    result = episode.grade()
    assert result.success is False and result.score == 0


def test_wrong_answer_to_biggest_deal_fails(task_episode):
    episode = task_episode("crm.biggest_open_deal", 0)
    with episode.session() as s:
        submit_answer(s, episode.actor(s), "1")
    assert episode.grade().success is False


def test_a_hedged_pipeline_total_fails(task_episode):
    episode = task_episode("crm.pipeline_total", 0)
    right = episode.task.solution[-1].args["answer"]
    with episode.session() as s:
        submit_answer(s, episode.actor(s), f"about {right}")
    assert episode.grade().success is False


def test_announcing_the_wrong_deal_fails(task_episode):
    episode = task_episode("x.announce_biggest_deal", 0)
    with episode.session() as s:
        actor = episode.actor(s)
        deals = crm.list_opportunities(s, actor, stage="open", sort="amount", descending=False, limit=1).items
        chat.post_message(s, actor, "deals", f"Biggest: {deals[0].account.name}, ${deals[0].amount_cents / 100:,.2f}")
    assert episode.grade().success is False


def test_announcing_every_open_deal_fails(task_episode):
    episode = task_episode("x.announce_biggest_deal", 0)
    with episode.session() as s:
        actor = episode.actor(s)
        deals = crm.list_opportunities(s, actor, stage="open", limit=200).items
        chat.post_message(s, actor, "deals", "\n".join(f"{d.account.name}: {money(d.amount_cents)}" for d in deals))
    result = episode.grade()
    assert result.success is False and result.score == 0


def test_naming_every_account_and_owner_fails(task_episode):
    episode = task_episode("x.most_open_cases_owner_thread", 0)
    p = episode.task.params
    with episode.session() as s:
        question = s.scalar(select(Message).where(Message.channel_id == p["channel"], Message.text == p["text"]))
        listed = [f"{a.name} ({s.get(Person, a.owner_id).name})" for a in s.scalars(select(Account))]
        chat.post_message(s, episode.actor(s), p["channel"], "; ".join(listed), question.id)
    result = episode.grade()
    assert result.success is False and result.score == 0


def test_a_deal_amount_answer_with_two_amounts_fails(task_episode):
    episode = task_episode("x.deal_question_answer", 0)
    right = episode.task.solution[-1].args["answer"]
    with episode.session() as s:
        submit_answer(s, episode.actor(s), f"{right} (the CRM says $1,000)")
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


@pytest.mark.parametrize("task_id", ["crm.convert_lead", "x.convert_dm_lead"])
def test_editing_the_lead_before_converting_it_fails(task_episode, task_id):
    episode = task_episode(task_id, 3)
    p = episode.task.params
    with episode.session() as s:
        actor = episode.actor(s)
        crm.update_lead(s, actor, p["lead"], title="Chief Executive", phone="+1 555 0100", source="Partner")
        crm.convert_lead(s, actor, p["lead"], p["into"], opportunity_name=p["name"], amount=p["amount"] / 100,
                         close_date=p["close"])
    result = episode.grade()
    assert result.success is False and result.score == 0


def test_reference_solutions_still_pass(task_episode):
    episode = task_episode("crm.escalate_case", 4)
    AGENTS["oracle"](episode)
    assert episode.grade().success is True


def _win_by_way_of_closed_lost(session, actor, deal_id: int) -> None:
    """The shortcut past the sales path: close the deal as lost, reopen it into Negotiation, win it."""
    crm.move_stage(session, actor, deal_id, "Closed Lost", "Timing")
    crm.reopen(session, actor, deal_id, "Negotiation")
    crm.move_stage(session, actor, deal_id, "Closed Won")


def test_winning_a_deal_by_way_of_closed_lost_and_a_reopen_fails(task_episode):
    episode = _instance(task_episode, "crm.close_won_deal", lambda p: True)
    p = episode.task.params
    with episode.session() as s:
        actor = episode.actor(s)
        crm.update_opportunity(s, actor, p["deal"], close_date=p["signed"])
        _win_by_way_of_closed_lost(s, actor, p["deal"])
    result = episode.grade()
    assert result.score == 0
    assert _failed(result) == ["The deal went along the sales path to Closed Won, never closed as lost or reopened"]


def test_winning_a_deal_along_the_sales_path_passes(task_episode):
    episode = task_episode("crm.close_won_deal", 0)
    p = episode.task.params
    with episode.session() as s:
        actor = episode.actor(s)
        crm.update_opportunity(s, actor, p["deal"], close_date=p["signed"])
        _win(s, actor, p["deal"])
    assert episode.grade().success is True


def test_winning_an_announced_deal_by_way_of_closed_lost_fails(task_episode):
    episode = task_episode("x.close_won_announced_deal", 1)
    p = episode.task.params
    with episode.session() as s:
        actor = episode.actor(s)
        crm.update_opportunity(s, actor, p["deal"], amount=p["amount"] / 100)
        _win_by_way_of_closed_lost(s, actor, p["deal"])
        crm.log_activity(s, actor, "opportunity", p["deal"], "note", VERBAL_YES)
    result = episode.grade()
    assert result.score == 0
    assert _failed(result) == ["The deal went along the sales path to Closed Won, never closed as lost or reopened"]


def test_naming_only_the_owner_of_the_account_with_most_cases_fails(task_episode):
    episode = task_episode("x.most_open_cases_owner_thread", 2)
    p = episode.task.params
    owner = episode.task.solution[-1].args["text"].rsplit("owned by ", 1)[1].rstrip(".")
    with episode.session() as s:
        question = s.scalar(select(Message).where(Message.channel_id == p["channel"], Message.text == p["text"]))
        chat.post_message(s, episode.actor(s), p["channel"], f"That would be {owner}'s account.", question.id)
    result = episode.grade()
    assert result.success is False and result.score < 0.5


@pytest.mark.parametrize("task_id", ["x.most_open_cases_owner_thread", "x.announce_biggest_deal"])
def test_the_answer_varies_over_instances(store, task_id):
    world = store.world("small", 0)
    answers = [store.task_instance(world, task_id, k).solution[-1].args["text"] for k in range(24)]
    assert max(answers.count(a) for a in answers) <= 24 // 5
