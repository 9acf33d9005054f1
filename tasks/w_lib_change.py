"""Change-management templates composed from the procedure library (tasks.procedures.changes, drawn by
tasks.procedures.changes_draws), on the handbook's Production change requests and Approvals when the approver is
away:

- `r.lib_change_manager_away`: an engineer asks IT Support to schedule their team's three changes while the team's
  manager is away: scheduled when the manager's own manager approved them, refused when only the cover did;
- `r.lib_change_freeze`: an Engineering Manager asks to schedule their team's three approved changes: scheduled
  when they fall outside the quarter-end freeze (or are emergencies the CTO approved), refused when the freeze
  stops them;
- `w.lib_change_calendar` and `w.lib_change_calendar_moved`: the IT Support Lead hands over five changes of five
  teams: schedule those that may go ahead, and say which wait and why.

The problem-record templates are in tasks.w_lib_change_problems."""

from __future__ import annotations

from dataclasses import replace

from officegym.apps.org.models import Person
from officegym.graders.statements import Candidate
from officegym.seed_data.tickets_handbook_changes import day

from . import w_lib_change_problems, w_lib_change_sla
from .base import Claim, ToolCall
from .common import named
from .decisions import twin_outcome
from .phrasing import request_instruction
from .procedures import Composed, DirectRequest, Plan, ReadRule, Reads, Reply
from .procedures.access import AWAY
from .procedures.changes import CHANGES, SCHEDULED
from .procedures.changes_draws import STATES, casts, change, day_claim, queue_report, why_waiting
from .procedures.oncall_week import SERVICES
from .registry import register
from .tickets_common import next_key
from .w_lib_it_queue import keys_beside
from .w_lib_people import it_agent_and_lead, reports_of
from .w_people_replies import people_claim

QUERIES = {CHANGES: "production change request freeze approval", AWAY: "approver away approval"}
# The change calendar as it stands: the open change requests.
CALENDAR = Reads((ToolCall("tickets_search_tickets", {"query": 'project = IT AND summary ~ "Change:" AND '
                                                               "statusCategory != Done ORDER BY due"}),))


def drawn(session, rng, template, states: list[str], cs):
    """The IT agent, the IT Support Lead, the casts `cs` and one change per state (distinct services)."""
    actor, lead = it_agent_and_lead(session, rng, template.split)
    first, made = int(next_key(session, "IT").split("-")[1]), []
    for c, state, service in zip(cs, states, rng.sample(SERVICES, len(states))):
        made.append(change(session, rng, state, first, actor, lead, c, service))
        first += made[-1].filed
    keys = [m.key for m in made]
    return actor, lead, cs, [replace(m, beside=tuple(k for k in keys if k != m.key)) for m in made]


def team_decision(session, rng, template, cs, states: list[str], asker: Person, ask: str, refused: bool) -> Plan:
    """One team's three changes asked for by `asker` (the DM `ask`, with {actor} and {keys} to fill): all scheduled,
    or all refused naming the article and, for each, whose approval it waits on or its day inside the freeze."""
    actor, lead, cs, made = drawn(session, rng, template, states, cs)
    made = [replace(m, reported_to=asker.id) for m in made]
    keys = tuple(k for m in made for k in (m.key, m.incident_key) if k)
    listed = ", ".join(m.key for m in made)
    people = {p.id: p for c in cs for p in reports_of(session, c.manager)}
    involved = {i for c in cs for i in (c.requester.id, c.cover.id, c.member.id, c.manager.id)}
    pool = [p for i, p in people.items() if i not in involved]
    claims = [Claim(Candidate.text(m.key), keys_beside(session, m.key, keys), "text", "change") for m in made]
    if refused:
        text = (f"@{asker.handle} sorry, I can't schedule {listed} yet, per {CHANGES}: " + "; ".join(
            f"{m.key}, because {why_waiting(session, s, m, c)}" for m, c, s in zip(made, cs, states)) + ".")
        whose = {STATES[s][1] for s in states} - {""}
        named_ = [people_claim([{"manager": cs[0].manager, "skip": cs[0].skip, "head": cs[0].head}[w]], pool,
                               "approver whose approval is missing") for w in sorted(whose)]
        days = tuple(d for m in made for d in (m.planned, m.moved_from) if d)  # the reply may name any of them
        facts = [day_claim(m.planned, "planned day inside the freeze", days, m.incident_key) for m, s in zip(made, states)
                 if not STATES[s][1]]  # for a change that is no emergency, naming its incident will do
    else:
        text = f"@{asker.handle} done: " + "; ".join(
            f"{m.key} is scheduled for {day(m.planned)}, approved by @{m.approver_handle}" for m in made) + "."
        named_ = []  # the keys say what was scheduled
        facts = []
    reply = Reply(asker.id, asker.name, actor.id, text, refused, SCHEDULED, CHANGES,
                  facts=tuple(facts), instead=tuple(call for m in made for call in m.work()),
                  weight=1 if refused else 2, fact_weight=2, named=(*named_, *claims))
    rules = template.rules
    return Plan(actor.id, request_instruction(rng, named(session, asker)),
                [DirectRequest(asker.id, actor.id, ask.format(actor=actor.handle, keys=listed)),
                 *(ReadRule.of(session, rule, QUERIES[rule]) for rule in rules), CALENDAR, *made, reply],
                {"refused": refused})


