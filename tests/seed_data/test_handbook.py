"""The company handbook (the tickets app's knowledge base) in every world: numbered articles in
many categories, owned by the people who hold the role, every version kept and consistent with
the article, text that quotes the code's own rules and names only what the world has, and the
same handbook for the same seed."""

from __future__ import annotations

import re
import sqlite3
from contextlib import closing

from sqlalchemy import select

from officegym.apps.chat.models import Channel
from officegym.apps.crm.models import DISCOUNT_LIMIT, LOSS_REASONS
from officegym.apps.crm.products import MAX_DISCOUNT
from officegym.apps.org.models import Department, Person, Team
from officegym.apps.sheets.models import Workbook
from officegym.apps.tickets.knowledge import article_number
from officegym.apps.tickets.models import KB_CATEGORIES, LEVELS, PRIORITIES, Article, ArticleVersion, Group, Project
from officegym.apps.tickets.sla import FIRST_RESPONSE_MINUTES, RESOLUTION_MINUTES, incident_priority
from officegym.clock import now as company_now
from officegym.config import load_settings
from officegym.seed_data.chat_text import history_end
from officegym.worlds import ensure_world
from test_tickets_world import world  # noqa: F401  (the cached tiny and small worlds, read-only)


def _articles(session) -> list[Article]:
    return list(session.scalars(select(Article).order_by(Article.id)))


def _versions(session, article: Article) -> list[ArticleVersion]:
    return list(session.scalars(select(ArticleVersion).where(ArticleVersion.article_id == article.id)
                                .order_by(ArticleVersion.version)))


def _by_title(session, title: str) -> Article:
    return session.scalar(select(Article).where(Article.title == title))


def test_every_world_keeps_a_handbook_of_numbered_articles(world):
    _scale, session = world
    articles = _articles(session)
    assert len(articles) >= 16
    categories = {a.category for a in articles}
    assert categories <= set(KB_CATEGORIES) and len(categories) >= 6
    assert [a.number for a in articles] == [article_number(k) for k in range(len(articles))]
    assert [a.created_at for a in articles] == sorted(a.created_at for a in articles)  # numbered as written
    assert len({a.title.lower() for a in articles}) == len(articles)
    for article in articles:
        assert len(article.body) > 400 and len(article.title) <= 120, article.title
        assert session.get(Person, article.owner_id) is not None


def test_every_version_is_kept_and_the_newest_is_the_article(world):
    _scale, session = world
    end = history_end(company_now(session))
    histories = {}
    for article in _articles(session):
        versions = _versions(session, article)
        histories[article.number] = versions
        assert [v.version for v in versions] == list(range(1, article.version + 1)), article.number
        newest = versions[-1]
        assert (newest.title, newest.category, newest.body) == (article.title, article.category, article.body)
        assert versions[0].created_at == article.created_at and newest.created_at == article.updated_at
        times = [v.created_at for v in versions]
        assert times == sorted(set(times)) and times[-1] <= end and times[0] >= end.replace(year=end.year - 3)
        for earlier, later in zip(versions, versions[1:]):
            assert later.note and (later.title, later.body) != (earlier.title, earlier.body)
        for v in versions:
            author = session.get(Person, v.author_id)
            assert author.id == article.owner_id or author.is_admin, (article.number, v.version)
    assert sum(1 for vs in histories.values() if len(vs) >= 2) >= 5
    assert any(len(vs) == 3 for vs in histories.values())
    ids = list(session.scalars(select(ArticleVersion.id).order_by(ArticleVersion.created_at, ArticleVersion.id)))
    assert ids == list(range(1, len(ids) + 1))  # versions are numbered in the order they were written


def test_the_text_quotes_the_rules_the_code_enforces(world):
    _scale, session = world
    discount = _by_title(session, "Discount and approval thresholds")
    assert f"up to {DISCOUNT_LIMIT}%" in discount.body and f"above {MAX_DISCOUNT}%" in discount.body
    assert "The CRM enforces this" in discount.body
    first = _versions(session, discount)[0]
    assert f"up to {DISCOUNT_LIMIT}%" not in first.body  # the older threshold
    losses = _by_title(session, "Loss reasons for Closed Lost deals").body
    assert all(f"{reason}: " in losses for reason in LOSS_REASONS)
    severity = _by_title(session, "Incident severity: impact, urgency and priority").body
    for impact in LEVELS:
        for urgency in LEVELS:
            assert f"Impact {impact}, urgency {urgency}: {incident_priority(impact, urgency)}" in severity
    sla = _by_title(session, "Service desk SLA targets").body.splitlines()

    def said(minutes: int) -> str:
        return f"{minutes} minutes" if minutes < 60 else f"{minutes // 60} hour"
    for priority in PRIORITIES:
        line = next(row for row in sla if re.match(rf"\d+\. {priority}: ", row))
        assert f"first response within {said(FIRST_RESPONSE_MINUTES[priority])}" in line
        assert f"resolution within {said(RESOLUTION_MINUTES[priority])}" in line


def test_owners_hold_the_roles_their_articles_are_about(world):
    _scale, session = world

    def owner(title: str) -> int:
        return _by_title(session, title).owner_id
    heads = dict(session.execute(select(Department.name, Department.head_id)).all())
    assert owner("Discount and approval thresholds") == heads["Sales"]
    assert owner("New-hire onboarding checklist") == heads["People"]
    assert owner("Password and device policy") == heads["IT"]
    it_support = session.scalar(select(Team).where(Team.name == "IT Support"))
    assert owner("Requesting access") == it_support.lead_id == owner("Service desk SLA targets")
    eng = session.scalar(select(Project).where(Project.key == "ENG"))
    assert owner("Sprint rules") == eng.lead_id
    rota = session.scalar(select(Workbook).where(Workbook.title == "On-call Rota"))
    assert owner("On-call handover") == rota.owner_id


def test_the_handbook_names_only_what_the_world_has(world):
    _scale, session = world
    text = "\n".join(a.body for a in _articles(session))
    channels = set(session.scalars(select(Channel.name)))
    assert set(re.findall(r"#([a-z0-9][a-z0-9_-]*)", text)) <= channels
    projects = set(session.scalars(select(Project.key)))
    assert {key for key in ("IT", "ENG", "SOPS", "LEGAL") if re.search(rf"\b{key}\b", text)} <= projects
    groups = set(session.scalars(select(Group.name)))
    for named in set(re.findall(r"\b\w+ On-Call\b", text)):  # "Experience On-Call" of "Developer Experience On-Call"
        assert any(g.endswith(named) for g in groups), named
    year = company_now(session).year
    titles = set(session.scalars(select(Workbook.title)))
    for title in ("On-call Rota", f"Headcount Plan {year}", f"Department Budgets {year}", f"FY{year} Sales Forecast"):
        assert title in text and title in titles


def _handbook_rows(path) -> list[tuple]:
    with closing(sqlite3.connect(path)) as conn:
        return [row for table in ("tickets_article", "tickets_article_version")
                for row in conn.execute(f"SELECT * FROM {table} ORDER BY id")]


def test_same_seed_gives_the_same_handbook(tmp_path):
    """Two builds of the tiny world with one seed write the same articles and versions, to the
    byte (tests/seed_data/test_world.py compares whole files); another seed's company has its own."""
    first, second, other = (ensure_world("tiny", seed, load_settings(home=tmp_path / name))
                            for name, seed in (("a", 0), ("b", 0), ("c", 1)))
    rows = _handbook_rows(first.path)
    assert rows and rows == _handbook_rows(second.path)
    assert _handbook_rows(other.path) != rows
