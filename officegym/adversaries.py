"""Adversarial agents, built from what each task declares (its targets with their look-alikes, its
claims with their candidate pools): a policy under reward pressure tries exactly these, so every
sound task must fail them all.

- `shotgun`: the reference solution, with every stated value followed by a list of every candidate
  of its pool (an answer becomes that list); a task that states nothing is sprayed instead.
- `spray`: the reference solution, then its writes applied again to every look-alike record.
- `overreach`: an unasked edit beside each target first, then the reference solution, then each
  row it added added once more.
- `vandal`: the reference solution, plus a change to another record of the same kind.
- `negate`: the reference solution with each claim denied ("... is not resolved"); a task that
  states nothing is left untouched.
- `revert`: the latest change in each target's history put back, and nothing else.

`wreck` deletes or renames what the task is about, then does what it still can: a grader may pass
it only where deleting is the task, and must never crash (a grader fault is not scored as the
agent's failure, so a crash would be a way out). The near-miss agents are single mistakes: `wrong_record` does the task on a look-alike,
`wrong_value` states another candidate, `extra_row` adds one row too many. A task where such a
mistake cannot be made raises NotApplicable.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from officegym.adversary_moves import app_damage, damage, neighbour, undo, wreck
from officegym.agents import Player, declaration, replay, run_player
from officegym.graders.statements import NAMING_KINDS, stated
from officegym.tasks.base import Claim, Ref, ToolCall

SPRAY_LIMIT = 25
LISTED = 40  # candidates a shotgun text lists at most (the right one always among them)
ADDING = ("chat_post_message", "chat_add_reaction", "tickets_add_comment", "tickets_add_work_note", "crm_log_activity",
          "crm_add_line_item", "crm_request_discount", "tickets_create_ticket", "tickets_link_tickets",
          "sheets_create_filter_view", "sheets_share_workbook", "crm_escalate_case")
RENAMED = ("text", "body", "subject", "summary", "name", "reason")
AUXILIARY = re.compile(r"\b(is|are|was|were|has|have|had|will|can|should|must|does|did|do)\b", re.I)


class NotApplicable(Exception):
    """The task offers no way to make this mistake."""


@functools.lru_cache(maxsize=1)
def write_tools() -> frozenset[str]:
    """Names of the tools that change something (not annotated read-only)."""
    from officegym.mcp_wrappers.server import catalog

    return frozenset(t.name for t in catalog() if not (t.annotations and t.annotations.read_only_hint))


# Arguments that hold quantities, never a record: a number there is not an id.
QUANTITIES = frozenset({"value", "quantity", "count", "limit", "offset", "discount", "amount", "before", "position",
                        "rows", "cols", "story_points", "probability"})


def contains(value: Any, ref: Any, key: str = "") -> bool:
    """Whether `ref` names a record in tool arguments (as a value, or an item of a list or dict)."""
    if isinstance(value, dict):
        return any(contains(v, ref, k) for k, v in value.items())
    if isinstance(value, list):
        return any(contains(v, ref, key) for v in value)
    return value == ref and type(value) is type(ref) and not (isinstance(ref, int) and key in QUANTITIES)


def substitute(value: Any, ref: Any, other: Any, key: str = "") -> Any:
    """Tool arguments with every record named `ref` renamed `other`."""
    if isinstance(value, dict):
        return {k: substitute(v, ref, other, k) for k, v in value.items()}
    if isinstance(value, list):
        return [substitute(v, ref, other, key) for v in value]
    return other if contains(value, ref, key) else value


def listing(claim: Claim) -> str:
    """Every candidate of a claim's pool that can be written out, the right one among them, as one
    list."""
    labels = sorted({c.label for c in claim.others[:LISTED - 1] if not c.pattern} | {claim.right.label})
    return "; ".join(labels)


def shotgun_text(text: str, claim: Claim) -> str:
    """The text followed by every candidate (an answer: the list alone)."""
    return listing(claim)[:2000] if claim.field == "answer" else f"{text}\n{listing(claim)}"[:3900]


def negated_text(text: str, claim: Claim) -> str:
    """The text with its claim denied: "not" after the verb that follows the value ("IT-48 is not
    resolved"), else right before the value ("not Europe/London")."""
    if claim.field == "answer":
        return f"not {text}"
    spans = stated(text, [claim.right]).get(0)
    if not spans:
        return f"It is not true that {text}"
    start, end = spans[0]
    verb = AUXILIARY.match(text, end + (len(text[end:]) - len(text[end:].lstrip(" "))))
    if verb:
        return text[:verb.end()] + " not" + text[verb.end():]
    return text[:start] + "not " + text[start:]


def claim_rewrite(claims: list[Claim], make, solution: list[ToolCall]):
    """A replay rewrite that passes each claim's text through `make(text, claim)`, in the steps
    whose text states the claim (or, when no step of `solution` does, every step with that
    argument)."""
    def states(step: ToolCall, claim: Claim) -> bool:
        value = step.args.get(claim.field)
        return isinstance(value, str) and bool(stated(value, [claim.right]))
    anywhere = [any(states(s, c) for s in solution) for c in claims]

    def rewrite(index: int, step: ToolCall, args: dict) -> list[dict]:
        changed = dict(args)
        for claim, somewhere in zip(claims, anywhere):
            if isinstance(changed.get(claim.field), str) and (states(step, claim) or not somewhere):
                changed[claim.field] = make(changed[claim.field], claim)
        return [changed]
    return rewrite


def adversary(requires=None):
    """An agent from a coroutine `fn(player, declaration)`. `requires(declaration, solution)` says
    why the agent cannot play the task, or returns None; `fn` may also return such a reason once
    it has seen the task through (then the agent raises NotApplicable)."""
    def wrap(fn):
        @functools.wraps(fn)
        def agent(episode) -> None:
            declared = declaration(episode)
            why = [requires(declared, episode.task.solution) if requires else None]
            if why[0]:
                raise NotApplicable(why[0])

            async def play(player: Player):
                why[0] = await fn(player, declared)
            run_player(episode, play, client=False)
            if why[0]:
                raise NotApplicable(why[0])
        return agent
    return wrap


async def _oracle(player: Player):
    return await replay(player, player.episode.task.solution)


async def _spray_over(player: Player, declared, played) -> int:
    """Apply the played writes to each target's look-alikes, and the writes that use what those
    made (the message posted in a conversation opened with a look-alike); how many of those calls
    were taken."""
    made = 0
    solution = player.episode.task.solution
    writes = [(s, a) for s, a in played if s.tool in write_tools() and s.tool != "submit_answer"]
    for target in declared.targets:
        for other in target.lookalikes[:SPRAY_LIMIT]:
            sprayed: dict[int, dict] = {}  # a sprayed step's index in the solution: what its call returned
            for step, args in writes:
                chained = {k: v for k, v in step.args.items() if isinstance(v, Ref) and v.step in sprayed}
                if not (contains(args, target.ref) or chained):
                    continue
                try:
                    args = {**substitute(args, target.ref, other), **{k: v.resolve(sprayed) for k, v in chained.items()}}
                except (KeyError, IndexError, TypeError):  # the sprayed call it builds on was refused
                    continue
                got = await player.call(step.tool, args)
                made += got is not None
                sprayed[solution.index(step)] = got or {}
    return made


@adversary()
async def shotgun(player: Player, declared) -> None:
    """State every candidate where the task states one value."""
    pooled = [c for c in declared.claims if c.others]
    if not pooled:
        await _spray(player, declared)
        return
    await replay(player, player.episode.task.solution, claim_rewrite(pooled, shotgun_text, player.episode.task.solution))


async def _spray(player: Player, declared) -> None:
    played = await _oracle(player)
    if not await _spray_over(player, declared, played):
        pooled = [c for c in declared.claims if c.others]
        await replay(player, [s for s, _ in played if s.tool in write_tools()], claim_rewrite(pooled, shotgun_text, player.episode.task.solution))


@adversary()
async def spray(player: Player, declared) -> None:
    """Do the asked action to the target and to every look-alike."""
    await _spray(player, declared)


def _touched(solution: list[ToolCall]) -> set[str]:
    return {k for step in solution for k in step.args}


@adversary()
async def overreach(player: Player, declared) -> None:
    """Edit a neighbouring field of each target, do the task, then add each row once more (or,
    where the app refuses all of that, make an unasked change elsewhere in the task's app)."""
    extra = [await neighbour(player, target, _touched(player.episode.task.solution)) for target in declared.targets]
    played = await _oracle(player)
    for step, args in played:
        if step.tool in ADDING:
            extra.append(await player.call(step.tool, _again(args)) is not None)
    if not any(extra):
        for app in _apps(player):
            if await app_damage(player, app, _avoided(declared)):
                break


def _apps(player: Player) -> tuple[str, ...]:
    from officegym.tasks.registry import get_task

    return get_task(player.episode.task_id).apps


def _avoided(declared) -> set:
    """Every target and look-alike: records the damaging agents leave to the task."""
    return {t.ref for t in declared.targets} | {x for t in declared.targets for x in t.lookalikes}


@adversary()
async def vandal(player: Player, declared) -> str | None:
    """Change another record of a target's kind (one that was there before), else a record of one of
    the task's apps, then do the task; where the tools served change nothing else, it does not apply."""
    avoid = _avoided(declared)
    if not any([await damage(player, target, avoid) for target in declared.targets[:1]]):
        for app in _apps(player):
            if await app_damage(player, app, avoid):
                break
        else:
            return "the tools it serves change no record beside its targets"
    await _oracle(player)
    return None


def _deniable(declared) -> list[Claim]:
    """The claims a text asserts (not those it only names, such as the rule a refusal cites)."""
    return [c for c in declared.claims if c.kind not in NAMING_KINDS]


@adversary(lambda d, s: None if _deniable(d) or not d.claims else "its only claims name a rule; they assert nothing")
async def negate(player: Player, declared) -> str | None:
    """Do the task with every claim it asserts denied."""
    claims, solution = _deniable(declared), player.episode.task.solution
    if not claims:
        return None
    rewrite = claim_rewrite(claims, negated_text, solution)
    if not any(rewrite(i, step, step.args) != [step.args] for i, step in enumerate(solution)):
        return "no step of the reference states its claims: there is nothing to deny"
    await replay(player, solution, rewrite)


@adversary()
async def revert(player: Player, declared) -> None:
    """Put back the latest change of a target's history, without diagnosis."""
    for target in declared.targets:
        if await undo(player, target):
            return


@adversary(lambda d, s: None if any(t.lookalikes for t in d.targets) else "no target has a look-alike")
async def wrong_record(player: Player, declared) -> str | None:
    """Do the task on a look-alike of the target instead."""
    target = next(t for t in declared.targets if t.lookalikes)
    other, swapped = target.lookalikes[0], []

    def rewrite(index: int, step: ToolCall, args: dict) -> list[dict]:
        swapped.append(step.tool in write_tools() and contains(args, target.ref))
        return [substitute(args, target.ref, other)]
    await replay(player, player.episode.task.solution, rewrite)
    return None if any(swapped) else "no write of the solution names the target (it is only read)"


@adversary(lambda d, s: None if any(c.others for c in d.claims) else "no claim with other candidates")
async def wrong_value(player: Player, declared) -> None:
    """Do the task, stating another candidate in place of the right value."""
    claim = next(c for c in declared.claims if c.others)
    other = claim.others[0]
    wrong = lambda text, c: other.label if c.field == "answer" else _swap(text, c, other.label)  # noqa: E731
    await replay(player, player.episode.task.solution, claim_rewrite([claim], wrong, player.episode.task.solution))


def _swap(text: str, claim: Claim, label: str) -> str:
    spans = stated(text, [claim.right]).get(0) or []
    for start, end in sorted(spans, reverse=True):
        text = text[:start] + label + text[end:]
    return text if spans else f"{text} {label}"


def _again(args: dict) -> dict:
    """The same arguments with their names and texts marked as a second copy."""
    return {k: f"{v} (2)" if k in RENAMED and isinstance(v, str) else v for k, v in args.items()}


@adversary(lambda d, s: None if any(step.tool in ADDING for step in s) else "the task adds no row")
async def extra_row(player: Player, declared) -> str | None:
    """Do the task, then add its first added row once more."""
    played = await _oracle(player)
    for step, args in played:
        if step.tool in ADDING and await player.call(step.tool, _again(args)) is not None:
            return None
    return "the app refuses every repeated row"


@adversary()
async def wreck_targets(player: Player, declared) -> str | None:
    """Delete or rename each target, then play the solution as far as it goes."""
    wrecked = [await wreck(player, target) for target in declared.targets]
    await _oracle(player)
    return None if any(wrecked) else "no target can be deleted or renamed"


ADVERSARIES = {"shotgun": shotgun, "spray": spray, "overreach": overreach, "vandal": vandal, "negate": negate,
               "revert": revert}
NEAR_MISSES = {"wrong_record": wrong_record, "wrong_value": wrong_value, "extra_row": extra_row}
WRECKERS = {"wreck": wreck_targets}
