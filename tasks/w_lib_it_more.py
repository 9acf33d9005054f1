"""More deep templates of equipment requests (tasks.procedures.it), beside leavers and in backlogs.

`w.lib_it_equipment_leavers`: four equipment requests, two of whose requesters' managers filed an offboarding
since (one withdrawn): cancel the leaver's, work the rest. `w.lib_it_equipment_backlog` (a marathon): twelve
requests, one in each state of tasks.procedures.it_draws.STATES and two more. `w.lib_it_monday_queue` (a
marathon): seven equipment requests and five access requests (tasks.procedures.access) in one Monday queue."""

from __future__ import annotations

from officegym.graders.statements import Candidate

from .base import Claim, ToolCall
from .common import named
from .phrasing import request_instruction
from .procedures import Composed, DirectRequest, Plan, ReadRule, Reads, Reply
from .procedures.access import ACCESS, AWAY, GrantAccess
from .procedures.it import EQUIPMENT, OFFBOARDING
from .procedures.it_draws import WHY_WAITING, Cast as ItCast, cast_for, equipment, fresh_requesters
from .registry import register
from .tickets_common import next_key
from .w_lib_compose import SIX, WHY_WAITING as ACCESS_WAITING, ticket_comments
from .w_lib_it_queue import FULFILLED, bystanders, keys_beside, queue_plan
from .w_lib_people import MY_REQUESTS, cast, distinct_requesters, it_agent_and_lead
from .w_people import SYSTEMS, access_summary
from .w_people_replies import people_claim

# The search that finds the Offboarding requests (Offboarding a leaver).
OFFBOARDINGS = Reads((ToolCall("tickets_search_tickets", {"query": 'project = IT AND summary ~ "Offboarding" '
                                                                   "ORDER BY created DESC"}),))
ALL_STATES = ["within", "noise", "replacement", "over_manager", "over_head", "cover", "skip", "own", "leaving",
              "withdrawn"]


def with_offboardings(plan: Plan) -> Plan:
    """The plan with the search of the Offboarding requests after the queue's search."""
    at = plan.procedures.index(MY_REQUESTS) + 1
    plan.procedures.insert(at, OFFBOARDINGS)
    return plan


@register
class EquipmentBesideLeavers(Composed):
    """Four equipment requests, one of a leaver and one whose offboarding was withdrawn: cancel the leaver's,
    fulfil the rest whose approval counts, and tell the IT Support Lead which wait and on whom."""

    id, kind, difficulty, split, scale = "w.lib_it_equipment_leavers", "workflow", 5, "test", "medium"
    apps, rules = ("chat", "tickets", "org"), (EQUIPMENT, OFFBOARDING)
    hard = ("changed", "summed")
    summary = ("Work through four equipment requests: cancel the one whose requester's manager filed an offboarding "
               "(not the one whose offboarding was withdrawn), fulfil those whose approval counts with the year's "
               "equipment added up, and tell the IT Support Lead which wait and on whom.")

    def plan(self, session, rng, instance):
        states = ["leaving", "withdrawn", rng.choice(["over_manager", "cover", "own"]),
                  rng.choice(["noise", "over_head", "replacement"])]
        return with_offboardings(queue_plan(session, rng, self, instance, rng.sample(states, 4), self.rules))


@register
class EquipmentBacklog(Composed):
    """Twelve equipment requests, one in each state and two more: fulfil, cancel or leave each open as the handbook says, and
    tell the IT Support Lead which wait and on whom."""

    id, kind, difficulty, split, scale = "w.lib_it_equipment_backlog", "workflow", 6, "train", "medium"
    apps, rules = ("chat", "tickets", "org"), (EQUIPMENT, AWAY, OFFBOARDING)
    hard = ("summed", "exception", "away", "stale", "changed")
    summary = ("A backlog of twelve equipment requests: add up each requester's equipment of the year, find whose "
               "approval counts (manager, Head of IT, or the away manager's own manager), cancel the leaver's, "
               "fulfil the approved ones and report which wait and on whom.")

    def plan(self, session, rng, instance):
        states = ALL_STATES + rng.sample(["noise", "over_manager", "over_head", "replacement"], 2)
        return with_offboardings(queue_plan(session, rng, self, instance, rng.sample(states, 12), self.rules))


