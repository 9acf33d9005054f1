"""The equipment-request procedure: an IT Support agent works one equipment request as Equipment requests
and Offboarding a leaver say. The requester's equipment of this calendar year (requests resolved as Fixed,
replacements of lost devices left out) is added to the new request's price: within the allowance the
requester's manager approves, above it the Head of IT; while the manager is away, their own manager
(Approvals when the approver is away). A request with an approval that counts is fulfilled (resolved as
Fixed, naming the approver), one without stays open, and a leaver's is cancelled (resolved as Cancelled)
unless the manager withdrew the offboarding. The setup files the requester's earlier requests, the
request itself and, where the story has one, the Offboarding request that came after it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, time, timedelta

from officegym import clock
from officegym.apps.org.models import Person
from officegym.apps.tickets import services as tickets
from officegym.apps.tickets.models import Ticket
from officegym.apps.tickets.workflow import SERVICE_OPEN
from officegym.graders.checks import Allow, check, guard
from officegym.graders.statements import says

from ..base import CARRY_OUT, REFUSE, Declaration, Target, ToolCall
from ..tickets_common import new_comments, ticket_by_key, tickets_where
from ..w_people_replies import near_people, people_claim
from .access import request_changes
from .core import Graded, Procedure

EQUIPMENT, OFFBOARDING = "Equipment requests", "Offboarding a leaver"
HARDWARE = "Laptops & Hardware"


def summary_of(item: str, name: str) -> str:
    """An equipment request's summary, as the article writes it."""
    return f"{item} for {name}"


STAMPS = ("updated_at", "first_response_at")  # what a comment sets on its ticket


def commented(ctx, key: str, limit: int = 1) -> Allow:
    """Up to `limit` comments of the actor on the ticket `key` (a word on an Offboarding request)."""
    was = ticket_by_key(ctx.start, key)
    return Allow("tickets_comment", ("added",), lambda r: r["ticket_id"] == was.id and r["author_id"] == ctx.actor_id,
                 limit=limit)


def commented_on(ctx, key: str, limit: int = 2) -> list[Allow]:
    """A word on a ticket the task is about (the Offboarding request, a request left open with the reason): up
    to `limit` comments of the actor, and the stamps a comment sets on the ticket (updated, first response);
    its status, resolution and fields stay as they were."""
    was = ticket_by_key(ctx.start, key)
    return [commented(ctx, key, limit), Allow("tickets_ticket", ("updated",), lambda r: r["id"] == was.id, STAMPS)]


def workday_at(now: datetime, days: int, hour: int) -> datetime:
    """`hour` o'clock `days` before `now`, moved back to the Friday when that falls on a weekend."""
    day = (now - timedelta(days=days)).date()
    return datetime.combine(day - timedelta(days=max(0, day.weekday() - 4)), time(hour, 0))


