"""An IT agent's day composed from the newest families (tasks.procedures.org_hires, changes, changes_sla and
access after an internal transfer), on the handbook's Moving a new hire's start date, Escalating breached service
requests, Production change requests, Internal transfers and Requesting access. Two colleagues write to the agent
this morning, and each gets their own answer.

- `r.lib_day_it_early_start_and_breaches` (a decision, test): a hiring manager's hire can start a week early, and
  the IT Support Lead hands over four of an absent colleague's service requests to escalate where breaching. In
  one twin the hire's laptop request is resolved as Fixed (re-date the open requests), in the other it is still
  open (move nothing, tell the manager why, naming it); the words are the same. Another team's hire starting the
  same day is the look-alike; a paused clock, a resumed one and one escalated yesterday are left alone.
- `r.lib_day_it_mover_and_later_start` (a decision): an engineer who moved teams on Friday asks for their two
  access requests, "approved on the tickets": by the new manager in one twin (granted), only by the old one in
  the other (left open, the new manager asked on each); beside it a hiring manager's hire starts later (their
  open requests re-dated, not another team's hire's).
- `w.lib_day_it_calendar_and_start_dates`: the IT Support Lead's three changes for the calendar (one approved,
  one inside the freeze or no emergency, one whose approval does not count) and a hiring manager's two moved
  start dates (the later one re-dated; the earlier one held by its open laptop request)."""

from __future__ import annotations

from dataclasses import replace

from officegym.apps.org.models import Person
from officegym.graders.statements import Candidate

from .base import Claim
from .common import named, spread
from .decisions import twin_outcome
from .phrasing import request_instruction
from .procedures import Composed, DirectRequest, Plan, ReadRule, Reply
from .procedures.access import ACCESS, GRANTED, GrantAccess, it_heads
from .procedures.changes import CHANGES
from .procedures.changes_draws import casts, change, queue_report
from .procedures.changes_sla import BREACHES, REQUESTS, EscalateBreach, timing
from .procedures.org_draws import draw_moves
from .procedures.org_hires import START_DATES, day_claim, spoken
from .procedures.oncall_week import SERVICES
from .procedures.org_transfer import TRANSFERS
from .registry import register
from .tickets_common import group_named, group_people
from .w_lib_change import QUERIES
from .w_lib_change_sla import ESCALATED
from .w_lib_it_queue import keys_beside
from .w_lib_org_access import AskOnTickets, MovedOnFriday
from .w_lib_org_hires import MOVED, ONBOARDING, Hires, hiring_teams, mondays
from .w_lib_people import MY_REQUESTS, it_agent_and_lead, requesters
from .w_people import SYSTEMS, access_summary
from .w_people_replies import people_claim

BREACH_STATES = ("overdue", "overdue_paused", "paused", "resumed", "escalated")


def hiring_scene(session, rng, split: str, instance: int, busy=()):
    """The hiring team (spread by `instance` over the split's hiring teams whose lead is not in `busy`), another
    team for the look-alike hire, the IT agent and the IT Support Lead, the hiring manager and the next Mondays."""
    teams = [t for t in hiring_teams(session, split) if t.lead_id not in busy]
    team = spread(teams, instance)
    other = rng.choice([t for t in teams if t.id != team.id])
    actor, lead = it_agent_and_lead(session, rng, split)
    return team, other, actor, lead, session.get(Person, team.lead_id), mondays(session)


def breaches(session, rng, split: str, actor: Person, lead: Person, first: int, count: int) -> list[EscalateBreach]:
    """`count` service requests of an absent IT Support colleague handed to the actor, numbered from `first`, in
    distinct states of BREACH_STATES (at least one of them overdue, since only one state is left out)."""
    mate = rng.choice([p for p in group_people(session, group_named(session, "IT Support").id)
                       if p.id not in (actor.id, lead.id) and p.role == "member"])
    people = rng.sample(requesters(session, split), count)
    made = []
    for k, (state, reporter, (component, summary)) in enumerate(zip(rng.sample(BREACH_STATES, count), people,
                                                                    rng.sample(REQUESTS, count))):
        priority = rng.choice(["Low", "Medium", "High"] if state != "escalated" else ["Low", "Medium"])
        made.append(EscalateBreach(f"IT-{first + k}", actor.id, lead.id, mate.id, reporter.id, component, summary,
                                   priority, *timing(rng, state, priority), state))
    return made


