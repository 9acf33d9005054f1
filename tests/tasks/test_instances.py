"""Templates: enough distinct instances, drawn deterministically, with the documented fields."""

from __future__ import annotations

import pytest

from officegym.tasks.registry import all_tasks, get_task, match_tasks
from pairs import by_template

TEMPLATES = all_tasks()


def test_at_least_twelve_chat_templates_across_difficulties():
    chat = match_tasks("chat.*")
    assert len(chat) >= 12
    assert {t.difficulty for t in chat} == {1, 2, 3}
    assert any(t for t in chat if t.summary)


def test_at_least_twelve_tickets_templates_and_four_cross_app_ones():
    tickets = match_tasks("tickets.*")
    assert len(tickets) >= 12 and {t.difficulty for t in tickets} == {1, 2, 3}
    cross = [t for t in match_tasks("x.*") if "tickets" in t.apps]
    assert len(cross) >= 4 and all(len(t.apps) >= 2 for t in cross)


def test_at_least_twelve_sheets_templates_and_four_cross_app_ones():
    sheets = match_tasks("sheets.*")
    assert len(sheets) >= 12 and {t.difficulty for t in sheets} == {1, 2, 3}
    cross = [t for t in match_tasks("x.*") if "sheets" in t.apps]
    assert len(cross) >= 4 and all(len(t.apps) >= 2 for t in cross)


# Draws and how many must differ: a medium template's setups cost several times more, so it draws half.
DISTINCT = {"small": (24, 20), "medium": (12, 10)}


@pytest.mark.parametrize("template", by_template(TEMPLATES))
def test_instances_differ(store, template):
    world = store.world(template.scale, 0)
    draws, least = DISTINCT.get(template.scale, DISTINCT["medium"])
    drawn = [store.task_instance(world, template.id, k) for k in range(draws)]
    keys = {(i.actor_id, i.instruction, repr(sorted(i.params.items()))) for i in drawn}
    assert len(keys) >= least, f"{template.id}: only {len(keys)} distinct instances of {draws}"
    assert all(i.instruction and i.solution for i in drawn)
    assert 1 <= template.difficulty <= 6 and template.split in ("train", "test")


@pytest.mark.parametrize("template", by_template(TEMPLATES))
def test_instances_are_deterministic(store, settings, template):
    from officegym.db import make_sessionmaker, sqlite_engine, transaction

    world = store.world(template.scale, 0)
    engine = sqlite_engine(str(world.path), readonly=True)
    try:
        with transaction(make_sessionmaker(engine)) as session:
            first = template.make(session, 5, world.seed)
            second = template.make(session, 5, world.seed)
    finally:
        engine.dispose()
    assert (first.actor_id, first.instruction, first.params) == (second.actor_id, second.instruction, second.params)


def test_unknown_task_is_a_clear_error():
    from officegym.errors import NotFound

    with pytest.raises(NotFound, match="Known tasks"):
        get_task("chat.nope")
