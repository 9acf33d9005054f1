"""The world builder: one seeded company, every app's part of it, deterministic to the byte.

`build_world(session, scale, seed)` fills an empty database. A scale is a `ScaleSpec`; the named
ones are in SCALES, and a spec of your own can be passed for experiments.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Callable

from sqlalchemy.orm import Session

from officegym import clock
from officegym.errors import Invalid

from .chat import build_chat
from .crm import build_crm
from .org import build_org
from .sheets import build_sheets
from .tickets import build_tickets

# The company's "now": a Monday morning. Seeded history ends the Friday before, so "today" in a
# task only ever means what the task itself set up.
COMPANY_NOW = datetime(2026, 3, 16, 9, 30)


@dataclass(frozen=True)
class ScaleSpec:
    """How big a world is."""

    name: str
    people: int
    departments: tuple[str, ...] | None  # None: every department of vocab.DEPARTMENTS
    max_teams: int  # most teams per department
    team_size: int  # people per team the builder aims for
    days: int  # days of chat history before "now"
    new_hires: int  # people who joined during that history (welcomed in #general)
    customers: int  # customer names mentioned in conversations
    projects: int  # project channels (one of them finished and archived)
    scenes_per_day: float  # conversation starters per busy channel per working day
    dms: int  # direct-message and group-DM conversations


SCALES: dict[str, ScaleSpec] = {
    "tiny": ScaleSpec("tiny", 15, ("Executive", "Engineering", "Sales", "IT", "People"), 2, 4, 14, 1, 8, 3, 1.2, 12),
    "small": ScaleSpec("small", 50, None, 3, 5, 30, 3, 20, 6, 1.5, 60),
    "medium": ScaleSpec("medium", 500, None, 8, 8, 30, 12, 120, 16, 1.5, 600),
    "large": ScaleSpec("large", 5000, None, 8, 12, 45, 40, 600, 28, 1.5, 6000),
}

Progress = Callable[[str, float], None]


def scale_spec(scale: str | ScaleSpec) -> ScaleSpec:
    """The spec of a named scale (or the spec itself)."""
    if isinstance(scale, ScaleSpec):
        return scale
    try:
        return SCALES[scale]
    except KeyError:
        raise Invalid(f"Unknown scale {scale!r}. Scales: {', '.join(SCALES)}.") from None


def build_world(session: Session, scale: str | ScaleSpec = "small", seed: int = 0,
                progress: Progress | None = None) -> None:
    """Generate the whole company into an empty database: directory, CRM, tickets, sheets, then chat."""
    spec = scale_spec(scale)
    report = progress or (lambda step, fraction: None)
    clock.set_base(session, COMPANY_NOW)
    report("org: people and teams", 0.0)
    org = build_org(session, spec, seed, COMPANY_NOW)
    report("crm: accounts, deals and cases", 0.2)
    crm = build_crm(session, spec, seed, org)  # before chat, so that chat talks about real deals
    report("tickets: projects, queues and tickets", 0.35)
    tickets = build_tickets(session, spec, seed, org, crm)  # before chat, which discusses the incidents
    report("sheets: workbooks", 0.42)
    build_sheets(session, spec, seed, org, crm, tickets)  # returns the workbooks (Sheets), for chat to cite later
    report("chat: channels and conversations", 0.45)
    build_chat(session, spec, seed, org, crm, tickets)
    report("done", 1.0)
