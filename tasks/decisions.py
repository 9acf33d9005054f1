"""Decisions the state makes, and the replies that report them.

A decision template draws its outcome with `twin_outcome`: the two neighbouring instances 2k and
2k+1 always get opposite outcomes, in an order a hash of the template and k decides, so both come up
equally often and neither is tied to odd or even instances. Both twins are drawn with the same
phrasing (tasks.phrasing) and the same kinds of requester: only the world differs (the approval is
on the ticket or not, the review is resolved or still open, the requester heads the department or
not).

`reply_checks` grades what the actor told the person who asked: a refusal must decline, claim
nothing done, name the rule and state the fact that stands in the way (the open review's key, the
approver who has not approved: what only reading the state tells); a report must state what was done
and deny none of it.
"""

from __future__ import annotations

import hashlib
from typing import Iterable

from officegym.graders.checks import CheckResult
from officegym.graders.replies import refusal_reply, report_reply
from officegym.graders.statements import says

from .base import CARRY_OUT, REFUSE, Claim, Outcome


def twin_outcome(template_id: str, instance: int) -> Outcome:
    """Carry out or refuse, for a decision template's instance: opposite within each pair of
    neighbouring instances, the pair's order from a stable hash (never Python's salted `hash`)."""
    pair = hashlib.sha256(f"{template_id}|{instance // 2}".encode()).digest()[0] & 1
    return REFUSE if (instance & 1) ^ pair else CARRY_OUT


def reply_checks(texts: Iterable[str], refused: bool, to: str, facts: Iterable[Claim] = (), rule: Claim | None = None,
                 actions: Iterable[str] = (), weight: float = 2.0, asides: Iterable[str] = (),
                 rights: Iterable[str] = (), carried: Iterable[str] = (), kept: Iterable[str] = ()) -> list[CheckResult]:
    """The checks of a reply to `to` (a name, for the requirements' wording) reporting a decision:
    when `refused`, it declines (claiming none of `actions`, the participles of what was asked, nor
    anything done or approved) and names `rule`; either way it states each of `facts` (a refusal:
    what stands in the way; a report: what was done), without stating another candidate of their
    pools or denying them. A report may say what it did not do about one of `asides` (see
    `graders.replies.denials`); a refusal of part of a request may claim done what it carried out
    (`carried`: how it is named) in a clause that names nothing of what it refused (`kept`; see
    `graders.replies.claims_done`)."""
    texts = [t for t in texts if t]
    if refused:
        results = refusal_reply(texts, f"Your reply to {to} declines the request", actions, weight, carried, kept)
        if rule is not None:
            results += says(texts, rule.right, rule.others, f"Your reply to {to} names the rule ({rule.right.label})",
                            rule.kind, weight=1)
    else:
        results = report_reply(texts, f"Your reply to {to} says it was done", actions, weight, asides, rights)
    for fact in facts:
        results += says(texts, fact.right, fact.others, f"Your reply to {to} states the {fact.kind}, "
                        f"{fact.right.label}", fact.kind, weight=1)
    return results
