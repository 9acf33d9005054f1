"""The SLA escalation template composed from the procedure library (tasks.procedures.changes_sla), on the handbook's
Escalating breached service requests and Service desk SLA targets.

`w.lib_sla_escalations`: the IT Support Lead moves seven service requests from a colleague's queue to the actor
and asks to escalate those that breach: the ones whose resolution clock is overdue get their priority one step up,
the label sla-breach and a work note; old requests whose clock was paused long enough, and one escalated yesterday,
are left as they are."""

from __future__ import annotations

from officegym.graders.statements import Candidate

from .base import Claim
from .common import named
from .phrasing import request_instruction
from .procedures import Composed, DirectRequest, Plan, ReadRule, Reply
from .procedures.changes_sla import BREACHES, REQUESTS, EscalateBreach, timing
from .registry import register
from .tickets_common import group_named, group_people, next_key
from .w_lib_it_queue import keys_beside
from .w_lib_people import it_agent_and_lead, requesters

ESCALATED = ("escalated",)


@register
class SlaEscalations(Composed):
    """Seven service requests handed over: escalate those whose resolution clock is overdue, leave the paused or
    running ones however old and the one escalated already, and tell the IT Support Lead which were escalated."""

    id, kind, difficulty, split, scale = "w.lib_sla_escalations", "workflow", 5, "train", "medium"
    apps, rules, hard = ("chat", "tickets"), (BREACHES,), ("exception", "lookalike")
    summary = ("The IT Support Lead hands over seven service requests from a colleague's queue: escalate those whose "
               "time-to-resolution clock is overdue (priority one step up, label sla-breach, a work note), leave the "
               "ones whose clock was paused long enough or that were escalated already, and report the escalated keys.")

    def plan(self, session, rng, instance):
        actor, lead = it_agent_and_lead(session, rng, self.split)
        mate = rng.choice([p for p in group_people(session, group_named(session, "IT Support").id)
                           if p.id not in (actor.id, lead.id) and p.role == "member"])
        people = rng.sample(requesters(session, self.split), 7)
        states = rng.sample(["overdue", "overdue", "overdue_paused", "paused", "resumed", "escalated",
                             rng.choice(["overdue", "paused", "resumed"])], 7)
        first = int(next_key(session, "IT").split("-")[1])
        made = []
        for k, (state, reporter, (component, summary)) in enumerate(zip(states, people, rng.sample(REQUESTS, 7))):
            priority = rng.choice(["Low", "Medium", "High"] if state != "escalated" else ["Low", "Medium"])
            made.append(EscalateBreach(f"IT-{first + k}", actor.id, lead.id, mate.id, reporter.id, component,
                                       summary, priority, *timing(rng, state, priority), state))
        keys = tuple(m.key for m in made)
        up = [m.key for m in made if m.go]
        ask = (f"Morning @{actor.handle}, {mate.name} is out this week, so I've moved their requests to you: "
               + ", ".join(keys) + ". Could you escalate the ones that are breaching, as the handbook says, and tell me "
               "which you escalated?")
        report = Reply(lead.id, lead.name, actor.id, f"@{lead.handle} escalated " + ", ".join(up) + "; the others are "
                       "within their SLA or were escalated already.", False, ESCALATED, fact_weight=2,
                       facts=tuple(Claim(Candidate.text(k), keys_beside(session, k, keys), "text", "request escalated")
                                   for k in up), asides=tuple(k for k in keys if k not in up), carried=tuple(up))
        return Plan(actor.id, request_instruction(rng, named(session, lead)),
                    [DirectRequest(lead.id, actor.id, ask, minutes=20),
                     ReadRule.of(session, BREACHES, "escalate breached service request SLA"), *made, report])
