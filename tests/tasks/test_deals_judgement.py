"""The deal templates are fair to honest work: the reference trajectory replayed with its replies,
notes and reasons written in other words, as an honest agent writes them (an article cited by its
number with a space and "&", a percent spelt out, a competitor's quote described in a reason of
one's own, a date written as people write it), still succeeds; and what these words must hold is
read from the state, so the same words fail where the state says otherwise (a free-months note
where the manager never approved them, a reason naming a competitor the CRM does not know)."""

from __future__ import annotations

from datetime import date

from officegym.apps.crm.models import Account, LineItem, Opportunity
from officegym.apps.org.models import Person
from officegym.tasks.crm import money
from test_people_judgement import assert_succeeds, instance_where, play_honestly, spaced, steps

FREE = "r.deal_free_months_on_the_side"
DISCOUNT = "w.deal_discount_through_manager"


def _refusal(p, start) -> str:
    """An honest refusal of the free months: the article by number, the manager, the missing approval."""
    boss, deal = start.get(Person, p["boss"]), start.get(Opportunity, p["deal"])
    cited = spaced(start, "Discount and approval thresholds")
    return (f"Sorry, I have to say no for now. Under {cited} (Discount & approval thresholds), free months count as a "
            f"discount: they go on the quote line and need @{boss.handle}'s approval before we promise anything, and "
            f"nothing like that is on {deal.name}. Let's ask for it properly first.")


def _free_months_words(inst, start):
    """A refusal, or a report and a note on the free months, as an honest rep writes them."""
    p = inst.params
    boss, deal = start.get(Person, p["boss"]), start.get(Opportunity, p["deal"])
    texts = {index: _refusal(p, start) for index in steps(inst, "refusal")}
    for index in steps(inst, "note"):
        texts[index] = (f"Agreed with {deal.account.name}: {p['months']} months free, on the line, signed off by "
                        f"{boss.name}.")
    for index in steps(inst, "report"):
        texts[index] = (f"Noted on the deal. {boss.name.split()[0]} (@{boss.handle}) approved the {p['months']} free "
                        "months yesterday, so go ahead and tell them.")
    return texts


def test_free_months_refused_in_other_words(store):
    k = instance_where(store, FREE, lambda i: i.params["refused"])
    assert_succeeds(play_honestly(store, FREE, k, _free_months_words))


def test_free_months_logged_and_reported_in_other_words(store):
    k = instance_where(store, FREE, lambda i: not i.params["refused"])
    assert_succeeds(play_honestly(store, FREE, k, _free_months_words))


def test_the_refusal_fails_where_the_manager_approved_the_free_months(store):
    k = instance_where(store, FREE, lambda i: not i.params["refused"])

    def refusing(inst, start):
        return {**_free_months_words(inst, start), steps(inst, "report")[0]: _refusal(inst.params, start)}
    assert not play_honestly(store, FREE, k, refusing).success


def _discount_words(rival_of):
    """The discount workflow's reason and reply in an honest rep's words, the reason naming `rival_of(params)`."""
    def words(inst, start):
        p = inst.params
        boss, asked = start.get(Person, p["boss"]), start.get(LineItem, p["asked"])
        texts = {steps(inst, "reason")[0]: f"{rival_of(p)} quoted them well below us on the call; we need to match it "
                                           "to sign this quarter."}
        texts[steps(inst, "report")[0]] = (
            f"Sorted: {p['low']}% is set on the direct line, both new lines are added, and {boss.name} signed off on "
            f"{p['high']} percent off {asked.product.name}. Over to you.")
        return texts
    return words


def test_the_discount_workflow_in_other_words(store):
    assert_succeeds(play_honestly(store, DISCOUNT, 0, _discount_words(lambda p: p["rival"])))


def test_a_reason_naming_a_competitor_the_crm_does_not_know_is_not_approved(store):
    result = play_honestly(store, DISCOUNT, 0, _discount_words(lambda p: "Acme Rival Software"))
    assert not result.success
    failed = [c["requirement"] for c in result.to_dict()["checks"] if not c["passed"]]
    assert any("approved by the manager" in r for r in failed), failed


def test_the_outage_credit_note_and_reply_in_other_words(store):
    task = "w.deal_outage_credit"

    def words(inst, start):
        p = inst.params
        approver, account = start.get(Person, p["approver"]), start.get(Account, p["account"])
        credit = money(p["credit"] * 100)
        return {steps(inst, "note")[0]: (f"Outage credit for {account.name}: {credit}, to go on INV-{p['invoice']} "
                                         f"({p['count']} Highest incidents last month past the 4-hour target). "
                                         f"Approver: @{approver.handle}."),
                steps(inst, "report")[0]: (f"Good news: @{approver.handle} approved {credit} for {account.name}; "
                                           "the note is on the account.")}
    assert_succeeds(play_honestly(store, task, instance_where(store, task, lambda i: not i.params["refused"]), words))


def test_an_invoice_credited_already_is_refused_in_other_words(store):
    task = "w.deal_outage_credit"

    def words(inst, start):
        return {steps(inst, "refusal")[0]: (
            f"Hold on: INV-{inst.params['invoice']} was already credited for these outages last week (see the notes "
            f"on the account). Per {spaced(start, 'Refunds and credits')}, an invoice gets credited only once, so "
            "I'm not sending it to an approver.")}
    assert_succeeds(play_honestly(store, task, instance_where(store, task, lambda i: i.params["refused"]), words))


def test_the_cleanup_reply_may_write_the_date_as_people_do(store):
    task = "w.deal_pipeline_cleanup"

    def words(inst, start):
        p = inst.params
        alive = next(i for i, r in zip(p["deals"], p["reasons"]) if not r)
        when = date.fromisoformat(p["when"][str(alive)])
        return {steps(inst, "report")[0]: (
            f"All cleaned up: the four lost deals are closed and posted in #deals; "
            f"{start.get(Opportunity, alive).name} is still alive and now closes on {when:%B} {when.day}.")}
    assert_succeeds(play_honestly(store, task, 0, words))
