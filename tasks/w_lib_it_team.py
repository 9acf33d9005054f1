"""An equipment decision composed from the procedure library (tasks.procedures.it): a manager tells their IT
agent by DM that they approved their four reports' equipment requests on the tickets and asks to have them
fulfilled today. Whether they are is for the requesters' equipment of the year to say (Equipment requests):
within the allowance the manager's "Approved" counts and the four are fulfilled; over it, the Head of IT
approves instead, and the four stay open. The message is the same in both twins."""

from __future__ import annotations

from collections import defaultdict

from sqlalchemy import select

from officegym.apps.org.models import Department, Person
from officegym.graders.statements import Candidate

from .base import Claim
from .common import named, spread
from .decisions import twin_outcome
from .phrasing import request_instruction
from .procedures import Composed, DirectRequest, Plan, ReadRule, Reply
from .procedures.it import EQUIPMENT
from .procedures.it_draws import cast_for, equipment, fresh_requesters
from .registry import register
from .tickets_common import next_key
from .w_lib_it_queue import FULFILLED, keys_beside
from .w_lib_people import MY_REQUESTS, it_agent_and_lead
from .w_people_replies import people_claim

REPORTS = 4  # requests in one message


def managers_with_reports(session, split: str) -> list[tuple[Person, list[Person]]]:
    """Managers with at least REPORTS requesters (tasks.w_lib_people.requesters) among their reports, by id."""
    mine: dict[int, list[Person]] = defaultdict(list)
    for person in fresh_requesters(session, split):
        mine[person.manager_id].append(person)
    return [(session.get(Person, m), people) for m, people in sorted(mine.items()) if len(people) >= REPORTS]


@register
class TeamEquipmentDecision(Composed):
    """A manager asks to have their four reports' equipment requests fulfilled on their approval: fulfil them
    when each requester's year stays within the allowance; refuse, naming the article and the Head of IT,
    when each goes over it."""

    id, apps, difficulty, kind = "r.lib_it_team_equipment", ("chat", "tickets", "org"), 5, "decision"
    scale, split, rules, hard = "medium", "train", (EQUIPMENT,), ("summed", "exception")
    summary = ("A manager says they approved their four reports' equipment requests and asks to have them fulfilled "
               "today: fulfil them when each requester's equipment of the year stays within the allowance (last "
               "year's, cancelled ones and a lost laptop's replacement left out); refuse, naming Equipment requests "
               "and the Head of IT, when it goes over.")

    def plan(self, session, rng, instance):
        refused = bool(twin_outcome(self.id, instance).refuse)
        manager, reports = spread(managers_with_reports(session, self.split), instance)
        actor, lead = it_agent_and_lead(session, rng, self.split)
        states = ["over_manager"] * REPORTS if refused else rng.sample(["within", "noise", "replacement", "noise"],
                                                                       REPORTS)
        first, made = int(next_key(session, "IT").split("-")[1]), []
        for person, state in zip(rng.sample(reports, REPORTS), states):
            made.append(equipment(session, rng, state, first, actor, lead, cast_for(session, rng, person)))
            first += made[-1].filed
        keys = tuple(k for f in made for k in f.filed_keys)
        head = session.get(Person, session.scalar(select(Department.head_id).where(Department.name == "IT")))
        listed = ", ".join(f.key for f in made)
        text = (f"@{manager.handle} sorry, I can't fulfil {listed} yet: with each requester's equipment of this year "
                f"they go over the allowance, and per {EQUIPMENT} the Head of IT, @{head.handle}, approves them then; "
                "your approval doesn't count for them. They go ahead as soon as they approve on the tickets."
                if refused else f"@{manager.handle} done: {listed} are fulfilled with your approval; each requester "
                "stays within the year's allowance.")
        pool = [p for p in (lead, *(session.get(Person, i) for i in made[0].pool)) if p.id not in (manager.id, head.id)]
        reply = Reply(manager.id, manager.name, actor.id, text, refused, FULFILLED, EQUIPMENT,
                      instead=tuple(f.fulfil() for f in made), weight=1 if refused else 2, fact_weight=3,
                      named=(people_claim([head if refused else manager], pool, "approver"),
                             *(Claim(Candidate.text(f.key), keys_beside(session, f.key, keys), "text", "request")
                               for f in made)))
        ask = (f"Hi @{actor.handle}, I've approved the equipment requests of my four reports on the tickets. Could you "
               "get them fulfilled today? They're waiting for the gear to start on a project.")
        return Plan(actor.id, request_instruction(rng, named(session, manager)),
                    [DirectRequest(manager.id, actor.id, ask), ReadRule.of(session, EQUIPMENT, "equipment request "
                                                                           "allowance"), MY_REQUESTS, *made, reply],
                    {"refused": refused})
