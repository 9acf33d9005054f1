"""Offboarding templates composed from the procedure library (tasks.procedures.it_leavers).

`w.lib_it_offboarding_week`: the IT Support Lead asks an IT agent to go through this week's offboardings:
cancel each leaver's open equipment and access requests (approved or not), not a teammate's look-alike
request, and nothing of the person whose offboarding their manager withdrew; then report."""

from __future__ import annotations

from officegym.graders.statements import Candidate

from .base import Claim, ToolCall
from .common import named, pick
from .phrasing import request_instruction
from .procedures import Composed, DirectRequest, Plan, ReadRule, Reads, Reply
from .procedures.it import OFFBOARDING, summary_of
from .procedures.it_draws import ASKED, fresh_requesters
from .procedures.it_leavers import CancelForLeaver
from .registry import register
from .tickets_common import next_key
from .w_lib_it_queue import keys_beside
from .w_lib_people import distinct_requesters, it_agent_and_lead, reports_of
from .w_people import SYSTEMS, access_summary
from .w_people_replies import people_claim

OFFBOARDINGS = Reads((ToolCall("tickets_search_tickets", {"query": 'project = IT AND summary ~ "Offboarding" AND '
                                                                   "statusCategory != Done ORDER BY key"}),))


def leaver_requests(rng, name: str, count: int) -> list[tuple[str, str, bool]]:
    """`count` open requests of one person, equipment and access mixed, each approved or not."""
    kinds = rng.sample(["equipment", "access", rng.choice(["equipment", "access"])], count)
    return [(summary_of(rng.choice(ASKED), name), "Laptops & Hardware", rng.random() < 0.5) if kind == "equipment"
            else (access_summary(rng.choice(SYSTEMS), name), "Accounts & Access", rng.random() < 0.5)
            for kind in kinds]


def mate_summary(first: tuple[str, str, bool], name: str, mate: str) -> str:
    """The teammate's request for the same thing as the leaver's first request."""
    return first[0].replace(name, mate)


@register
class OffboardingWeek(Composed):
    """This week's offboardings: cancel every leaver's open equipment and access requests, leave a teammate's
    look-alike request and the requests of the person whose offboarding was withdrawn, and report."""

    id, kind, difficulty, split, scale = "w.lib_it_offboarding_week", "workflow", 5, "train", "medium"
    apps, rules = ("chat", "tickets", "org"), (OFFBOARDING,)
    hard = ("changed", "lookalike")
    summary = ("Go through this week's Offboarding requests: cancel each leaver's open equipment and access requests "
               "(approved or not) with a comment that they are leaving, not a teammate's look-alike request, and "
               "nothing of the person whose manager withdrew the offboarding; then tell the IT Support Lead.")

    def plan(self, session, rng, instance):
        actor, lead = it_agent_and_lead(session, rng, self.split)
        people = distinct_requesters(fresh_requesters(session, self.split), instance, 4)
        stays = rng.randrange(4)
        first, made = int(next_key(session, "IT").split("-")[1]), []
        for k, person in enumerate(people):
            mate = pick(rng, [p for p in reports_of(session, person.manager) if p.id != person.id])
            requests = tuple(leaver_requests(rng, person.name, rng.choice([2, 3])))
            if k == stays:  # nothing approved: worked as usual, their requests wait for approvals
                requests = tuple((summary, component, False) for summary, component, _ in requests)
            made.append(CancelForLeaver(first, actor.id, person.id, person.name, person.handle, person.manager_id,
                                        lead.id, requests, mate.id, mate_summary(requests[0], person.name, mate.name),
                                        k == stays))
            first += made[-1].filed
        keys = tuple(k for m in made for k in (*m.keys, m.mate_key, m.offboarding_key))
        kept = made[stays]
        gone = [m for m in made if not m.withdrawn]
        text = (f"Done: I cancelled {', '.join(k for m in gone for k in m.keys)}, the open requests of "
                f"{', '.join(m.name for m in gone)}, who are leaving. {kept.name}'s offboarding was withdrawn, so "
                f"their requests ({', '.join(kept.keys)}) stay open.")
        others = [session.get(type(people[0]), m.mate) for m in made]  # not the lead, whom a reply may greet
        reply = Reply(lead.id, lead.name, actor.id, text, False, ("cancelled",), fact_weight=2,
                      facts=tuple(Claim(Candidate.text(key), keys_beside(session, key, keys), "text",
                                        "request cancelled") for m in gone for key in m.keys),
                      named=(people_claim([people[stays]], others, "person who stays"),))
        ask = (f"Morning @{actor.handle}, there are a few Offboarding requests in IT this week. Could you go through "
               "them and do what the handbook asks of IT Support with each leaver's open requests now? The "
               "offboardings themselves stay open until the last day. Tell me what you did.")
        return Plan(actor.id, request_instruction(rng, named(session, lead)),
                    [DirectRequest(lead.id, actor.id, ask, minutes=20),
                     ReadRule.of(session, OFFBOARDING, "offboarding leaver"), OFFBOARDINGS, *made, reply])
