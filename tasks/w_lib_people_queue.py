"""A morning's access requests, composed from the procedure library (tasks.procedures.access). The IT
Support Lead assigns four access requests to an IT agent and asks them to work through them: grant
those whose approval counts, leave the others open, and say which still wait and on whom. One has its
manager's "Approved"; one its away manager's own manager's; one only the "Approved" of the cover the
away manager named; one an approval its manager withdrew in a later comment."""

from __future__ import annotations

from officegym.graders.statements import Candidate

from .base import Claim
from .common import named
from .phrasing import request_instruction
from .procedures import Composed, DirectRequest, Plan, ReadRule, Reply
from .procedures.access import ACCESS, AWAY, GRANTED, GrantAccess, it_heads, queue_report
from .registry import register
from .tickets_common import key_pool, next_key
from .w_lib_people import AWAY_NOTE, MY_REQUESTS, cast, distinct_requesters, it_agent_and_lead, requesters
from .w_people import SYSTEMS, access_summary
from .w_people_replies import people_claim

# (what the ticket shows, granted?, the difficulty it holds)
STATES = (("manager", True, ()), ("skip", True, ("exception",)), ("cover", False, ("away",)),
          ("withdrawn", False, ("changed",)))


def comments_for(state: str, c) -> tuple[tuple[int, str], ...]:
    """The comments under a request in `state` (see STATES), oldest first."""
    away = (c.manager.id, AWAY_NOTE.format(cover=c.cover.name))
    return {"manager": ((c.manager.id, "Approved."),),
            "skip": (away, (c.skip.id, "Approved.")),
            "cover": (away, (c.cover.id, f"Approved, covering for {c.manager.name}.")),
            "withdrawn": ((c.manager.id, "Approved."),
                          (c.manager.id, "Approval withdrawn: hold this until we've talked about the scope."))}[state]


@register
class MorningAccessQueue(Composed):
    """Work through four access requests: grant the two whose approval counts, leave the two others open,
    and tell the IT Support Lead which wait and on whose approval."""

    id, apps, difficulty, kind = "w.lib_access_queue", ("chat", "tickets", "org"), 5, "workflow"
    scale, split, rules, hard = "medium", "train", (ACCESS, AWAY), ("away", "exception", "changed")
    summary = ("Work through the four access requests the IT Support Lead assigned you: grant those whose approval "
               "counts (the manager's, or the away manager's own manager's, not withdrawn since), leave the others "
               "open, and tell the lead which wait and on whose approval.")

    states = STATES  # (what the ticket shows, granted?, the difficulty it holds), one per request

    def states_of(self, instance: int) -> tuple:
        """The states of instance `instance`'s requests."""
        return self.states

    def word(self, session, rng, state: str, c) -> tuple[tuple, dict, str]:
        """A request's comments at the start, GrantAccess's fields of a word that comes later (none
        here) and what the lead's message adds about it (nothing here)."""
        return comments_for(state, c), {}, ""

    def plan(self, session, rng, instance):
        actor, lead = it_agent_and_lead(session, rng, self.split)
        own_states = self.states_of(instance)
        people = distinct_requesters(requesters(session, self.split), instance, len(own_states))
        states = rng.sample(own_states, len(own_states))
        first, systems = int(next_key(session, "IT").split("-")[1]), rng.sample(SYSTEMS, len(own_states))
        grants, casts, notes = [], [], []
        for k, (person, (state, granted, holds)) in enumerate(zip(people, states)):
            c = cast(session, rng, person, actor, lead)
            approver = c.skip if state in ("skip", "cover") else c.manager
            comments, later, note = self.word(session, rng, state, c)
            grants.append(GrantAccess(f"IT-{first + k}", actor.id, person.id, approver.id, lead.id, systems[k],
                                      access_summary(systems[k], person.name), comments, granted,
                                      f"Approved by @{approver.handle}: access to {systems[k]} granted.", holds,
                                      manager=c.manager.id if state in ("skip", "cover") else 0, strict=True,
                                      **later))
            casts.append((c, approver, state))
            notes += [note] if note else []
        waiting = [(g, c, a) for g, (c, a, _) in zip(grants, casts) if not g.approved]
        done = [g.key for g in grants if g.approved]
        keys = tuple(g.key for g in grants)
        facts = tuple(Claim(Candidate.text(g.key), key_pool(session, "IT", g.key, keys), "text",
                            "request still waiting") for g, _, _ in waiting)
        involved = {p.id for c, a, _ in casts for p in (c.requester, c.manager, c.skip, c.cover, a, lead)}
        blamed = [p for p in [*(c.mate for c, _, _ in casts), *it_heads(session)] if p.id not in involved]
        approvers = tuple(people_claim([a], [p for p in blamed if p.id != a.id], f"approver {g.key} waits on")
                          for g, _, a in waiting)
        text = ("Done: granted " + " and ".join(done) + ". Still open: " + "; ".join(
            f"{g.key} waits on @{a.handle}'s approval" + (f" (in place of {c.manager.name}, who is away)"
                                                          if a.id == c.skip.id else " (their latest comment "
                                                          "withdrew it)") for g, c, a in waiting) + ".")
        reply = Reply(lead.id, lead.name, actor.id, text, False, GRANTED, facts=facts, named=approvers, fact_weight=2,
                      **queue_report(session, grants))
        request = DirectRequest(lead.id, actor.id, f"Morning @{actor.handle}, I've assigned you this morning's access "
                                "requests. Could you work through them? Grant the ones whose approval counts, leave "
                                "the others open, and tell me which still wait and on whose approval."
                                + "".join(f" {note}" for note in notes), minutes=20)
        return Plan(actor.id, request_instruction(rng, named(session, lead)),
                    [request, ReadRule.of(session, ACCESS, "access request approval"),
                     ReadRule.of(session, AWAY, "approver away approval"), MY_REQUESTS, *grants, reply])
