"""More access-grant decisions composed from the procedure library (tasks.procedures.access), on the
Requesting access article alone: the requester's word is no approval (the ticket wins), and a
manager's own request is approved by their manager, never by one of their reports. The requester's
message is the same in both twins; only the ticket's comments differ."""

from __future__ import annotations

from sqlalchemy import select

from officegym.apps.org.models import Department, Person

from .common import pick, spread
from .decisions import twin_outcome
from .procedures import Composed
from .procedures.access import ACCESS
from .registry import register
from .split import person_in
from .w_lib_people import ASK, Cast, access_decision, cast_of, it_agent_and_lead, reports_of

SAID_SO = ("Hi @{actor}, could you grant my access request for {system} today? My manager approved it when we spoke "
           "this morning, so it should be good to go.")


@register
class RequestersWordGrant(Composed):
    """Grant an access request when the manager's "Approved" is on the ticket; refuse when only the
    requester says the manager approved it, naming the manager. A teammate's request waits beside it."""

    id, apps, difficulty, kind = "r.lib_access_requesters_word", ("chat", "tickets", "org"), 3, "decision"
    scale, split, rules, hard = "medium", "test", (ACCESS,), ("stale", "lookalike")
    summary = ("A requester says their manager approved their access request and asks to have it granted today: grant "
               "it when the manager's Approved is on the ticket; refuse, naming Requesting access and the manager, when "
               "the ticket shows none.")

    def plan(self, session, rng, instance):
        refused = bool(twin_outcome(self.id, instance).refuse)
        c = cast_of(session, rng, self.split, instance)
        comments = () if refused else ((c.manager.id, "Approved."),)
        return access_decision(session, rng, instance, c, refused, c.manager, comments,
                               ("stale", "lookalike") if refused else ("lookalike",), (
            f"@{c.requester.handle} sorry, I can't grant {{key}} yet: per {ACCESS}, IT grants only once your manager, "
            f"@{c.manager.handle}, has commented \"Approved\" on the ticket, and there is no approval there yet; what "
            "was said in a meeting doesn't count. It goes ahead as soon as they comment.",
            f"@{c.requester.handle} done: {{key}} is granted with @{c.manager.handle}'s approval on the ticket. You have "
            "access to {system} now."), ACCESS, "access request approval", asked=SAID_SO)


def managing_cast(session, rng, split: str, instance: int) -> Cast:
    """The people of a manager's own request: the requester manages someone, and their manager has
    another report (whose request looks alike); the cover is one of the requester's reports."""
    it = session.scalar(select(Department.id).where(Department.name == "IT"))
    managers = [p for p in session.scalars(select(Person).where(Person.manager_id.is_not(None),
                                                                Person.department_id != it).order_by(Person.id))
                if person_in(split, p.id) and reports_of(session, p) and len(reports_of(session, p.manager)) > 1]
    requester = spread(managers, instance)
    actor, lead = it_agent_and_lead(session, rng, split)
    peer = pick(rng, [p for p in reports_of(session, requester.manager) if p.id != requester.id])
    report = pick(rng, reports_of(session, requester))
    return Cast(actor, lead, requester, requester.manager, requester.manager.manager or requester.manager, report, peer)


@register
class ManagersOwnRequestGrant(Composed):
    """Grant a manager's own access request when their manager approved it; refuse when only one of their
    reports did, naming their manager."""

    id, apps, difficulty, kind = "r.lib_access_managers_own_request", ("chat", "tickets", "org"), 4, "decision"
    scale, split, rules, hard = "medium", "test", (ACCESS,), ("exception", "lookalike")
    summary = ("A manager asks to have their own access request granted today: grant it when their manager approved it "
               "on the ticket; refuse, naming Requesting access and their manager, when only one of their reports did.")

    def plan(self, session, rng, instance):
        refused = bool(twin_outcome(self.id, instance).refuse)
        c = managing_cast(session, rng, self.split, instance)
        comments = ((c.cover.id if refused else c.manager.id, "Approved."),)
        return access_decision(session, rng, instance, c, refused, c.manager, comments, ("exception", "lookalike"), (
            f"@{c.requester.handle} sorry, I can't grant {{key}} yet: per {ACCESS}, the approver of a manager's own "
            f"request is their manager, @{c.manager.handle}; {c.cover.name} reports to you, so their \"Approved\" "
            "doesn't count. It goes ahead as soon as your manager approves on the ticket.",
            f"@{c.requester.handle} done: {{key}} is granted, approved by your manager @{c.manager.handle} on the "
            "ticket. You have access to {system} now."), ACCESS, "access request approval", asked=ASK)