def breach_report(session, lead: Person, actor: Person, made: list[EscalateBreach]) -> Reply:
    """The report to the IT Support Lead naming the requests escalated (the others may be named as left alone)."""
    keys = tuple(m.key for m in made)
    up = [m.key for m in made if m.go]
    return Reply(lead.id, lead.name, actor.id, f"@{lead.handle} escalated " + ", ".join(up) + "; the others are "
                 "within their SLA or were escalated already.", False, ESCALATED, fact_weight=2,
                 facts=tuple(Claim(Candidate.text(k), keys_beside(session, k, keys), "text", "request escalated")
                             for k in up), asides=tuple(k for k in keys if k not in up), carried=tuple(up))


@register
class EarlyStartAndBreaches(Composed):
    """A hire who may start a week early (only if their laptop is delivered) and an absent colleague's service
    requests to escalate where breaching, each answered to whoever asked."""

    id, apps, difficulty, kind = "r.lib_day_it_early_start_and_breaches", ("chat", "tickets", "org"), 5, "decision"
    scale, split, rules = "medium", "test", (START_DATES, BREACHES)
    hard = ("exception", "lookalike")
    summary = ("Two messages this morning: a hiring manager's hire can start a week early (re-date their open onboarding "
               "requests if the laptop request is resolved as Fixed, else move nothing and say why, naming it; not "
               "another team's hire), and the IT Support Lead's four handed-over requests (escalate those whose "
               "resolution clock is overdue, not a paused, resumed or already escalated one). Answer each asker.")

    def plan(self, session, rng, instance):
        refused = bool(twin_outcome(self.id, instance).refuse)
        team, other, actor, lead, manager, days = hiring_scene(session, rng, self.split, instance)
        old, new = (days[1], days[0]) if rng.random() < 0.5 else (days[2], days[1])
        hires, place = Hires(session, rng, actor, lead, 2), rng.randrange(2)
        made = [hires.hire(other, old, None, refused, decoy=new) if k == place else
                hires.hire(team, old, new, not refused, 2, granted=rng.random() < 0.5) for k in range(2)]
        mine = next(m for m in made if m.new_day)
        decoys = [Candidate.text(k) for m in made if not m.new_day for k in m.keys]
        text = (f"@{manager.handle} sorry, I can't move {mine.hire} to {spoken(new)} yet: their laptop request "
                f"({mine.laptop_key}) is still open, and per {START_DATES} an earlier start needs the laptop ready. "
                f"Everything stays due on {spoken(old)}." if refused else
                f"@{manager.handle} done: {mine.hire}'s open requests are now due on {spoken(new)}.")
        facts = ((Claim(Candidate.text(mine.laptop_key), keys_beside(session, mine.laptop_key, tuple(mine.keys)) +
                        decoys, "text", "laptop request not delivered"),) if refused else (day_claim(new, old),))
        to_manager = Reply(manager.id, manager.name, actor.id, text, refused, MOVED, START_DATES,
                           instead=tuple(mine.work()), weight=1 if refused else 2, fact_weight=3, facts=facts)
        escalations = breaches(session, rng, self.split, actor, lead, hires.first, 4)
        hire_ask = (f"Hi @{actor.handle}, good news: {mine.hire} can start a week early, on {spoken(new)} instead of "
                    f"{spoken(old)}. Could you move their onboarding requests to the new date?")
        queue_ask = (f"Morning @{actor.handle}, a colleague is out this week, so I've moved their requests to you: "
                     + ", ".join(m.key for m in escalations) + ". Could you escalate the ones that are breaching, as "
                     "the handbook says, and tell me which you escalated?")
        return Plan(actor.id, request_instruction(rng, f"{named(session, manager)} and {named(session, lead)}",
                                                  "each of them"),
                    [DirectRequest(manager.id, actor.id, hire_ask, minutes=40),
                     DirectRequest(lead.id, actor.id, queue_ask, minutes=20),
                     ReadRule.of(session, START_DATES, "new hire start date"),
                     ReadRule.of(session, ONBOARDING, "new hire onboarding laptop"), MY_REQUESTS, *made, to_manager,
                     ReadRule.of(session, BREACHES, "escalate breached service request SLA"), *escalations,
                     breach_report(session, lead, actor, escalations)], {"refused": refused})


