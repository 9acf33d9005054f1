"""The pieces a composed template is made of: a `Procedure` is one of the handbook's procedures
(answer a request by direct message, read a rule, share a customer's contacts, ...) as the template
uses it in one instance. It knows five things:

- `setup(session)`: what it writes into the world before the episode (the request, the channel, the
  record that changed since);
- `steps()`: the reference trajectory's calls, whose `Ref`s count from the procedure's own first step
  (the composition shifts them);
- `declare(start)`: its targets and claims, read from the start state;
- `check(ctx)`: its requirements and the changes it allows (`Graded`);
- `fallen(kind)`: for each difficulty it declares (`HARDS`), the calls an agent that falls for it makes
  instead of `steps()` (the near miss, which must fail);
- optionally `events()`, what happens during the episode (a comment that comes later), and
  `unaware()`, its calls by an agent that never notices them (the `ignore_events` adversary).

A procedure is a frozen dataclass of plain values (ids, names, texts, claims), drawn by the template
from the world: the same values rebuild the same procedure when the episode is graded.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, ClassVar

from sqlalchemy.orm import Session

from ..base import Declaration, Outcome, Ref, ToolCall

if TYPE_CHECKING:  # pragma: no cover
    from officegym.colleagues.events import Event
    from officegym.graders.checks import Allow, CheckResult, GradeContext

# What may make a template hard, for fair reasons: each one the handbook or a tool settles.
HARDS = {
    "lookalike": "a look-alike record beside the right one (same owner, similar name)",
    "stale": "a stale source (a message that says otherwise); the handbook says which source wins",
    "exception": "an exception to the rule, stated in the same article",
    "away": "a colleague who is away and names a cover",
    "changed": "a record that changed since the request was made",
    "summed": "an amount that needs several records added up",
}
NO_OUTCOME = Outcome(0, 0)


@dataclass
class Graded:
    """What a procedure's check returns: its requirements and guards, and the changes it allows
    (the composition gathers every procedure's allowances into one "nothing else changed")."""

    results: list["CheckResult"] = field(default_factory=list)
    allowed: list["Allow"] = field(default_factory=list)


@dataclass(frozen=True)
class Procedure:
    """One handbook procedure in one instance (see the module's docstring). Subclasses are frozen
    dataclasses; they override what they take part in (a read declares and checks nothing)."""

    rules: ClassVar[tuple[str, ...]] = ()  # the handbook articles it relies on
    hard: ClassVar[tuple[str, ...]] = ()  # the difficulties (HARDS) it may declare

    def setup(self, session: Session) -> None:
        """Write what the procedure needs into the world (nothing by default)."""

    def steps(self) -> list[ToolCall]:
        """The reference calls, with `Ref`s counted from the procedure's first step."""
        return []

    def declare(self, start: Session) -> Declaration:
        """Its targets and claims, read from the start state (none by default)."""
        return Declaration()

    def check(self, ctx: "GradeContext") -> Graded:
        """Its requirements and the changes it allows (none by default)."""
        return Graded()

    def outcome(self) -> Outcome:
        """What it comes to: a request carried out, one refused, or neither (a read, a reply)."""
        return NO_OUTCOME

    def declared(self) -> tuple[str, ...]:
        """The difficulties this instance of the procedure really holds (default: all of `hard`)."""
        return self.hard

    def fallen(self, kind: str) -> list[ToolCall] | None:
        """The calls of the agent that falls for difficulty `kind`, in place of `steps()` (None: the
        procedure does not hold it)."""
        return None

    def events(self) -> list["Event"]:
        """What happens during the episode because of this procedure (none by default)."""
        return []

    def unaware(self) -> list[ToolCall] | None:
        """Its calls by an agent that never notices what happens during the episode, where they differ
        from `steps()` (None: the same, or no event of its own)."""
        return None


@dataclass(frozen=True)
class Reads(Procedure):
    """Reads of the reference that no other procedure owns (a search, a look-up in the directory)."""

    calls: tuple[ToolCall, ...]

    def steps(self):
        return list(self.calls)


def shifted(calls: list[ToolCall], offset: int) -> list[ToolCall]:
    """Calls whose `Ref`s point `offset` steps further (a procedure's steps placed in a trajectory)."""
    def move(value: Any) -> Any:
        if isinstance(value, Ref):
            return Ref(value.step + offset, value.path)
        if isinstance(value, list):
            return [move(v) for v in value]
        if isinstance(value, dict):
            return {k: move(v) for k, v in value.items()}
        return value
    return [replace(c, args=move(c.args), instead=shifted(c.instead, offset)) for c in calls]


def trajectory(procedures: list[Procedure], swap: tuple[int, list[ToolCall]] | None = None) -> list[ToolCall]:
    """The procedures' steps in order, each shifted to where it starts; `swap` = (index, calls) puts
    other calls in place of one procedure's steps (a near miss)."""
    calls: list[ToolCall] = []
    for index, procedure in enumerate(procedures):
        own = swap[1] if swap is not None and swap[0] == index else procedure.steps()
        calls += shifted(own, len(calls))
    return calls


def unaware_trajectory(procedures: list[Procedure]) -> list[ToolCall] | None:
    """The trajectory of an agent that never notices the episode's events (each procedure's unaware
    calls where it has them), or None where no procedure's calls would differ."""
    if all(procedure.unaware() is None for procedure in procedures):
        return None
    calls: list[ToolCall] = []
    for procedure in procedures:
        own = procedure.unaware()
        calls += shifted(procedure.steps() if own is None else own, len(calls))
    return calls


def outcome_of(procedures: list[Procedure]) -> Outcome:
    """The requests carried out and refused over the procedures (one carried out when none decides)."""
    carry = sum(p.outcome().carry_out for p in procedures)
    refuse = sum(p.outcome().refuse for p in procedures)
    return Outcome(carry, refuse) if carry or refuse else Outcome(1, 0)
