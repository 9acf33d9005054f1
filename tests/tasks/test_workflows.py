"""The workflow and refusal suite: long goals found out and carried out over several apps, and
requests to refuse. Checked over the registry: horizon, apps and handbook rules (test_draws.py checks
every template's splits, positions and variety)."""

from __future__ import annotations

import statistics

import pytest

from sqlalchemy import select

from officegym.apps.tickets.models import Article
from officegym.graders.statements import stated
from officegym.db import make_sessionmaker, sqlite_engine
from officegym.tasks.base import DIFFICULTIES, KINDS
from officegym.tasks.handbook import rule
from officegym.tasks.registry import all_tasks
from officegym.worlds import ensure_world

TEMPLATES = all_tasks()
WORKFLOWS = [t for t in TEMPLATES if t.kind == "workflow"]
DECISIONS = [t for t in TEMPLATES if t.kind == "decision"]
NEW = WORKFLOWS + DECISIONS


@pytest.fixture(scope="module")
def medium():
    """A read-only session on the medium world (seed 0), where the suite is drawn."""
    engine = sqlite_engine(str(ensure_world("medium", 0).path), readonly=True)
    session = make_sessionmaker(engine)()
    yield session
    session.close()
    engine.dispose()


def solution_apps(inst) -> set[str]:
    """The apps a reference trajectory's tools belong to (the directory's org_ tools included)."""
    return {step.tool.split("_", 1)[0] for step in inst.solution} - {"submit"}


def test_every_template_has_a_known_kind_difficulty_and_scale():
    for template in TEMPLATES:
        assert template.kind in KINDS and template.difficulty in DIFFICULTIES, template.id
        assert template.scale in ("tiny", "small", "medium", "large"), template.id
    for template in NEW:
        assert template.difficulty >= 3 and template.scale == "medium", template.id


def test_the_suite_is_large_enough():
    assert len(WORKFLOWS) >= 24, [t.id for t in WORKFLOWS]
    assert len(DECISIONS) >= 8, [t.id for t in DECISIONS]


def test_rules_name_articles_of_the_handbook(medium):
    titles = set(medium.scalars(Article.__table__.select().with_only_columns(Article.title)))
    for template in NEW:
        assert set(template.rules) <= titles, (template.id, set(template.rules) - titles)
    assert sum(1 for t in WORKFLOWS if t.rules) >= 10
    assert all(t.rules for t in DECISIONS if t.rules is not None)


def test_reference_trajectories_are_long_and_cross_app(medium):
    lengths, wide = [], 0
    for template in WORKFLOWS:
        inst = template.make(medium, 0, 0)
        lengths.append(len(inst.solution))
        wide += len(solution_apps(inst)) >= 3
    assert statistics.median(lengths) >= 20, sorted(lengths)
    assert wide * 2 >= len(WORKFLOWS), wide


def test_both_splits_are_drawn():
    assert {t.split for t in WORKFLOWS} == {"train", "test"}


def test_an_article_is_named_however_its_number_is_written_or_and_is_spelled(medium):
    found = medium.scalars(select(Article).where(Article.title.contains(" and ")).order_by(Article.id)).first()
    number = found.number[2:]
    candidate = rule(found)
    for text in (f"per KB {number}", f"per KB{int(number)}", f"(KB-{int(number)})", found.title.replace(" and ", " & "),
                 found.number):
        assert stated(text, [candidate]), text
    assert not stated(f"KB{int(number) + 1}", [candidate])
