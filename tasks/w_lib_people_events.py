"""Access requests that the ticket settles while the agent works, composed from the procedure library
(tasks.procedures.access with a later word): a manager approved a request in principle and said on
the ticket that they would confirm its scope by a given time. Their comment comes during the episode
(an event): in one twin it confirms the approval, in the other it withdraws it, and the latest word
wins (Approvals when the approver is away). An agent that grants on the first word without waiting
is the `ignore_events` adversary; one that only waits grants nothing.

- r.lib_access_confirmed_later: the requester asks their IT agent by DM to grant it today, going by
  what the manager says there;
- w.lib_access_queue_pending: the morning's access queue (w.lib_access_queue), one of whose four
  requests waits for such a word, as the IT Support Lead's message says."""

from __future__ import annotations

from datetime import timedelta

from officegym import clock

from .decisions import twin_outcome
from .procedures import Composed
from .procedures.access import ACCESS, AWAY
from .registry import register
from .w_lib_people import access_decision, cast_of
from .w_lib_people_queue import MorningAccessQueue

IN_PRINCIPLE = "Approved in principle. I'm checking the scope with the team and will confirm here by {deadline}."
CONFIRMED = "Checked with the team: the scope is right. Approved."
WITHDRAWN = "Checked with the team: they only need read access, so I'm withdrawing my approval. Hold this for now."
ASKED = ("Hi @{{actor}}, could you grant my access request for {{system}} today? {manager} is checking the scope with "
         "the team and will confirm on the ticket by {deadline}; please go by what they say there.")


def later_word(session, rng, c, withdrawn: bool) -> tuple[str, dict]:
    """The time the manager's first comment promises their word by, and GrantAccess's fields of the
    word that comes before it (withdrawing the approval or confirming it)."""
    now = clock.company_now(session)
    deadline = (now + timedelta(minutes=60 + 30 * rng.randint(1, 3))).replace(minute=0 if now.minute < 30 else 30)
    comes = deadline - timedelta(minutes=rng.randint(10, 40))
    return deadline.strftime("%H:%M"), {"later": ((c.manager.id, WITHDRAWN if withdrawn else CONFIRMED),),
                                        "later_at": comes, "wait": int((deadline - now).total_seconds() // 60) + 5,
                                        "approved_before": True}


@register
class ApprovalConfirmedLater(Composed):
    """Grant an access request once the manager confirms their approval on the ticket during the
    episode; leave it open and tell the requester when the manager withdraws it instead."""

    id, apps, difficulty, kind = "r.lib_access_confirmed_later", ("chat", "tickets", "org"), 4, "decision"
    scale, split, rules, hard = "medium", "train", (ACCESS, AWAY), ("changed", "lookalike")
    summary = ("A requester asks to have their access request granted today, once their manager confirms on the "
               "ticket by a given time: wait for the manager's word, then grant it if it confirms the approval, or "
               "leave it open and tell the requester, naming the rule, if it withdraws it.")

    def plan(self, session, rng, instance):
        refused = bool(twin_outcome(self.id, instance).refuse)
        c = cast_of(session, rng, self.split, instance)
        stated, later = later_word(session, rng, c, refused)
        return access_decision(session, rng, instance, c, refused, c.manager,
                               ((c.manager.id, IN_PRINCIPLE.format(deadline=stated)),),
                               ("changed", "lookalike") if refused else ("lookalike",), (
            f"@{c.requester.handle} sorry, I can't grant {{key}}: @{c.manager.handle} withdrew their approval on the "
            f"ticket after checking the scope, and per {AWAY} the latest word wins. It goes ahead as soon as they "
            "approve it again there.",
            f"@{c.requester.handle} done: {{key}} is granted, approved by @{c.manager.handle} on the ticket once they "
            "checked the scope. You have access to {system} now."), AWAY, "approval withdrawn latest comment", ACCESS,
            asked=ASKED.format(manager=c.manager.name, deadline=stated), later=later)


@register
class AccessQueueWithAWordToCome(MorningAccessQueue):
    """The morning's four access requests, one of which waits for its manager's word on the ticket by a
    given time: grant the ones whose approval counts (that one once the word confirms it), leave the
    others open, and tell the lead which wait and on whose approval."""

    id, split = "w.lib_access_queue_pending", "test"
    summary = ("Work through the four access requests the IT Support Lead assigned you, one of which waits for its "
               "manager to confirm the scope on the ticket by a given time: grant those whose approval counts (that "
               "one only if the manager's word confirms it), leave the others open, and tell the lead which wait and "
               "on whose approval.")

    def states_of(self, instance):
        withdrawn = instance % 2 == 0  # the twins: the word withdraws the approval, or confirms it
        pending = ("pending withdrawn", False, ("changed",)) if withdrawn else ("pending confirmed", True, ())
        return (*(state for state in self.states if state[0] != "withdrawn"), pending)

    def word(self, session, rng, state, c):
        if not state.startswith("pending"):
            return super().word(session, rng, state, c)
        stated, later = later_word(session, rng, c, state == "pending withdrawn")
        return ((c.manager.id, IN_PRINCIPLE.format(deadline=stated)),), later, (
            f"{c.manager.name} is checking the scope of {c.requester.name}'s request with their team and will confirm "
            f"on the ticket by {stated}: go by what they say there.")
