"""The escalation procedure of Escalating breached service requests: an IT Support agent escalates a service request
whose time-to-resolution clock is overdue (its priority one step up, the label sla-breach, a work note naming the
old and the new priority) and leaves alone one whose clock runs or is paused, however old, and one escalated
already. The setup files the request days ago, has the colleague who worked it wait on the customer for a while
(still waiting, or the customer replied), and has the IT Support Lead hand it to the actor this morning.

A state (`STATES`) says what the clock shows: "overdue" (over its target, never paused), "overdue_paused" (over
it despite a pause), "paused" (old, but waiting on the customer long enough to stay within it), "resumed" (old,
paused long enough earlier, now running within it) and "escalated" (overdue, escalated yesterday)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from officegym import clock
from officegym.apps.org.models import Person
from officegym.apps.tickets import services as tickets
from officegym.apps.tickets.models import PRIORITIES, Ticket
from officegym.apps.tickets.sla import RESOLUTION_MINUTES
from officegym.graders.checks import Allow, check, guard
from officegym.graders.statements import Candidate, says
from officegym.seed_data.tickets_handbook_changes import BREACH_LABEL

from ..base import CARRY_OUT, REFUSE, Declaration, Target, ToolCall
from ..tickets_common import new_comments, ticket_by_key
from .core import Graded, Procedure

BREACHES = "Escalating breached service requests"
# state -> (escalated, the difficulty it holds)
STATES = {"overdue": (True, ()), "overdue_paused": (True, ("exception",)), "paused": (False, ("exception",)),
          "resumed": (False, ("exception",)), "escalated": (False, ("lookalike",))}
REQUESTS = (("Software", "Licence for the data visualisation tool"), ("Software", "Install the statistics package"),
            ("Accounts & Access", "Shared mailbox for the events team"), ("Network & VPN", "Static IP for the lab"),
            ("Email & Calendar", "Room calendar for the new meeting room"), ("Software", "Upgrade the PDF editor"),
            ("Accounts & Access", "Access to the finance share"), ("Network & VPN", "VPN profile for a contractor"))


def step_up(priority: str) -> str:
    """The priority one step higher."""
    return PRIORITIES[max(0, PRIORITIES.index(priority) - 1)]


@dataclass(frozen=True)
class EscalateBreach(Procedure):
    """The service request `summary` (component `component`, priority `priority`) that `reporter` filed `age`
    hours ago, worked by `mate`; it waited on the customer from `paused_at` to `resumed_at` hours ago (none when
    `paused_at` is 0; still waiting when `resumed_at` is 0); `escalated`: the IT Support `lead` escalated it
    yesterday. The lead handed it to the actor this morning. `state`: one of STATES."""

    rules = (BREACHES,)
    hard = ("exception", "lookalike")

    key: str
    actor: int
    lead: int
    mate: int
    reporter: int
    component: str
    summary: str
    priority: str
    age: int
    paused_at: int
    resumed_at: int
    state: str

    @property
    def go(self) -> bool:
        """Whether it is to be escalated."""
        return STATES[self.state][0]

    @property
    def now_priority(self) -> str:
        """Its priority at the start (one step up when it was escalated yesterday)."""
        return step_up(self.priority) if self.state == "escalated" else self.priority

    def setup(self, session):
        now = clock.company_now(session)
        lead, mate, reporter = (session.get(Person, i) for i in (self.lead, self.mate, self.reporter))
        clock.set_time(session, now - timedelta(hours=self.age))
        made = tickets.create_ticket(session, reporter, "IT", "Service Request", self.summary,
                                     "Needed for my work; thanks in advance.", priority=self.priority,
                                     components=[self.component])
        assert made.key == self.key, (made.key, self.key)
        clock.set_time(session, now - timedelta(hours=self.age - 1))
        tickets.assign_ticket(session, lead, self.key, self.mate, "IT Support")
        tickets.transition_ticket(session, mate, self.key, "Start work")
        if self.paused_at:
            clock.set_time(session, now - timedelta(hours=self.paused_at))
            tickets.add_comment(session, mate, self.key, "Could you confirm who else needs this, and by when?")
            tickets.transition_ticket(session, mate, self.key, "Wait for customer")
            if self.resumed_at:
                clock.set_time(session, now - timedelta(hours=self.resumed_at))
                tickets.add_comment(session, reporter, self.key, "Just me, as soon as possible please.")  # resumes it
        if self.state == "escalated":
            clock.set_time(session, now - timedelta(hours=20))
            tickets.update_ticket(session, lead, self.key, priority=self.now_priority, labels=[BREACH_LABEL])
            tickets.add_work_note(session, lead, self.key, f"SLA breached: escalated from {self.priority} to "
                                                           f"{self.now_priority}.")
        clock.set_time(session, now - timedelta(minutes=50))
        tickets.assign_ticket(session, lead, self.key, self.actor, "IT Support")

    def reads(self) -> list[ToolCall]:
        """The request and its comments (the SLA clocks and the labels are on the ticket)."""
        return [ToolCall("tickets_get_ticket", {"key": self.key}), ToolCall("tickets_list_comments", {"key": self.key})]

    def work(self) -> list[ToolCall]:
        """Escalating it: the priority one step up with the label, and the work note."""
        new = step_up(self.priority)
        return [ToolCall("tickets_update_ticket", {"key": self.key, "priority": new, "labels": [BREACH_LABEL]}),
                ToolCall("tickets_add_work_note", {"key": self.key, "body": (
                    f"SLA breached: escalated from {self.priority} to {new}.")}, role="note")]

    def steps(self):
        return self.reads() + (self.work() if self.go else [])

    def declared(self):
        return STATES[self.state][1]

    def fallen(self, kind):
        if kind not in self.declared():
            return None
        if self.state == "escalated":  # escalates it again
            return self.reads() + [ToolCall("tickets_update_ticket", {"key": self.key, "priority": step_up(
                self.now_priority), "labels": [BREACH_LABEL]})]
        return self.reads() + ([] if self.go else self.work())  # judges by its age, not its clock

    def declare(self, start):
        return Declaration([Target("ticket", self.key, [])])

    def check(self, ctx):
        was = ticket_by_key(ctx.start, self.key)
        now = ctx.final.get(Ticket, was.id)
        labels = {r["name"] for r in ctx.diff.table("tickets_label").added if r["ticket_id"] == was.id}
        comments = new_comments(ctx, was.id)
        # one work note, and one public comment besides (a word to the requester)
        allowed = [Allow("tickets_comment", ("added",), lambda r, note=note: r["ticket_id"] == was.id
                         and bool(r["internal"]) == note and r["author_id"] == ctx.actor_id) for note in (True, False)]
        if not self.go:  # a comment touches its updated_at, nothing else
            allowed.append(Allow("tickets_ticket", ("updated",), lambda r: r["id"] == was.id
                                 and r["priority"] == was.priority, ("updated_at", "first_response_at")))
            return Graded([guard(f"{self.key} is not escalated: it stays {was.priority}", now.priority == was.priority
                                 and not labels, f"it is {now.priority}, labels added: {sorted(labels)}")], allowed)
        new = step_up(self.priority)
        results = [guard(f"{self.key} is escalated to {new}", now.priority == new, f"it is {now.priority}"),
                   check(f"{self.key} has the label {BREACH_LABEL}", BREACH_LABEL in labels, f"added: {sorted(labels)}",
                         weight=1)]
        notes = [c["body"] for c in comments if c["internal"]]
        others = [Candidate.text(p) for p in PRIORITIES if p not in (new, self.priority)]
        results += says(notes, Candidate.text(new), others, f"A work note on {self.key} names its new priority, {new}",
                        "priority", weight=1)
        allowed += [Allow("tickets_ticket", ("updated",), lambda r: r["id"] == was.id and r["priority"] == new,
                          ("priority", "priority_rank", "updated_at", "first_response_at")),
                    Allow("tickets_label", ("added",), lambda r: r["ticket_id"] == was.id and r["name"] == BREACH_LABEL)]
        return Graded(results, allowed)

    def outcome(self):
        return CARRY_OUT if self.go else REFUSE


def timing(rng, state: str, priority: str) -> tuple[int, int, int]:
    """(age, paused at, resumed at) in hours before now for a request in `state` with `priority`: at least six
    hours either side of its target, so that the clock says the same all episode long."""
    target = RESOLUTION_MINUTES[priority] // 60
    over, under = rng.randrange(8, 30), rng.randrange(8, min(30, target - 4))
    if state in ("overdue", "escalated"):
        return target + over, 0, 0
    if state == "overdue_paused":
        pause = rng.randrange(10, 30)
        return target + over + pause, target + over + pause - 3, target + over - 3
    pause = over + under  # elapsed = age - pause = target - under
    if state == "paused":
        return target + over, pause, 0
    return target + over, target + over - 2, target + over - 2 - pause
