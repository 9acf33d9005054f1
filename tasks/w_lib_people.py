"""Access-grant decisions composed from the procedure library (tasks.procedures). A requester asks their
IT agent by DM to grant their access request for a system today, without giving its key. Whether it is
granted is for the ticket's comments to say, read as Requesting access and Approvals when the approver
is away say: the requester's manager approves; while the manager is away, the manager's own manager
does, never the cover the manager named; the latest word wins. The message is the same in both twins."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func, select

from officegym.apps.org.models import Department, Person
from officegym.graders.statements import Candidate

from .base import Claim, ToolCall
from .common import named, pick, spread, world_scan
from .decisions import twin_outcome
from .phrasing import request_instruction
from .procedures import Composed, DirectRequest, Plan, ReadRule, Reads, Reply
from .procedures.access import ACCESS, AWAY, GRANTED, GrantAccess, it_heads, teammates
from .registry import register
from .split import person_in
from .tickets_common import group_named, group_people, key_pool, next_key
from .w_people import SYSTEMS, access_summary
from .w_people_replies import people_claim

AWAY_NOTE = "I'm away from today until the end of next week; {cover} covers for me while I'm out."
# The search that finds the actor's open requests (the DM gives no key).
MY_REQUESTS = Reads((ToolCall("tickets_search_tickets", {"query": "project = IT AND assignee = currentUser() AND "
                                                                  "statusCategory != Done ORDER BY key"}),))


@dataclass
class Cast:
    """Who takes part in an access request: the IT agent, the IT Support Lead, the requester, their
    manager, the manager's manager, a report of the manager other than the requester (the cover the
    manager names) and another one if there is one (else the cover: whose request looks alike)."""

    actor: Person
    lead: Person
    requester: Person
    manager: Person
    skip: Person
    cover: Person
    mate: Person


def reports_of(session, person: Person) -> list[Person]:
    """The people who report to `person`, by id."""
    return list(session.scalars(select(Person).where(Person.manager_id == person.id).order_by(Person.id)))


def requesters(session, split: str) -> list[Person]:
    """People outside IT of the split whose manager has a manager and another report, by id."""
    def scan() -> tuple:
        it = session.scalar(select(Department.id).where(Department.name == "IT"))
        reports = dict(session.execute(select(Person.manager_id, func.count()).where(Person.manager_id.is_not(None))
                                       .group_by(Person.manager_id)).all())
        return tuple(p.id for p in session.scalars(select(Person).where(
            Person.manager_id.is_not(None), Person.department_id != it, Person.role == "member").order_by(Person.id))
            if person_in(split, p.id) and p.manager.manager_id and reports[p.manager_id] > 1)
    return [session.get(Person, i) for i in world_scan(session, ("requesters", split), scan)]


def distinct_requesters(pool: list[Person], instance: int, count: int) -> list[Person]:
    """`count` people of `pool` (`requesters`), from the instance's place on, none of whom is another's
    manager or manager's manager, nor shares one with another (so a request's approver names it alone)."""
    chosen, taken = [], set()
    for k in range(len(pool)):
        person = spread(pool, instance * 7 + k * 13)
        circle = {person.id, person.manager_id, person.manager.manager_id}
        if not circle & taken:
            chosen.append(person)
            taken |= circle
        if len(chosen) == count:
            return chosen
    raise RuntimeError(f"only {len(chosen)} requesters with approvers of their own, {count} wanted")


def it_agent_and_lead(session, rng, split: str) -> tuple[Person, Person]:
    """An IT Support agent of the split (neither the Head of IT nor the IT Support Lead) and the IT
    Support Lead."""
    head = session.scalar(select(Department.head_id).where(Department.name == "IT"))
    lead = session.scalar(select(Person).where(Person.title == "IT Support Lead"))
    agents = [p for p in group_people(session, group_named(session, "IT Support").id)
              if p.id not in (head, lead.id) and p.role == "member" and person_in(split, p.id)]
    return pick(rng, agents), lead


def cast(session, rng, requester: Person, actor: Person, lead: Person) -> Cast:
    """The people around `requester`'s access request (the cover: another report of their manager)."""
    others = [p for p in reports_of(session, requester.manager) if p.id != requester.id]
    cover = pick(rng, others)
    mate = pick(rng, [p for p in others if p.id != cover.id] or [cover])
    return Cast(actor, lead, requester, requester.manager, requester.manager.manager, cover, mate)


def cast_of(session, rng, split: str, instance: int) -> Cast:
    """The people of instance `instance` of a one-request decision."""
    return cast(session, rng, spread(requesters(session, split), instance), *it_agent_and_lead(session, rng, split))


ASK = ("Hi @{actor}, could you grant my access request for {system} today? I need it for a deadline this week. If "
       "anything is missing on the ticket, tell me what.")


def keys_of(session, instance: int) -> tuple[str, str, bool]:
    """The keys of the request and of its look-alike, and whether the look-alike is filed first (in a
    quarter of the instances, so that the request is the newest of the two no more often than that)."""
    first = int(next_key(session, "IT").split("-")[1])
    before = instance % 4 == 1
    return (f"IT-{first + 1}", f"IT-{first}", True) if before else (f"IT-{first}", f"IT-{first + 1}", False)


