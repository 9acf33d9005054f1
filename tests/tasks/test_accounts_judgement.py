"""What honest players wrote on the CRM-operations templates is graded as the work it reports. A
correction's answer that covers two contacts may name, in the part about the other contact, the value
that contact's later email replaced: it states nothing in place of this contact's value; the same value
stated for the wrong contact, a value of the pool, a denial or an empty answer still fail. The replays
play the reference of the instances the players had, with their exact texts."""

from __future__ import annotations

import anyio
import pytest

from officegym.agents import Player, replay
from officegym.graders.statements import Candidate
from officegym.tasks.handbook import article
from officegym.tasks.procedures.accounts_corrections import Change, contact_says
from officegym.tasks.registry import get_task

STEPHANIE = Change(707, "Stephanie Thomas", "title", "Business Systems Analyst", "CFO")
ANDREW = Change(706, "Andrew Walter", "title", "Procurement Specialist", "IT Manager", "Finance Director")
CHANGES = (STEPHANIE, ANDREW)
POOL = [Candidate.text(t) for t in ("Head of Procurement", "Director of IT", "VP Sales", "CTO")]  # named nowhere
SOPS_201 = (
    "Done per {corrections} (request from andrew.walter@jonesdaugherty.net, a contact of Jones-Daugherty). Updated in "
    "the CRM at Jones-Daugherty: Stephanie Thomas (stephanie.thomas@jonesdaugherty.net) title changed from CFO to "
    "Business Systems Analyst; Andrew Walter (andrew.walter@jonesdaugherty.net) title changed from IT Manager to "
    "Procurement Specialist (per his later correction, which replaces the Finance Director from the first email). "
    "Nothing else changed.")


def _passed(text: str, change: Change) -> bool:
    return all(r.passed for r in contact_says([text], change, CHANGES, POOL, "states it", "new title"))


def test_a_replaced_value_named_about_the_other_contact_states_nothing_of_this_one():
    assert _passed(SOPS_201, STEPHANIE)
    assert _passed(SOPS_201, ANDREW)


@pytest.mark.parametrize("text", [
    # the same values stated for the wrong contacts
    "Corrected in the CRM: Stephanie Thomas's title is now Procurement Specialist; Andrew Walter's title is now "
    "Business Systems Analyst.",
    # the other contact's value stated for her, beside her own
    SOPS_201.replace("to Business Systems Analyst;", "to Business Systems Analyst, then Finance Director;"),
    SOPS_201.replace("to Business Systems Analyst", "to Director of IT"),  # a title of the pool
    SOPS_201.replace("to Business Systems Analyst", "to not Business Systems Analyst"),  # a denial
    "ok",
])
def test_a_wrong_contact_a_pool_value_a_denial_or_nothing_still_fails(text):
    assert not _passed(text, STEPHANIE)


def _played(store, task_id: str, instance: int, texts: dict[tuple[str, str], str]):
    """The reference of `instance` with the texts of `texts` ((tool, ticket key or "dm"/"deals") -> text) in
    place of its own; the grade."""
    template = get_task(task_id)
    episode = store.create(task_id, instance, scale=template.scale, seed=0)
    with episode.session() as session:  # the articles' numbers in this world
        numbers = {"corrections": article(session, "Customer data corrections").number,
                   "overdue": article(session, "Overdue pipeline review").number}
    texts = {where: text.format(**numbers) for where, text in texts.items()}
    try:
        def rewrite(index, step, args):
            if step.tool == "tickets_transition_ticket" and args.get("comment"):
                return [{**args, "comment": texts.get(("ticket", args["key"]), args["comment"])}]
            if step.tool == "chat_post_message":
                where = "deals" if args.get("channel") in ("deals", "#deals") else "dm"
                return [{**args, "text": texts.get(("chat", where), args["text"])}]
            return [args]

        anyio.run(replay, Player(episode), episode.task.solution, rewrite)
        return episode.grade()
    finally:
        store.delete(episode.id)


OUTSIDER = {("ticket", "SOPS-201"): SOPS_201}


def test_the_players_answers_on_the_correction_outsider_pass(store):
    result = _played(store, "r.lib_accounts_correction_outsider", 1, OUTSIDER)
    assert result.success, result.to_dict()


def test_the_wrong_contacts_values_on_the_correction_outsider_fail(store):
    swapped = SOPS_201.replace("to Business Systems Analyst", "to Procurement Specialist")
    result = _played(store, "r.lib_accounts_correction_outsider", 1, {("ticket", "SOPS-201"): swapped})
    assert not result.success


REFUSAL = ("Not done, per {corrections} (Customer data corrections): the sender, sarah.smith@woodltd.com, is not a "
           "contact of Mcdowell-Hill in the CRM (that address belongs to a contact of Wood Ltd), so the request does "
           "not count. Nothing was changed in the CRM; Sales Operations, please answer the sender.")
MONDAY = {("ticket", "SOPS-202"): REFUSAL, ("chat", "dm"): (
    "Hi @ryan.wright, done.\nOverdue deals review ({overdue} Overdue pipeline review):\n- Closed Lost (No Decision), "
    "posted in #deals: Mcdowell-Hill - SSO and SCIM ($154,500, Qualification, close date Feb 5). That is the only "
    "deal I closed.\n- Pushed to Apr 30 with next step \"Confirm the timeline with the customer\": Delacruz-Dixon - "
    "ERP integration (Proposal) and Lee-Myers - Annual renewal (Renewal, so not closed even though it is in "
    "Qualification).\n- Left as they are (passed 14 days ago or less): Porter, Harris and Adams - Singapore, "
    "Cannon-Becker, Shaw-Powell renewal, Wood Ltd renewal.\nSOPS queue:\n- SOPS-201 (Shaw-Powell): Rebecca Moore's "
    "title set to Director of IT (the customer's later correction), commented and sent to In Review.\n- SOPS-202 "
    "(Mcdowell-Hill): not done. Under {corrections} Customer data corrections the request only counts when it comes "
    "from a contact of that account; sarah.smith@woodltd.com is a Wood Ltd contact, so I changed nothing and closed "
    "the ticket as Won't Do with a comment citing the article.")}


def test_the_players_refusal_and_report_on_the_monday_queue_pass(store):
    result = _played(store, "w.lib_accounts_monday", 0, MONDAY)
    assert result.success, result.to_dict()


@pytest.mark.parametrize("denial", ["- SOPS-201 (Shaw-Powell): not done.",
                                    "- Mcdowell-Hill - SSO and SCIM: not closed after all."])
def test_a_denial_of_what_was_carried_out_on_the_monday_queue_fails(store, denial):
    texts = {**MONDAY, ("chat", "dm"): MONDAY[("chat", "dm")] + "\n" + denial}
    result = _played(store, "w.lib_accounts_monday", 0, texts)
    assert not result.success
