"""Who is out of office when the story begins: a few people, each with an absence around the
company's "now" and a cover (their manager, or a teammate) whom their auto-reply names.

Drawn last, once every app is built, from the people no record of the CRM, the tickets or the
sheets names and who lead nobody: people away at the start of the story own no deal, no ticket
and no workbook that a task could need them for. Deterministic: an RNG of its own, seeded from
the world's seed, so the other generators draw exactly as before.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from officegym.apps.org.models import Absence, Department, Person, Team
from officegym.db import Base

SHARE = 20  # one person in SHARE of those free to be away is away (at least one, when anyone is free)
APPS_WITH_OWNERS = ("crm_", "tickets_", "sheets_")


def _named_by_records(session: Session) -> set[int]:
    """Ids of the people a row of the CRM, the tickets or the sheets names (owner, assignee, ...)."""
    named: set[int] = set()
    for table in Base.metadata.sorted_tables:
        if not table.name.startswith(APPS_WITH_OWNERS):
            continue
        for column in table.columns:
            if any(fk.column.table.name == "org_person" for fk in column.foreign_keys):
                named |= {v for v in session.scalars(select(column).distinct()) if v is not None}
    return named


def _leaders(session: Session) -> set[int]:
    """Ids of managers, team leads and department heads."""
    leaders = set(session.scalars(select(Person.manager_id).where(Person.manager_id.is_not(None)).distinct()))
    leaders |= {v for v in session.scalars(select(Team.lead_id)) if v is not None}
    leaders |= {v for v in session.scalars(select(Department.head_id)) if v is not None}
    return leaders


def build_absences(session: Session, seed: int, now: datetime) -> list[Absence]:
    """Plant the absences of the people who are away around `now`, with their covers."""
    rng = random.Random(f"away|{seed}")
    busy = _named_by_records(session) | _leaders(session)
    free = [p for p in session.scalars(select(Person).order_by(Person.id))
            if p.id not in busy and p.role == "member" and p.manager_id is not None]
    chosen = sorted(rng.sample(free, max(1, len(free) // SHARE)), key=lambda p: p.id) if free else []
    absences = []
    for person in chosen:
        mates = list(session.scalars(select(Person.id).where(Person.team_id == person.team_id,
                                                             Person.id != person.id,
                                                             Person.id.not_in([p.id for p in chosen]))
                                     .order_by(Person.id))) if person.team_id else []
        cover = rng.choice(mates) if mates and rng.random() < 0.5 else person.manager_id
        start = (now - timedelta(days=rng.randint(1, 6))).replace(hour=0, minute=0, second=0, microsecond=0)
        end = (now + timedelta(days=rng.randint(2, 9))).replace(hour=0, minute=0, second=0, microsecond=0)
        absences.append(Absence(person_id=person.id, cover_id=cover, starts_at=start, ends_at=end))
    session.add_all(absences)
    session.flush()
    return absences
