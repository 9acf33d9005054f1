"""Draws of problem records (procedures.changes_problems.OpenProblem): which services a review may name, and one
service's story in a kind: "new" (three incidents or more in the window, no open Problem: one is filed), "existing"
(the same, with an open Problem filed weeks ago: the incidents go to it) or "few" (two incidents in the window: no
Problem). Each story plants, beside the service's incidents, two look-alikes inside the window, incidents of services
the request does not name whose summaries name the service (the newest of all is one), and an incident of the service
from days before the window; the most recent incident's group differs from the others'. No look-alike inside the
window begins with a service the request names: it would be that service's incident, one the article counts."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from officegym import clock
from officegym.apps.org.models import Department, Person, Team
from officegym.apps.tickets.models import Group, Ticket
from officegym.apps.tickets.workflow import is_open
from officegym.seed_data.tickets_handbook_changes import WINDOW_DAYS

from ..split import in_split
from ..tickets_common import group_people, tickets_where
from ..w_incidents import on_call_groups
from .changes_problems import OpenProblem, problem_summary
from .oncall_week import SERVICES, SYMPTOMS

KINDS = ("new", "existing", "few")


def window_incidents(session, service: str) -> list[Ticket]:
    """The world's incidents of `service` (its name begins the summary) inside the window, by key number."""
    since = clock.company_now(session) - timedelta(days=WINDOW_DAYS)
    return tickets_where(session, Ticket.type == "Incident", Ticket.summary.like(f"{service} %"),
                         Ticket.created_at >= since)


def usable_services(session, kind: str, split: str) -> list[str]:
    """Services a story of `kind` may be about: no open Problem of theirs in the world, no incident of theirs a day
    either side of the window's edge, every one inside the window of `split` and, for "few", none inside it."""
    memo = ("usable_services", kind, split)  # the world's answer does not change within a session
    if memo in session.info:
        return session.info[memo]
    edge = clock.company_now(session) - timedelta(days=WINDOW_DAYS)
    rows = session.execute(select(Ticket.key, Ticket.type, Ticket.status, Ticket.summary, Ticket.created_at).where(
        Ticket.type.in_(("Incident", "Problem")))).all()  # one read of the light columns, not a query per service
    found = []
    for service in SERVICES:
        mine = [r for r in rows if r.type == "Incident" and r.summary.startswith(f"{service} ")]
        inside = [r for r in mine if r.created_at >= edge]
        near = [r for r in mine if abs(r.created_at - edge) < timedelta(days=1)]
        open_problem = any(r.type == "Problem" and service in r.summary and is_open(r.status) for r in rows)
        if open_problem or near or (kind == "few" and inside) or not all(in_split(split, "ticket", r.key)
                                                                         for r in inside):
            continue
        found.append(service)
    session.info[memo] = found
    return found


def services_for(session, rng, kinds: list[str], split: str) -> list[str]:
    """One distinct service per story kind, whose incidents in the window are of `split`."""
    chosen: list[str] = []
    for kind in sorted(kinds, key=lambda k: k != "few"):  # the scarcest first
        chosen.append(rng.choice([s for s in usable_services(session, kind, split) if s not in chosen]))
    order = sorted(range(len(kinds)), key=lambda k: kinds[k] != "few")
    return [chosen[order.index(k)] for k in range(len(kinds))]


def incident_lead(session) -> Person:
    """Who owns the handbook's incident articles: the Infrastructure team's lead (Engineering's head otherwise)."""
    lead = session.scalar(select(Team.lead_id).where(Team.name == "Infrastructure"))
    head = session.scalar(select(Department.head_id).where(Department.name == "Engineering"))
    return session.get(Person, lead or head)


def problem_story(session, rng, kind: str, service: str, first: int, actor: Person, desk: Person,
                  asker: Person, asked: list[str]) -> OpenProblem:
    """A story of `kind` about `service`, its IT tickets numbered from `first`; `asked`: every service the request
    names (this one among them), which no look-alike of the window begins with."""
    groups = on_call_groups(session)
    latest, others = rng.sample(groups, 2)
    world = [t.key for t in window_incidents(session, service)] if kind != "few" else []
    count = 2 if kind == "few" else max(1, 3 - len(world)) + rng.randrange(2)
    days = sorted(rng.sample(range(3, WINDOW_DAYS - 4), count - 1), reverse=True) + [2]  # the most recent last

    def spec(summary: str, group: Group, ago: int, resolved: bool) -> tuple:
        return (summary, group.name, rng.choice(group_people(session, group.id)).id, ago, resolved)
    mine = [spec(f"{service} {rng.choice(SYMPTOMS)}", latest if ago == 2 else others, ago, ago > 6) for ago in days]
    other, another = rng.sample([s for s in SERVICES if s not in {service, *asked}], 2)
    lookalikes = [spec(f"{other} {rng.choice(SYMPTOMS)} after the {service} deploy", others, 1, False),
                  spec(f"{another} {rng.choice(SYMPTOMS)} while calling {service}", others,
                       rng.randrange(4, WINDOW_DAYS - 6), True),
                  spec(f"{service} {rng.choice(SYMPTOMS)}", others, rng.randrange(WINDOW_DAYS + 5, WINDOW_DAYS + 15),
                       True)]  # five days or more before the window's edge
    return OpenProblem(first, actor.id, desk.id, asker.id, service, tuple(mine + lookalikes), count, tuple(world),
                       latest.name, kind != "few", kind == "existing")


def summary_of(story: OpenProblem, key: str) -> str:
    """How a report names what was done for one story (`key`: the Problem the reference files for it)."""
    if not story.needed:
        return (f"{story.service} had only {len(story.counted)} incidents in the last {WINDOW_DAYS} days, so it gets no "
                "Problem")
    keys = ", ".join(story.counted)
    if story.existing:
        return f"{story.service}: linked {keys} to its open Problem {story.problem_key}"
    return (f"{story.service}: filed {key}, \"{problem_summary(story.service)}\", for {story.group} and linked {keys} "
            "to it")
