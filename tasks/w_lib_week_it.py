"""An IT agent's day, composed from the equipment, leaver and access procedures (imported by tasks.w_lib_week):

- `r.lib_week_it_day_word_to_come` (a decision): the IT Support Lead hands over the day's queue: two
  equipment requests (each fulfilled or left open by the year's equipment and whose approval counts), a new
  Offboarding request whose leaver's open requests are cancelled (not a teammate's look-alike), and an access
  request whose manager approved it in principle and confirms the scope on the ticket by a stated time. Their
  word comes during the episode (an event): in one twin it confirms the approval, in the other it withdraws
  it. The agent reports what is still open and on whose approval;
- `r.lib_week_it_day_leaver` (a decision): the day's queue with an Offboarding request whose leaver's open
  requests are cancelled, or, in the twin, whose manager wrote on it since that the person stays (nothing is
  cancelled), beside two access requests and an equipment request;
- `r.lib_week_it_offboarding_word_to_come` (a decision): an Offboarding request whose manager confirms or
  withdraws it on the ticket during the episode (tasks.procedures.week_leavers), beside two equipment requests."""

from __future__ import annotations

from dataclasses import dataclass, field

from officegym.apps.org.models import Person
from officegym.graders.statements import Candidate

from .base import Claim
from .common import named, pick
from .decisions import twin_outcome
from .phrasing import request_instruction
from .procedures import Composed, DirectRequest, Plan, ReadRule, Reply
from .procedures.access import ACCESS, AWAY, GrantAccess
from .procedures.it import EQUIPMENT, OFFBOARDING
from .procedures.it_draws import WHY_WAITING, Cast as ItCast, cast_for, equipment, fresh_requesters
from .procedures.it_leavers import CancelForLeaver
from .procedures.long_events import time_to_come
from .procedures.week_leavers import LeaverWordToCome
from .registry import register
from .tickets_common import next_key
from .w_lib_compose import SIX, WHY_WAITING as ACCESS_WAITING, ticket_comments
from .w_lib_it_leavers import OFFBOARDINGS, leaver_requests, mate_summary
from .w_lib_it_queue import FULFILLED, bystanders, keys_beside
from .w_lib_people import MY_REQUESTS, cast, distinct_requesters, it_agent_and_lead, reports_of
from .w_lib_people_events import IN_PRINCIPLE, later_word
from .w_people import SYSTEMS, access_summary
from .w_people_replies import people_claim

DAY_STATES = ("within", "noise", "replacement", "over_manager", "over_head", "cover", "skip", "own")
QUERIES = {EQUIPMENT: "equipment request allowance", ACCESS: "access request approval",
           AWAY: "approver away approval", OFFBOARDING: "offboarding leaver"}


@dataclass
class Day:
    """A day's IT queue as it is drawn: the next IT number, the keys filed, the people around each request,
    and the requests that go ahead or wait ((key, approver, why))."""

    first: int
    keys: list = field(default_factory=list)
    casts: list = field(default_factory=list)
    done: list = field(default_factory=list)
    waiting: list = field(default_factory=list)


def add_equipment(session, rng, day: Day, people, actor, lead, states=()) -> list:
    """An equipment request of each of `people`, in `states` (drawn from DAY_STATES when not given), each
    fulfilled or left waiting."""
    made = []
    for person, state in zip(people, states or rng.sample(DAY_STATES, len(people))):
        c = cast_for(session, rng, person)
        made.append(equipment(session, rng, state, day.first, actor, lead, c))
        day.first += made[-1].filed
        day.keys += made[-1].filed_keys
        day.casts.append(c)
        if made[-1].decision == "wait":
            day.waiting.append((made[-1].key, session.get(Person, made[-1].approver), WHY_WAITING[state]))
        else:
            day.done.append(made[-1].key)
    return made


def add_access(session, day: Day, c, actor, lead, system: str, comments, granted: bool, holds, approver,
               why: str, **later) -> GrantAccess:
    """`c.requester`'s access request for `system` with `comments` (and a `later` word), granted or waiting
    (drawn after an equipment request, whose cast names the Head of IT)."""
    grant = GrantAccess(f"IT-{day.first}", actor.id, c.requester.id, approver.id, lead.id, system,
                        access_summary(system, c.requester.name), comments, granted,
                        f"Approved by @{approver.handle}: access to {system} granted.", holds,
                        manager=c.manager.id if approver.id != c.manager.id else 0, strict=True, **later)
    day.first += 1
    day.keys.append(grant.key)
    day.casts.append(ItCast(c.requester, c.manager, c.skip, c.cover, day.casts[0].head))
    if granted:
        day.done.append(grant.key)
    else:
        day.waiting.append((grant.key, approver, why))
    return grant


