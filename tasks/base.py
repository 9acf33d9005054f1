"""The task model: a template draws instances from a world with a seeded RNG.

An instance carries what the agent sees (instruction, actor) and what it must never see
(`params`, the reference `solution`); expected values are computed by `check` from the episode's
start state at grading time.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, ClassVar

from sqlalchemy.orm import Session

if TYPE_CHECKING:  # pragma: no cover
    from officegym.graders.checks import GradeContext, CheckResult


@dataclass(frozen=True)
class Ref:
    """A value taken from the structured result of an earlier solution step, e.g.
    `Ref(0, "id")` is the `id` field of step 0's result."""

    step: int
    path: str

    def resolve(self, results: list[dict]) -> Any:
        """Follow `path` (dot-separated keys and list indexes) into `results[step]`."""
        value: Any = results[self.step]
        for part in self.path.split("."):
            value = value[int(part)] if isinstance(value, list) else value[part]
        return value


@dataclass
class ToolCall:
    """One MCP tool call of a reference solution."""

    tool: str
    args: dict[str, Any]

    def resolved_args(self, results: list[dict]) -> dict[str, Any]:
        """Arguments with every Ref replaced by the earlier result it points to."""
        def resolve(value):
            if isinstance(value, Ref):
                return value.resolve(results)
            if isinstance(value, list):
                return [resolve(v) for v in value]
            if isinstance(value, dict):
                return {k: resolve(v) for k, v in value.items()}
            return value
        return resolve(self.args)


Setup = Callable[[Session], None]


@dataclass
class TaskInstance:
    """One concrete task drawn from a template."""

    task_id: str
    instance: int
    actor_id: int
    instruction: str
    solution: list[ToolCall]
    params: dict[str, Any] = field(default_factory=dict)
    setup: Setup | None = None
    is_answer_task: bool = False


class TaskTemplate:
    """Subclass per task: set the class attributes, implement `sample` and `check`.

    `sample(session, rng, instance)` reads the world (start state before setup), picks the records
    involved and returns a TaskInstance whose `setup` (optional) writes what the task needs through
    services. `check(ctx, inst)` returns the list of CheckResults; it reads the start state and
    final state through `ctx`."""

    id: ClassVar[str]
    apps: ClassVar[tuple[str, ...]]
    difficulty: ClassVar[int]
    split: ClassVar[str] = "train"
    summary: ClassVar[str] = ""

    def sample(self, session: Session, rng: random.Random, instance: int) -> TaskInstance:
        """Draw instance number `instance`."""
        raise NotImplementedError

    def check(self, ctx: "GradeContext", inst: TaskInstance) -> list["CheckResult"]:
        """Score the final state."""
        raise NotImplementedError

    def make(self, session: Session, instance: int, world_seed: int) -> TaskInstance:
        """Draw an instance with an RNG seeded from (task id, instance, world seed) only."""
        rng = random.Random(f"{self.id}|{instance}|{world_seed}")
        inst = self.sample(session, rng, instance)
        inst.task_id, inst.instance = self.id, instance
        return inst