@register
class MondayQueue(Composed):
    """A Monday's IT queue of seven equipment requests and five access requests: each fulfilled, granted,
    cancelled or left open as the handbook says, and one report of what still waits and on whom."""

    id, kind, difficulty, split, scale = "w.lib_it_monday_queue", "workflow", 6, "test", "medium"
    apps, rules = ("chat", "tickets", "org"), (EQUIPMENT, ACCESS, AWAY, OFFBOARDING)
    hard = ("summed", "exception", "away", "stale", "changed")
    summary = ("A Monday queue of seven equipment requests and five access requests: grant or fulfil those whose "
               "approval counts (the year's equipment added up), cancel the leaver's, leave the rest open, and tell "
               "the IT Support Lead which wait and on whose approval.")

    def plan(self, session, rng, instance):
        actor, lead = it_agent_and_lead(session, rng, self.split)
        people = distinct_requesters(fresh_requesters(session, self.split), instance, 12)
        states = rng.sample(ALL_STATES, 7)
        first, made, casts, waiting = int(next_key(session, "IT").split("-")[1]), [], [], []
        for person, state in zip(people[:7], states):
            c = cast_for(session, rng, person)
            made.append(equipment(session, rng, state, first, actor, lead, c))
            casts.append(c)
            first += made[-1].filed
            if made[-1].decision == "wait":
                waiting.append((made[-1].key, session.get(type(person), made[-1].approver), WHY_WAITING[state]))
        grants, systems = [], rng.sample(SYSTEMS, 5)
        for k, (person, (state, granted, holds, whose)) in enumerate(zip(people[7:], rng.sample(SIX, 5))):
            c = cast(session, rng, person, actor, lead)
            approver = c.skip if whose == "skip" else c.manager
            grants.append(GrantAccess(f"IT-{first + k}", actor.id, person.id, approver.id, lead.id, systems[k],
                                      access_summary(systems[k], person.name), ticket_comments(state, c), granted,
                                      f"Approved by @{approver.handle}: access to {systems[k]} granted.", holds,
                                      manager=c.manager.id if whose == "skip" else 0, strict=True))
            casts.append(ItCast(c.requester, c.manager, c.skip, c.cover, casts[0].head))
            if not granted:
                waiting.append((grants[-1].key, approver, ACCESS_WAITING[state].format(
                    requester=person.name, manager=c.manager.name, skip=c.skip.name)))
        keys = tuple(k for f in made for k in f.filed_keys) + tuple(
            g.key for g in grants)
        done = [f.key for f in made if f.decision == "fulfil"] + [g.key for g in grants if g.approved]
        cancelled = [f.key for f in made if f.decision == "cancel"]
        text = ("Fulfilled or granted " + ", ".join(done) + "." +
                (" Cancelled " + ", ".join(cancelled) + ": the requester is leaving." if cancelled else "") +
                " Still open: " + "; ".join(f"{key} waits on {a.name}'s approval ({why})" for key, a, why in waiting)
                + ".")
        pool = bystanders(session, casts, lead)
        reply = Reply(lead.id, lead.name, actor.id, text, False, FULFILLED + ("granted",), fact_weight=2,
                      facts=tuple(Claim(Candidate.text(key), keys_beside(session, key, keys), "text",
                                        "request still waiting") for key, _, _ in waiting) +
                      tuple(Claim(Candidate.text(key), keys_beside(session, key, keys), "text", "request cancelled")
                            for key in cancelled),
                      named=tuple(people_claim([a], pool, f"approver {key} waits on") for key, a, _ in waiting))
        ask = (f"Morning @{actor.handle}, your queue has seven equipment requests and five access requests this Monday. "
               "Could you go through them as the handbook says, fulfil or grant the ones that can go ahead, and tell "
               "me which are still open and whose approval each one waits for?")
        queries = {EQUIPMENT: "equipment request allowance", ACCESS: "access request approval",
                   AWAY: "approver away approval", OFFBOARDING: "offboarding leaver"}
        return Plan(actor.id, request_instruction(rng, named(session, lead)),
                    [DirectRequest(lead.id, actor.id, ask, minutes=20),
                     *(ReadRule.of(session, rule, queries[rule]) for rule in self.rules), MY_REQUESTS, OFFBOARDINGS,
                     *made, *grants, reply])
