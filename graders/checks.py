"""The check library's core: each check states a requirement in plain language, a weight, whether it
passed and, on failure, what was found instead.

Two kinds of check make a grade:
- a **requirement** is part of the task; the score is the passed share of the requirements' weight;
- a **guard** is collateral: nothing else changed, no other candidate was stated, nothing was
  listed twice. A guard earns nothing, and when one fails the score is 0 (see `scoring`).

Allowances say which changes a task permits, and how many: `nothing_else_changed` fails on any
change no allowance covers, and on every change beyond an allowance's `limit`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from sqlalchemy.orm import Session

from .diff import Diff

KINDS = ("added", "removed", "updated")


@dataclass
class CheckResult:
    """One requirement (or guard) and how the episode fared."""

    requirement: str
    passed: bool
    weight: float = 1.0
    detail: str = ""
    guard: bool = False

    def to_dict(self) -> dict:
        """Plain dict for JSON output: requirement, kind (requirement or guard), weight, passed, detail."""
        return {"requirement": self.requirement, "kind": "guard" if self.guard else "requirement",
                "weight": self.weight, "passed": self.passed, "detail": self.detail}


@dataclass
class GradeContext:
    """What a grader may read: the start state, the final state, the diff and the answer."""

    start: Session
    final: Session
    diff: Diff
    answer: str | None
    actor_id: int


def check(requirement: str, passed, detail: str = "", weight: float = 1.0) -> CheckResult:
    """A requirement of the task; `detail` is kept only on failure."""
    return CheckResult(requirement, bool(passed), weight, "" if passed else detail)


def guard(requirement: str, passed, detail: str = "") -> CheckResult:
    """A collateral requirement: it earns nothing, and the score is 0 when it fails."""
    return CheckResult(requirement, bool(passed), 0.0, "" if passed else detail, guard=True)


@dataclass
class Allow:
    """A kind of change a task permits: at most `limit` rows of `table` that were added, removed or
    updated (`kinds`), only those `where(row)` accepts, and for updates only in `fields`.

    `limit=None` (no count) is for changes another guard checks row by row, such as a sheet's cells
    (see `graders.sheets`); every other allowance says how many rows it lets through."""

    table: str
    kinds: tuple[str, ...] = ("added",)
    where: Callable[[dict], bool] | None = None
    fields: tuple[str, ...] = ()
    limit: int | None = 1

    def __post_init__(self):
        if not set(self.kinds) <= set(KINDS):
            raise ValueError(f"kinds are {KINDS}; got {self.kinds}")
        if "updated" in self.kinds and not self.fields:
            raise ValueError(f"an allowance of updates to {self.table} must list the fields it permits")
        if self.limit is not None and self.limit < 0:
            raise ValueError("a limit counts rows: 0 or more")

    def permits(self, kind: str, row: dict, changed: list[str] | None = None) -> bool:
        """Whether this allowance covers one change (ignoring its limit)."""
        if kind not in self.kinds or (self.where is not None and not self.where(row)):
            return False
        return kind != "updated" or set(changed or ()) <= set(self.fields)


def quiet_conversations(diff: Diff) -> set:
    """Direct-message conversations the episode opened and nobody wrote in: opening one is looking
    someone up, not a change (their rows are left out of "nothing else changed")."""
    opened = {r["id"] for r in diff.table("chat_channel").added if r.get("kind") in ("dm", "group_dm")}
    return opened - {r["channel_id"] for r in diff.table("chat_message").added}


def _opening(name: str, row: dict, quiet: set) -> bool:
    """Whether an added row only opens a quiet conversation (the channel, its members)."""
    return (name == "chat_channel" and row.get("id") in quiet) or (name == "chat_membership"
                                                                   and row.get("channel_id") in quiet)


def nothing_else_changed(diff: Diff, allowed: list[Allow]) -> CheckResult:
    """A guard: every change in the diff is one of the allowed kinds, within each allowance's count
    (AppWorld's 'only these changed', with counts and field lists). Opening a direct-message
    conversation without writing in it changes nothing (`quiet_conversations`)."""
    used = [0] * len(allowed)
    unexpected: list[str] = []
    quiet = quiet_conversations(diff)
    for name, table in sorted(diff.tables.items()):
        changes = [("added", r, None, _brief(r)) for r in table.added if not _opening(name, r, quiet)]
        changes += [("removed", r, None, _brief(r)) for r in table.removed]
        changes += [("updated", u.after, u.fields, f"{u.fields} of {u.key}") for u in table.updated]
        for kind, row, fields, shown in changes:
            fits = [i for i, a in enumerate(allowed) if a.table == name and a.permits(kind, row, fields)]
            free = [i for i in fits if allowed[i].limit is None or used[i] < allowed[i].limit]
            if free:
                used[free[0]] += 1
            elif fits:
                unexpected.append(f"{name}: {kind} {shown} (beyond the {allowed[fits[0]].limit} allowed)")
            else:
                unexpected.append(f"{name}: {kind} {shown}")
    detail = "; ".join(unexpected[:6]) + (f"; and {len(unexpected) - 6} more" if len(unexpected) > 6 else "")
    return guard("Nothing else in the workspace was changed", not unexpected, f"unexpected changes: {detail}")


def _brief(row: dict) -> str:
    shown = {k: v for k, v in row.items() if k in ("id", "name", "text", "body", "subject", "channel_id",
                                                     "person_id", "emoji", "row", "col", "raw")}
    text = repr(shown)
    return text if len(text) < 120 else text[:117] + "..."


def listed_once(values: list, what: str) -> CheckResult:
    """A guard against duplicates: no value appears twice among `values` (rows added to a list)."""
    seen, twice = set(), []
    for value in values:
        if value in seen and value not in twice:
            twice.append(value)
        seen.add(value)
    return guard(f"No {what} is listed twice", not twice, f"listed more than once: {twice[:5]}")

