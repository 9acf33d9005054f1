"""The check library: each check states a requirement in plain language, a weight, whether it
passed and, on failure, what was found instead."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Callable

from sqlalchemy.orm import Session

from .diff import Diff


@dataclass
class CheckResult:
    """One requirement and how the episode fared."""

    requirement: str
    passed: bool
    weight: float = 1.0
    detail: str = ""

    def to_dict(self) -> dict:
        """Plain dict for JSON output."""
        return asdict(self)


@dataclass
class GradeContext:
    """What a grader may read: the start state, the final state, the diff and the answer."""

    start: Session
    final: Session
    diff: Diff
    answer: str | None
    actor_id: int


def check(requirement: str, passed: bool, detail: str = "", weight: float = 1.0) -> CheckResult:
    """A check from a computed condition; `detail` is kept only on failure."""
    return CheckResult(requirement, bool(passed), weight, "" if passed else detail)


@dataclass
class Allow:
    """A kind of change a task permits: rows of `table` that were `added`, `removed` or `updated`
    (for updates, only in `fields`), optionally only those matching `where(row)`."""

    table: str
    kinds: tuple[str, ...] = ("added",)
    where: Callable[[dict], bool] | None = None
    fields: tuple[str, ...] = ()

    def permits(self, kind: str, row: dict, changed: list[str] | None = None) -> bool:
        """Whether this allowance covers one change."""
        if kind not in self.kinds or (self.where is not None and not self.where(row)):
            return False
        return kind != "updated" or not self.fields or set(changed or ()) <= set(self.fields)


def nothing_else_changed(diff: Diff, allowed: list[Allow], weight: float = 1.0) -> CheckResult:
    """Every change in the diff is one of the allowed kinds (AppWorld's 'only these changed')."""
    unexpected: list[str] = []
    for name, table in sorted(diff.tables.items()):
        rules = [a for a in allowed if a.table == name]
        unexpected += [f"{name}: added {_brief(r)}" for r in table.added
                       if not any(a.permits("added", r) for a in rules)]
        unexpected += [f"{name}: removed {_brief(r)}" for r in table.removed
                       if not any(a.permits("removed", r) for a in rules)]
        unexpected += [f"{name}: changed {u.fields} of {u.key}" for u in table.updated
                       if not any(a.permits("updated", u.after, u.fields) for a in rules)]
    detail = "; ".join(unexpected[:6]) + (f"; and {len(unexpected) - 6} more" if len(unexpected) > 6 else "")
    return check("Nothing else in the workspace was changed", not unexpected,
                 f"unexpected changes: {detail}", weight)


def _brief(row: dict) -> str:
    shown = {k: v for k, v in row.items() if k in ("id", "name", "text", "channel_id", "person_id", "emoji")}
    text = repr(shown)
    return text if len(text) < 120 else text[:117] + "..."


# ---------------------------------------------------------------- answers

_NUMBER = re.compile(r"^[-+]?\d+(\.\d+)?$")


def normalise_text(value: str) -> str:
    """Case-folded, whitespace collapsed, surrounding punctuation and quotes removed."""
    collapsed = re.sub(r"\s+", " ", value).strip().casefold()
    return collapsed.strip(" .,;:!?\"'`")


def normalise_number(value: str) -> float | None:
    """A number written with commas, currency signs, units or words around it, else None."""
    cleaned = normalise_text(value).replace(",", "").replace("$", "").replace("€", "").replace("£", "")
    found = re.findall(r"[-+]?\d+(?:\.\d+)?", cleaned)
    if len(found) != 1:
        return None
    return float(found[0])


def answer_is_number(answer: str | None, expected: float, tolerance: float = 1e-6,
                     weight: float = 1.0) -> CheckResult:
    """The submitted answer is the expected number (one number, within tolerance)."""
    got = normalise_number(answer) if answer else None
    passed = got is not None and abs(got - expected) <= tolerance
    return check(f"The submitted answer is {expected:g}", passed,
                 "no answer was submitted" if answer is None else f"the answer given was {answer!r}", weight)


def answer_is_one_of(answer: str | None, accepted: list[str], shown: str, weight: float = 1.0) -> CheckResult:
    """The submitted answer equals (after normalisation) one of the accepted spellings."""
    wanted = {normalise_text(a) for a in accepted}
    passed = answer is not None and normalise_text(answer).lstrip("@#") in {w.lstrip("@#") for w in wanted}
    return check(f"The submitted answer is {shown}", passed,
                 "no answer was submitted" if answer is None else f"the answer given was {answer!r}", weight)
