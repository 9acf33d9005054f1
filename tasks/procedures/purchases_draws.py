"""Draws for the purchase-request procedure (procedures.purchases): Procurement's people of the split, the
requesters (people whose manager leads their team, with a manager above and a department head besides), and a
queue of requests in given states with the budgets workbook that settles them.

A state (`STATES`) names what the ticket shows and what it comes to: "fits" (the manager approved, the team's
budget covers it; last quarter's rows would not let it), "over" (approved, but the quarter's purchases added up
leave less than its amount), "head" (over the manager's limit: the manager and the department's head approved),
"head_missing" (over the limit: only the manager approved, as the older article allowed), "cover" (the manager is
away: only the cover they named approved), "skip" (the manager is away: their own manager approved), "own" (only
the requester says it was approved), "withdrawn" (approved, then withdrawn by the requester) and "other_team" (a
request of another team the actor is not asked about and nobody approved yet, left open)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import date, timedelta

from sqlalchemy import select

from officegym import clock
from officegym.apps.org.models import Department, Person, Team
from officegym.seed_data.tickets_handbook_purchases import BUDGETS_BOOK, MANAGER_LIMIT, PROJECT

from ..base import ToolCall
from ..common import world_scan
from ..split import person_in
from ..w_lib_people import AWAY_NOTE
from .purchases import BudgetBook, Bought, PurchaseRequest

CATALOGUE = (("Figma", "Design tool seats"), ("Atlassian", "Confluence seats"), ("Miro", "Whiteboard seats"),
             ("Dell", "Test laptops for the lab"), ("Logitech", "Meeting-room cameras"),
             ("Coursera", "Training licences"),
             ("Datadog", "Monitoring add-on"), ("Loom", "Video messaging seats"), ("Zoom", "Webinar licence"),
             ("Apple", "Test phones"), ("Notion", "Team workspace seats"), ("Udemy", "Course bundle"))
# state -> (decision, whose approval counts, the difficulties it holds)
STATES = {"fits": ("buy", "manager", ("lookalike",)), "over": ("over", "manager", ("summed",)),
          "head": ("buy", "head", ()), "head_missing": ("wait", "head", ("stale",)),
          "cover": ("wait", "skip", ("away",)), "skip": ("buy", "skip", ("away",)),
          "own": ("wait", "manager", ("stale",)), "withdrawn": ("cancel", "manager", ("changed",)),
          "other_team": ("leave", "manager", ("lookalike",))}
SPENDS = ("fits", "head", "skip", "other_team")  # the states whose request the budget must cover


def teams_of_world(session) -> tuple[tuple[int, str, str, tuple[int, ...]], ...]:
    """Every team with a lead: (id, name, the lead's name, its members' ids but the lead's), by id."""
    def scan():
        people = list(session.scalars(select(Person).order_by(Person.id)))
        names = {p.id: p.name for p in people}
        found = []
        for team in session.scalars(select(Team).where(Team.lead_id.is_not(None)).order_by(Team.id)):
            members = tuple(p.id for p in people if p.team_id == team.id and p.id != team.lead_id)
            found.append((team.id, team.name, names[team.lead_id], members or (team.lead_id,)))
        return tuple(found)
    return world_scan(session, ("purchase teams",), scan)


@dataclass
class Cast:
    """Who takes part in one request: the requester, their manager (the team's lead), the manager's manager,
    a teammate the manager names as cover while away, the department's head; the team and department."""

    requester: Person
    manager: Person
    skip: Person
    cover: Person
    head: Person
    team: str
    department: str
    bystanders: tuple[Person, ...] = ()  # the manager's other reports: nobody whose word the request involves


def procurement(session, split: str) -> tuple[list[Person], Person]:
    """Procurement's people of the split (by id; Finance's when it has none) and its lead."""
    team = session.scalar(select(Team).where(Team.name == "Procurement"))
    lead = session.get(Person, team.lead_id)
    people = list(session.scalars(select(Person).where(Person.team_id == team.id, Person.id != lead.id)
                                  .order_by(Person.id)))
    mine = [p for p in people if person_in(split, p.id)]
    if not mine:
        mine = [p for p in session.scalars(select(Person).where(Person.department_id == lead.department_id)
                                           .order_by(Person.id)) if person_in(split, p.id) and p.id != lead.id]
    return mine, lead


def requester_ids(session, split: str) -> list[int]:
    """People of the split whose manager leads their team, with a manager above, a department head other than
    both and two teammates or more (a cover), outside Finance; by id."""
    return list(world_scan(session, ("purchase requesters", split), lambda: tuple(_requesters(session, split))))


def _requesters(session, split: str) -> list[int]:
    people = {p.id: p for p in session.scalars(select(Person))}
    heads = {d.id: d.head_id for d in session.scalars(select(Department))}
    finance = session.scalar(select(Department.id).where(Department.name == "Finance"))
    teams = {t.id: t for t in session.scalars(select(Team))}
    reports: dict[int, int] = {}
    for p in people.values():
        reports[p.manager_id] = reports.get(p.manager_id, 0) + 1
    found = []
    for p in people.values():
        team = teams.get(p.team_id)
        manager = people.get(p.manager_id)
        if (team is None or manager is None or team.lead_id != manager.id or manager.manager_id is None
                or p.department_id == finance or reports.get(manager.id, 0) < 3 or p.id in reports):
            continue
        head = heads.get(p.department_id)
        if head not in (None, manager.id, p.id) and person_in(split, p.id):
            found.append(p.id)
    return sorted(found)


def cast_for(session, rng, requester: Person) -> Cast:
    """The people around `requester`'s purchase."""
    manager = requester.manager
    others = list(session.scalars(select(Person).where(Person.manager_id == manager.id, Person.id != requester.id)
                                  .order_by(Person.id)))
    department = session.get(Department, requester.department_id)
    cover, head = rng.choice(others), session.get(Person, department.head_id)
    busy = {requester.id, manager.id, manager.manager_id, cover.id, head.id}
    return Cast(requester, manager, manager.manager, cover, head, session.get(Team, requester.team_id).name,
                department.name, tuple(p for p in others if p.id not in busy)[:4])


def comments_of(state: str, c: Cast) -> tuple[tuple[int, str], ...]:
    """The comments under a request in `state`, oldest first."""
    away = (c.manager.id, AWAY_NOTE.format(cover=c.cover.name))
    return {"head": ((c.manager.id, "Approved."), (c.head.id, "Approved.")),
            "cover": (away, (c.cover.id, f"Approved, covering for {c.manager.name}.")),
            "skip": (away, (c.skip.id, "Approved.")),
            "own": ((c.requester.id, f"{c.manager.name} OK'd this in our one-to-one this morning, so it's approved."),),
            "withdrawn": ((c.manager.id, "Approved."),
                          (c.requester.id, "Please withdraw this request: we no longer need it.")),
            "other_team": ()}.get(
        state, ((c.manager.id, "Approved."),))


def quarter_of(day: date) -> str:
    """"Q1 2026"."""
    return f"Q{(day.month - 1) // 3 + 1} {day.year}"


@dataclass
class Queue:
    """One instance's purchases: the people, the requests in filing order and the workbook's contents."""

    actor: Person
    lead: Person
    today: date
    requests: list[PurchaseRequest] = field(default_factory=list)
    casts: list[Cast] = field(default_factory=list)
    states: list[str] = field(default_factory=list)
    book: BudgetBook | None = None

    @property
    def quarter(self) -> str:
        """The current quarter."""
        return quarter_of(self.today)


def _parts(rng, total: int) -> list[int]:
    """`total` split into rows of $400 to $2,400 (multiples of $10)."""
    while True:
        count = 1 if total < 900 else max(1, -(-total // 2_000)) + rng.randrange(2)
        cuts = sorted(rng.sample(range(40, total // 10 - 39), count - 1)) if count > 1 else []
        parts = [(b - a) * 10 for a, b in zip([0, *cuts], [*cuts, total // 10])]
        if all(400 <= p <= 2_400 for p in parts):
            return parts


def _amount(rng, state: str) -> int:
    return rng.randrange(260, 491) * 10 if state.startswith("head") else rng.randrange(60, MANAGER_LIMIT // 10) * 10


def draw_queue(session, rng, split: str, instance: int, states: list[str], teams_of: list[int] | None = None,
               counted: tuple[int, ...] | None = None, same_vendor: tuple[int, int] | None = None) -> Queue:
    """A queue of requests in `states` (filing order) assigned to one of Procurement's people: each from another
    requester, unless `teams_of` gives each request's requester slot (the same slot: the same team, one
    requester); `counted`: the positions whose decision makes the outcome (all by default); `same_vendor`: two
    positions asking for the same item from the same vendor."""
    actors, lead = procurement(session, split)
    actor = actors[instance % len(actors)]
    ids = requester_ids(session, split)
    slots = teams_of or list(range(len(states)))
    people, teams = [], set()
    start = (instance * 37) % len(ids)
    for pid in ids[start:] + ids[:start]:
        p = session.get(Person, pid)
        if p.team_id not in teams and p.team_id != actor.team_id:
            people.append(p)
            teams.add(p.team_id)
        if len(people) > max(slots):
            break
    casts = [cast_for(session, rng, p) for p in people]
    today = clock.company_now(session).date()
    queue = Queue(actor, lead, today)
    items = rng.sample(CATALOGUE, len(states))
    if same_vendor:
        items[same_vendor[1]] = items[same_vendor[0]]
    amounts = [_amount(rng, s) for s in states]
    elapsed = (today - date(today.year, 3 * ((today.month - 1) // 3) + 1, 1)).days
    history, budgets = _budgets(session, rng, queue, casts, slots, states, amounts, elapsed)
    first = len(history) + 1
    row = len(history) + 2
    for k, (state, slot) in enumerate(zip(states, slots)):
        c = casts[slot]
        decision, whose, holds = STATES[state]
        approver = {"manager": c.manager, "head": c.head, "skip": c.skip}[whose]
        looks = ((ToolCall("org_get_department", {"department": c.department}),) if whose == "head" else
                 (ToolCall("org_get_person", {"person": c.manager.id}),) if state in ("cover", "skip") else ())
        pool = tuple(p.id for p in c.bystanders)
        left, wrong = budgets[c.team][3].get(k, (0, ()))
        queue.requests.append(PurchaseRequest(
            f"{PROJECT}-{first + k}", f"{BUDGETS_BOOK} {today.year}", actor.id, lead.id, c.requester.id, c.team,
            items[k][0], items[k][1], amounts[k], 30 - 2 * k, comments_of(state, c), decision, approver.id,
            approver.name, row, queue.quarter, left, holds, looks, pool, (c.manager.id,),
            counted is None or k in counted, wrong_left=tuple(w for w in wrong if w > 0 and w != left)))
        row += decision == "buy"
        queue.casts.append(c)
        queue.states.append(state)
    owner = session.scalar(select(Team.lead_id).where(Team.name == "Financial Planning")) or lead.id
    admin = session.scalar(select(Person.id).where(Person.role.in_(("admin", "owner"))).order_by(Person.id))
    last = quarter_of(today - timedelta(days=elapsed + 1))
    rows = tuple((name, owner_name, now, before) for name, (owner_name, now, before, _) in budgets.items())
    queue.book = BudgetBook(f"{BUDGETS_BOOK} {today.year}", owner, admin, lead.id, actor.id, queue.quarter, last, rows,
                            tuple(history))
    queue.book = replace(queue.book, bought=tuple(r.key for r in queue.requests if r.decision == "buy"))
    decisions = {r.key: r.decision for r in queue.requests}
    queue.requests = [replace(r, near=tuple(k for k, d in decisions.items() if d != r.decision))
                      for r in queue.requests]
    return queue


def _budgets(session, rng, queue: Queue, casts: list[Cast], slots: list[int], states: list[str], amounts: list[int],
             elapsed: int) -> tuple[list[Bought], dict]:
    """The history rows (oldest first, keyed PUR-1 on) and each team's (owner, budget now, last quarter's budget,
    {request position: budget left}) so that every request in `states` comes out as its state says."""
    involved = {casts[s].team: casts[s] for s in slots}
    budgets, rows = {}, []
    for _team_id, name, lead_name, members in teams_of_world(session):
        if name not in involved:
            budget = rng.randrange(12, 41) * 500
            budgets[name] = (lead_name, budget, budget + rng.randrange(-6, 7) * 500, {})
            if rng.random() < 0.2:
                rows.append((rng.choice(members), name, lead_name, rng.randrange(400, 2_400) // 10 * 10,
                             rng.randrange(1, max(2, elapsed))))
            continue
        cast = involved[name]
        spent = rng.randrange(150, 600) * 10
        for part in _parts(rng, spent):
            rows.append((cast.requester.id, name, cast.manager.name, part, rng.randrange(1, max(2, elapsed))))
        mine = [k for k, s in enumerate(slots) if casts[s].team == name]
        low, running, overs = spent, spent, []
        for k in mine:
            if states[k] in SPENDS:
                running += amounts[k]
                low = max(low, running)
            elif states[k] == "over":
                overs.append((k, running))
        floor = max([low] + [at + 100 for _, at in overs])
        ceiling = min([at + amounts[k] - 100 for k, at in overs] or [floor + 400])
        assert floor <= ceiling, (states, amounts, spent)
        budget = min(ceiling, -(-rng.randrange(floor, ceiling + 1) // 100) * 100)
        earlier = _parts(rng, budget - low + rng.randrange(100, 300) * 10)  # last quarter's: they do not count
        for part in earlier:
            rows.append((cast.requester.id, name, cast.manager.name, part, elapsed + rng.randrange(2, 80)))
        before = budget + (3_000 if overs else -3_000)
        # the budget left, and what it comes to from last quarter's tab or with last quarter's rows added
        budgets[name] = (cast.manager.name, budget, before,
                         {k: (budget - at, (before - at, budget - at - sum(earlier))) for k, at in overs})
    rows.sort(key=lambda r: -r[4])
    history = []
    for n, (who, team, approver, amount, days) in enumerate(rows, start=1):
        vendor, item = rng.choice(CATALOGUE)
        day = queue.today - timedelta(days=days)
        history.append(Bought(f"{PROJECT}-{n}", team, vendor, item, amount, quarter_of(day), approver, who, days))
    return history, budgets
