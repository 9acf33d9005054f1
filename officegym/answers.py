"""Answers to question tasks, submitted through the submit_answer tool or the UI's answer box."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from officegym import clock
from officegym.db import Answer
from officegym.errors import Invalid
from officegym.journal import journaled


@journaled("answer.submit")
def submit_answer(session: Session, actor, answer: str) -> Answer:
    """Store the actor's answer (the newest one counts)."""
    if not isinstance(answer, str) or not answer.strip():
        raise Invalid("The answer is empty; write the answer the task asks for.")
    if len(answer) > 2000:
        raise Invalid(f"The answer is {len(answer)} characters; keep it under 2000.")
    stored = Answer(actor_id=actor.id, text=answer.strip(), submitted_at=clock.advance(session).isoformat())
    session.add(stored)
    session.flush()
    return stored


def last_answer(session: Session) -> str | None:
    """The newest submitted answer, or None."""
    return session.scalar(select(Answer.text).order_by(Answer.id.desc()).limit(1))