def mover_requests(session, rng, move, actor: Person, lead: Person, first: int, refused: bool):
    """The mover's two access requests numbered from `first`, approved by their new manager (granted) or, when
    `refused`, only by their old one (left open), the reply to the mover, and the asks on the tickets."""
    person, old = move.mover, move.lead
    new_manager = session.get(Person, move.new.lead_id)
    keys = (f"IT-{first}", f"IT-{first + 1}")
    approver = old if refused else new_manager
    grants = [GrantAccess(key, actor.id, person.id, new_manager.id, lead.id, system, access_summary(system, person.name),
                          ((approver.id, "Approved."),), not refused, f"Approved by @{new_manager.handle}, "
                          f"{person.name}'s manager: access to {system} granted.", ("changed",), strict=True)
              for key, system in zip(keys, rng.sample(SYSTEMS, 2))]
    listed = " and ".join(keys)
    text = (f"@{person.handle} sorry, I can't grant {listed} yet: since you moved to {move.new.name}, your new manager "
            f"@{new_manager.handle} approves them (Internal transfers); {old.name}'s approval no longer counts. I'm "
            "asking them on each ticket." if refused else
            f"@{person.handle} done: {listed} are granted, approved by your new manager @{new_manager.handle}.")
    reply = Reply(person.id, person.name, actor.id, text, refused, GRANTED, TRANSFERS, also=ACCESS,
                  instead=tuple(c for g in grants for c in g.work()), weight=1 if refused else 2, fact_weight=3,
                  named=(people_claim([new_manager], [old, move.mate, *it_heads(session)],
                                      "approver whose approval counts"),
                         *(Claim(Candidate.text(k), keys_beside(session, k, keys), "text", "request") for k in keys)))
    return grants, reply, [AskOnTickets(keys, new_manager.handle)] if refused else []


@register
class MoverAndLaterStart(Composed):
    """A mover's two access requests (granted on the new manager's approval, left open on the old manager's) and a
    hire who starts later (their open requests re-dated, another team's hire left alone), each answered."""

    id, apps, difficulty, kind = "r.lib_day_it_mover_and_later_start", ("chat", "tickets", "org"), 5, "decision"
    scale, split, rules = "medium", "train", (TRANSFERS, ACCESS, START_DATES)
    hard = ("changed", "lookalike")
    summary = ("Two messages this morning: an engineer who moved teams on Friday asks for their two access requests, "
               "'approved on the tickets' (grant them when the new manager approved; when only the old manager did, "
               "leave them open, ask the new manager on each and say why), and a hiring manager's hire now starts "
               "later (re-date their open onboarding requests, not another team's hire's). Answer each asker.")

    def plan(self, session, rng, instance):
        refused = bool(twin_outcome(self.id, instance).refuse)
        move = draw_moves(session, rng, self.split, instance)[0]
        team, other, actor, lead, manager, days = hiring_scene(session, rng, self.split, instance,
                                                               (move.old.lead_id, move.new.lead_id))
        old, new = days[rng.choice([0, 1])], days[rng.choice([2, 3])]
        hires, place = Hires(session, rng, actor, lead, 2), rng.randrange(2)
        made = [hires.hire(other, old, None, rng.random() < 0.5, systems=1, decoy=new) if k == place else
                hires.hire(team, old, new, rng.random() < 0.5, granted=True) for k in range(2)]
        mine = next(m for m in made if m.new_day)
        to_manager = Reply(manager.id, manager.name, actor.id, f"@{manager.handle} done: {mine.hire}'s open requests "
                           f"are now due on {spoken(new)}.", False, MOVED, weight=2, fact_weight=2,
                           facts=(day_claim(new, old),))
        grants, to_mover, asks = mover_requests(session, rng, move, actor, lead, hires.first, refused)
        mover_ask = (f"Hi @{actor.handle}, I moved to {move.new.name} on Friday and need my tools for the new work. "
                     "Could you grant my two access requests today? They're approved on the tickets.")
        hire_ask = (f"Hi @{actor.handle}, {mine.hire}'s start moved: they now join on {spoken(new)} instead of "
                    f"{spoken(old)}. Could you move their onboarding requests?")
        who = f"{named(session, move.mover)} and {named(session, manager)}"
        return Plan(actor.id, request_instruction(rng, who, "each of them"),
                    [DirectRequest(move.mover.id, actor.id, mover_ask, minutes=35),
                     DirectRequest(manager.id, actor.id, hire_ask, minutes=15),
                     MovedOnFriday(move.mover.id, move.new.id, move.new.name),
                     ReadRule.of(session, TRANSFERS, "internal transfer approvals"),
                     ReadRule.of(session, ACCESS, "requesting access approval"),
                     ReadRule.of(session, START_DATES, "new hire start date"), MY_REQUESTS, *made, to_manager,
                     *grants, to_mover, *asks], {"refused": refused})


