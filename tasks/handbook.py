"""Helpers of the templates that depend on the company handbook (the knowledge base of the tickets
app): find an article, name a rule as a candidate among the others, and the reference trajectory's
reads of it."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from officegym.apps.tickets.models import Article
from officegym.graders.statements import Candidate

from .base import Claim, ToolCall


def article(session: Session, title: str) -> Article:
    """The handbook article with this exact title (the seeded handbook has them all)."""
    found = session.scalar(select(Article).where(Article.title == title))
    if found is None:
        raise RuntimeError(f"the handbook has no article titled {title!r}")
    return found


def rule(found: Article) -> Candidate:
    """An article as a text may name it: its title (with "&" for "and", or the other way round) or
    its number however it is spaced or padded (KB0010006, KB 0010006, KB10006, KB-10006)."""
    title = found.title
    swapped = title.replace(" and ", " & ") if " and " in title else title.replace(" & ", " and ")
    digits = found.number[2:] if found.number.upper().startswith("KB") else found.number
    short = str(int(digits)) if digits.isdigit() else digits
    numbers = [f"KB{sep}{d}" for d in dict.fromkeys((digits, short)) for sep in ("", " ", "-")]
    return Candidate.text(title, swapped, *numbers)


def other_rules(session: Session, *rights: Article) -> list[Candidate]:
    """The articles a reply citing `rights` must not cite as well: every other article of the handbook
    but those the rights' own text refers to (a reply may cite an article as its source does)."""
    cited = " ".join(right.body for right in rights)
    return [rule(a) for a in session.scalars(select(Article).where(Article.id.not_in([r.id for r in rights]))
                                             .order_by(Article.id))
            if a.title not in cited and a.number not in cited]


def rule_claim(session: Session, title: str, field: str = "text") -> Claim:
    """A claim that a message names the article `title` (by title or number), among the other articles
    of the handbook (other_rules): a reply that cites every policy fails."""
    right = article(session, title)
    return Claim(rule(right), other_rules(session, right), field, "handbook rule")


def read_rule(session: Session, title: str, query: str) -> list[ToolCall]:
    """The reads a competent agent makes to find a rule: search the handbook, then open the article."""
    return [ToolCall("tickets_search_articles", {"query": query}),
            ToolCall("tickets_get_article", {"article": article(session, title).number})]
