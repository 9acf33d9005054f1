"""The credit-request procedure of the handbook's "Refunds and credits": an account owner writes a
customer's credit request as a note on the account (the amount, the invoice, why) and tells whoever
asked who approves it, by the account's total over twelve months (the new credit and every credit the
account's notes show in the past twelve months, added up). An invoice is credited once: a request on an
invoice the notes show credited already goes to no approver, and the owner says so, naming the invoice.
The earlier credits are planted as the credit family plants them (tasks.w_deals_credit_setup)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date

from sqlalchemy import select

from officegym.apps.crm.models import Account
from officegym.graders.checks import check
from officegym.graders.statements import Candidate, says

from ..base import CARRY_OUT, REFUSE, Claim, Declaration, Target, ToolCall
from ..crm import allow_activity, money, new_activities
from ..w_deals_credit_setup import earlier_credit_step
from .core import Graded, Procedure
from .messages import Reply

CREDITS = "Refunds and credits"
MANAGER_UP_TO, CS_UP_TO = 1_000, 10_000  # the article's approvers, by the twelve-month total in dollars
TIERS = ("manager", "Customer Success", "Finance")


def tier(total: int) -> str:
    """Who approves a twelve-month total of credits (dollars; never drawn on a band's edge)."""
    return TIERS[0] if total < MANAGER_UP_TO else TIERS[1] if total <= CS_UP_TO else TIERS[2]


@dataclass(frozen=True)
class Credit:
    """A credit the account's notes show: `dollars` on `invoice` for `why`, noted on `when` by the owner."""

    dollars: int
    invoice: str
    why: str
    when: date
    approved_by: str


@dataclass(frozen=True)
class LogCredit(Procedure):
    """Log the credit request of `dollars` on `invoice` (`why`) as a note on account `account` (its owner is
    the actor) and name its approver (`approvers`: tier -> person's name) to the requester in `reply` (a
    `Reply` stating `facts()`); refused when one of `earlier` is on the same invoice, and then the reply
    names the invoice. Difficulties: `summed` (the approver of the new credit alone differs), `lookalike` (a credit
    noted more than twelve months ago, which does not count, would change the approver), `exception` (the
    invoice credited already)."""

    rules = (CREDITS,)
    hard = ("summed", "lookalike", "exception")

    owner: int
    account: int
    account_name: str
    dollars: int
    invoice: str
    why: str
    earlier: tuple[Credit, ...]
    stale: Credit
    approvers: tuple[tuple[str, str], ...]
    reply: Reply | None = None

    @property
    def refused(self) -> bool:
        """Whether the invoice was credited already (within the twelve months)."""
        return any(c.invoice == self.invoice for c in self.earlier)

    def approver(self, extra: int = 0, alone: bool = False) -> str:
        """The name of who approves: by the twelve-month total (plus `extra`; the new credit `alone`)."""
        total = self.dollars + (0 if alone else sum(c.dollars for c in self.earlier)) + extra
        return dict(self.approvers)[tier(total)]

    def setup(self, session):
        for credit in (self.stale, *self.earlier):
            earlier_credit_step(self.owner, self.account_name, credit.when, credit.dollars, credit.invoice, credit.why,
                                credit.approved_by)(session)

    def note(self) -> ToolCall:
        """The request, written as a note on the account."""
        return ToolCall("crm_log_activity", {"record_type": "account", "record_id": self.account, "kind": "note",
                                             "subject": f"Credit request: {self.invoice}", "body": (
            f"Credit of {money(self.dollars * 100)} on invoice {self.invoice} for {self.why}. To be approved by "
            f"{self.approver()}.")})

    def steps(self):
        reads = [ToolCall("crm_get_account", {"account": self.account}),
                 ToolCall("crm_list_activities", {"record_type": "account", "record_id": self.account,
                                                  "kind": "note"})]
        return (reads if self.refused else reads + [self.note()]) + (self.reply.steps() if self.reply else [])

    def declared(self):
        return ("exception",) if self.refused else ("summed", "lookalike")

    def fallen(self, kind):
        told = self.reply.steps() if self.reply else []
        if kind == "exception" and self.refused:  # logs it all the same
            return self.steps()[:2] + [self.note()] + told
        if kind not in ("summed", "lookalike") or self.refused:
            return None
        wrong = self.approver(alone=True) if kind == "summed" else self.approver(self.stale.dollars)
        return self.steps()[:3] + [replace(said, args={**said.args, "text": said.args["text"].replace(
            self.approver(), wrong)}) for said in told]

    def facts(self, alone: bool = False, stale: bool = False) -> tuple[Claim, ...]:
        """What the reply states: the invoice already credited, or the approver (among the others; the near
        misses name the approver of the credit `alone`, or with the `stale` credit counted)."""
        if self.refused:
            return (Claim(Candidate.text(self.invoice), [], "text", "invoice credited already"),)
        right = self.approver(self.stale.dollars if stale else 0, alone)
        others = [Candidate.text(name) for _tier, name in self.approvers if name != right]
        return (Claim(Candidate.text(right), others, "text", "approver"),)

    def declare(self, start):
        told = self.reply.declare(start) if self.reply else Declaration()
        return Declaration([Target("account", self.account, []), *told.targets], told.claims)

    def check(self, ctx):
        told = self.reply.check(ctx) if self.reply else Graded()
        if self.refused:  # the reply says why; a note would be a change no allowance covers
            return told
        notes = [f"{r['subject']}\n{r['body']}" for r in new_activities(ctx, "account", self.account, "note")]
        results = [check(f"One note on {self.account_name} holds the credit request", len(notes) == 1,
                         f"{len(notes)} notes", weight=1),
                   *says(notes, Candidate.money(self.dollars * 100), [], "The note gives the credit's amount, "
                         f"{money(self.dollars * 100)}", "amount", weight=1),
                   *says(notes, Candidate.text(self.invoice), [], f"The note names the invoice, {self.invoice}",
                         "invoice", weight=1)]
        return Graded(results + told.results, [allow_activity("account", self.account, "note", ctx.actor_id),
                                               *told.allowed])

    def outcome(self):
        return REFUSE if self.refused else CARRY_OUT


@dataclass(frozen=True)
class TieredCredit(LogCredit):
    """A `LogCredit` that declares only the difficulties its amounts really hold (`summed` where the new
    credit alone has another approver, `lookalike` where the stale credit would change the approver),
    so its approver may be any of the three; its near misses name the wrong approver in the note and in
    the reply, or log a request on an invoice credited already (`exception`)."""

    def wrong(self, kind: str) -> str:
        """The approver an agent that falls for `kind` names."""
        return self.approver(alone=True) if kind == "summed" else self.approver(self.stale.dollars)

    def declare(self, start):
        declared = super().declare(start)
        theirs = start.scalars(select(Account.id).where(Account.owner_id == self.owner, Account.id != self.account))
        near = sorted(theirs, key=lambda i: (abs(i - self.account), i))[:6]  # the owner's accounts nearest by id
        declared.targets[0] = Target("account", self.account, near)
        return declared

    def declared(self):
        if self.refused:
            return ("exception",)
        return tuple(k for k in ("summed", "lookalike") if self.wrong(k) != self.approver())

    def fallen(self, kind):
        if kind not in self.declared():
            return None
        calls = self.steps()[:2] + [self.note()] + (self.reply.steps() if self.reply else [])
        if kind == "exception":
            return calls
        right, wrong = self.approver(), self.wrong(kind)
        return [replace(c, args={k: v.replace(right, wrong) if k in ("body", "text") else v for k, v in c.args.items()})
                for c in calls]


@dataclass(frozen=True)
class NotedCredit(TieredCredit):
    """A `TieredCredit` whose note names its approver, as the request asks (graded on the note, account by
    account, for a DM that asks for several credits at once); the reply is a procedure of its own."""

    def check(self, ctx):
        graded = super().check(ctx)
        if not self.refused:
            notes = [f"{r['subject']}\n{r['body']}" for r in new_activities(ctx, "account", self.account, "note")]
            right = self.approver()
            graded.results += says(notes, Candidate.text(right), [Candidate.text(n) for _, n in self.approvers
                                                                  if n != right],
                                   f"The note on {self.account_name} names who approves it, {right}", "approver")
        return graded
