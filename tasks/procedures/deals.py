"""Procedures of the deal desk's people side: deciding a discount request by the reason rule of
"Discount and approval thresholds" (`DecideDiscount`), and handing over a departing rep's book as
"Handing over a departing rep's book" says (`HandOverAccount`, `HandOverDeal`). The pending requests a
template plants are made by the deal's owner the afternoon before; an account that changed owner since
the request was moved by the head of Sales ten minutes ago."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from officegym import clock
from officegym.apps.crm import services as crm
from officegym.apps.crm.models import Account, DiscountApproval, LineItem, Opportunity
from officegym.apps.crm.products import line_total
from officegym.apps.org.models import Person
from officegym.graders.checks import Allow, check, guard
from officegym.graders.statements import Candidate, says
from officegym.seed_data.tickets_handbook_deals import HANDOVER_NOTE

from ..base import Claim, Declaration, Target, ToolCall
from ..crm import allow_activity, allow_deal, new_activities, same_text
from ..w_revenue_common import at
from .core import Graded, Procedure

DISCOUNTS = "Discount and approval thresholds"
HANDOVER = "Handing over a departing rep's book"


@dataclass(frozen=True)
class DecideDiscount(Procedure):
    """Decide the pending discount request `approval` (on line `item` of deal `deal`): approve it when its
    `reason` stands by the handbook, reject it otherwise. With `requested_by` the setup plants it (the
    deal's owner asks for `percent` the afternoon before). Difficulty `lookalike`: a reason that names a
    competitor the CRM does not know, which reads like one it does (the near miss approves it)."""

    rules = (DISCOUNTS,)
    hard = ("lookalike",)

    approval: int
    item: int
    deal: int
    deal_name: str
    percent: int
    reason: str
    approve: bool
    requested_by: int = 0  # planted by the setup when set
    minute: int = 0
    tricky: bool = False  # the reason names a competitor the CRM does not know
    new_owner: int = 0  # the deal changes owner in the same task (the diff merges both changes of its row)
    near: tuple[int, ...] = ()  # other requests of the same queue (look-alikes)
    strict: bool = False  # a wrong or missing decision is also a guard (a queue decided right or not at all)

    def setup(self, session):
        if self.requested_by:
            at(session, 1, 15, self.minute)
            crm.request_discount(session, session.get(Person, self.requested_by), self.item, self.percent,
                                 self.reason)

    def decision(self, approve: bool) -> ToolCall:
        """The call that approves or rejects the request."""
        if approve:
            return ToolCall("crm_approve_discount", {"approval": self.approval, "note": "The reason stands."})
        return ToolCall("crm_reject_discount", {"approval": self.approval, "note": (
            "The reason names neither a competitor the CRM knows nor the customer's budget figure.")})

    def steps(self):
        return [ToolCall("crm_get_opportunity", {"opportunity": self.deal}), self.decision(self.approve)]

    def declared(self):
        return self.hard if self.tricky else ()

    def fallen(self, kind):
        if kind != "lookalike" or not self.tricky:
            return None
        return [self.steps()[0], self.decision(not self.approve)]

    def declare(self, start):
        return Declaration([Target("opportunity", self.deal, []), Target("approval", self.approval, list(self.near))])

    def check(self, ctx):
        now = ctx.final.get(DiscountApproval, self.approval)
        wanted = "Approved" if self.approve else "Rejected"
        status = now.status if now is not None else "gone"
        allowed = [Allow("crm_discount_approval", ("updated",), lambda row: row["id"] == self.approval,
                         ("status", "decided_at", "decision_note"))]
        if self.approve:  # approving applies the discount to the line, and the line's total to the deal
            item = ctx.start.get(LineItem, self.item)
            asked = ctx.start.get(DiscountApproval, self.approval).discount_bp
            total = line_total(item.quantity, item.unit_price_cents, asked)
            deal = ctx.start.get(Opportunity, self.deal)
            amount = deal.amount_cents - item.total_cents + total
            owners = {deal.owner_id, self.new_owner or deal.owner_id}
            allowed += [Allow("crm_line_item", ("updated",), lambda row: row["id"] == item.id
                              and row["discount_bp"] == asked and row["total_cents"] == total,
                              ("discount_bp", "total_cents")),
                        allow_deal(self.deal, "amount_cents", "owner_id",
                                   where=lambda row: row["amount_cents"] == amount and row["owner_id"] in owners)]
        said = f"The discount request on {self.deal_name} ({self.percent}%) is {wanted.lower()}"
        results = [check(said, status == wanted, f"it is {status}", weight=2)]
        if self.strict:
            results.append(guard(f"{said}, not left pending nor decided the other way", status == wanted,
                                 f"it is {status}"))
        return Graded(results, allowed)


@dataclass(frozen=True)
class HandOverAccount(Procedure):
    """An account of the departing rep goes to their manager (`manager`, `manager_handle`)."""

    rules = (HANDOVER,)

    account: int
    account_name: str
    manager: int
    manager_handle: str

    def steps(self):
        return [ToolCall("crm_update_account", {"account": self.account, "owner": f"@{self.manager_handle}"})]

    def check(self, ctx):
        owner = ctx.final.get(Account, self.account).owner_id
        return Graded([check(f"{self.account_name} is now the manager's account", owner == self.manager,
                             f"its owner is person {owner}", weight=0.5)],
                      [Allow("crm_account", ("updated",), lambda row: row["id"] == self.account
                             and row["owner_id"] == self.manager, ("owner_id",))])


@dataclass(frozen=True)
class HandOverDeal(Procedure):
    """An open deal of the departing rep `rep_name` goes to `to` (its account's owner when someone else owns
    the account, else the manager), with a note "Handover from <rep>" naming its new owner among `owners`
    (the names of everyone who takes over something). `holds`: "exception" (a teammate owns the account),
    "changed" (the head of Sales, `mover`, gave the rep's account to `to` ten minutes ago, after the
    request: the setup does it). The near miss gives the deal to the manager."""

    rules = (HANDOVER,)
    hard = ("exception", "changed")

    deal: int
    deal_name: str
    account: int
    rep_name: str
    to: int
    to_handle: str
    to_name: str
    manager: int
    manager_handle: str
    manager_name: str
    owners: tuple[str, ...]
    holds: tuple[str, ...] = ()
    mover: int = 0
    lookalikes: tuple[int, ...] = ()

    def setup(self, session):
        if self.mover:
            clock.set_time(session, clock.company_now(session) - timedelta(minutes=10))
            crm.update_account(session, session.get(Person, self.mover), self.account, owner=self.to)

    def calls(self, handle: str, name: str) -> list[ToolCall]:
        """The reads and writes that give the deal to `handle`."""
        return [ToolCall("crm_get_account", {"account": self.account}),
                ToolCall("crm_update_opportunity", {"opportunity": self.deal, "owner": f"@{handle}"}),
                ToolCall("crm_log_activity", {"record_type": "opportunity", "record_id": self.deal, "kind": "note",
                                              "subject": HANDOVER_NOTE.format(rep=self.rep_name),
                                              "body": f"{self.deal_name} now belongs to {name}."},
                         role="note", text_arg="body")]

    def steps(self):
        return self.calls(self.to_handle, self.to_name)

    def declared(self):
        return self.holds

    def fallen(self, kind):
        if kind not in self.holds:
            return None
        return self.calls(self.manager_handle, self.manager_name)

    def declare(self, start):
        return Declaration([Target("opportunity", self.deal, list(self.lookalikes))])

    def check(self, ctx):
        owner = ctx.final.get(Opportunity, self.deal).owner_id
        notes = [r for r in new_activities(ctx, "opportunity", self.deal, "note")
                 if same_text(r["subject"], HANDOVER_NOTE.format(rep=self.rep_name))]
        right = Claim(Candidate.text(self.to_name), [Candidate.text(n) for n in self.owners if n != self.to_name],
                      "text", "new owner")
        results = [check(f"{self.deal_name} now belongs to {self.to_name}", owner == self.to,
                         f"its owner is person {owner}"),
                   check(f"One handover note on {self.deal_name}", len(notes) == 1, f"{len(notes)} notes", weight=0.5),
                   *says([r["body"] for r in notes], right.right, right.others,
                         f"The handover note on {self.deal_name} names its new owner, {self.to_name}", "new owner",
                         weight=3)]
        return Graded(results, [allow_deal(self.deal, "owner_id", where=lambda row: row["owner_id"] == self.to),
                                allow_activity("opportunity", self.deal, "note", ctx.actor_id)])

