"""Drawing helpers of the marathons composed in tasks.w_lib_marathon_more: a sales team's accounts, and a
busier on-call week."""

from __future__ import annotations

from dataclasses import replace

from officegym.apps.crm.models import Account
from officegym.apps.org.models import Person
from officegym.apps.tickets.models import Ticket
from officegym.apps.tickets.workflow import is_open

from ..common import world_scan
from ..crm import sales_people
from ..split import person_in
from ..tickets_common import tickets_where
from ..w_lib_revenue_credits import owned_accounts
from .oncall_week import NEXT, SERVICES, SYMPTOMS, TRIED, Handover


def team_accounts(session, split: str, least: int) -> list[tuple]:
    """(salesperson, their team's accounts) for each salesperson of the split with a manager whose team owns
    at least `least` accounts of tasks.w_lib_revenue_credits' `owned_accounts` (of the split, opened over
    17 months ago) whose owner's manager is someone else, by the salesperson's id."""
    def scan() -> tuple:
        accounts = owned_accounts(session, split)
        found = []
        for person in sales_people(session):
            if person.manager_id and person.team_id is not None and person_in(split, person.id):
                theirs = [a.id for a in accounts if session.get(Person, a.owner_id).team_id == person.team_id
                          and session.get(Person, a.owner_id).manager_id not in (None, person.id)]
                if len(theirs) >= least:
                    found.append((person.id, tuple(theirs)))
        return tuple(found)
    return [(session.get(Person, p), [session.get(Account, a) for a in theirs])
            for p, theirs in world_scan(session, ("team accounts", split, least), scan)]


def busier(session, rng, h: Handover, days: tuple[int, ...]) -> Handover:
    """The drawn week `h` with one more incident of the group opened on each of `days` (days into last week),
    worked by the outgoing engineer or a teammate, each on a service no open incident names; its keys list
    last week's incidents first."""
    busy = " ".join([t.summary for t in tickets_where(session, Ticket.type == "Incident") if is_open(t.status)]
                    + [spec[1] for spec in h.specs] + list(h.spare))
    services = rng.sample([s for s in SERVICES if s not in busy], len(days))
    extra = tuple((rng.choice((h.actor, h.other)), f"{service} {rng.choice(SYMPTOMS)}", rng.choice(("High", "Medium")),
                   rng.choice(("High", "Medium", "Low")), rng.choice(TRIED), rng.choice(NEXT), day)
                  for service, day in zip(services, days))
    first = int(h.planted[0].split("-")[1])
    planted = tuple(f"IT-{first + k}" for k in range(len(h.specs) + len(days)))
    # The incidents of last week first (the setup makes them, of no split), then those open from before.
    before = tuple(key for key in h.keys if key not in planted)
    return replace(h, specs=h.specs + extra, planted=planted, keys=planted + before)
