"""Start-date templates composed from the procedure library (tasks.procedures.org_hires), on Moving a new hire's
start date. A hiring manager tells their IT agent by DM that start dates moved; the agent re-dates the hires'
open onboarding requests (not a resolved one, nor another hire's starting the same day), unless an earlier start
finds the hire's laptop request still open.

- `r.lib_org_start_date_earlier`: two new hires of one team can start a week early; both laptops delivered
  (re-date their open requests) or both still open (move nothing, refuse naming the rule and the laptop
  requests). Another team's hire starting the same day is the look-alike. The message is the same in both twins.
- `w.lib_org_start_dates_moved`: three hires of one manager: one starts later, two earlier, of whom one has a
  laptop delivered and one not; another team's hire is the look-alike. The reply says what moved and what held."""

from __future__ import annotations

from datetime import date, timedelta

from sqlalchemy import select

from officegym import clock
from officegym.apps.org.models import Department, Person, Team
from officegym.graders.statements import Candidate

from .base import Claim
from .common import named, spread
from .decisions import twin_outcome
from .phrasing import request_instruction
from .procedures import Composed, DirectRequest, Plan, ReadRule, Reply
from .procedures.org_hires import START_DATES, RedateOnboarding, day_claim, spoken
from .registry import register
from .split import person_in
from .tickets_common import next_key
from .w_lib_it_queue import keys_beside
from .w_lib_people import MY_REQUESTS, it_agent_and_lead
from .w_people import HIRE_NAMES, SYSTEMS, free_names

ONBOARDING = "New-hire onboarding checklist"
MOVED = ("moved", "re-dated", "updated", "changed", "done")


def hiring_teams(session, split: str) -> list[Team]:
    """Teams outside IT with a lead of the split and at least three other members (one is the buddy), by id."""
    it = session.scalar(select(Department.id).where(Department.name == "IT"))
    return [t for t in session.scalars(select(Team).where(Team.department_id != it).order_by(Team.id))
            if t.lead_id and person_in(split, t.lead_id) and len(t.members) > 3]


def mondays(session) -> list[date]:
    """The next four Mondays after the company's today."""
    today = clock.company_now(session).date()
    first = today + timedelta(days=7 - today.weekday())
    return [first + timedelta(weeks=k) for k in range(4)]


class Hires:
    """Draws new hires' onboarding requests one after the other (their IT keys follow on)."""

    def __init__(self, session, rng, actor: Person, lead: Person, count: int):
        self.session, self.rng, self.actor, self.lead = session, rng, actor, lead
        self.names = rng.sample(free_names(session, HIRE_NAMES), count)
        self.first = int(next_key(session, "IT").split("-")[1])

    def hire(self, team: Team, old: date, new: date | None, laptop_fixed: bool, systems: int = 2,
             granted: bool = False, decoy: date | None = None, strict: bool = False) -> RedateOnboarding:
        """One hire of `team` (joining on `old`; now on `new`) and their requests."""
        buddy = self.rng.choice([p for p in team.members if p.id != team.lead_id])
        picked = self.rng.sample(SYSTEMS, systems + granted)
        made = RedateOnboarding(self.first, self.actor.id, self.lead.id, team.lead_id, self.names.pop(), team.name,
                                f"{buddy.name} (@{buddy.handle})", old, new, tuple(picked[:systems]), laptop_fixed,
                                picked[-1] if granted else "", decoy, strict)
        self.first += made.filed
        return made


@register
class EarlierStartDecision(Composed):
    """Two hires can start a week early: re-date their open requests when both laptops are delivered; move
    nothing and refuse, naming the rule and the laptop requests, when neither is."""

    id, apps, difficulty, kind = "r.lib_org_start_date_earlier", ("chat", "tickets", "org"), 5, "decision"
    scale, split, rules, hard = "medium", "train", (START_DATES,), ("exception", "lookalike")
    summary = ("A hiring manager says their two new hires can start a week early and asks you to move their "
               "onboarding requests: re-date the open ones when both laptops are delivered; when they are not, move "
               "nothing and refuse, naming Moving a new hire's start date and the laptop requests. Another team's "
               "hire starting the same day is left alone.")

    def plan(self, session, rng, instance):
        refused = bool(twin_outcome(self.id, instance).refuse)
        teams = hiring_teams(session, self.split)
        team = spread(teams, instance)
        other = rng.choice([t for t in teams if t.id != team.id])
        actor, lead = it_agent_and_lead(session, rng, self.split)
        manager, days = session.get(Person, team.lead_id), mondays(session)
        old, new = (days[1], days[0]) if rng.random() < 0.5 else (days[2], days[1])
        hires, place = Hires(session, rng, actor, lead, 3), rng.randrange(3)
        made = [hires.hire(other, old, None, refused, decoy=new) if k == place else
                hires.hire(team, old, new, not refused, 3, granted=k == (place + 1) % 3) for k in range(3)]
        mine = [m for m in made if m.new_day]
        keys = tuple(k for m in mine for k in m.keys)
        decoys = [Candidate.text(k) for m in made if not m.new_day for k in m.keys]
        names = " and ".join(m.hire for m in mine)
        laptops = ", ".join(m.laptop_key for m in mine)
        text = (f"@{manager.handle} sorry, I can't move {names} to {spoken(new)} yet: their laptop requests "
                f"({laptops}) aren't delivered, and per {START_DATES} an earlier start needs the laptop ready. I've "
                f"left everything due on {spoken(old)}." if refused else
                f"@{manager.handle} done: {names}'s open requests are now due on {spoken(new)}.")
        facts = ((*(Claim(Candidate.text(m.laptop_key), keys_beside(session, m.laptop_key, keys) + decoys,
                          "text", "laptop request not delivered") for m in mine),) if refused else
                 (day_claim(new, old),))
        reply = Reply(manager.id, manager.name, actor.id, text, refused, MOVED, START_DATES,
                      instead=tuple(c for m in mine for c in m.work()), weight=1 if refused else 2, fact_weight=3,
                      facts=facts)
        ask = (f"Hi @{actor.handle}, good news: {names} can start a week early, on {spoken(new)} instead of "
               f"{spoken(old)}. Could you move their onboarding requests to the new date?")
        return Plan(actor.id, request_instruction(rng, named(session, manager)),
                    [DirectRequest(manager.id, actor.id, ask), ReadRule.of(session, START_DATES, "new hire start date"),
                     ReadRule.of(session, ONBOARDING, "new hire onboarding laptop"), MY_REQUESTS, *made, reply],
                    {"refused": refused})