def add_leaver(session, rng, day: Day, leaver, actor, lead, stays: bool, kind=CancelForLeaver, unapproved=False,
               **more):
    """The leaver's two or three open requests, a teammate's look-alike and the Offboarding request (`kind`, with
    `more` fields), and the teammate; `unapproved`: none of the leaver's requests was approved."""
    mate = pick(rng, [p for p in reports_of(session, leaver.manager) if p.id != leaver.id])
    requests = tuple((s, comp, ok and not unapproved) for s, comp, ok in
                     leaver_requests(rng, leaver.name, rng.choice([2, 3])))
    gone = kind(day.first, actor.id, leaver.id, leaver.name, leaver.handle, leaver.manager_id, lead.id, requests,
                mate.id, mate_summary(requests[0], leaver.name, mate.name), stays, **more)
    day.first += gone.filed
    day.keys += [*gone.keys, gone.mate_key, gone.offboarding_key]
    return gone, mate


def day_report(session, day: Day, actor, lead, gone, mate, opening: str) -> Reply:
    """The report to the lead: `opening` (what became of the leaver's requests), what went ahead, and what
    still waits and on whose approval; it names the leaver when they stay."""
    keys, stays = tuple(day.keys), gone.withdrawn
    text = (opening + ("Fulfilled or granted " + ", ".join(day.done) + ". " if day.done else "") +
            ("Still open: " + "; ".join(f"{key} waits on {a.name}'s approval ({why})" for key, a, why in day.waiting)
             + "." if day.waiting else "Nothing else is open."))
    pool = [p for p in bystanders(session, day.casts, lead) if p.id not in (gone.person, mate.id)]
    return Reply(lead.id, lead.name, actor.id, text, False, FULFILLED + ("granted", "cancelled"), fact_weight=2,
                 facts=tuple(Claim(Candidate.text(key), keys_beside(session, key, keys), "text",
                                   "request still waiting") for key, _, _ in day.waiting) +
                 tuple(Claim(Candidate.text(key), keys_beside(session, key, keys), "text", "request cancelled")
                       for key in (() if stays else gone.keys)),
                 named=tuple(people_claim([a], pool, f"approver {key} waits on") for key, a, _ in day.waiting) +
                 (people_claim([session.get(Person, gone.person)], [mate], "person who stays"),) * stays)


def opening(gone, stays: bool, why_stays: str) -> str:
    """What the report says first: the leaver's requests cancelled, or why nothing of theirs was."""
    if stays:
        return f"{gone.name} stays ({why_stays}), so I cancelled nothing of theirs. "
    return f"Cancelled {', '.join(gone.keys)}: {gone.name} is leaving. "


def reads(session, lead, actor, ask: str, rules) -> list:
    """The lead's DM, the articles of `rules`, and the searches of the queue and of the Offboarding requests."""
    return [DirectRequest(lead.id, actor.id, ask, minutes=20),
            *(ReadRule.of(session, rule, QUERIES[rule]) for rule in rules), MY_REQUESTS, OFFBOARDINGS]


@register
class ItDayWordToCome(Composed):
    """The IT agent's day: two equipment requests, a leaver's open requests, and an access request whose
    manager's word comes on the ticket during the episode (confirming or withdrawing their approval)."""

    id, kind, difficulty, split, scale = "r.lib_week_it_day_word_to_come", "decision", 5, "test", "medium"
    apps, rules = ("chat", "tickets", "org"), (EQUIPMENT, ACCESS, AWAY, OFFBOARDING)
    hard = ("summed", "exception", "away", "stale", "changed", "lookalike")
    summary = ("The IT Support Lead hands over the day: two equipment requests (the year's equipment added up, whose "
               "approval counts), a new Offboarding whose leaver's requests are cancelled (not a teammate's), and an "
               "access request whose manager confirms or withdraws on the ticket by a stated time: wait for that word, "
               "act on it, and report what waits on whom.")

    def plan(self, session, rng, instance):
        refused = bool(twin_outcome(self.id, instance).refuse)
        actor, lead = it_agent_and_lead(session, rng, self.split)
        buyer, other, leaver, asker = distinct_requesters(fresh_requesters(session, self.split), instance, 4)
        day = Day(int(next_key(session, "IT").split("-")[1]))
        made = add_equipment(session, rng, day, (buyer, other), actor, lead)
        gone, mate = add_leaver(session, rng, day, leaver, actor, lead, False)
        c = cast(session, rng, asker, actor, lead)
        stated, later = later_word(session, rng, c, refused)
        system = pick(rng, SYSTEMS)
        grant = add_access(session, day, c, actor, lead, system, ((c.manager.id, IN_PRINCIPLE.format(
            deadline=stated)),), not refused, ("changed",) if refused else (), c.manager,
            "they withdrew their approval on the ticket after checking the scope", **later)
        ask = (f"Morning @{actor.handle}, your queue today: two equipment requests, {asker.name}'s access request for "
               f"{system} ({c.manager.name} is checking the scope and will confirm on the ticket by {stated}), and a "
               "new Offboarding request came in. Could you work through all of it as the handbook says, and tell me "
               "what's still open and whose approval each one waits for?")
        return Plan(actor.id, request_instruction(rng, named(session, lead)),
                    [*reads(session, lead, actor, ask, self.rules), *made, gone, grant,
                     day_report(session, day, actor, lead, gone, mate, opening(gone, False, ""))], {"refused": refused})


