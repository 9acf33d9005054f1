"""Draws of the people-operations templates (tasks.w_lib_org*): who moves between engineering teams (with the
tickets the setup files for them), and the engineering work their tickets are about."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select

from officegym.apps.org.models import Person, Team
from officegym.apps.tickets.models import Component, Ticket

from ..common import spread
from ..split import person_in
from ..tickets_common import next_key, project_id
from .org_transfer import LOOKALIKES, HandOverOnTransfer

WORK = ("Retry failed webhook deliveries with backoff", "Cache the account settings lookup",
        "Drop the deprecated v1 export endpoint", "Add request tracing to the sync worker",
        "Paginate the audit log API", "Fix the flaky checkout integration test", "Upgrade the ORM to the next minor",
        "Split the nightly job into batches", "Alert on queue depth above the threshold",
        "Move feature flags to the new config service", "Remove the dead code behind the old onboarding flag",
        "Rate-limit the public search endpoint", "Index the events table by account", "Rotate the staging TLS certs",
        "Document the deploy rollback steps", "Speed up the CI cache restore")
OPEN = ("To Do", "In Progress", "In Review")


@dataclass
class Move:
    """One internal transfer: the mover, their old team (its lead acts) and a teammate, and the new team."""

    mover: Person
    old: Team
    lead: Person
    mate: Person
    new: Team


def engineering_teams(session) -> list[Team]:
    """The teams with a component of their name in ENG (their work is filed there), by id."""
    names = set(session.scalars(select(Component.name).where(Component.project_id == project_id(session, "ENG"))))
    return [t for t in session.scalars(select(Team).order_by(Team.id)) if t.name in names and t.lead_id]


def movers(session, split: str) -> list[tuple[Person, Team]]:
    """Members of engineering teams (led by someone of the split, who leads them) of the split, with no open
    ENG ticket assigned to them in the world: the open tickets the setup files are all they hold (their done
    and reported tickets of the world stay with them, as the handbook says)."""
    eng = project_id(session, "ENG")
    busy = set(session.scalars(select(Ticket.assignee_id).where(Ticket.project_id == eng,
                                                                 Ticket.status.in_(OPEN))))
    found = []
    for team in engineering_teams(session):
        if not person_in(split, team.lead_id):
            continue
        for p in session.scalars(select(Person).where(Person.team_id == team.id, Person.manager_id == team.lead_id,
                                                      Person.role == "member").order_by(Person.id)):
            if person_in(split, p.id) and p.id not in busy:
                found.append((p, team))
    return found


def draw_moves(session, rng, split: str, instance: int, count: int = 1) -> list[Move]:
    """The instance's transfers: `count` movers of one engineering team (the team from the instance's place on),
    each to another engineering team."""
    by_team: dict[int, list[Person]] = {}
    for person, team in movers(session, split):
        by_team.setdefault(team.id, []).append(person)
    teams = [session.get(Team, t) for t, people in sorted(by_team.items()) if len(people) >= count]
    old = spread(teams, instance)
    chosen = rng.sample(by_team[old.id], count)
    mates = [p for p in session.scalars(select(Person).where(Person.team_id == old.id, Person.id.not_in(
        (*(c.id for c in chosen), old.lead_id))).order_by(Person.id))]
    news = rng.sample([t for t in engineering_teams(session) if t.id != old.id], count)
    lead = session.get(Person, old.lead_id)
    return [Move(person, old, lead, rng.choice(mates), new) for person, new in zip(chosen, news)]


def channel_of(team: Team) -> str:
    """A team's channel, as Naming conventions writes it."""
    return "team-" + team.name.lower().replace(" ", "-")


def hand_over(session, rng, move: Move, first: int | None = None, handed: int | None = None) -> HandOverOnTransfer:
    """The mover's tickets for one transfer (three or four handed over), filed in ENG from `first` on."""
    first = first if first is not None else int(next_key(session, "ENG").split("-")[1])
    count = handed or rng.choice([3, 4])
    summaries = rng.sample(WORK, count + 1 + len(LOOKALIKES))
    statuses = [rng.choice(OPEN) for _ in range(count + 1)]
    p = move.mover
    return HandOverOnTransfer(first, move.lead.id, move.lead.handle, p.id, p.name, p.handle, move.mate.id,
                              move.old.name, move.new.id, move.new.name, move.new.name, channel_of(move.old),
                              tuple(zip(summaries[:count], statuses[:count])), (summaries[count], statuses[count]),
                              tuple(summaries[count + 1:]))
