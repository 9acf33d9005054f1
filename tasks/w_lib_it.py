"""Deep templates of IT and people operations composed from the procedure library: equipment requests worked
by the handbook's Equipment requests, Offboarding a leaver and Approvals when the approver is away
(tasks.procedures.it, drawn by tasks.procedures.it_draws).

`w.lib_it_equipment_queue`: the IT Support Lead hands an IT agent four equipment requests: fulfil those whose
approval counts once the requester's equipment of the year is added up, leave the rest open, and say which
wait and on whom. The other templates are in tasks.w_lib_it_more, tasks.w_lib_it_team and
tasks.w_lib_it_leavers (imported at the end)."""

from __future__ import annotations

from officegym.apps.org.models import Person
from officegym.graders.statements import Candidate

from .base import Claim
from .common import named
from .phrasing import request_instruction
from .procedures import Composed, DirectRequest, Plan, ReadRule, Reply
from .procedures.access import AWAY
from .procedures.it import EQUIPMENT, OFFBOARDING, FulfilEquipment
from .procedures.it_draws import WHY_WAITING, Cast, cast_for, equipment, fresh_requesters
from .registry import register
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
    keys = tuple(k for f in made for k in (f.key, f.offboarding_key, *f.earlier_keys) if k)
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


@register
class EquipmentQueue(Composed):
    """Four equipment requests: fulfil those whose approval counts once the year's equipment is added up,
    leave the others open, and tell the IT Support Lead which wait and on whose approval."""

    id, kind, difficulty, split, scale = "w.lib_it_equipment_queue", "workflow", 5, "train", "medium"
    apps, rules = ("chat", "tickets", "org"), (EQUIPMENT, AWAY)
    hard = ("summed", "exception", "away", "stale")
    summary = ("Work through four equipment requests: add up each requester's equipment of the year (not last "
               "year's, cancelled ones or a lost laptop's replacement) to know whether the manager or the Head of IT "
               "approves, fulfil those whose approval counts, and tell the IT Support Lead which wait and on whom.")

    def plan(self, session, rng, instance):
        states = [rng.choice(["noise", "over_manager", "over_head"]), "replacement", rng.choice(["cover", "skip"]),
                  "own"]
        return queue_plan(session, rng, self, instance, rng.sample(states, 4), self.rules)


# The modules of the other templates: imported last, since they build on this one's helpers (the registry
# imports only this module).
from . import w_lib_it_leavers, w_lib_it_more, w_lib_it_team  # noqa: E402

ALSO_REGISTERED = (w_lib_it_leavers, w_lib_it_more, w_lib_it_team)
