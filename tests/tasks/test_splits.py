"""The train/test partition (officegym.tasks.split): every task template draws its actor from the
people of its own split and the first record it is about from the records of its split, so that a
test instance never acts as, or on, what a train instance does."""

from __future__ import annotations

import shutil

import pytest
from sqlalchemy.orm import Session

from officegym.db import make_sessionmaker, sqlite_engine
from officegym.tasks.registry import all_tasks
from officegym.tasks.split import SPLITS, in_split, person_in

TEMPLATES = [t for t in all_tasks() if t.kind == "task"]
DRAWS = 24
# Targets of these kinds belong to a split by their ref (an id, a ticket key, a channel's or account's
# name); a person is checked as the actor.
PARTITIONED = ("opportunity", "account", "case", "lead", "contact", "ticket", "message", "channel", "workbook",
               "approval", "line_item")


def test_both_splits_have_templates():
    assert {t.split for t in all_tasks()} == set(SPLITS)
    assert {t.split for t in TEMPLATES} == set(SPLITS)


def declared_on_start(factory, template, inst):
    """The template's declaration read from the instance's start state: the world with the setup
    applied (on a copy of the world, rolled back after), read by a fresh session (as an episode's
    start state is) on the same connection."""
    setup = factory()
    setup.info["surface"] = "setup"
    try:
        inst.apply_setup(setup)
        setup.flush()
        start = Session(bind=setup.connection())
        try:
            return template.declare(start, inst)
        finally:
            start.close()
    finally:
        setup.rollback()
        setup.close()


def out_of_split(template, declared) -> list[str]:
    """The first declared target, and the first of a partitioned kind, when not of the template's split."""
    first = declared.targets[:1]
    partitioned = [t for t in declared.targets if t.kind in PARTITIONED][:1]
    return [f"{t.kind} {t.ref!r}" for t in {id(t): t for t in first + partitioned}.values()
            if t.kind in PARTITIONED and not in_split(template.split, t.kind, t.ref)]


@pytest.mark.parametrize("template", TEMPLATES, ids=[t.id for t in TEMPLATES])
def test_actor_and_first_target_are_in_the_template_split(store, tmp_path, template):
    """Each of 24 instances: its actor, and the first record its declaration names, are of the
    template's split."""
    world = store.world(template.scale, 0)
    copy = tmp_path / "world.sqlite"
    shutil.copyfile(world.path, copy)
    engine = sqlite_engine(str(copy))
    factory = make_sessionmaker(engine)
    wrong = []
    try:
        for k in range(DRAWS):
            inst = store.task_instance(world, template.id, k)
            if not person_in(template.split, inst.actor_id):
                wrong.append(f"#{k}: actor {inst.actor_id}")
            wrong += [f"#{k}: {target}" for target in out_of_split(template, declared_on_start(factory, template, inst))]
    finally:
        engine.dispose()
    assert not wrong, f"{template.id}: not of the {template.split} split: " + "; ".join(wrong)
