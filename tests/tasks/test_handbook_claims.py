"""A reply that cites the rule it rests on may also cite the articles that rule refers to, as an honest
agent quoting its source does; citing any other article besides still fails (a reply that cites every
policy must not pass)."""

from __future__ import annotations

from sqlalchemy import select

from officegym.apps.tickets.models import Article
from officegym.db import make_sessionmaker, sqlite_engine
from officegym.graders.statements import says
from officegym.tasks.handbook import rule_claim


def _verdict(claim, text: str) -> tuple[bool, bool]:
    """(the rule is named, nothing else is) for one reply."""
    named, only = says([text], claim.right, claim.others, "names the rule", "handbook rule")
    return named.passed, only.passed


def test_citing_an_article_the_rule_refers_to_passes_and_any_other_fails(store):
    engine = sqlite_engine(str(store.world("tiny").path), readonly=True)
    session = make_sessionmaker(engine)()
    try:
        articles = list(session.scalars(select(Article).order_by(Article.id)))
        pairs = [(a, b) for a in articles for b in articles if a is not b and b.title in a.body]
        assert len(pairs) >= 5, "the handbook's articles refer to one another"
        for right, cited in pairs:
            claim = rule_claim(session, right.title)
            unrelated = next(a for a in articles if a is not right and a.title not in right.body
                             and a.number not in right.body)
            base = f"Sorry, I can't do that: \"{right.title}\" forbids it"
            assert _verdict(claim, base + ".") == (True, True)
            assert _verdict(claim, f"{base}, and \"{cited.title}\" explains why.") == (True, True), cited.title
            assert _verdict(claim, f"{base}, and so does \"{unrelated.title}\".") == (True, False), unrelated.title
    finally:
        session.close()
        engine.dispose()
