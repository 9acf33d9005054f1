"""Every template's draws, read on their start states (the world with the task's setup applied):
- train/test split: the actor, and the first record the declaration names, are of the template's split
  (`officegym.tasks.split`), so a test instance never acts as, or on, what a train instance does;
- no positional shortcut: over 20 instances (12 of a medium-world template), the target is the newest
  record of its kind in at most a third;
- instances that differ: over those draws, at least 8 distinct targets and 4 distinct actors, where the
  world holds them. A task template on the small world may hold fewer people and records than that:
  then the 20 draws must find two thirds of those 50 draws find (the draws cover the world);
- tools: each reference solution calls only tools its task's episodes serve by default."""

from __future__ import annotations

import math
import re
import shutil

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from officegym.apps.chat.models import Message
from officegym.apps.crm.models import Account, Case, Contact, Lead, Opportunity
from officegym.apps.sheets.models import Workbook
from officegym.apps.tickets.models import Ticket
from officegym.db import make_sessionmaker, sqlite_engine
from officegym.episodes import tool_set
from officegym.mcp_wrappers.toolsets import TASK_LIMIT
from officegym.tasks.registry import all_tasks
from officegym.tasks.split import SPLITS, in_split, person_in
from pairs import by_template

TEMPLATES = all_tasks()
DRAWS, MORE = 20, 30
LONG_DRAWS = 8  # of a workflow on the medium world, whose setups cost several times more
TARGETS, ACTORS = 8, 4
LONG_TARGETS, LONG_ACTORS = 6, 3  # over the LONG_DRAWS of a medium template
COVER = 2 / 3  # of what a larger draw finds, where the world holds fewer
# Targets of these kinds belong to a split by their ref (an id, a ticket key, a channel's or account's
# name); a person is checked as the actor.
PARTITIONED = ("opportunity", "account", "case", "lead", "contact", "ticket", "message", "channel", "workbook",
               "approval", "line_item")
# Records whose age an agent sees (listed newest first); others are ordered by id. Targets named by a
# channel's or an account's name, a cell or a person's handle have no age to exploit.
DATED = {"message": Message, "opportunity": Opportunity, "lead": Lead, "case": Case, "account": Account,
         "contact": Contact, "workbook": Workbook}


def test_both_splits_have_templates():
    assert {t.split for t in TEMPLATES} == set(SPLITS)
    assert {t.split for t in TEMPLATES if t.kind == "task"} == set(SPLITS)


def _age(session: Session, kind: str, ref):
    """When a record was made, as (time, id), or None for a record without an age an agent sees."""
    if kind == "ticket" and isinstance(ref, str) and re.fullmatch(r"[A-Z][A-Z0-9]*-\d+", ref):
        row = session.execute(select(Ticket.created_at, Ticket.id).where(Ticket.key == ref)).first()
    elif kind in DATED and isinstance(ref, int):
        model = DATED[kind]
        row = session.execute(select(model.created_at, model.id).where(model.id == ref)).first()
    else:
        return (None, ref) if isinstance(ref, int) else None
    return None if row is None else (row[0], row[1])


def _newest(session: Session, target) -> bool:
    """Whether a target is newer than every one of its look-alikes."""
    mine = _age(session, target.kind, target.ref)
    if mine is None:
        return False
    others = [_age(session, target.kind, ref) for ref in target.lookalikes]
    return all(o is not None and (o[0] is None) == (mine[0] is None) and o < mine for o in others)


def _identity(session: Session, target):
    """What a target is, whatever id it got: a message a setup posts gets the same id in every instance,
    so a message is told apart by its channel, author and text, a ticket by its summary and reporter."""
    if target.kind == "message" and isinstance(target.ref, int):
        row = session.get(Message, target.ref)
        return ("message", row.channel_id, row.author_id, row.text)
    if target.kind == "ticket" and isinstance(target.ref, str):
        row = session.scalar(select(Ticket).where(Ticket.key == target.ref))
        return ("ticket", row.summary, row.reporter_id) if row is not None else ("ticket", target.ref)
    return (target.kind, repr(target.ref))


def _planted(world: Session, target) -> bool:
    """Whether the setup made the target (it is not in the world): a new record in every instance,
    of no split."""
    return (target.kind in DATED or target.kind == "ticket") and _age(world, target.kind, target.ref) is None


