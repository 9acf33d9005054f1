"""CRM-operations templates composed from the procedure library (tasks.procedures.accounts_pipeline and
tasks.procedures.accounts_corrections):

- `w.lib_accounts_monday`: a rep's manager asks them by DM to do the Monday review of their overdue deals as
  "Overdue pipeline review" says (stale deals pushed or closed lost by stage, a stale early-stage Renewal pushed
  all the same, deals overdue by fourteen days or fewer left alone), to clear the customer data-correction
  tickets in their SOPS queue, and to say which deals were closed;
- `w.lib_accounts_overdue_team`: the head of Sales asks a manager to do it for two or three of their reps.

The customer data-correction and duplicate-contact templates are in tasks.w_lib_accounts_fixes; they register
when this module is imported."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from officegym.apps.org.models import Person

from .base import ToolCall
from .common import named, spread
from .crm import today
from .phrasing import request_instruction
from .procedures import Composed, DirectRequest, Plan, ReadRule, Reads, Reply
from .procedures.accounts_corrections import CORRECTIONS
from .procedures.accounts_draws import overdue_deals, review_managers, review_owners
from .procedures.accounts_fixes_draws import COUNTING, NOT_COUNTING, correction, correction_accounts
from .procedures.accounts_pipeline import CLOSE, LOSSES, OVERDUE, closed_claims
from .registry import register
from .split import in_split
from .w_lib_accounts_fixes import (MY_SOPS, CorrectionOutsider, CorrectionQueue, CorrectionSender,  # registered
                                   DuplicateContacts, MixedQueue, keys_from)  # registered on import
from .w_lib_deals_common import DEALS_TOOLS, head_of_sales

REVIEWED = ("reviewed", "closed", "done")


def review_reply(requester: Person, actor: Person, reviews) -> Reply:
    """The report to whoever asked: the review is done, naming each deal closed lost."""
    closed = [r.deal_name for r in reviews if r.action == CLOSE]
    text = (f"@{requester.handle} the overdue review is done: I closed {', '.join(closed)} as lost (No Decision); "
            "the other stale deals are pushed to the end of next month, and the ones only just overdue stay as they "
            "are this week.")
    # the deals not closed (left, or pushed: a Renewal "not closed even though it is in Qualification") are
    # what the closing rightly did not go to, so a clause naming only them denies nothing; one naming a deal
    # closed still does
    return Reply(requester.id, requester.name, actor.id, text, False, REVIEWED, weight=len(reviews) + 1,
                 fact_weight=2, facts=closed_claims(reviews), asides=tuple(r.deal_name for r in reviews
                                                                           if r.action != CLOSE),
                 carried=tuple(closed))


def first_of_split(reviews, split: str):
    """The reviews with the first deal of `split` that has look-alikes leading (the draws' proofs read the first
    target as the instance's record); the rest keep their order."""
    lead = next((r for r in reviews if in_split(split, "opportunity", r.deal) and r.near), reviews[0])
    return [lead] + [r for r in reviews if r is not lead]


class OverdueReview(Composed):
    """The Monday overdue review (not registered itself)."""

    kind, scale, difficulty = "workflow", "medium", 5
    apps, toolsets = ("chat", "crm", "tickets"), DEALS_TOOLS
    rules, hard = (OVERDUE, LOSSES), ("lookalike", "exception")

    def listing(self, session, owner: Person) -> ToolCall:
        """The read that finds an owner's open deals whose close date has passed."""
        before = (today(session) - timedelta(days=1)).isoformat()
        return ToolCall("crm_list_opportunities", {"stage": "open", "owner": f"@{owner.handle}", "close_to": before})


@register
class MondayQueue(OverdueReview):
    """A rep's Monday: the review of their overdue deals and the SOPS correction tickets assigned to them, asked
    by their manager."""

    id, split = "w.lib_accounts_monday", "test"
    apps = ("chat", "crm", "tickets")
    rules, hard = (OVERDUE, LOSSES, CORRECTIONS), ("lookalike", "exception", "stale")
    summary = ("Your manager asks for your Monday review of your overdue deals (those overdue by more than fourteen "
               "days pushed to the end of next month or closed lost and posted in #deals by stage, a Renewal always "
               "pushed, those just overdue left alone) and for the customer data-correction tickets in your SOPS "
               "queue (corrected and sent to review when the sender is a contact of the account, else closed Won't "
               "Do); reply naming the deals closed.")

    def plan(self, session, rng, instance):
        owners = [o for o in review_owners(session, self.split) if correction_accounts(session, o, self.split)]
        owner = spread(owners, instance)
        manager = session.get(Person, owner.manager_id)
        reviews = first_of_split(overdue_deals(session, rng, [owner], (rng.choice((1, 2)), 2, 2)), self.split)
        accounts = correction_accounts(session, owner, self.split)
        kinds = rng.sample([rng.choice(COUNTING), rng.choice(NOT_COUNTING)], 2)
        stale, keys = rng.randrange(2), keys_from(session, 2)
        fixes, taken = [], frozenset()
        for n, (kind, account) in enumerate(zip(kinds, rng.sample(accounts * 2, 2))):
            fixes.append(replace(correction(session, rng, account, self.split, keys[n], kind, rng.choice((1, 2)),
                                            n == stale and kind in COUNTING, taken=taken), hours_ago=5 - 2 * n))
            taken |= {c.contact for c in fixes[-1].changes}
        text = (f"Hi @{owner.handle}, before the forecast call could you do the Monday review of your overdue deals as "
                "the handbook says, and clear the tickets Sales Operations put in your SOPS queue? Tell me which deals "
                "you closed.")
        reply = review_reply(manager, owner, reviews)
        # the refused ticket (its key, its sender) may be said not done; the tickets carried out may not
        refused = tuple(a for f in fixes if not f.counts for a in (f.key, f.sender_email))
        reply = replace(reply, asides=reply.asides + refused,
                        carried=reply.carried + tuple(f.key for f in fixes if f.counts))
        return Plan(owner.id, request_instruction(rng, named(session, manager)),
                    [DirectRequest(manager.id, owner.id, text),
                     ReadRule.of(session, OVERDUE, "overdue pipeline review"),
                     ReadRule.of(session, LOSSES, "loss reasons closed lost"), Reads((self.listing(session, owner),)),
                     *reviews, ReadRule.of(session, CORRECTIONS, "customer data corrections"), Reads((MY_SOPS,)),
                     *fixes, reply])


@register
class OverdueTeam(OverdueReview):
    """A manager's review of two or three reps' overdue deals, asked by the head of Sales."""

    id, split = "w.lib_accounts_overdue_team", "train"
    summary = ("The head of Sales asks a manager to do the Monday overdue review for named reps of their team: "
               "stale deals pushed or closed lost by stage (a Renewal is always pushed), those just overdue left "
               "alone, each loss posted in #deals, and a reply naming the deals closed.")

    def plan(self, session, rng, instance):
        manager, head = spread(review_managers(session, self.split), instance), head_of_sales(session)
        owners = [p for p in review_owners(session, self.split) if p.manager_id == manager.id]
        owners = sorted(rng.sample(owners, min(len(owners), rng.choice((2, 3)))), key=lambda p: p.id)
        reviews = first_of_split(overdue_deals(session, rng, owners, (1, 2, 1)), self.split)
        names = " and ".join(f"@{p.handle}" for p in owners)
        text = (f"Hi @{manager.handle}, {names} are at the customer summit today. Could you do the Monday review of "
                "their overdue deals as the handbook says, and tell me which ones you closed?")
        return Plan(manager.id, request_instruction(rng, named(session, head)),
                    [DirectRequest(head.id, manager.id, text), ReadRule.of(session, OVERDUE, "overdue pipeline review"),
                     ReadRule.of(session, LOSSES, "loss reasons closed lost"),
                     Reads(tuple(self.listing(session, p) for p in owners)), *reviews,
                     review_reply(head, manager, reviews)])


__all__ = ["CorrectionOutsider", "CorrectionQueue", "CorrectionSender", "DuplicateContacts", "MixedQueue",
           "MondayQueue", "OverdueTeam"]
