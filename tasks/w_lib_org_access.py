"""An access decision after an internal transfer, composed from the procedure library (tasks.procedures.access):
an engineer who moved to another team on Friday asks their IT agent by DM to grant their four access requests
today, "approved on the tickets". Whose "Approved" counts is for the directory and the handbook to say (Internal
transfers, Requesting access): the new manager's. In one twin the new manager approved each request (granted);
in the other only the old manager did, which no longer counts (left open, the new manager asked on each ticket,
and a refusal naming the rule and the new manager). The message is the same in both twins; an older version
of Internal transfers, which let the old manager approve until the month's end, is a stale trap."""

from __future__ import annotations

from dataclasses import dataclass

from officegym.apps.org.models import Person
from officegym.graders.statements import Candidate

from .base import Claim, ToolCall
from .common import named, spread
from .decisions import twin_outcome
from .phrasing import request_instruction
from .procedures import Composed, DirectRequest, Plan, Procedure, ReadRule, Reply
from .procedures.access import ACCESS, GRANTED, GrantAccess, it_heads, queue_report
from .procedures.org_draws import draw_moves
from .procedures.org_transfer import TRANSFERS, move_in_directory
from .registry import register
from .tickets_common import key_pool, next_key
from .w_lib_it_queue import keys_beside
from .w_lib_people import MY_REQUESTS, it_agent_and_lead, requesters
from .w_people import SYSTEMS, access_summary
from .w_people_replies import people_claim

REQUESTS = 4
DAYS_AGO = 3 * 24 * 60  # the move: Friday morning, three days before the company's Monday


@dataclass(frozen=True)
class MovedOnFriday(Procedure):
    """People moved the requester to their new team on Friday (the directory shows it); the reference reads
    the requester's new team."""

    requester: int
    team: int
    team_name: str

    def setup(self, session):
        move_in_directory(self.requester, self.team, DAYS_AGO)(session)

    def steps(self):
        return [ToolCall("org_get_team", {"team": self.team_name})]


@dataclass(frozen=True)
class AskOnTickets(Procedure):
    """A comment on each request asking the approver whose word counts (the changes are GrantAccess's)."""

    keys: tuple[str, ...]
    approver_handle: str

    def steps(self):
        return [ToolCall("tickets_add_comment", {"key": key, "body": f"@{self.approver_handle}, since the transfer "
                                                 "you approve this request: please comment \"Approved\" if it "
                                                 "stands."}) for key in self.keys]


@register
class TransferAccessDecision(Composed):
    """Grant a moved engineer's four access requests when their new manager approved them; refuse, naming the
    rule and the new manager, when only the old manager did."""

    id, apps, difficulty, kind = "r.lib_org_transfer_access", ("chat", "tickets", "org"), 5, "decision"
    scale, split, rules, hard = "medium", "train", (TRANSFERS, ACCESS), ("changed",)
    summary = ("An engineer who moved teams on Friday asks you to grant their four access requests, approved on the "
               "tickets: grant them when the new manager approved; when only the old manager did, leave them open, "
               "ask the new manager on each and refuse, naming Internal transfers (or Requesting access) and the "
               "new manager.")

    def plan(self, session, rng, instance):
        refused = bool(twin_outcome(self.id, instance).refuse)
        move = draw_moves(session, rng, self.split, instance)[0]
        person, old, new = move.mover, move.lead, move.new.lead_id
        new_manager = session.get(type(person), new)
        actor, lead = it_agent_and_lead(session, rng, self.split)
        first = int(next_key(session, "IT").split("-")[1])
        keys = tuple(f"IT-{first + k}" for k in range(REQUESTS))
        approver = old if refused else new_manager
        grants = [GrantAccess(key, actor.id, person.id, new_manager.id, lead.id, system, access_summary(system,
                              person.name), ((approver.id, "Approved."),), not refused,
                              f"Approved by @{new_manager.handle}, {person.name}'s manager: access to {system} "
                              "granted.",
                              ("changed",), strict=True)
                  for key, system in zip(keys, rng.sample(SYSTEMS, REQUESTS))]
        listed = ", ".join(keys)
        text = (f"@{person.handle} sorry, I can't grant {listed} yet: since you moved to {move.new.name}, your new "
                f"manager @{new_manager.handle} approves them (Internal transfers); {old.name}'s approval no longer "
                "counts. I'm asking them on each ticket." if refused else
                f"@{person.handle} done: {listed} are granted, approved by your new manager @{new_manager.handle}.")
        pool = [old, move.mate, *it_heads(session)]
        reply = Reply(person.id, person.name, actor.id, text, refused, GRANTED, TRANSFERS, also=ACCESS,
                      instead=tuple(c for g in grants for c in g.work()), weight=1 if refused else 2, fact_weight=3,
                      named=(people_claim([new_manager], pool, "approver whose approval counts"),
                             *(Claim(Candidate.text(k), keys_beside(session, k, keys) if k != keys[0] else
                                     key_pool(session, "IT", k, keys), "text", "request") for k in keys)))
        ask = (f"Hi @{actor.handle}, I moved to {move.new.name} on Friday and need my tools for the new work. Could "
               "you grant my four access requests today? They're approved on the tickets.")
        asks = [AskOnTickets(keys, new_manager.handle)] if refused else []
        return Plan(actor.id, request_instruction(rng, named(session, person)),
                    [DirectRequest(person.id, actor.id, ask), MovedOnFriday(person.id, move.new.id, move.new.name),
                     ReadRule.of(session, TRANSFERS, "internal transfer approvals"),
                     ReadRule.of(session, ACCESS, "requesting access approval"), MY_REQUESTS, *grants, reply, *asks],
                    {"refused": refused})