@register
class StartDatesMoved(Composed):
    """Three hires' start dates moved: re-date the later one's and the earlier one's whose laptop is delivered;
    hold the earlier one's whose laptop is not, and say so."""

    id, apps, difficulty, kind = "w.lib_org_start_dates_moved", ("chat", "tickets", "org"), 5, "workflow"
    scale, split, rules, hard = "medium", "test", (START_DATES,), ("exception", "lookalike")
    summary = ("A hiring manager's three new hires have new start dates: re-date the open onboarding requests of the "
               "one who starts later and of the one who starts earlier with a delivered laptop; leave the other "
               "early starter's requests (laptop still open) and another team's hire alone, and say what moved.")

    def plan(self, session, rng, instance):
        teams = hiring_teams(session, self.split)
        team = spread(teams, instance)
        other = rng.choice([t for t in teams if t.id != team.id])
        actor, lead = it_agent_and_lead(session, rng, self.split)
        manager, days = session.get(Person, team.lead_id), mondays(session)
        hires, order = Hires(session, rng, actor, lead, 4), rng.sample(range(4), 4)
        later_day, ready_day = days[rng.choice([2, 3])], days[rng.choice([0, 1])]
        draws = [lambda: hires.hire(team, days[0], later_day, rng.random() < 0.5, granted=True, strict=True),
                 lambda: hires.hire(team, days[2], ready_day, True, strict=True),
                 lambda: hires.hire(team, days[2], days[1] if ready_day == days[0] else days[0], False),
                 lambda: hires.hire(other, days[0], None, rng.random() < 0.5, systems=1, decoy=later_day)]
        drawn = {k: draws[k]() for k in order}
        made = [drawn[k] for k in order]
        later, ready, held, decoy = (drawn[k] for k in range(4))
        keys = tuple(k for m in (later, ready, held) for k in m.keys)
        text = (f"@{manager.handle} done: {later.hire}'s open requests are now due on {spoken(later.new_day)} and "
                f"{ready.hire}'s on {spoken(ready.new_day)}. {held.hire} can't start earlier yet: their laptop "
                f"request {held.laptop_key} isn't delivered, so per {START_DATES} their requests stay due on "
                f"{spoken(held.old_day)}.")
        dates = (later.new_day, later.old_day, ready.new_day, ready.old_day, held.new_day)
        reply = Reply(manager.id, manager.name, actor.id, text, False, MOVED, weight=4, fact_weight=5,
                      named=(Claim(Candidate.text(held.laptop_key), keys_beside(session, held.laptop_key, keys) +
                                   [Candidate.text(k) for k in decoy.keys], "text",
                                   "laptop request that holds an early start"),),
                      facts=tuple(day_claim(m.new_day, *dates, kind=f"new start date of {m.hire}")
                                  for m in (later, ready)),
                      asides=(held.hire, held.laptop_key, *held.keys), carried=(later.hire, ready.hire))
        ask = (f"Hi @{actor.handle}, Recruiting moved some start dates: {later.hire} now starts on "
               f"{spoken(later.new_day)} (not {spoken(later.old_day)}), and {ready.hire} and {held.hire} were due on "
               f"{spoken(ready.old_day)} but can start on {spoken(ready.new_day)} and {spoken(held.new_day)}. Could "
               "you move their onboarding requests and tell me where things stand?")
        return Plan(actor.id, request_instruction(rng, named(session, manager)),
                    [DirectRequest(manager.id, actor.id, ask), ReadRule.of(session, START_DATES, "new hire start date"),
                     MY_REQUESTS, *made, reply])