@dataclass(frozen=True)
class FulfilEquipment(Procedure):
    """The equipment request for `item` at `price`, filed last week by `requester` and assigned to the actor
    this morning by the IT Support `lead`, with `comments` ((author, text), oldest first) under it; the IT
    tickets it files are numbered from `first`. `earlier`: the requester's earlier requests ((item, price,
    days ago, kind), oldest first; the kind is "fixed" (this year's, which counts toward the allowance),
    "last_year", "cancelled" or "replacement" (filed after the lost device's Incident), which do not count).
    `decision`: "fulfil" (resolved as Fixed, the comment naming `approver`), "wait" (left open) or "cancel"
    (resolved as Cancelled: the requester leaves). `leaving`: "" (no offboarding), "leaving" (the manager
    filed "Offboarding for <name>" after the request) or "withdrawn" (then wrote that the person stays).
    `holds`: the difficulties this instance holds; `pool`: the people a comment naming the approver is read
    against; `skip`: the manager's manager, looked up when the manager is away."""

    rules = (EQUIPMENT,)
    hard = ("summed", "exception", "changed", "away", "stale")

    first: int
    actor: int
    requester: int
    requester_name: str
    requester_handle: str
    manager: int
    lead: int
    item: str
    price: int
    earlier: tuple[tuple[str, int, int, str], ...]
    comments: tuple[tuple[int, str], ...]
    decision: str
    approver: int
    approver_handle: str
    pool: tuple[int, ...]
    leaving: str = ""
    holds: tuple[str, ...] = ()
    head_read: bool = False  # the total is over the allowance: the reads look up the Head of IT
    skip: int = 0
    strict: bool = False

    @property
    def earlier_keys(self) -> list[str]:
        """The keys of the earlier equipment requests (a replacement's Incident comes just before it)."""
        keys, number = [], self.first
        for *_, kind in self.earlier:
            number += kind == "replacement"
            keys.append(f"IT-{number}")
            number += 1
        return keys

    @property
    def filed_keys(self) -> list[str]:
        """Every key the setup files for this request (its earlier requests, a replacement's Incident, the
        offboarding, the request itself): a report may name any of them."""
        incidents = [f"IT-{int(k.split('-')[1]) - 1}" for k, (*_, kind) in zip(self.earlier_keys, self.earlier)
                     if kind == "replacement"]
        return [*self.earlier_keys, *incidents, *([self.offboarding_key] if self.offboarding_key else []), self.key]

    @property
    def key(self) -> str:
        """The request's key."""
        return f"IT-{self.first + self.filed - (2 if self.leaving else 1)}"

    @property
    def offboarding_key(self) -> str:
        """The Offboarding request's key (when there is one)."""
        return f"IT-{self.first + self.filed - 1}" if self.leaving else ""

    @property
    def filed(self) -> int:
        """How many IT tickets the setup files."""
        return len(self.earlier) + sum(k == "replacement" for *_, k in self.earlier) + 1 + bool(self.leaving)

    def _file(self, session, who: int, when: datetime, summary: str, text: str, kind: str = "Service Request",
              component: str = HARDWARE, **levels) -> str:
        clock.set_time(session, when)
        made = tickets.create_ticket(session, session.get(Person, who), "IT", kind, summary, text,
                                     components=[component], **levels)
        return made.key

    def _close(self, session, key: str, when: datetime, resolution: str, comment: str) -> None:
        lead = session.get(Person, self.lead)
        clock.set_time(session, when)
        tickets.assign_ticket(session, lead, key, self.lead, "IT Support")
        tickets.transition_ticket(session, lead, key, "Resolve", resolution, comment)

    def setup(self, session):
        now, name = clock.company_now(session), self.requester_name
        for (item, price, days, kind), key in zip(self.earlier, self.earlier_keys):
            reason = "I need it for my work."
            if kind == "replacement":
                lost = self._file(session, self.requester, workday_at(now, days + 1, 9), "Laptop lost on the train",
                                  "I left my laptop on the train this morning.", "Incident", impact="Low",
                                  urgency="High")
                self._close(session, lost, workday_at(now, days + 1, 11), "Fixed", "Device wiped remotely.")
                reason = f"Replacement for the laptop reported lost in {lost}."
            filed = self._file(session, self.requester, workday_at(now, days, 10), summary_of(item, name),
                               f"{reason} Catalogue price: ${price:,}.")
            assert filed == key, (filed, key)
            self._close(session, key, workday_at(now, days - 2, 15), "Cancelled" if kind == "cancelled" else "Fixed",
                        "No longer needed." if kind == "cancelled" else "Delivered.")
        key = self._file(session, self.requester, workday_at(now, 4, 11), summary_of(self.item, name),
                         f"My current one holds me back. Catalogue price: ${self.price:,}.")
        assert key == self.key, (key, self.key)
        lead = session.get(Person, self.lead)
        if self.leaving:  # filed after the request
            offboarding = self._file(session, self.manager, workday_at(now, 3, 16), f"Offboarding for {name}",
                                     f"{name} leaves us; last day: Friday.", component="Accounts & Access")
            if self.leaving == "withdrawn":
                clock.set_time(session, now - timedelta(hours=2))
                tickets.add_comment(session, session.get(Person, self.manager), offboarding,
                                    f"Good news: {name} is staying after all. This offboarding is withdrawn.")
        clock.set_time(session, now - timedelta(hours=3))
        tickets.assign_ticket(session, lead, key, self.actor, "IT Support")
        for person_id in dict.fromkeys([self.manager, *(c for c, _ in self.comments)]):
            tickets.watch_ticket(session, lead, key, person_id)
        clock.set_time(session, now - timedelta(hours=1))
        for author_id, body in self.comments:
            tickets.add_comment(session, session.get(Person, author_id), key, body)

    def reads(self) -> list[ToolCall]:
        """What the reference reads: the request, its comments, the requester, their earlier requests."""
        calls = [ToolCall("tickets_get_ticket", {"key": self.key}), ToolCall("tickets_list_comments", {"key": self.key}),
                 ToolCall("org_get_person", {"person": self.requester}),
                 ToolCall("tickets_search_tickets", {"query": f'project = IT AND reporter = "@{self.requester_handle}" '
                                                              "ORDER BY created"})]
        calls += [ToolCall("tickets_get_ticket", {"key": k}) for k in self.earlier_keys]
        if self.leaving:
            calls += [ToolCall("tickets_list_comments", {"key": self.offboarding_key})]
        if self.skip:
            calls += [ToolCall("org_get_person", {"person": self.manager})]
        if self.head_read:
            calls += [ToolCall("org_get_department", {"department": "IT"})]
        return calls

    def fulfil(self) -> ToolCall:
        """Fulfilling it: resolved as Fixed, naming the approver."""
        return ToolCall("tickets_transition_ticket", {"key": self.key, "transition": "Resolve", "resolution": "Fixed",
                                                      "comment": f"Fulfilled: approved by @{self.approver_handle}."})

    def cancel(self) -> ToolCall:
        """Cancelling it: the requester leaves."""
        return ToolCall("tickets_transition_ticket", {"key": self.key, "transition": "Resolve",
                                                      "resolution": "Cancelled", "comment": (
            f"Cancelled: {self.requester_name} is leaving the company (see {self.offboarding_key}).")})

    def work(self) -> list[ToolCall]:
        """What its decision writes."""
        return {"fulfil": [self.fulfil()], "cancel": [self.cancel()], "wait": []}[self.decision]

    def steps(self):
        return self.reads() + self.work()

    def declared(self):
        return self.holds

    def fallen(self, kind):
        if kind not in self.holds:
            return None
        if kind == "changed" and self.leaving == "withdrawn":  # takes the offboarding for standing
            return self.reads() + [self.cancel()]
        return self.reads() + ([self.fulfil()] if self.decision != "fulfil" else [])

    def declare(self, start):
        if self.decision == "wait":
            return Declaration([Target("ticket", self.key, []), Target("person", self.requester, [])])
        was = ticket_by_key(start, self.key)  # its look-alikes: the actor's other open requests, then the earlier ones
        mine = [t.key for t in tickets_where(start, Ticket.project_id == was.project_id, Ticket.assignee_id == self.actor,
                                             Ticket.id != was.id) if t.status in SERVICE_OPEN]
        return Declaration([Target("ticket", self.key, mine + self.earlier_keys),
                            Target("person", self.requester, near_people(start, self.requester))])

    def check(self, ctx):
        was = ticket_by_key(ctx.start, self.key)
        now = ctx.final.get(type(was), was.id)
        status = f"it is {now.status} {now.resolution}".strip()
        done = now.status in ("Resolved", "Closed")
        if self.decision == "wait":
            results = [guard(f"{self.key} is not fulfilled: it stays open", not done, status)]
        else:
            resolution = "Fixed" if self.decision == "fulfil" else "Cancelled"
            said = f"{self.key} is {'fulfilled' if self.decision == 'fulfil' else 'cancelled'}: resolved as {resolution}"
            right = done and now.resolution == resolution
            results = [guard(said, right, status) if self.strict else check(said, right, status, weight=2)]
        if self.decision == "fulfil":
            people = [ctx.start.get(Person, i) for i in (self.approver, *self.pool)]
            claim = people_claim(people[:1], people[1:], "approver")
            results += says([c["body"] for c in new_comments(ctx, was.id)], claim.right, claim.others,
                            f"A comment on {self.key} names who approved it, {claim.right.label}", "approver",
                            weight=0.5, deniable=False)
        allowed = request_changes(ctx, was, None, self.approver, self.decision == "wait")
        if self.leaving:  # a word on the Offboarding request may go with it
            allowed += commented_on(ctx, self.offboarding_key)
        return Graded(results, allowed)

    def outcome(self):
        return REFUSE if self.decision == "wait" else CARRY_OUT