@register
class ChangesWhileManagerAway(Composed):
    """An engineer asks to schedule their team's three changes while the team's manager is away: scheduled when
    the manager's own manager approved each, refused (naming the article and who approves) when only the cover
    the manager named did."""

    id, apps, difficulty, kind = "r.lib_change_manager_away", ("chat", "tickets", "org"), 5, "decision"
    scale, split, rules, hard = "medium", "train", (CHANGES, AWAY), ("away",)
    summary = ("An engineer asks IT Support to schedule their team's three production changes while the team's "
               "Engineering Manager is away: schedule them (Start work, naming the approver) when the manager's own "
               "manager approved them; refuse, naming the article and who approves, when only the cover did.")

    def plan(self, session, rng, instance):
        refused = bool(twin_outcome(self.id, instance).refuse)
        cs = casts(session, rng, self.split, instance, 3, one_team=True)
        asker = cs[0].requester
        ask = ("Hi @{actor}, " + f"{cs[0].manager.name} is out this week, but our three changes ({{keys}}) got their "
               "approvals on the tickets. Could you get them scheduled? The team is waiting on them.")
        return team_decision(session, rng, self, cs, ["cover" if refused else "skip"] * 3, asker, ask, refused)


@register
class ChangesInTheFreeze(Composed):
    """An Engineering Manager asks to schedule their team's three changes, which they approved: scheduled when
    each may go ahead (outside the freeze, approved again after its day moved, or an emergency the CTO approved),
    refused when the freeze stops each (no emergency, or one without the CTO's approval)."""

    id, apps, difficulty, kind = "r.lib_change_freeze", ("chat", "tickets", "org"), 5, "decision"
    scale, split, rules, hard = "medium", "test", (CHANGES,), ("exception", "changed")
    summary = ("An Engineering Manager asks to schedule the three changes of their team they approved: schedule "
               "those that may go ahead (outside the quarter-end freeze, re-approved after a move, or an emergency "
               "with the CTO's approval, labelled retro-review); refuse, naming the article, when the freeze stops them.")

    def plan(self, session, rng, instance):
        refused = bool(twin_outcome(self.id, instance).refuse)
        states = (["freeze", "emergency_manager", "not_urgent"] if refused else
                  ["approved", "reapproved", "emergency"])
        cs = casts(session, rng, self.split, instance, 3, one_team=True)
        ask = ("Hi @{actor}, I've approved my team's three change requests ({keys}). Could you put them on the change "
               "calendar? We'd like them done before the quarter closes.")
        return team_decision(session, rng, self, cs, rng.sample(states, 3), cs[0].manager, ask, refused)


def calendar_plan(session, rng, template, instance: int, states: list[str]) -> Plan:
    """The IT Support Lead's DM handing over five changes, the articles, each change and the report."""
    actor, lead, cs, made = drawn(session, rng, template, states,
                                  casts(session, rng, template.split, instance, len(states)))
    ask = (f"Morning @{actor.handle}, {len(made)} change requests came in for the change calendar: "
           + ", ".join(m.key for m in made) + ". Could you schedule the ones that can go ahead as the handbook says, "
           "and tell me which wait and why?")
    return Plan(actor.id, request_instruction(rng, named(session, lead)),
                [DirectRequest(lead.id, actor.id, ask, minutes=20),
                 *(ReadRule.of(session, rule, QUERIES[rule]) for rule in template.rules), *made,
                 queue_report(session, actor, lead, made, cs, states)])


@register
class ChangeCalendar(Composed):
    """Five changes of five teams: schedule those whose approval counts and that the freeze does not stop, and
    tell the IT Support Lead which wait and on whom, or why."""

    id, kind, difficulty, split, scale = "w.lib_change_calendar", "workflow", 5, "train", "medium"
    apps, rules = ("chat", "tickets", "org"), (CHANGES, AWAY)
    hard = ("away", "stale", "exception")
    summary = ("Work five production change requests of five teams: schedule those the team's Engineering Manager "
               "(or, while they are away, their manager) approved outside the freeze, or the CTO approved as an "
               "emergency; leave the rest and tell the IT Support Lead which wait and why.")

    def plan(self, session, rng, instance):
        states = [rng.choice(["approved", "reapproved"]), rng.choice(["skip", "cover"]), rng.choice(["own", "member"]),
                  "freeze", rng.choice(["emergency", "emergency_manager", "not_urgent"])]
        if instance % 3 == 0:  # a stale word and a cover in the first instances, whatever the RNG says
            states[1:3] = ["cover", "own"]
        return calendar_plan(session, rng, self, instance, rng.sample(states, 5))


@register
class ChangeCalendarMoved(Composed):
    """Five changes of five teams, two of them moved to another day after their approval (one approved again):
    schedule those that may go ahead, and tell the IT Support Lead which wait and why."""

    id, kind, difficulty, split, scale = "w.lib_change_calendar_moved", "workflow", 5, "test", "medium"
    apps, rules = ("chat", "tickets", "org"), (CHANGES, AWAY)
    hard = ("changed", "exception", "away")
    summary = ("Work five production change requests, two moved to another day after their approval (only one "
               "approved again), one inside the freeze and one emergency: schedule those that may go ahead and tell "
               "the IT Support Lead which wait and why.")

    def plan(self, session, rng, instance):
        states = ["replanned", "reapproved", rng.choice(["emergency", "not_urgent"]), rng.choice(["skip", "cover"]),
                  rng.choice(["freeze", "approved"])]
        return calendar_plan(session, rng, self, instance, rng.sample(states, 5))


ALSO_REGISTERED = (w_lib_change_problems, w_lib_change_sla)  # the registry imports only this module
__all__ = ["ChangeCalendar", "ChangeCalendarMoved", "ChangesInTheFreeze", "ChangesWhileManagerAway"]
