"""`Composed`, a task template made of procedures: the author writes `plan` (who acts, the words of
the instruction, the procedures in order) and the class attributes; drawing, setup, declaration,
grading, outcome, near misses and the events during the episode follow from the procedures."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, ClassVar

from sqlalchemy.orm import Session

from officegym.graders.checks import nothing_else_changed

from ..base import Declaration, TaskInstance, TaskTemplate, ToolCall
from .core import HARDS, Procedure, outcome_of, trajectory, unaware_trajectory


@dataclass
class Plan:
    """One instance as the template composes it: the actor, the instruction and the procedures, in
    the order the reference trajectory follows them (`params`: anything else the template keeps)."""

    actor_id: int
    instruction: str
    procedures: list[Procedure]
    params: dict[str, Any] = field(default_factory=dict)


class Composed(TaskTemplate):
    """A template composed of procedures (tasks.procedures). Subclasses set the usual class
    attributes (id, apps, kind, difficulty, scale, split, rules, summary), `hard` (the difficulties
    it declares, a subset of HARDS, each held by at least one of its procedures) and write `plan`."""

    hard: ClassVar[tuple[str, ...]] = ()

    def plan(self, session: Session, rng: random.Random, instance: int) -> Plan:
        """Compose instance number `instance` from the world (before any setup)."""
        raise NotImplementedError

    def sample(self, session, rng, instance):
        plan = self.plan(session, rng, instance)
        unknown = set(self.hard) - set(HARDS)
        if unknown:
            raise ValueError(f"{self.id}: unknown difficulties {sorted(unknown)}; they are {sorted(HARDS)}")
        procedures = tuple(plan.procedures)

        def setup(s: Session) -> None:
            for procedure in procedures:
                procedure.setup(s)
        # A start file is kept per setup's source (officegym.starts): a lab's template module counts too.
        setup.__module__ = type(self).__module__
        return TaskInstance(self.id, instance, plan.actor_id, plan.instruction, trajectory(list(procedures)),
                            {**plan.params, "procedures": procedures}, setup=setup,
                            outcome=outcome_of(list(procedures)),
                            events=[event for procedure in procedures for event in procedure.events()],
                            unaware=unaware_trajectory(list(procedures)))

    @staticmethod
    def procedures(inst: TaskInstance) -> list[Procedure]:
        """The procedures an instance was composed of."""
        return list(inst.params["procedures"])

    def declare(self, start, inst):
        declared = Declaration()
        for procedure in self.procedures(inst):
            part = procedure.declare(start)
            declared.targets += part.targets
            declared.claims += part.claims
            declared.fix = declared.fix or part.fix
        return declared

    def check(self, ctx, inst):
        results, allowed = [], []
        for procedure in self.procedures(inst):
            graded = procedure.check(ctx)
            results += graded.results
            allowed += graded.allowed
        return results + [nothing_else_changed(ctx.diff, allowed)]

    def near_miss(self, inst: TaskInstance, kind: str) -> list[ToolCall] | None:
        """The trajectory of the agent that falls for difficulty `kind`: the reference with the first
        procedure holding it played the fallen way (None when no procedure of this instance holds it)."""
        procedures = self.procedures(inst)
        for index, procedure in enumerate(procedures):
            calls = procedure.fallen(kind) if kind in procedure.declared() else None
            if calls is not None:
                return trajectory(procedures, (index, calls))
        return None
