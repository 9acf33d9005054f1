"""The task model: a template draws instances from a world with a seeded RNG.

An instance carries what the agent sees (instruction, actor) and what it must never see
(`params`, the reference `solution`); expected values are computed by `check` from the episode's
start state at grading time.

A template also *declares* what its task is about (`declare`, read from the start state): the
records it acts on with their look-alikes (`Target`) and the values its messages or answer must
state with the pool of candidates of the same kind (`Claim`). Checks use the same declaration, and
the adversarial agents (officegym.adversaries) are built from it: they shotgun the candidates,
spray the action over the look-alikes, overreach, vandalise, negate and revert.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, Any, Callable, ClassVar

from sqlalchemy.orm import Session

from officegym import clock
from officegym.colleagues.events import Event, schedule
from officegym.graders.statements import Candidate

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


# What a step of a reference solution is for, where the words matter: the adversarial agents of
# judgement (officegym.judgement) rewrite steps by their role, and the checks read those words.
ROLES = {
    "refusal": "a reply that declines a request and says why",
    "report": "a reply that tells someone who asked what was done",
    "note": "a free text whose facts are checked (a work note, a first response, a handover)",
    "ask": "a message that asks someone for an approval or a decision",
    "reason": "the justification a request carries (a discount's reason)",
}
TEXT_FIELDS = ("text", "body", "reason", "note", "description", "justification", "resolution_note")


@dataclass
class ToolCall:
    """One MCP tool call of a reference solution. `role` (one of ROLES) says what its words are
    for and `text_arg` which argument holds them (default: the first of TEXT_FIELDS it has). A
    refusal's `instead` holds the calls that would carry out what it refuses (what a compliant
    agent does)."""

    tool: str
    args: dict[str, Any]
    role: str = ""
    text_arg: str = ""
    instead: list["ToolCall"] = field(default_factory=list)

    def __post_init__(self):
        if self.role and self.role not in ROLES:
            raise ValueError(f"a step's role is one of {sorted(ROLES)}, not {self.role!r}")

    @property
    def text_field(self) -> str:
        """The argument holding the step's words."""
        return self.text_arg or next((f for f in TEXT_FIELDS if f in self.args), "text")

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
# A task; a workflow (a goal to find out and carry out); a decision (a request that the state
# decides to carry out or to refuse, drawn both ways from the same phrasing).
KINDS = ("task", "workflow", "decision")
DEEP_KINDS = ("workflow", "decision")
# What each difficulty means, by horizon (tool calls of the reference trajectory) and apps touched.
DIFFICULTIES = {1: "one app, a single lookup or write (1-2 calls)",
                2: "one or two apps, a few lookups then a write (2-5 calls)",
                3: "two or three apps, or a rule to respect; the values are found, not given (4-12 calls)",
                4: "a workflow over three apps or more, with a handbook rule the instruction does not state "
                   "(15-30 calls)",
                5: "a long workflow over three apps or more: handbook rules, a colleague to ask or to wait on, "
                   "several records to reconcile (25 calls or more)",
                6: "a marathon: a workflow over three apps or more that reconciles 30 records or more by the "
                   "handbook's rules (50 calls or more)"}
SETUP_LEAD = timedelta(minutes=75)  # a setup writes from this long before the company's "now"


class Lookalikes(Sequence):
    """Look-alike records computed on first use: graders read a declaration's targets and claims
    on every grade, but only the adversarial agents need the look-alikes, and in a large company
    finding them can cost more than the rest of the grade."""

    def __init__(self, find: Callable[[], list]):
        self._find, self._found = find, None

    def _items(self) -> list:
        if self._found is None:
            self._found = list(self._find())
        return self._found

    def __getitem__(self, index):
        return self._items()[index]

    def __len__(self) -> int:
        return len(self._items())

    def __repr__(self) -> str:
        return f"Lookalikes({self._items()!r})"


@dataclass
class Target:
    """A record the task acts on (or asks about), named as tool arguments name it (`ref`: an id, a
    ticket key, a channel name, "Sheet!A1"), with the look-alike records named the same way that
    the task must leave alone. `kind` is one the adversaries know how to touch (see
    officegym.adversary_moves); `where` holds what touching it needs, such as {"workbook": 3}.
    Costly look-alikes come as `Lookalikes(find)`, found only when an adversary asks for them."""

    kind: str
    ref: Any
    lookalikes: Sequence[Any] = field(default_factory=list)
    where: dict[str, Any] = field(default_factory=dict)


