"""Procedures of talking to people: a request that reaches the actor by direct message, the reads of a
handbook rule, and the reply that reports a decision (carried out, or refused naming the rule and the
fact that stands in the way). Extracted from the people and support families (tasks.w_people_replies,
tasks.handbook)."""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy.orm import Session

from officegym.graders.statements import says

from ..base import Claim, Declaration, ToolCall
from ..common import allow_posts
from ..decisions import reply_checks
from ..handbook import article, rule_claim
from ..w_people_refusals import either
from ..w_people_replies import dm_name, dm_replies, dm_step
from .core import Graded, Procedure


@dataclass(frozen=True)
class DirectRequest(Procedure):
    """`requester` sends the actor `text` by direct message, `minutes` before now; the reference finds
    it among the actor's conversations and reads it."""

    requester: int
    actor: int
    text: str
    minutes: int = 25

    @property
    def channel(self) -> str:
        """The DM's stored name (a channel argument)."""
        return dm_name(self.actor, self.requester)

    def setup(self, session: Session) -> None:
        dm_step(self.requester, self.actor, self.text, minutes=self.minutes)(session)

    def steps(self):
        return [ToolCall("chat_list_conversations", {"limit": 10}),
                ToolCall("chat_list_messages", {"channel": self.channel, "limit": 5})]


@dataclass(frozen=True)
class ReadRule(Procedure):
    """The reads that find a handbook article: search the handbook, open the article (make it with
    `ReadRule.of`, which looks the article's number up)."""

    title: str
    query: str
    number: str

    @classmethod
    def of(cls, session: Session, title: str, query: str) -> "ReadRule":
        """The reads of the article `title`, found by searching `query`."""
        return cls(title, query, article(session, title).number)

    def steps(self):
        return [ToolCall("tickets_search_articles", {"query": self.query}),
                ToolCall("tickets_get_article", {"article": self.number})]


@dataclass(frozen=True)
class Reply(Procedure):
    """The actor's one reply to `requester` in their DM, reporting a decision. Refused: it declines,
    claims none of `actions` (participles of what was asked) done, names the article `rule` and
    states each of `facts` (what stands in the way, weighing `fact_weight` each so that a blind
    refusal earns less than half); `instead` holds what carrying it out would have done. Carried
    out: it says it was done (`actions`) and states `facts` (what was done). Either way it names each
    person of `named` (read with deniable=False: "@dana.lee hasn't approved it" names Dana Lee)."""

    requester: int
    requester_name: str
    actor: int
    text: str
    refused: bool
    actions: tuple[str, ...]
    rule: str = ""
    facts: tuple[Claim, ...] = ()
    instead: tuple[ToolCall, ...] = field(default=(), compare=False)
    weight: float = 2.0
    fact_weight: float = 3.0
    named: tuple[Claim, ...] = ()
    also: str = ""  # another article that states the same rule: naming either will do
    asides: tuple[str, ...] = ()  # whom or what the work rightly did not go to: saying so denies nothing
    carried: tuple[str, ...] = ()  # refused in part: how the part carried out is named (it may be claimed done);
    # in a report with `asides`, what the work went to (a clause naming one of them denies the work)

    def _rule(self, start: Session) -> Claim | None:
        if not self.rule:
            return None
        return either(start, self.rule, self.also) if self.also else rule_claim(start, self.rule)

    def steps(self):
        channel = dm_name(self.actor, self.requester)
        if self.refused:
            return [ToolCall("chat_post_message", {"channel": channel, "text": self.text}, role="refusal",
                             instead=list(self.instead))]
        return [ToolCall("chat_post_message", {"channel": channel, "text": self.text}, role="report")]

    def declare(self, start):
        rule = [self._rule(start)] if self.refused and self.rule else []
        return Declaration([], rule + list(self.facts))  # `named` is not asserted: nothing to deny

    def check(self, ctx):
        dm, texts = dm_replies(ctx, self.requester)
        rule = self._rule(ctx.start)
        rights = (list(self.carried) if self.carried and not self.refused else  # a report: what the work went to
                  [spelling for claim in (*self.named, *self.facts) for spelling in claim.right.spellings])
        kept = [spelling for fact in self.facts for spelling in fact.right.spellings]  # the refused part's names
        results = reply_checks(texts, self.refused, self.requester_name, (), rule, self.actions, self.weight,
                               self.asides, rights, self.carried, kept)
        for fact in self.facts:
            results += says(texts, fact.right, fact.others, f"Your reply to {self.requester_name} states the "
                            f"{fact.kind}, {fact.right.label}", fact.kind, weight=self.fact_weight)
        for person in self.named:
            results += says(texts, person.right, person.others, f"Your reply to {self.requester_name} names the "
                            f"{person.kind}, {person.right.label}", person.kind, weight=self.fact_weight,
                            deniable=False)
        return Graded(results, allow_posts(ctx, dm, limit=1, mentions=2) if dm else [])
