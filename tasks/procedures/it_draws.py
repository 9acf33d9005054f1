"""Draws of equipment requests (procedures.it.FulfilEquipment) in the states the IT templates mix: what the
requester bought earlier this year and before, who commented under the request, and whether they leave.

A state (`STATES`) names what the ticket shows and what it comes to: "within" (the manager approved, the
year's total within the allowance), "noise" (the same, beside a cancelled request and last year's, which
do not count), "replacement" (the same, beside a replacement of a lost laptop, which does not count),
"over_manager" (over the allowance: only the manager approved), "over_head" (over it: the Head of IT
approved), "cover" (the manager is away: only the cover they named approved), "skip" (the manager is
away: their own manager approved), "own" (only the requester says it was approved), "leaving" (approved,
but the manager filed the requester's offboarding since) and "withdrawn" (the offboarding withdrawn)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select

from officegym import clock
from officegym.apps.org.models import Department, Person

from officegym.apps.tickets.models import Ticket
from officegym.seed_data.tickets_handbook_it import ALLOWANCE

from ..common import world_scan
from ..tickets_common import project_id
from ..w_lib_people import AWAY_NOTE, reports_of, requesters
from .it import FulfilEquipment

CATALOGUE = {"Laptop (14-inch)": 1290, "Monitor (27-inch)": 420, "Monitor (32-inch)": 640, "Docking station": 260,
             "Noise-cancelling headset": 310, "Ergonomic chair": 690, "Standing desk": 780, "Tablet": 850,
             "Webcam": 120, "Keyboard and mouse": 150}
ASKED = ("Monitor (27-inch)", "Monitor (32-inch)", "Docking station", "Noise-cancelling headset", "Ergonomic chair",
         "Standing desk", "Tablet")
# state -> (decision, whose approval counts, the difficulty it holds)
STATES = {"within": ("fulfil", "manager", ()), "noise": ("fulfil", "manager", ("summed",)),
          "replacement": ("fulfil", "manager", ("exception",)), "over_manager": ("wait", "head", ("summed",)),
          "over_head": ("fulfil", "head", ("summed",)), "cover": ("wait", "skip", ("away",)),
          "skip": ("fulfil", "skip", ("away",)), "own": ("wait", "manager", ("stale",)),
          "leaving": ("cancel", "manager", ("changed",)), "withdrawn": ("fulfil", "manager", ("changed",))}
WHY_WAITING = {"over_manager": "over the allowance with this year's earlier equipment, so the Head of IT approves it",
               "cover": "the manager is away and only the cover they named approved",
               "own": "only the requester says it was approved"}


@dataclass
class Cast:
    """Who takes part in one request: the requester, their manager, the manager's manager, the cover the
    manager names while away (another report of theirs) and the Head of IT."""

    requester: Person
    manager: Person
    skip: Person
    cover: Person
    head: Person


def fresh_requesters(session, split: str) -> list[Person]:
    """Requesters (tasks.w_lib_people.requesters) who never filed an IT ticket in the seeded world: their
    year's equipment and their open requests are the ones the setup files, and no other."""
    def scan() -> tuple:
        filed = set(session.scalars(select(Ticket.reporter_id).where(Ticket.project_id == project_id(session, "IT"))))
        return tuple(p.id for p in requesters(session, split) if p.id not in filed)
    return [session.get(Person, i) for i in world_scan(session, ("fresh requesters", split), scan)]


def cast_for(session, rng, requester: Person) -> Cast:
    """The people around `requester`'s equipment request."""
    others = [p for p in reports_of(session, requester.manager) if p.id != requester.id]
    head = session.get(Person, session.scalar(select(Department.head_id).where(Department.name == "IT")))
    return Cast(requester, requester.manager, requester.manager.manager, rng.choice(others), head)


def _spend(rng, state: str, price: int) -> list[tuple[str, int, str]] | None:
    """Earlier requests (item, price, kind) fitting `state` with a new request at `price`, or None."""
    items = list(CATALOGUE.items())
    fixed = [(i, p, "fixed") for i, p in rng.sample(items, rng.randrange(3 if state.startswith("over") else 2))]
    total = price + sum(p for _, p, _ in fixed)
    if state.startswith("over"):
        return fixed if total > ALLOWANCE and sum(p for _, p, _ in fixed) <= ALLOWANCE else None
    if total > ALLOWANCE:
        return None
    if state == "noise":
        noise = [(i, p, k) for (i, p), k in zip(rng.sample(items, 2), ("last_year", "cancelled"))]
        return fixed + noise if total + sum(p for _, p, _ in noise) > ALLOWANCE else None
    if state == "replacement":
        laptop = ("Laptop (14-inch)", CATALOGUE["Laptop (14-inch)"], "replacement")
        return fixed + [laptop] if total + laptop[1] > ALLOWANCE else None
    return fixed


def earlier_of(session, rng, state: str, price: int) -> tuple[tuple[str, int, int, str], ...]:
    """The requester's earlier requests ((item, price, days ago, kind), oldest first) for `state`."""
    spent = None
    while spent is None:
        spent = _spend(rng, state, price)
    into = clock.company_now(session).timetuple().tm_yday  # days since the year began, plus one
    dated = [(i, p, rng.randrange(into + 20, into + 90) if k == "last_year" else rng.randrange(12, into - 4), k)
             for i, p, k in spent]
    return tuple(sorted(dated, key=lambda e: -e[2]))


def comments_of(state: str, c: Cast) -> tuple[tuple[int, str], ...]:
    """The comments under a request in `state`, oldest first."""
    away = (c.manager.id, AWAY_NOTE.format(cover=c.cover.name))
    return {"over_head": ((c.manager.id, "Approved."), (c.head.id, "Approved.")),
            "cover": (away, (c.cover.id, f"Approved, covering for {c.manager.name}.")),
            "skip": (away, (c.skip.id, "Approved.")),
            "own": ((c.requester.id, f"{c.manager.name} OK'd this in our one-to-one this morning."),)}.get(
        state, ((c.manager.id, "Approved."),))


def equipment(session, rng, state: str, first: int, actor: Person, lead: Person, c: Cast,
              strict: bool = True) -> FulfilEquipment:
    """A request of `requester` in `state`, its IT tickets numbered from `first`."""
    decision, whose, holds = STATES[state]
    item = rng.choice(ASKED)
    approver = {"manager": c.manager, "head": c.head, "skip": c.skip}[whose]
    # whom a comment could name in the approver's place (not the requester, nor the manager who also commented)
    pool = tuple(dict.fromkeys(p.id for p in (c.head, c.skip, c.cover) if p.id not in (approver.id, c.manager.id)))
    return FulfilEquipment(first, actor.id, c.requester.id, c.requester.name, c.requester.handle, c.manager.id, lead.id, item,
                           CATALOGUE[item], earlier_of(session, rng, state, CATALOGUE[item]), comments_of(state, c),
                           decision, approver.id, approver.handle, pool,
                           {"leaving": "leaving", "withdrawn": "withdrawn"}.get(state, ""), holds,
                           state.startswith("over"), c.skip.id if state in ("cover", "skip") else 0, strict)