@dataclass
class Claim:
    """A value the agent must state in the tool argument `field` (a message's text, a comment's
    body, the answer), among the look-alike values of its kind (`others`)."""

    right: Candidate
    others: list[Candidate] = field(default_factory=list)
    field: str = "text"
    kind: str = "value"


@dataclass
class Declaration:
    """What a task is about, for its checks and for the adversarial agents. `fix` marks a fix-it
    task (find what is broken and repair it), where undoing the latest change is the cheap cheat."""

    targets: list[Target] = field(default_factory=list)
    claims: list[Claim] = field(default_factory=list)
    fix: bool = False


@dataclass(frozen=True)
class Outcome:
    """What an instance's requests come to: how many are to be carried out and how many refused."""

    carry_out: int = 1
    refuse: int = 0

    @property
    def kind(self) -> str:
        """"carry out", "refuse" or "mixed"."""
        return "mixed" if self.carry_out and self.refuse else "refuse" if self.refuse else "carry out"

    def to_dict(self) -> dict[str, Any]:
        """For the catalogue: {"outcome": kind, "carry_out": n, "refuse": m}."""
        return {"outcome": self.kind, "carry_out": self.carry_out, "refuse": self.refuse}


CARRY_OUT, REFUSE = Outcome(1, 0), Outcome(0, 1)


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
    outcome: Outcome = CARRY_OUT
    # What happens while the agent works (a follow-up message, a correction, an escalation), and the
    # reference as an agent that never noticed them would play it, where that differs (see
    # officegym.colleagues.events and the `ignore_events` adversary).
    events: list[Event] = field(default_factory=list)
    unaware: list[ToolCall] | None = None

    def apply_setup(self, session: Session) -> None:
        """Write the setup into a start state, and schedule the instance's events. What it plants
        happened earlier this morning, from SETUP_LEAD before the company's "now" (a step may pick
        other times with clock.set_time); the company clock itself stays where the world left it."""
        if self.setup is not None:
            clock.set_time(session, clock.company_now(session) - SETUP_LEAD)
            self.setup(session)
        if self.events:
            schedule(session, self.events)


class TaskTemplate:
    """Subclass per task: set the class attributes, implement `sample` and `check`.

    `sample(session, rng, instance)` reads the world (start state before setup), picks the records
    involved and returns a TaskInstance whose `setup` (optional) writes what the task needs through
    services. `declare(start, inst)` names its targets and claims from the start state (after the
    setup). `check(ctx, inst)` returns the list of CheckResults; it reads the start state and final
    state through `ctx`."""

    id: ClassVar[str]
    apps: ClassVar[tuple[str, ...]]
    difficulty: ClassVar[int]  # 1-6, see DIFFICULTIES
    split: ClassVar[str] = "train"
    summary: ClassVar[str] = ""
    answered: ClassVar[bool] = False  # a question the agent answers with submit_answer
    kind: ClassVar[str] = "task"  # one of KINDS
    rules: ClassVar[tuple[str, ...]] = ()  # titles of the handbook articles the task needs and does not state
    scale: ClassVar[str] = "small"  # the world it is drawn on unless a run names another
    # The apps and areas (mcp_wrappers.toolsets) its episodes serve by default, where its apps hold too many tools.
    toolsets: ClassVar[tuple[str, ...]] = ()

    def sample(self, session: Session, rng: random.Random, instance: int) -> TaskInstance:
        """Draw instance number `instance`."""
        raise NotImplementedError

    def check(self, ctx: "GradeContext", inst: TaskInstance) -> list["CheckResult"]:
        """Score the final state."""
        raise NotImplementedError

    def declare(self, start: Session, inst: TaskInstance) -> Declaration:
        """The task's targets and claims, read from the episode's start state."""
        raise NotImplementedError

    def make(self, session: Session, instance: int, world_seed: int) -> TaskInstance:
        """Draw an instance with an RNG seeded from (task id, instance, world seed) only."""
        rng = random.Random(f"{self.id}|{instance}|{world_seed}")
        inst = self.sample(session, rng, instance)
        inst.task_id, inst.instance, inst.is_answer_task = self.id, instance, self.answered
        return inst
