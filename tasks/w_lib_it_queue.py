"""What the IT queue templates share (tasks.w_lib_it and the modules beside it): a queue of equipment
requests drawn in given states, the people a report must not name in place of an approver, the
report on the queue, and the whole plan of a queue."""

from __future__ import annotations

from officegym.apps.org.models import Person
from officegym.graders.statements import Candidate

from .base import Claim
from .common import named
from .phrasing import request_instruction
from .procedures import DirectRequest, Plan, ReadRule, Reply
from .procedures.access import AWAY
from .procedures.it import EQUIPMENT, OFFBOARDING, FulfilEquipment
from .procedures.it_draws import WHY_WAITING, Cast, cast_for, equipment, fresh_requesters
from .tickets_common import key_pool, next_key
from .w_lib_people import MY_REQUESTS, distinct_requesters, it_agent_and_lead, reports_of
from .w_people_replies import people_claim

FULFILLED = ("fulfilled", "resolved")


def queue_of(session, rng, split: str, instance: int, states: list[str], strict: bool = True):
    """The IT agent, the IT Support Lead, and one request per state (distinct requesters), with their casts."""
    actor, lead = it_agent_and_lead(session, rng, split)
    people = distinct_requesters(fresh_requesters(session, split), instance, len(states))
    first, made, casts = int(next_key(session, "IT").split("-")[1]), [], []
    for person, state in zip(people, states):
        c = cast_for(session, rng, person)
        made.append(equipment(session, rng, state, first, actor, lead, c, strict))
        casts.append(c)
        first += made[-1].filed
    return actor, lead, made, casts


def bystanders(session, casts: list[Cast], lead: Person) -> list[Person]:
    """People a reply about the queue has no reason to name: the requesters' managers' other reports."""
    involved = [p for c in casts for p in (c.requester, c.manager, c.skip, c.cover, c.head)] + [lead]
    busy, words = {p.id for p in involved}, {w for p in involved for w in p.name.split()}  # no first name in a name
    return list({p.id: p for c in casts for p in reports_of(session, c.manager)
                 if p.id not in busy and p.name.split()[0] not in words}.values())


def keys_beside(session, right: str, keys: tuple[str, ...]) -> list[Candidate]:
    """The IT keys a report could name instead of `right`: the neighbours of the keys the setup files (those
    excepted, which it may name), then every other IT key (key_pool's pattern)."""
    numbers = [int(k.split("-")[1]) for k in keys]
    near = [n for n in range(min(numbers) - 3, max(numbers) + 4) if n not in numbers]
    return [Candidate.text(f"IT-{n}") for n in near] + key_pool(session, "IT", right, keys)[-1:]


def queue_reply(session, actor: Person, lead: Person, made: list[FulfilEquipment], casts: list[Cast],
                states: list[str]) -> Reply:
    """The report to the lead: which requests were fulfilled (or cancelled), which wait and on whose approval."""
    keys = tuple(k for f in made for k in f.filed_keys)
    waiting = [(f, session.get(Person, f.approver), WHY_WAITING[s]) for f, s in zip(made, states) if f.decision == "wait"]
    done = [f.key for f in made if f.decision == "fulfil"]
    cancelled = [f.key for f in made if f.decision == "cancel"]
    text = ("Fulfilled " + ", ".join(done) + "." + (" Cancelled " + ", ".join(cancelled) + ": the requester is leaving."
                                                   if cancelled else "") +
            (" Still open: " + "; ".join(f"{f.key} waits on {a.name}'s approval ({why})" for f, a, why in waiting) + "."
             if waiting else " None is still open."))
    pool = bystanders(session, casts, lead)
    return Reply(lead.id, lead.name, actor.id, text, False, FULFILLED, fact_weight=2,
                 facts=tuple(Claim(Candidate.text(f.key), keys_beside(session, f.key, keys), "text",
                                   "request still waiting") for f, _, _ in waiting) +
                 tuple(Claim(Candidate.text(key), keys_beside(session, key, keys), "text", "request cancelled")
                       for key in cancelled),
                 named=tuple(people_claim([a], pool, f"approver {f.key} waits on") for f, a, _ in waiting))


def queue_plan(session, rng, template, instance: int, states: list[str], rules: tuple[str, ...],
               strict: bool = True) -> Plan:
    """The lead's DM handing over the requests, the articles, the search of the queue, each request and the report."""
    actor, lead, made, casts = queue_of(session, rng, template.split, instance, states, strict)
    ask = (f"Morning @{actor.handle}, I've put {len(made)} equipment requests in your queue. Could you go through them "
           "as the handbook says, fulfil the ones that can be fulfilled, and tell me which are still open and whose "
           "approval each one waits for?")
    queries = {EQUIPMENT: "equipment request allowance", AWAY: "approver away approval",
               OFFBOARDING: "offboarding leaver"}
    return Plan(actor.id, request_instruction(rng, named(session, lead)),
                [DirectRequest(lead.id, actor.id, ask, minutes=20),
                 *(ReadRule.of(session, rule, queries[rule]) for rule in rules), MY_REQUESTS, *made,
                 queue_reply(session, actor, lead, made, casts, states)])
