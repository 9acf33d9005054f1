"""The marathons of long workflows (difficulty 6), composed from the procedure library. This module registers
`w.lib_long_access_day_of_words` and imports the modules of the others (the registry imports this one):

- `w.lib_long_access_day_of_words` (here): the IT Support Lead assigns twelve access requests; eight are settled
  by their comments at the start (the manager's "Approved", the away manager's own manager's, only the cover's,
  an approval withdrawn), four wait for their manager's word on the ticket by a stated time (tasks.procedures.access
  with later words, as tasks.w_lib_people_events), two of which confirm and two withdraw. The agent grants what
  counts, waits for the words to come, and tells the lead which still wait and on whose approval (by name: a
  reply mentions two people at most);
- tasks.w_lib_long_close: the month end of the team's pipeline and Customer Success's credit requests;
- tasks.w_lib_long_change: month ends with a change in the CRM to come during the episode;
- tasks.w_lib_long_handover: the Monday handover whose cover is named during the episode."""

from __future__ import annotations

from dataclasses import replace

from officegym.apps.org.models import Person
from officegym.graders.statements import Candidate

from . import w_lib_long_change, w_lib_long_close, w_lib_long_handover
from .base import Claim
from .common import named
from .phrasing import request_instruction
from .procedures import DirectRequest, Plan, ReadRule, Reply
from .procedures.access import ACCESS, AWAY, GRANTED, GrantAccess, it_heads, queue_report
from .registry import register
from .tickets_common import key_pool, next_key
from .w_lib_people import MY_REQUESTS, cast, distinct_requesters, it_agent_and_lead, requesters
from .w_lib_people_events import AccessQueueWithAWordToCome
from .w_people import SYSTEMS, access_summary
from .w_people_replies import people_claim

__all__ = ["AccessDayOfWords", "w_lib_long_change", "w_lib_long_close", "w_lib_long_handover"]

# (what the ticket shows, granted?, the difficulty it holds), twice each
DAY = (("manager", True, ()), ("skip", True, ("exception",)), ("cover", False, ("away",)),
       ("withdrawn", False, ("changed",)), ("pending withdrawn", False, ("changed",)), ("pending confirmed", True, ()))


def waits_in_turn(procedures: list) -> list:
    """The procedures with each later word's wait shortened by the waits before it: the reference waits in
    turn, so each wait only has to reach its own deadline from where the waits before it left the clock."""
    waited, placed = 0, []
    for procedure in procedures:
        if isinstance(procedure, GrantAccess) and procedure.later:
            own = max(5, procedure.wait - waited)
            placed.append(replace(procedure, wait=own))
            waited += own
        else:
            placed.append(procedure)
    return placed


def why_open(session, grant: GrantAccess) -> str:
    """The reply's words on a request left open: on whose approval it waits (by name), and why."""
    approver = session.get(Person, grant.approver)
    if grant.manager:
        return (f"{grant.key} waits on {approver.name}'s approval (in place of "
                f"{session.get(Person, grant.manager).name}, who is away; a cover's approval does not count)")
    return f"{grant.key} waits on {approver.name}'s approval (their latest comment withdrew it)"


@register
class AccessDayOfWords(AccessQueueWithAWordToCome):
    """Twelve access requests, four of which wait for the manager's word on the ticket by a given time: grant
    those whose approval counts (each pending one only once its word confirms it), leave the others open, and
    tell the IT Support Lead which wait and on whose approval."""

    id, split, difficulty = "w.lib_long_access_day_of_words", "train", 6
    summary = ("Work through the twelve access requests the IT Support Lead assigned you, four of which wait for the "
               "manager to confirm the scope on the ticket by a given time: grant those whose approval counts (a "
               "pending one only once the word confirms it), leave the others open, and tell the lead which wait "
               "and on whose approval.")
    states = DAY * 2

    def plan(self, session, rng, instance):
        actor, lead = it_agent_and_lead(session, rng, self.split)
        people = distinct_requesters(requesters(session, self.split), instance, len(self.states))
        states = rng.sample(self.states, len(self.states))
        first, systems = int(next_key(session, "IT").split("-")[1]), [rng.choice(SYSTEMS) for _ in people]
        grants, notes = [], []
        for k, (person, (state, granted, holds)) in enumerate(zip(people, states)):
            c = cast(session, rng, person, actor, lead)
            approver = c.skip if state in ("skip", "cover") else c.manager
            comments, later, note = self.word(session, rng, state, c)
            grants.append(GrantAccess(f"IT-{first + k}", actor.id, person.id, approver.id, lead.id, systems[k],
                                      access_summary(systems[k], person.name), comments, granted,
                                      f"Approved by @{approver.handle}: access to {systems[k]} granted.", holds,
                                      manager=c.manager.id if state in ("skip", "cover") else 0, strict=True,
                                      **later))
            notes += [note] if note else []
        grants = waits_in_turn(grants)
        keys, waiting = tuple(g.key for g in grants), [g for g in grants if not g.approved]
        involved = {p for g in grants for p in (g.requester, g.approver, g.manager)} | {lead.id}
        blamed = [p for p in it_heads(session) if p.id not in involved]
        facts = tuple(Claim(Candidate.text(g.key), key_pool(session, "IT", g.key, keys), "text",
                            "request still waiting") for g in waiting)
        said = tuple(people_claim([session.get(Person, g.approver)], blamed, f"approver {g.key} waits on")
                     for g in waiting)
        text = (f"@{lead.handle} done: granted " + ", ".join(g.key for g in grants if g.approved) + ". Still open: "
                + "; ".join(why_open(session, g) for g in waiting) + ".")
        reply = Reply(lead.id, lead.name, actor.id, text, False, GRANTED, facts=facts, named=said, fact_weight=2,
                      **queue_report(session, grants))
        request = DirectRequest(lead.id, actor.id, f"Morning @{actor.handle}, the access requests piled up while I "
                                "was away, and I've assigned you twelve of them. Could you work through them all "
                                "today? Grant the ones whose approval counts, leave the others open, and tell me "
                                "which still wait and on whose approval." + "".join(f" {n}" for n in notes),
                                minutes=20)
        return Plan(actor.id, request_instruction(rng, named(session, lead)),
                    [request, ReadRule.of(session, ACCESS, "access request approval"),
                     ReadRule.of(session, AWAY, "approver away approval"), MY_REQUESTS, *grants, reply])
