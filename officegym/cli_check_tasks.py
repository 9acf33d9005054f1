"""`officegym check-tasks`: the proofs the suite gives every template, run on any registered ones,
a lab's own included (registered through the `officegym.tasks` entry point group), without this
repository's tests:

- draws: every actor of the template's split, the instances distinct, the same draw twice alike;
- soundness: the reference scores 1.0 and doing nothing 0 on each instance played; spam and every
  adversary (officegym.adversaries) fail, each on one of the instances in turn; a near miss applies
  and fails;
- judgement (deep templates): the agents of officegym.judgement fail where they apply;
- declared difficulties (composed templates, tasks.procedures): for each difficulty the template
  declares, an instance holds it and the agent that falls for it fails.

Each proof is a line, PASS, FAIL or SKIP (an agent that does not apply); the exit status is 1 when
any failed. The episodes, agents and templates are imported when the command runs, not when the
command line is read."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Callable, Iterator

from officegym.config import load_settings
from officegym.errors import OfficeError

if TYPE_CHECKING:  # pragma: no cover
    from officegym.episodes import Episode

DRAWS = 10  # instances drawn for the draws' proofs
LOOKED_AT = 6  # instances searched for one holding a difficulty, or a refusal
Proof = tuple[str, "bool | None", str]  # (what, passed or None when it does not apply, detail)


def near_miss_agent(kind: str) -> Callable[["Episode"], None]:
    """The agent that falls for difficulty `kind` (tasks.procedures.HARDS) in a composed template: it
    plays the reference with the procedure holding it played the fallen way (`Composed.near_miss`);
    NotApplicable when the episode's instance holds no such difficulty."""
    from officegym.adversaries import NotApplicable
    from officegym.agents import Player, replay, run_player
    from officegym.tasks.procedures import Composed
    from officegym.tasks.registry import get_task

    def agent(episode: "Episode") -> None:
        template = get_task(episode.task.task_id)
        calls = template.near_miss(episode.task, kind) if isinstance(template, Composed) else None
        if calls is None:
            raise NotApplicable(f"{episode.task.task_id} #{episode.task.instance} holds no {kind} difficulty")

        async def play(player: Player):
            await replay(player, calls)
        run_player(episode, play, client=False)
    return agent


def _play(store, agent: str, template, instance: int):
    """The grade of one agent's episode, or None when the agent does not apply."""
    from officegym.adversaries import NotApplicable
    from officegym.runner import AGENTS

    play = near_miss_agent(agent[len("falls_for_"):]) if agent.startswith("falls_for_") else AGENTS[agent]
    episode = store.create(template.id, instance, scale=template.scale, seed=0)
    try:
        play(episode)
        return episode.grade()
    except NotApplicable:
        return None
    finally:
        store.delete(episode.id)


def _fails(store, agent: str, template, instance: int) -> Proof:
    result = _play(store, agent, template, instance)
    what = f"{agent} fails #{instance}"
    if result is None:
        return what, None, "does not apply"
    return what, result.status == "failed" and not result.success and result.score < 0.5, f"score {result.score}"


def draws(store, template) -> Iterator[Proof]:
    """The draws' proofs: actors of the split, distinct instances, the same draw twice alike."""
    from officegym.db import make_sessionmaker, sqlite_engine, transaction
    from officegym.tasks.split import person_in

    world = store.world(template.scale, 0)
    drawn = [store.task_instance(world, template.id, k) for k in range(DRAWS)]
    outside = [k for k, inst in enumerate(drawn) if not person_in(template.split, inst.actor_id)]
    yield "draws: every actor is of the split", not outside, f"instances {outside}"
    keys = {(i.actor_id, i.instruction, repr(sorted(i.params.items()))) for i in drawn}
    yield f"draws: {DRAWS} instances differ", len(keys) >= DRAWS * 0.8, f"{len(keys)} distinct"
    yield "draws: every instance has an instruction and a reference", all(i.instruction and i.solution
                                                                            for i in drawn), ""
    engine = sqlite_engine(str(world.path), readonly=True)
    try:
        with transaction(make_sessionmaker(engine)) as session:
            again = template.make(session, 0, world.seed)
    finally:
        engine.dispose()
    first = drawn[0]
    yield "draws: the same draw twice is alike", (again.actor_id, again.instruction, again.params) == \
        (first.actor_id, first.instruction, first.params), ""


