"""The procedure of the handbook's "Overdue pipeline review": an open deal whose close date passed more than
fourteen days ago is stale; in Proposal or Negotiation (or of type Renewal, the article's exception) its close
date goes to the last day of the next calendar month with the next step the article names, in Prospecting or
Qualification it closes as Closed Lost for No Decision, posted in #deals (as "Loss reasons for Closed Lost
deals" says). A deal overdue by fourteen days or fewer is left as it is (the look-alike just inside the line).
The setup has the deal's owner set the overdue close date some weeks ago (`OverdueDeal`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

from officegym import clock
from officegym.apps.crm import services as crm
from officegym.apps.crm.models import Opportunity
from officegym.apps.org.models import Person
from officegym.graders.checks import check
from officegym.graders.statements import Candidate, says
from officegym.seed_data.tickets_handbook_accounts import GRACE_DAYS, OVERDUE, STALE_NEXT_STEP

from ..base import Claim, Declaration, Target, ToolCall
from ..common import added_messages, allow_posts, channel_named
from ..crm import allow_deal, same_text
from .core import Graded, Procedure

LOSSES = "Loss reasons for Closed Lost deals"
LATE_STAGES = ("Proposal", "Negotiation")
LEAVE, PUSH, CLOSE = "leave", "push", "close"


def month_end_after(day: date) -> date:
    """The last day of the calendar month after `day`'s (30 April for a day of March)."""
    first_of_next = (day.replace(day=1) + timedelta(days=32)).replace(day=1)
    return (first_of_next + timedelta(days=32)).replace(day=1) - timedelta(days=1)


def verdict(stage: str, kind: str, overdue_days: int) -> str:
    """What the review does with an open deal overdue by `overdue_days`: leave it, push it or close it."""
    if overdue_days <= GRACE_DAYS:
        return LEAVE
    return PUSH if stage in LATE_STAGES or kind == "Renewal" else CLOSE


@dataclass(frozen=True)
class OverdueDeal(Procedure):
    """The open deal `deal` (of `owner`, on `account_name`), whose close date the setup moves to `close_date`,
    `overdue_days` before today (`push_to`: the last day of next month). Reviewed by the article: left, pushed
    or closed lost (see the module's docstring). Difficulties: `lookalike` (overdue by fourteen days or fewer:
    the near miss treats it as stale) and `exception` (a Renewal in an early stage: the near miss closes it)."""

    rules = (OVERDUE, LOSSES)
    hard = ("lookalike", "exception")

    deal: int
    deal_name: str
    account_name: str
    owner: int
    stage: str
    kind: str
    overdue_days: int
    close_date: date
    push_to: date
    near: tuple[int, ...] = ()
    planted: bool = True  # False: the world's own close date, overdue already

    @property
    def action(self) -> str:
        """leave, push or close."""
        return verdict(self.stage, self.kind, self.overdue_days)

    def setup(self, session):
        if not self.planted:
            return
        set_on = self.close_date - timedelta(days=20 + self.deal % 9)
        clock_time = datetime.combine(set_on, time(10 + self.deal % 7, 5 + self.deal % 50))
        clock.set_time(session, clock_time)
        crm.update_opportunity(session, session.get(Person, self.owner), self.deal,
                               close_date=self.close_date.isoformat())

    def _push(self) -> list[ToolCall]:
        return [ToolCall("crm_update_opportunity", {"opportunity": self.deal, "close_date": self.push_to.isoformat(),
                                                    "next_step": STALE_NEXT_STEP})]

    def _close(self) -> list[ToolCall]:
        return [ToolCall("crm_move_opportunity_stage", {"opportunity": self.deal, "stage": "Closed Lost",
                                                        "loss_reason": "No Decision"}),
                ToolCall("chat_post_message", {"channel": "deals", "text": (
                    f"Lost {self.deal_name} ({self.account_name}). Loss reason: No Decision.")}, role="note")]

    def _acting(self, action: str) -> list[ToolCall]:
        read = [ToolCall("crm_get_opportunity", {"opportunity": self.deal})]
        return read + {LEAVE: [], PUSH: self._push(), CLOSE: self._close()}[action]

    def steps(self):
        return self._acting(self.action)

    def declared(self):
        if self.action == LEAVE:
            return ("lookalike",)
        return ("exception",) if self.kind == "Renewal" and self.stage not in LATE_STAGES else ()

    def fallen(self, kind):
        if kind not in self.declared():
            return None
        if kind == "lookalike":  # treated as stale
            return self._acting(PUSH if self.stage in LATE_STAGES or self.kind == "Renewal" else CLOSE)
        return self._acting(CLOSE)

    def declare(self, start):
        return Declaration([Target("opportunity", self.deal, list(self.near))])

    def check(self, ctx):
        deal = ctx.final.get(Opportunity, self.deal)
        if self.action == LEAVE:
            return Graded()
        if self.action == PUSH:
            pushed = deal.close_date == self.push_to and same_text(deal.next_step, STALE_NEXT_STEP)
            return Graded([check(f"{self.deal_name} is pushed to {self.push_to.isoformat()} with the next step "
                                 f"\"{STALE_NEXT_STEP}\"", pushed and deal.stage == self.stage,
                                 f"{deal.stage}, {deal.close_date}, {deal.next_step!r}", weight=2)],
                          [allow_deal(self.deal, "close_date", "next_step")])
        results = [check(f"{self.deal_name} is Closed Lost for No Decision",
                         deal.stage == "Closed Lost" and deal.loss_reason == "No Decision",
                         f"{deal.stage}, {deal.loss_reason or 'no reason'}", weight=2)]
        channel = channel_named(ctx.final, "deals")
        posts = [m["text"] for m in added_messages(ctx, ctx.actor_id) if m["channel_id"] == channel.id
                 and (self.account_name.casefold() in m["text"].casefold()
                      or self.deal_name.casefold() in m["text"].casefold())]
        results.append(check(f"A post in #deals names {self.deal_name}", bool(posts), "no post names it"))
        results += says(posts, Candidate.text("No Decision"), [], f"The post on {self.deal_name} gives the loss "
                        "reason, No Decision", "loss reason", weight=1)
        return Graded(results, [allow_deal(self.deal, "stage", "probability", "closed_at", "loss_reason",
                                           "next_step"),
                                *allow_posts(ctx, channel.id, None, limit=1, mentions=0)])


def closed_claims(reviews: list[OverdueDeal]):
    """The facts of the report: the name of each deal closed lost (a report may name the others too)."""
    return tuple(Claim(Candidate.text(r.deal_name), [], "text", "deal closed lost")
                 for r in reviews if r.action == CLOSE)