@register
class TransferAccessQueue(Composed):
    """This morning's five access requests, four of them from two engineers who moved teams on Friday: grant those
    whose approval counts (the new manager's; the manager's for the fifth requester, who did not move), leave the
    ones only the old manager approved open, and tell the IT Support Lead which wait and on whom."""

    id, apps, difficulty, kind = "w.lib_org_transfer_access_queue", ("chat", "tickets", "org"), 5, "workflow"
    scale, split, rules, hard = "medium", "train", (TRANSFERS, ACCESS), ("changed",)
    summary = ("Work through five access requests, four from two engineers who moved teams on Friday: grant those "
               "their new manager approved and the other requester's manager-approved one; leave open the two only "
               "the old manager approved, and tell the IT Support Lead which wait and on whose approval.")

    def plan(self, session, rng, instance):
        actor, lead = it_agent_and_lead(session, rng, self.split)
        granted, waiting = draw_moves(session, rng, self.split, instance, 2)
        movers = {granted.mover.id, waiting.mover.id}
        other = spread([p for p in requesters(session, self.split) if p.id not in movers and p.manager_id not in
                        (granted.lead.id, granted.new.lead_id, waiting.new.lead_id)], instance)
        get = lambda i: session.get(Person, i)  # noqa: E731
        rows = [(granted.mover, get(granted.new.lead_id), get(granted.new.lead_id), True)] * 2 + \
            [(waiting.mover, get(waiting.new.lead_id), waiting.lead, False)] * 2 + \
            [(other, other.manager, other.manager, True)]
        rows = rng.sample(rows, len(rows))
        first = int(next_key(session, "IT").split("-")[1])
        keys = tuple(f"IT-{first + k}" for k in range(len(rows)))
        grants = [GrantAccess(key, actor.id, person.id, approver.id, lead.id, system,
                              access_summary(system, person.name), ((commenter.id, "Approved."),), ok,
                              f"Approved by @{approver.handle}: access to {system} granted.",
                              ("changed",) if person.id in movers else (), strict=True)
                  for key, system, (person, approver, commenter, ok) in zip(keys, rng.sample(SYSTEMS, len(rows)), rows)]
        held = [g.key for g in grants if not g.approved]
        new_manager = get(waiting.new.lead_id)
        text = (f"Done: granted {', '.join(g.key for g in grants if g.approved)}. Still open: {' and '.join(held)}, "
                f"{waiting.mover.name}'s: since their move to {waiting.new.name} they wait on @{new_manager.handle}'s "
                f"approval; {waiting.lead.name}'s no longer counts (Internal transfers).")
        pool = [p for p in (waiting.lead, granted.mate, waiting.mate, *it_heads(session)) if p.id != new_manager.id]
        reply = Reply(lead.id, lead.name, actor.id, text, False, GRANTED, fact_weight=2,
                      facts=tuple(Claim(Candidate.text(k), key_pool(session, "IT", k, keys), "text",
                                        "request still waiting") for k in held),
                      named=(people_claim([new_manager], pool, "approver the requests wait on"),),
                      **queue_report(session, grants))
        ask = (f"Morning @{actor.handle}, I've assigned you this morning's access requests; a few come from people who "
               "changed teams on Friday. Could you grant the ones whose approval counts, leave the others open, and "
               "tell me which still wait and on whose approval?")
        return Plan(actor.id, request_instruction(rng, named(session, lead)),
                    [DirectRequest(lead.id, actor.id, ask, minutes=20),
                     MovedOnFriday(granted.mover.id, granted.new.id, granted.new.name),
                     MovedOnFriday(waiting.mover.id, waiting.new.id, waiting.new.name),
                     ReadRule.of(session, TRANSFERS, "internal transfer approvals"),
                     ReadRule.of(session, ACCESS, "requesting access approval"), MY_REQUESTS, *grants, reply])