def soundness(store, template, instances: tuple[int, ...]) -> Iterator[Proof]:
    """Reference 1.0, nothing 0, every cheat failing (one instance each, in turn), a near miss failing."""
    from officegym.adversaries import ADVERSARIES, NEAR_MISSES

    for k in instances:
        result = _play(store, "oracle", template, k)
        yield f"oracle scores 1.0 on #{k}", result.status == "passed" and result.score == 1.0, str(result.to_dict())
        result = _play(store, "null", template, k)
        yield f"doing nothing scores 0 on #{k}", result.status == "failed" and result.score == 0.0, \
            f"score {result.score}"
    cheats = ["spam", *ADVERSARIES]
    for index, agent in enumerate(cheats):
        yield _fails(store, agent, template, instances[index % len(instances)])
    misses = [_fails(store, agent, template, instances[0]) for agent in NEAR_MISSES]
    yield from misses
    yield "a near miss applies", any(passed is not None for _, passed, _ in misses), \
        "declare targets with look-alikes or claims with a pool"


def judgement(store, template) -> Iterator[Proof]:
    """The agents of judgement fail a deep template (blind refusal and compliance where a refusal is due)."""
    from officegym.judgement import JUDGEMENT

    world = store.world(template.scale, 0)
    refusing = next((k for k in range(LOOKED_AT) if store.task_instance(world, template.id, k).outcome.refuse), 0)
    for agent in JUDGEMENT:
        yield _fails(store, agent, template, refusing if agent in ("blind_refuse", "comply") else 0)


def difficulties(store, template) -> Iterator[Proof]:
    """Each declared difficulty is held by an instance, and the agent that falls for it fails."""
    world = store.world(template.scale, 0)
    for kind in getattr(template, "hard", ()):
        holding = next((k for k in range(LOOKED_AT)
                        if template.near_miss(store.task_instance(world, template.id, k), kind) is not None), None)
        if holding is None:
            yield f"an instance holds the declared difficulty {kind}", False, f"none of the first {LOOKED_AT}"
            continue
        yield _fails(store, f"falls_for_{kind}", template, holding)


PROOFS = ("draws", "soundness", "judgement", "difficulties")


def prove(store, template, instances: tuple[int, ...], only: tuple[str, ...] = PROOFS) -> Iterator[Proof]:
    """The proofs of one template (`only`: some of PROOFS)."""
    from officegym.tasks.base import DEEP_KINDS

    if "draws" in only:
        yield from draws(store, template)
    if "soundness" in only:
        yield from soundness(store, template, instances)
    if "judgement" in only and template.kind in DEEP_KINDS:
        yield from judgement(store, template)
    if "difficulties" in only:
        yield from difficulties(store, template)


def cmd_check_tasks(args) -> int:
    """Prove the templates a glob names sound, as the suite proves its own: draws, reference, cheats,
    near misses, judgement and declared difficulties."""
    from officegym.episodes import EpisodeStore
    from officegym.tasks.registry import match_tasks, plugins

    templates = match_tasks(args.tasks)
    if not templates:
        skipped = {name: why for name, why in plugins().items() if why != "loaded"}
        raise OfficeError(f"no task matches {args.tasks!r}" + (f"; entry points skipped: {skipped}" if skipped else ""))
    if not 1 <= args.instances <= 10:
        raise OfficeError("--instances is 1 to 10")
    only = tuple(p.strip() for p in args.only.split(",") if p.strip())
    if not only or set(only) - set(PROOFS):
        raise OfficeError(f"--only names some of {', '.join(PROOFS)}")
    store = EpisodeStore(load_settings())
    failed = 0
    try:
        for template in templates:
            for what, passed, detail in prove(store, template, tuple(range(args.instances)), only):
                mark = "SKIP" if passed is None else "PASS" if passed else "FAIL"
                failed += passed is False
                print(f"{mark} {template.id}: {what}" + (f" ({detail[:300]})" if passed is False and detail else ""))
                sys.stdout.flush()
    finally:
        store.close()
    print(f"{len(templates)} templates, {failed} proofs failed")
    return 1 if failed else 0


def add_parser(sub, fn) -> None:
    """The `check-tasks` subcommand's arguments."""
    check = sub.add_parser("check-tasks", help=fn.__doc__)
    check.add_argument("--tasks", required=True, help="glob of task ids, e.g. 'lab.*' (comma-separated globs allowed)")
    check.add_argument("--instances", type=int, default=2, help="instances played by the reference (1-10)")
    check.add_argument("--only", default=",".join(PROOFS), help=f"some of the proofs: {', '.join(PROOFS)} (default: all)")
    check.set_defaults(fn=fn)
