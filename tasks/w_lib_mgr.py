"""A sales manager's Monday, composed from the expense-claims and discount procedures:

- `w.lib_mgr_monday`: Accounting asks a Sales manager to decide their team's Pending rows of the month in the
  expense-claims workbook (tasks.w_lib_fin's month: limits per person and per night, 60 days, twelve months of
  home-office items added up, a duplicate; another manager's rows beside them), and the head of Sales asks
  them to clear the discount requests waiting on them (tasks.procedures.deals_queue: reasons that stand, one
  naming a competitor no deal in the CRM names, the rest naming nothing); the people rejected are told,
  Accounting and the head of Sales hear back (the customers whose discounts were approved);
- `r.lib_mgr_monday_rep_discount` (a decision): the same Monday, and one of the manager's reps asks them to
  approve the discount request on their deal, whose reason names a competitor. In one twin the competitor is
  one the CRM knows (approved), in the other one no deal in the CRM names (rejected, and the rep told why).
  The rep's words are the same.

The rep's month end (`r.lib_mgr_month_end_credit`: the overdue review and a customer's credit) is in
tasks.w_lib_mgr_month; it registers when this module is imported."""

from __future__ import annotations

from dataclasses import replace

from officegym.apps.crm.models import Opportunity
from officegym.colleagues.reasons import reason_stands
from officegym.graders.statements import Candidate

from .base import Claim, ToolCall
from .common import named, pick
from .decisions import twin_outcome
from .phrasing import request_instruction
from .procedures import Composed, DirectRequest, Plan, ReadRule, Reads, Reply
from .procedures.compose_draws import Counted
from .procedures.deals import DISCOUNTS
from .procedures.deals_draws import TRICKY, UNKNOWN, visible_rivals
from .procedures.deals_queue import queue, queue_managers, waiting_on
from .procedures.finance import EXPENSES
from .registry import register
from .w_lib_deals_common import head_of_sales
from .w_lib_fin import month_of_claims, reads
from .w_lib_mgr_month import MonthEndCredit  # registered on import
from officegym.seed_data.tickets_handbook_finance import CLAIMS

APPS = ("chat", "crm", "sheets", "tickets")
TOOLS = ("chat", "crm.sales", "sheets.cells", "tickets.work")  # the deals and the sheet: at most 100 tools
PLANTED = 4  # discount requests the reports made yesterday: two that stand, one tricky, one weak
WAITING = 5  # at most so many requests of the world waiting on the manager (the day stays within some 45 calls)
CASES = ("meal_stale", "dinner_exception", "office_summed", "duplicate", "ok_travel", "office_old", "ok_meal")


def monday(session, rng, split: str, instance: int):
    """The manager's Monday: the expense month (month_of_claims, its manager a Sales manager with a discount
    queue), the head of Sales, the discount requests waiting (DecideDiscount each), the head's DM and the reply
    naming the customers approved (built by `discount_reply`)."""
    among = {m.id for m in queue_managers(session, split, PLANTED) if len(waiting_on(session, m)) <= WAITING}
    manager, controller, book, tell, ask, report, _, _, _ = month_of_claims(session, rng, split, instance,
                                                                            among=among, cases=CASES)
    head = head_of_sales(session)
    work = queue(session, rng, manager, split, PLANTED)
    text = (f"Hi @{manager.handle}, your discount queue has piled up over the weekend. Could you decide the requests "
            "waiting on you as the handbook says, and tell me which customers' discounts you approved?")
    listing = Reads((ToolCall("crm_list_discount_approvals", {"status": "Pending", "mine": True}),))
    return manager, controller, head, book, tell, ask, report, work, DirectRequest(head.id, manager.id, text,
                                                                                  minutes=45), listing


def account_of(session, decide) -> str:
    """The name of the customer whose deal a discount request is on."""
    return session.get(Opportunity, decide.deal).account.name


def discount_reply(session, head, manager, work) -> Reply:
    """The reply to the head of Sales naming the customers whose discounts were approved (the others look-alikes)."""
    accounts: dict[str, set[bool]] = {}
    for d in work:
        accounts.setdefault(account_of(session, d), set()).add(d.approve)
    yes = sorted(a for a, said in accounts.items() if said == {True})
    no = [Candidate.text(a) for a, said in sorted(accounts.items()) if said == {False}]
    return Reply(head.id, head.name, manager.id, (
        f"@{head.handle} done: I decided the {len(work)} requests. I approved the discounts of {', '.join(yes)}; the "
        "others' reasons named neither a competitor the CRM knows nor a budget figure, so I rejected them."),
        False, ("decided", "approved", "done"), weight=2 * len(work) + 2, fact_weight=2,
        facts=tuple(Claim(Candidate.text(a), no, "text", "customer whose discount was approved") for a in yes))


