"""Deal templates composed from the procedure library (tasks.procedures.deals):

- `w.lib_deal_handover`: the head of Sales asks a manager, by DM, to hand over a departing rep's book as
  "Handing over a departing rep's book" says: the discount requests pending on the rep's deals decided
  first (by the reason rule of "Discount and approval thresholds"; one reason names a competitor the CRM
  does not know), the rep's accounts to the manager, each open deal to its account's owner (a teammate,
  for a deal on a teammate's account or on the account the head of Sales gave a teammate ten minutes
  ago) or else to the manager, a handover note on each, and a reply naming the teammates who took deals;
- `w.lib_deal_handover_big_book`: the same for a rep with a book of fifteen open deals or more;
- `w.lib_deal_discount_queue`: the head of Sales asks a manager to decide every discount request waiting on
  them (those of the world and some their reports made yesterday: two whose reasons stand, one naming a
  competitor no deal in the CRM names, the rest naming nothing the handbook accepts), and to name the
  customers whose discounts were approved.

The renewal template is in tasks.w_lib_deals_renewals, the loss review in tasks.w_lib_deals_losses and
the manager's quarter-end marathon in tasks.w_lib_deals_more; they register when this module is imported."""

from __future__ import annotations

from officegym.apps.crm.models import Opportunity
from officegym.apps.org.models import Person
from officegym.graders.statements import Candidate

from .base import Claim, ToolCall
from .common import named
from .crm import sales_people
from .phrasing import request_instruction
from .procedures import Composed, DirectRequest, Plan, ReadRule, Reads, Reply
from .procedures.deals import DISCOUNTS, HANDOVER
from .procedures.deals_draws import departing, handover_book
from .procedures.deals_queue import queue, queue_managers, waiting_on
from .registry import register
from .w_lib_deals_common import DEALS_TOOLS, HANDED, by_manager, head_of_sales, split_first
from .w_lib_deals_losses import LossReview  # registered on import
from .w_lib_deals_more import QuarterEndManager  # registered on import
from .w_lib_deals_renewals import RenewalWeek  # registered on import
from .w_people_replies import people_claim


class Handover(Composed):
    """A departing rep's book handed over by their manager (not registered itself: see its subclasses)."""

    kind, scale = "workflow", "medium"
    apps, toolsets = ("chat", "crm", "tickets", "org"), DEALS_TOOLS
    rules, hard = (HANDOVER, DISCOUNTS), ("exception", "changed", "lookalike")
    least, most = 1, 99

    def plan(self, session, rng, instance):
        book = by_manager(departing(session, self.split, self.least, self.most), instance)
        rep, manager, head = book.rep, book.manager, head_of_sales(session)
        work, takers = handover_book(session, rng, book, self.split, head)
        text = (f"Hi @{manager.handle}, {rep.name} leaves us at the end of the week. Could you hand over their book "
                "in the CRM as the handbook says, and tell me once it's done?")
        others = [session.get(Person, i) for i in sorted({p.id for p in sales_people(session)
                                                          if p.manager_id == manager.id} - {t.id for t in takers})]
        said = ", ".join(t.name for t in takers)
        reply = Reply(head.id, head.name, manager.id, (
            f"@{head.handle} {rep.name}'s book is handed over: the pending discount requests are decided, their "
            f"accounts and the rest of their open deals are with me, and {said} took over the deals on their "
            "accounts."), False, HANDED, weight=len(book.deals) + 2, fact_weight=2,
            named=tuple(people_claim([t], [o for o in others if o.id != rep.id], "colleague who took over deals")
                        for t in takers))
        return Plan(manager.id, request_instruction(rng, named(session, head)),
                    [DirectRequest(head.id, manager.id, text), ReadRule.of(session, HANDOVER, "departing rep handover"),
                     ReadRule.of(session, DISCOUNTS, "discount approval reason"), *work, reply])

    def declare(self, start, inst):
        return split_first(super().declare(start, inst), self.split)


@register
class HandoverBook(Handover):
    """Hand over a departing rep's book of up to twelve open deals."""

    id, difficulty, split = "w.lib_deal_handover", 5, "train"
    least, most = 4, 12
    summary = ("The head of Sales asks you to hand over a departing rep's book: decide the discount requests pending "
               "on their deals by the reason rule, then give their accounts and open deals to you, except deals on "
               "an account a teammate owns (now), which go to that teammate; a handover note on each deal, and a "
               "reply naming the teammates who took deals.")


@register
class HandoverBigBook(Handover):
    """Hand over a departing rep's book of fifteen open deals or more (some sixty to ninety calls, yet over
    fewer than thirty records for some managers: a long workflow, not a marathon)."""

    id, difficulty, split = "w.lib_deal_handover_big_book", 5, "train"
    least, most = 15, 99
    summary = ("A departing rep's whole book of fifteen open deals or more and their accounts, handed over as the "
               "handbook says, the pending discount requests decided first; the head of Sales hears who took deals.")


__all__ = ["DiscountQueue", "HandoverBigBook", "HandoverBook", "LossReview", "QuarterEndManager", "RenewalWeek"]


@register
class DiscountQueue(Composed):
    """Decide every discount request waiting on you by the reason rule, and tell the head of Sales which
    customers' discounts you approved."""

    id, kind, difficulty, split, scale = "w.lib_deal_discount_queue", "workflow", 5, "train", "medium"
    apps, toolsets = ("chat", "crm", "tickets"), DEALS_TOOLS
    rules, hard = (DISCOUNTS,), ("lookalike",)
    summary = ("The head of Sales asks you to clear the discount requests waiting on you: approve those whose reason "
               "names a competitor the CRM knows or the customer's budget figure, reject the rest (one names a "
               "competitor no deal in the CRM names), and reply naming the customers whose discounts you approved.")

    def plan(self, session, rng, instance):
        managers = queue_managers(session, self.split, 4)
        manager, head = managers[instance % len(managers)], head_of_sales(session)
        work = queue(session, rng, manager, self.split, max(4, 9 - len(waiting_on(session, manager))))
        accounts = {}
        for d in work:
            accounts.setdefault(session.get(Opportunity, d.deal).account.name, set()).add(d.approve)
        yes = sorted(a for a, said in accounts.items() if said == {True})
        no = [Candidate.text(a) for a, said in sorted(accounts.items()) if said == {False}]
        text = (f"Hi @{manager.handle}, your discount queue has piled up. Could you decide every request waiting on "
                "you as the handbook says, and tell me which customers' discounts you approved?")
        reply = Reply(head.id, head.name, manager.id, (
            f"@{head.handle} done: I decided the {len(work)} requests. I approved the discounts of {', '.join(yes)}; "
            "the others' reasons named neither a competitor the CRM knows nor a budget figure, so I rejected them."),
            False, ("decided", "approved", "done"), weight=2 * len(work) + 2, fact_weight=2,
            facts=tuple(Claim(Candidate.text(a), no, "text", "customer whose discount was approved") for a in yes))
        reads = Reads((ToolCall("crm_list_discount_approvals", {"status": "Pending", "mine": True}),
                       ToolCall("crm_list_opportunities", {"stage": "open", "sort": "amount", "descending": True})))
        return Plan(manager.id, request_instruction(rng, named(session, head)),
                    [DirectRequest(head.id, manager.id, text),
                     ReadRule.of(session, DISCOUNTS, "discount approval reason"), reads, *work, reply])