@register
class CalendarAndStartDates(Composed):
    """Three changes for the calendar (one approved, one in the freeze, one whose approval does not count) and a
    hiring manager's two moved start dates (a later one re-dated, an earlier one held by its open laptop request)."""

    id, apps, difficulty, kind = "w.lib_day_it_calendar_and_start_dates", ("chat", "tickets", "org"), 5, "workflow"
    scale, split, rules = "medium", "train", (CHANGES, START_DATES)
    hard = ("exception", "lookalike")
    summary = ("Two messages this morning: the IT Support Lead's three change requests for the calendar (schedule "
               "those whose approval counts outside the freeze, say which wait and why) and a hiring manager's two "
               "moved start dates (re-date the later starter's open requests; the earlier starter's laptop request "
               "is still open, so theirs stay, and another team's hire is left alone). Answer each asker.")

    def plan(self, session, rng, instance):
        cs = casts(session, rng, self.split, instance, 3)
        involved = {p.id for c in cs for p in (c.requester, c.manager, c.cover, c.member, c.skip, c.head)}
        team, other, actor, lead, manager, days = hiring_scene(session, rng, self.split, instance, involved)
        hires, order = Hires(session, rng, actor, lead, 3), rng.sample(range(3), 3)
        later_day, early_day = rng.sample(days[1:3], 2)  # no day is said twice in the reply
        draws = [lambda: hires.hire(team, days[0], later_day, rng.random() < 0.5, 1, granted=True, strict=True),
                 lambda: hires.hire(team, days[3], early_day, False, systems=1),
                 lambda: hires.hire(other, days[0], None, rng.random() < 0.5, systems=1, decoy=later_day)]
        drawn = {k: draws[k]() for k in order}
        made, (later, held, decoy) = [drawn[k] for k in order], (drawn[k] for k in range(3))
        states = rng.sample(["approved", rng.choice(["freeze", "not_urgent"]), rng.choice(["own", "member"])], 3)
        first, changes = hires.first, []
        for c, state, service in zip(cs, states, rng.sample(SERVICES, 3)):
            changes.append(change(session, rng, state, first, actor, lead, c, service))
            first += changes[-1].filed
        changes = [replace(m, beside=tuple(o.key for o in changes if o.key != m.key)) for m in changes]
        keys = tuple(k for m in (later, held) for k in m.keys)
        text = (f"@{manager.handle} done: {later.hire}'s open requests are now due on {spoken(later.new_day)}. {held.hire} "
                f"can't start earlier yet: their laptop request {held.laptop_key} is still open, so per {START_DATES} "
                f"their requests stay due on {spoken(held.old_day)}.")
        to_manager = Reply(manager.id, manager.name, actor.id, text, False, MOVED, weight=3, fact_weight=4,
                           named=(Claim(Candidate.text(held.laptop_key), keys_beside(session, held.laptop_key, keys) +
                                        [Candidate.text(k) for k in decoy.keys], "text",
                                        "laptop request that holds an early start"),),
                           facts=(day_claim(later.new_day, later.old_day, held.new_day, held.old_day,
                                            kind=f"new start date of {later.hire}"),),
                           asides=(held.hire, held.laptop_key, *held.keys), carried=(later.hire,))
        hire_ask = (f"Hi @{actor.handle}, Recruiting moved two start dates: {later.hire} now starts on "
                    f"{spoken(later.new_day)} (not {spoken(later.old_day)}), and {held.hire} can start on "
                    f"{spoken(held.new_day)} instead of {spoken(held.old_day)}. Could you move their onboarding "
                    "requests and tell me where things stand?")
        calendar_ask = (f"Morning @{actor.handle}, three change requests came in for the change calendar: "
                        + ", ".join(m.key for m in changes) + ". Could you schedule the ones that can go ahead as the "
                        "handbook says, and tell me which wait and why?")
        return Plan(actor.id, request_instruction(rng, f"{named(session, manager)} and {named(session, lead)}",
                                                  "each of them"),
                    [DirectRequest(manager.id, actor.id, hire_ask, minutes=45),
                     DirectRequest(lead.id, actor.id, calendar_ask, minutes=20),
                     ReadRule.of(session, START_DATES, "new hire start date"), MY_REQUESTS, *made, to_manager,
                     *(ReadRule.of(session, rule, QUERIES[rule]) for rule in self.rules[:1]), *changes,
                     queue_report(session, actor, lead, changes, cs, states)])
