"""The procedure of the handbook's "Loss reasons for Closed Lost deals": a deal the rep's own note shows lost
closes as Closed Lost with the one reason that decided it (`CloseLost`): the competitor named for
Competitor, a follow-up task on the account for the date for Timing, the gap named in the description for
Product Fit (before closing: a closed deal is read-only), and one post in #deals naming the customer and
the reason. A deal whose note says the customer is signing stays open (`StillAlive`). The notes are the
rep's, logged after each customer's call last week."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time

from officegym import clock
from officegym.apps.crm import services as crm
from officegym.apps.crm.models import Opportunity
from officegym.apps.org.models import Person
from officegym.graders.checks import check
from officegym.graders.statements import Candidate, says

from ..base import Declaration, Target, ToolCall
from ..common import added_messages, allow_posts, channel_named
from ..crm import allow_activity, allow_deal, same_text
from .core import Graded, Procedure

LOSSES = "Loss reasons for Closed Lost deals"
NOTES = {"Competitor": "They signed with {rival} last week; our offer was never really in the running.",
         "Price": "Procurement said no: even at the best discount we could get approved, our price is too high for "
                  "them.",
         "No Budget": "Their budget for this was frozen for the rest of the year. They like the product and would buy "
                      "at our price if they had the money.",
         "No Decision": "Their champion left; nobody there will make the call, and they are staying with what they "
                        "have.",
         "Timing": "They want it, but not before {when}. Call them back then.",
         "Product Fit": "They need {gap}, which we don't offer.",
         "": "Verbal yes: they sign on {when}; the paperwork is with their CFO."}


def said_day(day: date) -> str:
    """A date as the rep writes it in a note: "1 October 2026"."""
    return f"{day.day} {day:%B %Y}"


@dataclass(frozen=True)
class DealNote(Procedure):
    """The rep's note on `deal` (reason "" for a deal still alive), logged `ago` days back."""

    deal: int
    deal_name: str
    account: int
    account_name: str
    owner: int
    reason: str
    ago: int
    rival: str = ""
    gap: str = ""
    when: date | None = None

    @property
    def text(self) -> str:
        """What the rep wrote."""
        return NOTES[self.reason].format(rival=self.rival, gap=self.gap, when=said_day(self.when) if self.when else "")

    def setup(self, session):
        day = clock.company_now(session).date().toordinal() - self.ago
        clock.set_time(session, datetime.combine(date.fromordinal(day), time(16, 10 + self.deal % 40)))
        crm.log_activity(session, session.get(Person, self.owner), "opportunity", self.deal, "note", "Customer update",
                         self.text)

    def reads(self) -> list[ToolCall]:
        """The reads that find what happened."""
        return [ToolCall("crm_get_opportunity", {"opportunity": self.deal}),
                ToolCall("crm_list_activities", {"record_type": "opportunity", "record_id": self.deal, "kind": "note"})]


@dataclass(frozen=True)
class StillAlive(DealNote):
    """A deal whose note says the customer is signing: it stays open. Difficulty `lookalike` (the near miss
    closes it as lost beside the others)."""

    rules = (LOSSES,)
    hard = ("lookalike",)

    def steps(self):
        return self.reads()

    def fallen(self, kind):
        if kind != "lookalike":
            return None
        return self.reads() + [ToolCall("crm_move_opportunity_stage", {"opportunity": self.deal, "stage": "Closed Lost",
                                                                       "loss_reason": "No Decision"})]

    def declare(self, start):
        return Declaration([Target("opportunity", self.deal, [])])


@dataclass(frozen=True)
class CloseLost(DealNote):
    """A deal the note shows lost, closed as the handbook says (see the module's docstring)."""

    rules = (LOSSES,)

    near: tuple[int, ...] = ()

    def steps(self):
        calls = self.reads()
        if self.reason == "Product Fit":
            calls.append(ToolCall("crm_update_opportunity", {"opportunity": self.deal,
                                                             "description": f"Lost: they need {self.gap}."}))
        move = {"opportunity": self.deal, "stage": "Closed Lost", "loss_reason": self.reason}
        calls.append(ToolCall("crm_move_opportunity_stage", {**move, "competitor": self.rival} if self.rival else move))
        if self.reason == "Timing":
            calls.append(ToolCall("crm_log_activity", {
                "record_type": "account", "record_id": self.account, "kind": "task", "due_date": self.when.isoformat(),
                "subject": f"Follow up with {self.account_name}", "body": f"Call back about {self.deal_name}."}))
        return calls + [ToolCall("chat_post_message", {"channel": "deals", "text": (
            f"Lost {self.deal_name} ({self.account_name}). Loss reason: {self.reason}.")}, role="note")]

    def declare(self, start):
        return Declaration([Target("opportunity", self.deal, list(self.near))])

    def check(self, ctx):
        deal = ctx.final.get(Opportunity, self.deal)
        results = [check(f"{self.deal_name} is Closed Lost for {self.reason}",
                         deal.stage == "Closed Lost" and deal.loss_reason == self.reason,
                         f"{deal.stage}, {deal.loss_reason or 'no reason'}", weight=2)]
        allowed = [allow_deal(self.deal, "stage", "probability", "closed_at", "loss_reason", "competitor",
                              "description")]
        if self.reason == "Competitor":
            results.append(check(f"The competitor is {self.rival}", same_text(deal.competitor, self.rival),
                                 f"{deal.competitor!r}"))
        if self.reason == "Product Fit":
            gap = Candidate.text(self.gap, self.gap.removeprefix("a "))
            results += says([deal.description], gap, [], f"Its description names the gap, "
                            f"{self.gap}", "gap", weight=1)
        if self.reason == "Timing":
            tasks = [r for r in ctx.diff.table("crm_activity").added if r["record_type"] == "account"
                     and r["record_id"] == self.account and r["kind"] == "task" and r["owner_id"] == ctx.actor_id]
            results.append(check(f"A follow-up task on {self.account_name} due {self.when.isoformat()}",
                                 len(tasks) == 1 and str(tasks[0]["due_date"]) == self.when.isoformat(),
                                 f"{[(t['subject'], str(t['due_date'])) for t in tasks]}"))
            allowed.append(allow_activity("account", self.account, "task", ctx.actor_id))
        channel = channel_named(ctx.final, "deals")
        posts = [m["text"] for m in added_messages(ctx, ctx.actor_id) if m["channel_id"] == channel.id
                 and (self.account_name.casefold() in m["text"].casefold()
                      or self.deal_name.casefold() in m["text"].casefold())]
        results.append(check(f"One post in #deals names {self.account_name}", len(posts) == 1, f"{len(posts)} posts"))
        results += says(posts, Candidate.text(self.reason), [], f"The post on {self.account_name} gives the loss "
                        f"reason, {self.reason}", "loss reason", weight=2)
        return Graded(results, allowed + allow_posts(ctx, channel.id, None, limit=1, mentions=0))