def read_on_start(factory, world: Session, template, inst) -> dict:
    """What the checks need of an instance's declaration, read on its start state: the world with the
    setup applied (on a copy of the world, rolled back after), read by a fresh session, as an episode's
    start state is, on the same connection. `world` reads the world as it is before the setup."""
    setup = factory()
    setup.info["surface"] = "setup"
    try:
        inst.apply_setup(setup)
        setup.flush()
        start = Session(bind=setup.connection())
        try:
            declared = template.declare(start, inst)
            first = declared.targets[0]
            partitioned = [t for t in declared.targets if t.kind in PARTITIONED][:1]
            compared = [t for t in declared.targets if len(t.lookalikes)][:1]
            return {"identity": _identity(start, first),
                    "out_of_split": [f"{t.kind} {t.ref!r}" for t in {id(t): t for t in [first, *partitioned]}.values()
                                     if t.kind in PARTITIONED and not in_split(template.split, t.kind, t.ref)
                                     and not _planted(world, t)],
                    "newest": bool(compared) and _newest(start, compared[0])}
        finally:
            start.close()
    finally:
        setup.rollback()
        setup.close()


@pytest.mark.parametrize("template", by_template(TEMPLATES))
def test_draws_keep_to_their_split_differ_and_hold_no_positional_shortcut(store, tmp_path, template):
    world = store.world(template.scale, 0)
    copy = tmp_path / "world.sqlite"
    shutil.copyfile(world.path, copy)
    engine, reader = sqlite_engine(str(copy)), sqlite_engine(str(world.path), readonly=True)
    factory, world_state = make_sessionmaker(engine), make_sessionmaker(reader)()
    targets, actors, wrong, newest = set(), set(), [], 0
    draws = DRAWS if template.scale == "small" else LONG_DRAWS
    try:
        for k in range(draws):
            inst = store.task_instance(world, template.id, k)
            read = read_on_start(factory, world_state, template, inst)
            wrong += ([f"#{k}: actor {inst.actor_id}"] if not person_in(template.split, inst.actor_id) else []) \
                + [f"#{k}: {target}" for target in read["out_of_split"]]
            targets.add(read["identity"])
            actors.add(inst.actor_id)
            newest += read["newest"]
        assert not wrong, f"{template.id}: not of the {template.split} split: " + "; ".join(wrong)
        assert newest * 3 <= draws, \
            f"{template.id}: the target is the newest of its kind in {newest} of {draws} instances"
        least = (TARGETS, ACTORS) if template.scale == "small" else (LONG_TARGETS, LONG_ACTORS)
        if template.kind != "task" or (len(targets) >= least[0] and len(actors) >= least[1]):
            assert len(targets) >= least[0] and len(actors) >= least[1], (template.id, len(targets), len(actors))
            return
        more = [store.task_instance(world, template.id, k) for k in range(draws, draws + MORE)]
        all_actors = actors | {inst.actor_id for inst in more}
        all_targets = targets | ({read_on_start(factory, world_state, template, inst)["identity"] for inst in more}
                                 if len(targets) < TARGETS else set())
    finally:
        world_state.close()
        engine.dispose()
        reader.dispose()
    assert len(actors) >= min(ACTORS, math.ceil(len(all_actors) * COVER)), \
        f"{template.id}: {len(actors)} actors in {draws} draws, of the {len(all_actors)} of {draws + MORE} draws"
    assert len(targets) >= min(TARGETS, math.ceil(len(all_targets) * COVER)), \
        f"{template.id}: {len(targets)} targets in {draws} draws, of the {len(all_targets)} of {draws + MORE} draws"


@pytest.mark.parametrize("template", by_template(TEMPLATES))
def test_reference_solutions_need_only_the_default_tools(store, template):
    """A task episode serves its task's tool set by default (mcp_wrappers.toolsets): at most 100 tools,
    holding every tool each reference solution calls (the instances are those drawn above)."""
    served = tool_set("task", template.id)
    assert len(served) <= TASK_LIMIT, f"{template.id} serves {len(served)} tools"
    world = store.world(template.scale, 0)
    for k in range(5):
        missing = {step.tool for step in store.task_instance(world, template.id, k).solution} - set(served)
        assert not missing, f"{template.id} #{k}: its reference calls {sorted(missing)}, not served by default"