def approver_named(session, c: Cast, approver: Person, refused: bool) -> tuple:
    """The reply's claim naming whose approval counts (missing, when refused), among the requester's
    teammates and IT's heads."""
    pool = [p for p in teammates(session, c.requester) if p.id != c.cover.id] + it_heads(session)
    return (people_claim([approver], pool, "approver whose approval is missing" if refused else "approver"),)


def access_decision(session, rng, instance: int, c: Cast, refused: bool, approver: Person,
                    comments: tuple[tuple[int, str], ...], holds: tuple[str, ...], said: tuple[str, str], rule: str,
                    query: str, also: str = "", manager: int = 0, asked: str = ASK, later: dict | None = None) -> Plan:
    """A one-request access decision: the requester's DM (`asked`), the article `rule` (found by
    `query`), the search for the actor's requests, the grant (whose approval counts: `approver`'s) and
    the reply, `said` = (refusal, report) with {key} and {system} filled in. `later`: GrantAccess's
    fields of a word that comes on the ticket during the episode."""
    system, (key, lookalike, before) = pick(rng, SYSTEMS), keys_of(session, instance)
    grant = GrantAccess(key, c.actor.id, c.requester.id, approver.id, c.lead.id, system,
                        access_summary(system, c.requester.name), comments, not refused,
                        f"Approved by @{approver.handle} on the ticket: access to {system} granted.", holds,
                        lookalike, c.mate.id, access_summary(system, c.mate.name), before, manager, **(later or {}))
    reply = Reply(c.requester.id, c.requester.name, c.actor.id, said[0 if refused else 1].format(key=key, system=system),
                  refused, GRANTED, rule, instead=tuple(grant.work()), weight=1 if refused else 2, fact_weight=5,
                  named=(*approver_named(session, c, approver, refused),
                         Claim(Candidate.text(key), key_pool(session, "IT", key), "text", "request")), also=also)
    request = DirectRequest(c.requester.id, c.actor.id, asked.format(actor=c.actor.handle, system=system))
    return Plan(c.actor.id, request_instruction(rng, named(session, c.requester)),
                [request, ReadRule.of(session, rule, query), MY_REQUESTS, grant, reply], {"refused": refused})


@register
class ApproverAwayGrant(Composed):
    """Grant an access request when the away manager's own manager approved it; refuse when only the
    cover the manager named did, naming the manager's manager. A teammate's request for the same system
    waits beside it."""

    id, apps, difficulty, kind = "r.lib_access_approver_away", ("chat", "tickets", "org"), 4, "decision"
    scale, split, rules, hard = "medium", "train", (ACCESS, AWAY), ("away", "exception", "lookalike")
    summary = ("A requester asks to have their access request granted today; their manager is away and named a cover: "
               "grant it when the manager's own manager approved it on the ticket; refuse, naming the rule and the "
               "manager's manager, when only the cover did.")

    def plan(self, session, rng, instance):
        refused = bool(twin_outcome(self.id, instance).refuse)
        c = cast_of(session, rng, self.split, instance)
        approving = c.cover if refused else c.skip
        comments = ((c.manager.id, AWAY_NOTE.format(cover=c.cover.name)),
                    (approving.id, f"Approved, covering for {c.manager.name}." if refused else "Approved."))
        return access_decision(session, rng, instance, c, refused, c.skip, comments,
                               ("away" if refused else "exception", "lookalike"), (
            f"@{c.requester.handle} sorry, I can't grant {{key}} yet: {c.manager.name} is away, and per {AWAY} only "
            f"their own manager, @{c.skip.handle}, can approve in their place; {c.cover.name}'s approval as a cover "
            f"doesn't count. It goes ahead as soon as @{c.skip.handle} approves on the ticket.",
            f"@{c.requester.handle} done: {{key}} is granted, approved by @{c.skip.handle} while {c.manager.name} is "
            "away. You have access to {system} now."), AWAY, "approver away approval", ACCESS, c.manager.id)


@register
class ApprovalWithdrawnGrant(Composed):
    """Grant an access request when the manager's latest comment approves it; refuse when it withdraws
    an earlier approval. A teammate's request for the same system waits beside it."""

    id, apps, difficulty, kind = "r.lib_access_approval_withdrawn", ("chat", "tickets", "org"), 4, "decision"
    scale, split, rules, hard = "medium", "test", (ACCESS, AWAY), ("changed", "lookalike")
    summary = ("A requester asks to have their access request for a system granted today: grant it (not their "
               "teammate's request for the same system) when the manager's latest comment approves it; refuse, naming "
               "the rule and the manager, when a later comment withdrew the approval.")

    def plan(self, session, rng, instance):
        refused = bool(twin_outcome(self.id, instance).refuse)
        c = cast_of(session, rng, self.split, instance)
        words = (("Approved.", "Approval withdrawn: hold this until we've talked about the scope on Monday.")
                 if refused else ("Hold this until I've checked the scope with the team.",
                                  "Checked with the team: Approved."))
        return access_decision(session, rng, instance, c, refused, c.manager, tuple((c.manager.id, w) for w in words),
                               ("changed", "lookalike"), (
            f"@{c.requester.handle} sorry, I can't grant {{key}} yet: @{c.manager.handle} withdrew their approval in a "
            f"later comment on the ticket, and per {AWAY} the latest word wins. It goes ahead as soon as they approve "
            "it again there.",
            f"@{c.requester.handle} done: {{key}} is granted, approved by @{c.manager.handle} in their latest comment. "
            "You have access to {system} now."), AWAY, "approval withdrawn latest comment", ACCESS)