@register
class ManagerMonday(Composed):
    """Decide the team's expense rows of the month and the discount queue, in one Monday."""

    id, kind, difficulty, split, scale = "w.lib_mgr_monday", "workflow", 5, "train", "medium"
    apps, toolsets = APPS, TOOLS
    rules, hard = (CLAIMS, EXPENSES, DISCOUNTS), ("lookalike", "stale", "summed", "exception")
    summary = ("Accounting asks you to decide your team's Pending expense rows (by the Expense policy as Approving "
               "expense claims applies it; tell each employee rejected and Accounting), and the head of Sales to "
               "clear your discount queue by the reason rule (one names a competitor the CRM does not know) and name "
               "the customers approved.")

    def plan(self, session, rng, instance):
        manager, controller, head, book, tell, ask, report, work, request, listing = monday(
            session, rng, self.split, instance)
        return Plan(manager.id, request_instruction(rng, f"{named(session, controller)} and {named(session, head)}",
                                                    "each of them"),
                    [ask, request, *reads(session), book, tell, report,
                     ReadRule.of(session, DISCOUNTS, "discount approval reason"), listing, *work,
                     discount_reply(session, head, manager, work)])


@register
class ManagerMondayRepDiscount(Composed):
    """The Monday, and a rep asks for their discount approved: it is, unless its reason's competitor is one no
    deal in the CRM names."""

    id, kind, difficulty, split, scale = "r.lib_mgr_monday_rep_discount", "decision", 5, "train", "medium"
    apps, toolsets = APPS, TOOLS
    rules, hard = (CLAIMS, EXPENSES, DISCOUNTS), ("lookalike", "stale", "summed", "exception")
    summary = ("Your Monday: your team's expense rows for Accounting and your discount queue for the head of Sales; "
               "one of your reps asks you to approve their discount, whose reason names a competitor: approve it "
               "when the CRM knows that competitor, reject it (reply naming it) when no deal in the CRM names it.")

    def plan(self, session, rng, instance):
        refused = bool(twin_outcome(self.id, instance).refuse)
        manager, controller, head, book, tell, ask, report, work, request, listing = monday(
            session, rng, self.split, instance)
        planted = [d for d in work if d.requested_by]
        if refused:
            asked = next(d for d in planted if d.tricky)
        else:  # a request that stands, its reason naming a competitor the CRM knows (the same kind of words)
            asked = next(d for d in planted if d.approve)
            reason = pick(rng, TRICKY).format(rival=pick(rng, visible_rivals(session, manager)))
            at = work.index(asked)
            asked = replace(asked, reason=reason, approve=reason_stands(session, reason))
            work[at] = asked
        rep = session.get(type(manager), asked.requested_by)
        rep_ask = DirectRequest(rep.id, manager.id, (
            f"Hi, could you approve my discount request on {asked.deal_name} today? The customer is weighing a "
            "competitor, I put it in the reason. They want to sign this week."), minutes=30)
        if refused:
            rival = next(u for u in UNKNOWN if u in asked.reason)
            reply = Reply(rep.id, rep.name, manager.id, (
                f"@{rep.handle} I can't approve the discount on {asked.deal_name}: no deal in the CRM names "
                f"{rival}, so its reason doesn't stand under {DISCOUNTS} and I rejected it."), True, ("approved",),
                DISCOUNTS, (Claim(Candidate.text(rival), [], "text", "competitor the CRM does not know"),),
                (asked.decision(True),), weight=len(work),
                carried=tuple(name for d in work if d.approve for name in (d.deal_name, account_of(session, d))))
        else:
            reply = Reply(rep.id, rep.name, manager.id, f"@{rep.handle} done: I approved the discount on "
                          f"{asked.deal_name}.", False, ("approved",), weight=len(work))
        return Plan(manager.id, request_instruction(rng, f"{named(session, controller)}, {named(session, head)} and "
                                                    f"{named(session, rep)}", "each of them"),
                    [ask, request, rep_ask, *reads(session), book, tell, report,
                     ReadRule.of(session, DISCOUNTS, "discount approval reason"), listing, *work, reply,
                     discount_reply(session, head, manager, work), Counted(3 - refused, int(refused))],
                    {"refused": refused})


__all__ = ["ManagerMonday", "ManagerMondayRepDiscount", "MonthEndCredit"]
