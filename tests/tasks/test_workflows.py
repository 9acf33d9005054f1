"""The workflow and refusal suite: long goals found out and carried out over several apps, and
requests to refuse. Checked over the registry: horizon, apps, handbook rules, no positional
shortcut, instances that differ, and train/test splits drawn from disjoint people and records."""

from __future__ import annotations

import re
import statistics

import pytest

from officegym.apps.tickets.models import Article
from officegym.db import make_sessionmaker, sqlite_engine
from officegym.tasks.base import DIFFICULTIES, KINDS
from officegym.tasks.registry import all_tasks
from officegym.tasks.split import in_split, person_in
from officegym.worlds import ensure_world

TEMPLATES = all_tasks()
WORKFLOWS = [t for t in TEMPLATES if t.kind == "workflow"]
REFUSALS = [t for t in TEMPLATES if t.kind == "refusal"]
NEW = WORKFLOWS + REFUSALS
# Targets of these kinds belong to a split by their ref (an id, a ticket key, a channel's or account's name).
PARTITIONED = ("opportunity", "account", "case", "lead", "contact", "ticket", "message", "channel", "workbook",
               "approval", "line_item")


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
    assert len(REFUSALS) >= 8, [t.id for t in REFUSALS]


def test_rules_name_articles_of_the_handbook(medium):
    titles = set(medium.scalars(Article.__table__.select().with_only_columns(Article.title)))
    for template in NEW:
        assert set(template.rules) <= titles, (template.id, set(template.rules) - titles)
    assert sum(1 for t in WORKFLOWS if t.rules) >= 10
    assert all(t.rules for t in REFUSALS if t.rules is not None)


def test_reference_trajectories_are_long_and_cross_app(medium):
    lengths, wide = [], 0
    for template in WORKFLOWS:
        inst = template.make(medium, 0, 0)
        lengths.append(len(inst.solution))
        wide += len(solution_apps(inst)) >= 3
    assert statistics.median(lengths) >= 20, sorted(lengths)
    assert wide * 2 >= len(WORKFLOWS), wide


def _newest(target) -> bool:
    """Whether a target is newer than every look-alike of its kind (by id, or by a ticket key's number);
    targets named otherwise (a channel, an account by name) have no order to exploit."""
    def rank(ref):
        key = re.fullmatch(r"[A-Z][A-Z0-9]*-(\d+)", ref) if isinstance(ref, str) else None
        return int(key.group(1)) if key else ref
    others = [rank(r) for r in target.lookalikes]
    mine = rank(target.ref)
    return isinstance(mine, int) and all(isinstance(o, int) and o < mine for o in others)


@pytest.mark.parametrize("template", NEW, ids=[t.id for t in NEW])
def test_instances_differ_keep_to_their_split_and_hold_no_positional_shortcut(medium, template):
    """Over 50 draws: at least 20 distinct targets and 10 distinct actors, all from the template's split;
    over the first 20, the target is the newest candidate of its kind in at most a third."""
    targets, actors, newest = set(), set(), 0
    for k in range(50):
        inst = template.make(medium, k, 0)
        assert person_in(template.split, inst.actor_id), (template.id, k, inst.actor_id)
        declared = template.declare(medium, inst).targets
        first = declared[0]
        targets.add(repr(first.ref))
        actors.add(inst.actor_id)
        if first.kind in PARTITIONED:
            assert in_split(template.split, first.kind, first.ref), (template.id, k, first.kind, first.ref)
        if k < 20:
            compared = [t for t in declared if t.lookalikes]
            newest += bool(compared) and _newest(compared[0])
    assert len(targets) >= 20 and len(actors) >= 10, (template.id, len(targets), len(actors))
    assert newest * 3 <= 20, f"{template.id}: the target is the newest of its kind in {newest} of 20 instances"


def test_both_splits_are_drawn():
    assert {t.split for t in WORKFLOWS} == {"train", "test"}
