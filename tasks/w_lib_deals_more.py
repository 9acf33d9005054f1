"""A deal marathon composed from the procedure library, imported by tasks.w_lib_deals:

- `w.lib_deal_quarter_end_manager`: the head of Sales asks a manager, by DM, for two jobs at once: hand
  over a departing rep's book ("Handing over a departing rep's book": the rep's pending discount requests
  decided first, their accounts and open deals to the manager or to the teammate who owns the deal's
  account, a handover note on each deal) and clear the rest of the discount requests waiting on the
  manager ("Discount and approval thresholds"); one reply names the teammates who took deals and the
  customers whose discounts were approved."""

from __future__ import annotations

from officegym.apps.crm.models import Opportunity
from officegym.graders.statements import Candidate

from .base import Claim
from .common import named
from .crm import sales_people
from .phrasing import request_instruction
from .procedures import Composed, DirectRequest, Plan, ReadRule, Reply
from .procedures.deals import DISCOUNTS, HANDOVER, DecideDiscount, HandOverAccount, HandOverDeal
from .procedures.deals_draws import departing, handover_book
from .procedures.deals_queue import queue, queue_managers, waiting_on
from .registry import register
from .w_lib_deals_common import DEALS_TOOLS, HANDED, by_manager, head_of_sales, split_first
from .w_people_replies import people_claim


def approved_customers(session, decisions: list[DecideDiscount]) -> tuple[list[str], list[str]]:
    """The customers all of whose requests are approved, and those all of whose requests are rejected."""
    accounts: dict[str, set[bool]] = {}
    for d in decisions:
        accounts.setdefault(session.get(Opportunity, d.deal).account.name, set()).add(d.approve)
    return (sorted(a for a, said in accounts.items() if said == {True}),
            sorted(a for a, said in accounts.items() if said == {False}))


@register
class QuarterEndManager(Composed):
    """A departing rep's book handed over and the rest of the manager's discount queue cleared, in one go."""

    id, kind, difficulty, split, scale = "w.lib_deal_quarter_end_manager", "workflow", 6, "train", "medium"
    apps, toolsets = ("chat", "crm", "tickets", "org"), DEALS_TOOLS
    rules, hard = (HANDOVER, DISCOUNTS), ("exception", "changed", "lookalike")
    summary = ("The head of Sales asks you to hand over a departing rep's book and to clear the rest of your discount "
               "queue: the rep's requests decided first, their accounts and open deals to you or to the teammate who "
               "owns the account, a note on each; every other request decided by the reason rule; one reply naming "
               "the teammates who took deals and the customers whose discounts you approved.")

    def plan(self, session, rng, instance):
        managers = {m.id for m in queue_managers(session, self.split, 4)}
        books = [b for b in departing(session, self.split, 8, 99) if b.manager.id in managers
                 and len(b.deals) + len(b.accounts) + len(waiting_on(session, b.manager)) >= 26]
        book = by_manager(books, instance)
        rep, manager, head = book.rep, book.manager, head_of_sales(session)
        work, takers = handover_book(session, rng, book, self.split, head)
        rest = queue(session, rng, manager, self.split, 4, besides=rep.id, after=2)
        decisions = [p for p in work if isinstance(p, DecideDiscount)] + rest
        yes, no = approved_customers(session, decisions)
        text = (f"Hi @{manager.handle}, two things before the quarter closes. {rep.name} leaves us at the end of the "
                "week: could you hand over their book in the CRM as the handbook says? And please clear the other "
                "discount requests waiting on you. Tell me once both are done, with the customers whose discounts "
                "you approved.")
        others = [p for p in sales_people(session) if p.manager_id == manager.id and p.id != rep.id
                  and p.id not in {t.id for t in takers}]
        reply = Reply(head.id, head.name, manager.id, (
            f"@{head.handle} both done. {rep.name}'s book is handed over: their accounts and the rest of their open "
            f"deals are with me, and {', '.join(t.name for t in takers)} took over the deals on their accounts. I "
            f"decided the discount requests and approved those of {', '.join(yes)}; the other reasons named neither a "
            "competitor the CRM knows nor a budget figure."), False, HANDED,
            weight=len(work) + len(rest), fact_weight=2,
            facts=tuple(Claim(Candidate.text(a), [Candidate.text(n) for n in no], "text",
                              "customer whose discount was approved") for a in yes),
            named=tuple(people_claim([t], others, "colleague who took over deals") for t in takers))
        moves = [p for p in work if isinstance(p, (HandOverAccount, HandOverDeal))]
        return Plan(manager.id, request_instruction(rng, named(session, head)),
                    [DirectRequest(head.id, manager.id, text), ReadRule.of(session, HANDOVER, "departing rep handover"),
                     ReadRule.of(session, DISCOUNTS, "discount approval reason"),
                     *[p for p in work if p not in moves], *rest, *moves, reply])

    def declare(self, start, inst):
        return split_first(super().declare(start, inst), self.split)