@register
class ItDayLeaverWhoStays(Composed):
    """The IT agent's day: an Offboarding request whose leaver's open requests are cancelled, unless their
    manager wrote on it since that they stay; two access requests and an equipment request worked as usual."""

    id, kind, difficulty, split, scale = "r.lib_week_it_day_leaver", "decision", 5, "train", "medium"
    apps, rules = ("chat", "tickets", "org"), (OFFBOARDING, ACCESS, AWAY, EQUIPMENT)
    hard = ("changed", "lookalike", "away", "exception", "stale", "summed")
    summary = ("The IT Support Lead hands over the day: a new Offboarding request (cancel the leaver's open requests, "
               "not a teammate's look-alike, unless the manager wrote on it since that they stay), two access requests "
               "and an equipment request (grant or fulfil those whose approval counts), and a report of what waits on "
               "whom.")

    def plan(self, session, rng, instance):
        stays = bool(twin_outcome(self.id, instance).refuse)
        actor, lead = it_agent_and_lead(session, rng, self.split)
        leaver, buyer, *askers = distinct_requesters(fresh_requesters(session, self.split), instance, 4)
        day = Day(int(next_key(session, "IT").split("-")[1]))
        gone, mate = add_leaver(session, rng, day, leaver, actor, lead, stays, unapproved=stays)
        made = add_equipment(session, rng, day, (buyer,), actor, lead)
        grants = []
        for person, system, (how, granted, holds, whose) in zip(askers, rng.sample(SYSTEMS, 2), rng.sample(SIX, 2)):
            c = cast(session, rng, person, actor, lead)
            approver = c.skip if whose == "skip" else c.manager
            grants.append(add_access(session, day, c, actor, lead, system, ticket_comments(how, c), granted, holds,
                                     approver, "" if granted else ACCESS_WAITING[how].format(
                                         requester=person.name, manager=c.manager.name, skip=c.skip.name)))
        ask = (f"Morning @{actor.handle}, {leaver.manager.name} filed an Offboarding request for {leaver.name} yesterday; "
               "could you do what the handbook asks of IT Support with their open requests? Your queue also has two "
               "access requests and an equipment request. Please work through all of it and tell me what's still "
               "open and whose approval each one waits for.")
        said = opening(gone, stays, "their manager withdrew the offboarding on the ticket")
        return Plan(actor.id, request_instruction(rng, named(session, lead)),
                    [*reads(session, lead, actor, ask, self.rules), gone, *made, *grants,
                     day_report(session, day, actor, lead, gone, mate, said)], {"stays": stays})


@register
class OffboardingWordToCome(Composed):
    """An IT agent's Friday: a leaver's Offboarding request on which the manager confirms or withdraws it during
    the episode, beside two equipment requests worked as usual."""

    id, kind, difficulty, split, scale = "r.lib_week_it_offboarding_word_to_come", "decision", 5, "train", "medium"
    apps, rules = ("chat", "tickets", "org"), (OFFBOARDING, EQUIPMENT, AWAY)
    hard = ("changed", "lookalike", "summed", "away")
    summary = ("The IT Support Lead hands over an Offboarding request whose manager will confirm on it by a stated "
               "time whether it stands, and two equipment requests (one with earlier equipment to add up, one whose "
               "manager is away): wait for the manager's word, cancel the leaver's "
               "open requests (not a teammate's) only if it stands, fulfil what can be, and report what waits on whom.")

    def plan(self, session, rng, instance):
        stays = bool(twin_outcome(self.id, instance).refuse)
        actor, lead = it_agent_and_lead(session, rng, self.split)
        leaver, *buyers = distinct_requesters(fresh_requesters(session, self.split), instance, 3)
        day = Day(int(next_key(session, "IT").split("-")[1]))
        deadline, comes, wait = time_to_come(session, rng)
        gone, mate = add_leaver(session, rng, day, leaver, actor, lead, stays, LeaverWordToCome, deadline=deadline,
                                word_at=comes, wait=wait)
        states = rng.sample([pick(rng, ("noise", "over_manager", "over_head")), pick(rng, ("cover", "skip"))], 2)
        made = add_equipment(session, rng, day, buyers, actor, lead, states)
        ask = (f"Hi @{actor.handle}, there's an Offboarding request for {leaver.name} in your queue; {leaver.manager.name} "
               f"will confirm on the ticket by {deadline} whether it stands. Could you handle it as the handbook says "
               "once you know, and the two equipment requests beside it, and then tell me what you did and what's "
               "still open, with whose approval each one waits for?")
        said = opening(gone, stays, f"{leaver.manager.name} withdrew the offboarding on the ticket")
        return Plan(actor.id, request_instruction(rng, named(session, lead)),
                    [*reads(session, lead, actor, ask, self.rules), gone, *made,
                     day_report(session, day, actor, lead, gone, mate, said)], {"stays": stays})
