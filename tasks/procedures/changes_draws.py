"""Draws of production change requests (procedures.changes.ScheduleChange) in the states the change templates mix:
who is around the change (the requester in an on-call group, the team's Engineering Manager, the cover they name,
another member of the group, the manager's manager, the Chief Technology Officer), its planned day, its comments,
and the report to the IT Support Lead on a queue of changes.

A state (`STATES`) names what the change shows and what it comes to: "approved" (the manager approved), "skip"
(the manager is away, their manager approved), "cover" (the manager is away, only the cover approved), "member"
(only another member of the group approved), "own" (only the requester says it was approved), "freeze" (approved,
planned inside the freeze), "emergency" (inside the freeze, it fixes a Highest incident, the CTO approved),
"emergency_manager" (the same with only the manager's approval), "not_urgent" (inside the freeze, the incident it
fixes is only High: no emergency, whoever approved), "replanned" (approved, then its day moved) and "reapproved"
(the same, approved again after the move)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from sqlalchemy import select

from officegym import clock
from officegym.apps.org.models import Department, Person, Team
from officegym.apps.tickets.models import Group
from officegym.graders.statements import Candidate
from officegym.seed_data.tickets_handbook_changes import FREEZE_END, FREEZE_START, day

from ..base import Claim
from ..split import person_in
from ..tickets_common import group_people
from ..w_incidents import on_call_groups
from ..w_lib_it_queue import keys_beside
from ..w_lib_people import AWAY_NOTE, reports_of
from ..w_people_replies import people_claim
from .changes import SCHEDULED, ScheduleChange
from .messages import Reply

WHAT = ("raise the database connection pool to 200", "migrate the orders table to the new schema",
        "rotate the TLS certificates", "fail over the primary database to the new replica",
        "upgrade the runtime to the next LTS release", "move the workers to the new cluster",
        "turn on request hedging at the load balancer", "shorten the cache TTL to five minutes")
INCIDENT_SYMPTOMS = ("returning 502 errors", "out of memory in production", "dropping events")
# state -> (scheduled, whose approval counts, the difficulties it holds, planned inside the freeze, incident priority)
STATES = {"approved": (True, "manager", (), False, ""), "skip": (True, "skip", ("away",), False, ""),
          "cover": (False, "skip", ("away",), False, ""), "member": (False, "manager", (), False, ""),
          "own": (False, "manager", ("stale",), False, ""), "freeze": (False, "", (), True, ""),
          "emergency": (True, "head", ("exception",), True, "Highest"),
          "emergency_manager": (False, "head", ("exception",), True, "Highest"),
          "not_urgent": (False, "", ("exception",), True, "High"),
          "replanned": (False, "manager", ("changed",), False, ""),
          "reapproved": (True, "manager", ("changed",), False, "")}


def weekdays(start: date, end: date) -> list[date]:
    """The weekdays from `start` to `end`, both included."""
    return [start + timedelta(days=k) for k in range((end - start).days + 1)
            if (start + timedelta(days=k)).weekday() < 5]


INSIDE = weekdays(FREEZE_START, FREEZE_END)
OUTSIDE = weekdays(FREEZE_START - timedelta(days=6), FREEZE_START - timedelta(days=3)) + weekdays(
    FREEZE_END + timedelta(days=3), FREEZE_END + timedelta(days=7))  # this week from Tuesday, the week after


def day_candidate(when: date) -> Candidate:
    """A day as a text may name it: "25 March", "March 25", "March 25th", "2026-03-25", "Mar 25"."""
    suffix = {1: "st", 2: "nd", 3: "rd", 21: "st", 22: "nd", 23: "rd", 31: "st"}.get(when.day, "th")
    return Candidate.text(f"{when.day} {when:%B}", f"{when:%B} {when.day}", f"{when:%B} {when.day}{suffix}",
                          f"{when.day}{suffix} {when:%B}", when.isoformat(), f"{when:%b} {when.day}",
                          f"{when.day} {when:%b}")


def day_claim(when: date, kind: str, also: tuple[date, ...] = (), instead: str = "") -> Claim:
    """A claim that a text names the day `when` (or `instead`, another way to say what stands in the way), among the
    days around it (the freeze's first and last excepted, which a text may name to say why, and `also`, the days it
    may name besides)."""
    near = [when + timedelta(days=k) for k in (-3, -2, -1, 1, 2, 3)]
    right = day_candidate(when)
    if instead:
        right = Candidate.text(*right.spellings, instead)
    return Claim(right, [day_candidate(d) for d in near if d not in (FREEZE_START, FREEZE_END, *also)], "text", kind)


@dataclass
class Cast:
    """Who is around one change: the on-call group and its team, the requester (a report of the team's manager
    in the group), the manager, the cover they name (another such report), another member of the group who
    is not in the team, the manager's manager and the Chief Technology Officer (Engineering's head)."""

    group: Group
    team: Team
    requester: Person
    manager: Person
    cover: Person
    member: Person
    skip: Person
    head: Person


def casts(session, rng, split: str, instance: int, count: int, one_team: bool = False) -> list[Cast]:
    """`count` casts, the requesters of `split`: in `count` on-call groups from the instance's place on, or with
    `one_team` in one group, with distinct requesters (one team's changes) and one cover."""
    groups = on_call_groups(session)
    head = session.get(Person, session.scalar(select(Department.head_id).where(Department.name == "Engineering")))
    wanted = count if one_team else 1
    made = []
    for k in range(len(groups)):
        group = groups[(instance * 3 + k) % len(groups)]
        team = session.get(Team, group.team_id)
        manager = session.get(Person, team.lead_id)
        people = [p for p in group_people(session, group.id) if p.id != manager.id]
        mine = [p for p in people if p.manager_id == manager.id]
        ours = [p for p in mine if person_in(split, p.id)]
        if len(ours) < wanted or len(made) == count:
            continue
        requesters = rng.sample(ours, wanted)
        cover = rng.choice([p for p in mine if p not in requesters])
        member = rng.choice([p for p in people if p.manager_id != manager.id])
        made += [Cast(group, team, r, manager, cover, member, manager.manager, head) for r in requesters]
    if len(made) < count:
        raise RuntimeError(f"only {len(made)} change requesters of the {split} split, {count} wanted")
    return made


def comments_of(state: str, c: Cast) -> tuple[tuple[int, str, int], ...]:
    """The comments under a change in `state` ((author, text, hours ago), oldest first)."""
    approved = ((c.manager.id, "Approved.", 66),)
    away = (c.manager.id, AWAY_NOTE.format(cover=c.cover.name), 5)
    emergency = ((c.manager.id, "Approved.", 4), (c.head.id, "Approved as an emergency change.", 2))
    return {"skip": (away, (c.skip.id, "Approved.", 2)),
            "cover": (away, (c.cover.id, f"Approved, covering for {c.manager.name}.", 2)),
            "member": ((c.member.id, "Approved from the on-call side, looks safe to me.", 2),),
            "own": ((c.requester.id, f"{c.manager.name} OK'd this in our stand-up this morning.", 1),),
            "emergency": emergency, "not_urgent": emergency,
            "emergency_manager": ((c.manager.id, "Approved, it fixes the incident.", 2),),
            "reapproved": approved + ((c.manager.id, "Approved for the new day.", 1),)}.get(state, approved)


def change(session, rng, state: str, first: int, actor: Person, lead: Person, c: Cast, service: str,
           strict: bool = True) -> ScheduleChange:
    """A change of `c.requester` in `state` for `service`, its IT tickets numbered from `first`."""
    go, whose, holds, inside, priority = STATES[state]
    assert clock.company_now(session).date() < FREEZE_START, "the article's freeze must lie ahead of the company's now"
    approver = {"manager": c.manager, "skip": c.skip, "head": c.head, "": c.manager}[whose]
    planned = rng.choice(INSIDE if inside else OUTSIDE)
    moved = rng.choice([d for d in OUTSIDE if d != planned]) if state in ("replanned", "reapproved") else None
    incident = ((f"{service} {rng.choice(INCIDENT_SYMPTOMS)}", "High", "High" if priority == "Highest" else "Medium")
                if priority else ())
    pool = tuple(dict.fromkeys(p.id for p in (c.cover, c.member, c.skip, c.head)
                               if p.id not in (approver.id, c.manager.id)))
    return ScheduleChange(first, actor.id, lead.id, c.requester.id, c.group.name, c.team.name, c.manager.id, service,
                          rng.choice(WHAT), planned, comments_of(state, c), go, approver.id, approver.handle, pool,
                          moved_from=moved, incident=incident, emergency=go and inside, holds=holds,
                          skip=c.skip.id if state in ("skip", "cover") else 0,
                          head="Engineering" if priority else "", strict=strict, state=state)


def why_waiting(session, state: str, made: ScheduleChange, c: Cast) -> str:
    """Why a change that waits is not scheduled, as a report says it."""
    return {"cover": f"{c.manager.name} is away and only the cover approved; {c.skip.name} approves in their place",
            "member": f"only {c.member.name} of the on-call group approved; {c.manager.name} approves it",
            "own": f"only the requester says it was approved; {c.manager.name} approves it",
            "freeze": f"it is planned for {day(made.planned)}, inside the quarter-end freeze",
            "emergency_manager": f"an emergency change inside the freeze needs {c.head.name}'s approval",
            "not_urgent": f"it is planned for {day(made.planned)}, inside the freeze, and {made.incident_key} is not a "
                          "Highest incident, so it is no emergency change",
            "replanned": f"its day moved to {day(made.planned)} after {c.manager.name}'s approval; it needs a new "
                         "one"}[state]


def queue_report(session, actor: Person, lead: Person, made: list[ScheduleChange], cs: list[Cast],
                 states: list[str]) -> Reply:
    """The report to the IT Support Lead: which changes were scheduled, which wait and why (naming whose approval
    each one waits on, or the day inside the freeze)."""
    keys = tuple(k for m in made for k in (m.key, m.incident_key) if k)
    done = [m.key for m in made if m.go]
    waiting = [(m, c, s) for m, c, s in zip(made, cs, states) if not m.go]
    text = ("Scheduled " + (", ".join(done) if done else "none") + ". Waiting: " + "; ".join(
        f"{m.key}, because {why_waiting(session, s, m, c)}" for m, c, s in waiting) + ".")
    bystanders = {p.id: p for c in cs for p in reports_of(session, c.manager)}
    involved = {i for c in cs for i in (c.requester.id, c.manager.id, c.cover.id, c.member.id, c.skip.id, c.head.id)}
    pool = [p for i, p in bystanders.items() if i not in involved]
    named, facts = [], []
    for m, c, s in waiting:
        facts.append(Claim(Candidate.text(m.key), keys_beside(session, m.key, keys), "text", "change still waiting"))
        whose = STATES[s][1]
        if whose:
            named.append(people_claim([{"manager": c.manager, "skip": c.skip, "head": c.head}[whose]], pool,
                                      f"approver {m.key} waits on"))
    asides = [m.key for m, _, _ in waiting] + [s for m, c, _ in waiting for p in (c.cover, c.member, c.requester)
                                               for s in (p.name, f"@{p.handle}")]
    # the keys waiting are named, not asserted: "IT-7 isn't scheduled" names IT-7 as it should
    return Reply(lead.id, lead.name, actor.id, text, False, SCHEDULED, fact_weight=2, named=(*facts, *named),
                 asides=tuple(asides), carried=tuple(done))
