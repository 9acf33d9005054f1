"""The leaver procedure of Offboarding a leaver: the requester's manager filed "Offboarding for <name>" in IT,
and IT Support cancels the leaver's open equipment and access requests, approved or not (resolved as
Cancelled, with a comment saying they are leaving). When the manager wrote on the Offboarding request that the
person stays, nothing is cancelled. A teammate's request for the same thing, filed beside the leaver's, is
not theirs and stays open."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from officegym import clock
from officegym.apps.org.models import Person
from officegym.apps.tickets import services as tickets
from officegym.apps.tickets.workflow import SERVICE_OPEN
from officegym.graders.checks import Allow, check, guard

from ..base import CARRY_OUT, REFUSE, Declaration, Target, ToolCall
from ..tickets_common import new_comments, ticket_by_key
from .core import Graded, Procedure
from .it import OFFBOARDING, commented, commented_on, workday_at

LEAVING_WORDS = ("leaving", "leaves", "leaver", "offboarding", "last day")


@dataclass(frozen=True)
class CancelForLeaver(Procedure):
    """The leaver `person`'s open requests ((summary, component, approved), oldest first), filed over the past
    days, and the Offboarding request their `manager` filed yesterday; the IT tickets are numbered from
    `first`, the teammate `mate`'s look-alike request (`mate_summary`, same component as the first) just after
    the leaver's. The IT Support `lead` assigned the approved requests and the Offboarding request to the actor.
    `withdrawn`: the manager wrote this morning that the person stays (nothing is cancelled)."""

    rules = (OFFBOARDING,)
    hard = ("changed", "lookalike")

    first: int
    actor: int
    person: int
    name: str
    handle: str
    manager: int
    lead: int
    requests: tuple[tuple[str, str, bool], ...]
    mate: int
    mate_summary: str
    withdrawn: bool = False

    @property
    def keys(self) -> list[str]:
        """The keys of the leaver's requests."""
        return [f"IT-{self.first + k}" for k in range(len(self.requests))]

    @property
    def mate_key(self) -> str:
        """The key of the teammate's look-alike request."""
        return f"IT-{self.first + len(self.requests)}"

    @property
    def offboarding_key(self) -> str:
        """The key of the Offboarding request."""
        return f"IT-{self.first + len(self.requests) + 1}"

    @property
    def filed(self) -> int:
        """How many IT tickets the setup files."""
        return len(self.requests) + 2

    def setup(self, session):
        now, lead = clock.company_now(session), session.get(Person, self.lead)
        filings = [(self.person, s, c, a) for s, c, a in self.requests] + [
            (self.mate, self.mate_summary, self.requests[0][1], False)]
        for k, ((who, summary, component, approved), key) in enumerate(zip(filings, self.keys + [self.mate_key])):
            clock.set_time(session, workday_at(now, len(filings) + 3 - k, 10 + k % 5))
            made = tickets.create_ticket(session, session.get(Person, who), "IT", "Service Request", summary,
                                         "Needed for my work this quarter.", components=[component])
            assert made.key == key, (made.key, key)
            if approved:
                tickets.assign_ticket(session, lead, key, self.actor, "IT Support")
                tickets.watch_ticket(session, lead, key, self.manager)
                tickets.add_comment(session, session.get(Person, self.manager), key, "Approved.")
        clock.set_time(session, workday_at(now, 3, 16))
        made = tickets.create_ticket(session, session.get(Person, self.manager), "IT", "Service Request",
                                     f"Offboarding for {self.name}", f"{self.name} leaves us; last day: Friday.",
                                     components=["Accounts & Access"])
        assert made.key == self.offboarding_key, (made.key, self.offboarding_key)
        tickets.assign_ticket(session, lead, made.key, self.actor, "IT Support")
        if self.withdrawn:
            clock.set_time(session, now - timedelta(hours=2))
            tickets.add_comment(session, session.get(Person, self.manager), made.key,
                                f"Good news: {self.name} is staying after all. This offboarding is withdrawn.")

    def reads(self) -> list[ToolCall]:
        """The Offboarding request's comments and the leaver's requests, each opened."""
        return [ToolCall("tickets_list_comments", {"key": self.offboarding_key}),
                ToolCall("tickets_search_tickets", {"query": f'project = IT AND reporter = "@{self.handle}" AND '
                                                             "statusCategory != Done ORDER BY key"}),
                *(ToolCall("tickets_get_ticket", {"key": key}) for key in self.keys)]

    def cancel(self, key: str, approved: bool) -> ToolCall:
        """Cancelling one request (Resolve once assigned, Cancel while new)."""
        return ToolCall("tickets_transition_ticket", {"key": key, "transition": "Resolve" if approved else "Cancel",
                                                      "resolution": "Cancelled",
                                                      "comment": f"Cancelled: {self.name} is leaving the company."})

    def work(self) -> list[ToolCall]:
        """What cancelling the leaver's requests writes."""
        return [self.cancel(key, approved) for key, (*_, approved) in zip(self.keys, self.requests)]

    def steps(self):
        return self.reads() + ([] if self.withdrawn else self.work())

    def declared(self):
        return ("changed",) if self.withdrawn else ("lookalike",)

    def fallen(self, kind):
        if kind == "changed" and self.withdrawn:  # takes the withdrawn offboarding for standing
            return self.reads() + self.work()
        if kind == "lookalike" and not self.withdrawn:  # cancels the teammate's look-alike request too
            return self.reads() + self.work() + [self.cancel(self.mate_key, False)]
        return None

    def declare(self, start):
        if self.withdrawn:
            return Declaration([Target("ticket", key, []) for key in self.keys])
        return Declaration([Target("ticket", key, [self.mate_key]) for key in self.keys])

    def check(self, ctx):
        results, allowed = [], []
        for key in self.keys:
            was = ticket_by_key(ctx.start, key)
            now = ctx.final.get(type(was), was.id)
            status = f"it is {now.status} {now.resolution}".strip()
            if self.withdrawn:
                results.append(guard(f"{key} is not cancelled: {self.name} stays", now.status in SERVICE_OPEN, status))
                allowed += commented_on(ctx, key)  # a word that it stays open
                continue
            results.append(guard(f"{key} is cancelled: resolved as Cancelled", now.status in ("Resolved", "Closed")
                                 and now.resolution == "Cancelled", status))
            said = [c["body"] for c in new_comments(ctx, was.id)]
            results.append(check(f"A comment on {key} says that {self.name} is leaving", any(
                w in text.lower() for text in said for w in LEAVING_WORDS), f"comments: {said[:2]}", weight=1))
            allowed += [commented(ctx, key, limit=2),  # the cancelling comment, and a word beside it
                        Allow("tickets_ticket", ("updated",), lambda r, i=was.id: r["id"] == i,
                              ("status", "resolution", "resolved_at", "updated_at", "first_response_at", "paused_since",
                               "paused_minutes"))]
        mate = ticket_by_key(ctx.start, self.mate_key)
        results.append(guard(f"{self.mate_key}, {self.mate_summary}, is not cancelled: it is not the leaver's",
                             ctx.final.get(type(mate), mate.id).status in SERVICE_OPEN, ""))
        return Graded(results, allowed + commented_on(ctx, self.offboarding_key))

    def outcome(self):
        return REFUSE if self.withdrawn else CARRY_OUT
