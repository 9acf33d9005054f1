"""What a manager reads in a discount request's reason, by the handbook (the article Discount and
approval thresholds): a reason stands when it names a competitor the CRM knows (a value of some
deal's Competitor field, written as the company calls itself) or the customer's budget constraint
with its figure (an amount or a percentage), and does not deny it. Trigger words alone do not count:
"no competitor, no budget issue", "mismatched paperwork" and "they think it is overpriced" name
neither.

A mention is denied when a negation stands in its clause ("not", "no", "never", "without",
"n't"...): "not because of Globex Cloud" names no competitor that forced the price."""

from __future__ import annotations

import re
from typing import Iterable

from sqlalchemy import select
from sqlalchemy.orm import Session

from officegym.apps.crm.models import Opportunity
from officegym.apps.tickets.models import Article

ARTICLE = "Discount and approval thresholds"
# The rule as the handbook words it; the manager quotes the article's own sentence when it has one.
RULE_OPENING = "The reason names a competitor the CRM knows"
RULE = ("The reason names a competitor the CRM knows (as a deal's Competitor field spells it) or the customer's "
        "budget constraint with its figure (an amount or a percentage); any other reason is rejected.")
_CLAUSE_END = re.compile(r"[,;:.!?()\n]|\bbut\b|\band\b")
_NEGATION = re.compile(r"\b(?:no|not|never|without|none|nor|neither|nothing|nobody)\b|n't\b")
_BUDGET = re.compile(r"\b(?:budget\w*|capped|cap|ceiling|afford\w*|spend\w*|pay|paying|max(?:imum)?|at most|up to)\b")
_FIGURE = re.compile(r"(?:[$€£]\s?\d[\d,]*(?:\.\d+)?\s?[km]?\b|\b\d[\d,]*(?:\.\d+)?\s?(?:%|percent\b|per cent\b|"
                     r"k\b|m\b|usd\b|eur\b|gbp\b|dollars?\b|euros?\b))")


def _clause_of(text: str, start: int, end: int) -> str:
    """The clause of `text` around the span [start, end)."""
    begin = max((m.end() for m in _CLAUSE_END.finditer(text, 0, start)), default=0)
    after = _CLAUSE_END.search(text, end)
    return text[begin:after.start() if after else len(text)]


def _affirmed(text: str, start: int, end: int) -> bool:
    """Whether the mention at [start, end) stands in a clause no negation governs."""
    return not _NEGATION.search(_clause_of(text, start, end))


def names_competitor(reason: str, rivals: Iterable[str]) -> bool:
    """Whether a reason names, and does not deny, one of `rivals` (as whole words, any case)."""
    text = reason.casefold()
    for rival in rivals:
        for match in re.finditer(rf"(?<!\w){re.escape(rival.casefold())}(?!\w)", text):
            if _affirmed(text, match.start(), match.end()):
                return True
    return False


def names_budget_figure(reason: str) -> bool:
    """Whether a reason states a budget constraint with its figure, in one clause no negation governs."""
    text = reason.casefold()
    for figure in _FIGURE.finditer(text):
        clause = _clause_of(text, figure.start(), figure.end())
        if _BUDGET.search(clause) and not _NEGATION.search(clause):
            return True
    return False


def known_competitors(session: Session) -> list[str]:
    """The competitors the CRM knows: every value of a deal's Competitor field."""
    return sorted({c for c in session.scalars(select(Opportunity.competitor).distinct()) if c})


def reason_stands(session: Session, reason: str, rivals: Iterable[str] | None = None) -> bool:
    """Whether the handbook accepts a discount request's reason (see the module's docstring)."""
    rivals = known_competitors(session) if rivals is None else rivals
    return names_competitor(reason, rivals) or names_budget_figure(reason)


def rule_words(session: Session) -> str:
    """The handbook's sentence on reasons, as the article states it (RULE where it has none)."""
    body = session.scalar(select(Article.body).where(Article.title == ARTICLE)) or ""
    for line in body.splitlines():
        sentence = re.sub(r"^\d+\.\s*", "", line.strip())
        if sentence.startswith(RULE_OPENING):
            return sentence
    return RULE
