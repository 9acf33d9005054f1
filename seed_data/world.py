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
from .org_away import build_absences
from .sheets import build_sheets
from .tickets import build_tickets
from .tickets_handbook import build_handbook

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
    # Knobs of the bigger worlds. Their defaults are how tiny and small have always been built, so
    # those two stay the same to the byte; medium and large turn them on.
    squads: bool = False  # org: teams of ~team_size in every department, under a tree of leads
    namesakes: int = 0  # org: extra near-duplicate names (exact namesakes, spelling variants)
    chatter: float = 0.0  # chat: extra replies per thread on average, and status updates in team channels
    ticket_volume: float = 1.0  # tickets: multiplier of the tickets filed per person over the history
    ticket_history: bool = False  # tickets: follow-ups, transitions, incidents over the whole history
    crm_history: bool = False  # crm: activities along each deal's life, field history, look-alike deals
    workbooks: bool = False  # sheets: team pipelines, desk metrics, headcount per team, long expense sheets


SCALES: dict[str, ScaleSpec] = {
    "tiny": ScaleSpec("tiny", 15, ("Executive", "Engineering", "Sales", "IT", "People"), 2, 4, 14, 1, 8, 3, 1.2, 12),
    "small": ScaleSpec("small", 50, None, 3, 5, 30, 3, 20, 6, 1.5, 60),
    "medium": ScaleSpec("medium", 500, None, 8, 10, 75, 12, 300, 16, 2.5, 6000, squads=True, namesakes=12,
                        chatter=0.6, ticket_volume=2.0, ticket_history=True, crm_history=True, workbooks=True),
    "large": ScaleSpec("large", 5000, None, 8, 10, 120, 60, 2400, 28, 3.5, 80000, squads=True, namesakes=80,
                       chatter=0.8, ticket_volume=3.5, ticket_history=True, crm_history=True, workbooks=True),
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


def within(report: Progress, start: float, end: float) -> Progress:
    """A stage's own progress (0 to 1) reported as the build's (`start` to `end`)."""
    return lambda step, fraction: report(step, start + (end - start) * min(1.0, max(0.0, fraction)))


def _growing(progress: Progress | None) -> Progress:
    """`progress`, never told a smaller fraction than before."""
    seen = [0.0]

    def report(step: str, fraction: float) -> None:
        seen[0] = max(seen[0], fraction)
        if progress is not None:
            progress(step, seen[0])
    return report


def build_world(session: Session, scale: str | ScaleSpec = "small", seed: int = 0,
                progress: Progress | None = None) -> None:
    """Generate the whole company into an empty database: directory, CRM, tickets, sheets, then chat.
    `progress(step, fraction)` hears of every stage, and of steps within the long ones, with
    fractions that only grow, from 0.0 to 1.0 once the world is complete. A stage's share is about
    the share of the time it takes in a big world (chat, with the most rows, takes the most)."""
    spec = scale_spec(scale)
    report = _growing(progress)
    clock.set_base(session, COMPANY_NOW)
    report("org: people and teams", 0.0)
    org = build_org(session, spec, seed, COMPANY_NOW)
    report("crm: accounts, deals and cases", 0.01)
    crm = build_crm(session, spec, seed, org)  # before chat, so that chat talks about real deals
    report("tickets: projects, queues and tickets", 0.15)
    tickets = build_tickets(session, spec, seed, org, crm)  # before chat, which discusses the incidents
    build_handbook(session, seed, org, tickets)  # the knowledge base, which names the projects and groups
    report("sheets: workbooks", 0.25)
    build_sheets(session, spec, seed, org, crm, tickets,  # returns the workbooks (Sheets), for chat to cite later
                 progress=within(report, 0.25, 0.45))
    report("chat: channels and conversations", 0.45)
    build_chat(session, spec, seed, org, crm, tickets, progress=within(report, 0.45, 0.99))
    build_absences(session, seed, COMPANY_NOW)  # last: who is away depends on what every app gives them
    report("done", 1.0)
