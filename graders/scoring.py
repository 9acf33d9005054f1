"""Scoring: run a task's checks on an episode and build the result.

The reward to train on is `success`: 1 when every check passed, else 0. `score` is partial credit
over the task's own requirements, and it is 0 whenever a guard (a collateral check such as
"nothing else changed" or "no other candidate was stated") fails, so neither doing nothing nor
doing the work plus damage earns anything. A grader fault is reported as status "error" with no
score, never as an agent failure.

A grade reads one state: while it reads, no write to the episode commits (a write under way
finishes first, one that comes later waits for the grade, a few milliseconds).
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass, field

from sqlalchemy import text, update
from sqlalchemy.orm import Session

from officegym.answers import last_answer
from officegym.db import MetaEntry, make_sessionmaker, sqlite_engine, transaction

from .checks import CheckResult, GradeContext


@dataclass
class GradeResult:
    """The outcome of grading one episode."""

    task_id: str
    episode: str
    status: str  # passed | failed | error
    success: bool | None
    score: float | None
    checks: list[CheckResult] = field(default_factory=list)
    error: str = ""

    def to_dict(self) -> dict:
        """Plain dict in the documented result shape."""
        result = {"task_id": self.task_id, "episode": self.episode, "status": self.status,
                  "success": self.success, "score": self.score, "checks": [c.to_dict() for c in self.checks]}
        if self.error:
            result["error"] = self.error
        return result


def score_checks(checks: list[CheckResult]) -> tuple[bool, float]:
    """Success when every check passed. Score: 0 when a guard failed, else the passed share of the
    requirements' weight."""
    if any(c.guard and not c.passed for c in checks):
        return False, 0.0
    required = [c for c in checks if not c.guard]
    total = sum(c.weight for c in required)
    passed = sum(c.weight for c in required if c.passed)
    return all(c.passed for c in checks), round(passed / total, 6) if total else 0.0


def hold_writes(session: Session) -> None:
    """Let no write to the episode commit until `session` ends: on PostgreSQL every write records
    itself in the journal, and a SHARE lock on it waits for the writes under way and holds back the
    next ones; on SQLite the database's write lock does the same."""
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text("LOCK TABLE og_journal IN SHARE MODE"))
    else:
        session.execute(update(MetaEntry.__table__).where(MetaEntry.__table__.c.key == "now")
                        .values(value=MetaEntry.__table__.c.value))


def grade_episode(episode) -> GradeResult:
    """Grade a task episode from its start file and its current database."""
    if episode.task is None:
        raise ValueError("the free episode has no task to grade")
    from officegym.tasks.registry import get_task

    template = get_task(episode.task.task_id)
    start_engine = sqlite_engine(str(episode.start_path), readonly=True)
    try:
        with transaction(make_sessionmaker(start_engine), "api") as start, episode.session("api") as final:
            hold_writes(final)
            ctx = GradeContext(start=start, final=final, diff=episode.diff(),
                               answer=last_answer(final), actor_id=episode.actor_id)
            checks = template.check(ctx, episode.task)
            final.rollback()  # graders only read
        if not any(not c.guard for c in checks):
            raise ValueError(f"{template.id} returned no requirement to score")
    except Exception as error:  # a grader fault: report it, never score it as the agent's failure
        return GradeResult(episode.task.task_id, episode.id, "error", None, None, [],
                           f"{type(error).__name__}: {error}\n{traceback.format_exc(limit=4)}")
    finally:
        start_engine.dispose()
    success, score = score_checks(checks)
    return GradeResult(episode.task.task_id, episode.id, "passed" if success else "failed", success, score, checks)
