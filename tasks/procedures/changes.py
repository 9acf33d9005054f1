"""The change-request procedure of Production change requests: an IT Support change coordinator schedules a
production change (Start work, with a comment naming the day and the approver) when an approval that counts
stands on it for its planned day and the quarter-end freeze does not stop it, and leaves it as it is otherwise.
Whose approval counts: the Engineering Manager who leads the team of the change's on-call group; while they are
away, their own manager (Approvals when the approver is away), never the cover they name; inside the freeze, an
emergency change (one that fixes a Highest-priority incident) with the Chief Technology Officer's approval, which
also gets the retro-review label. An approval given before the planned day moved does not count. The setup files
the incident an emergency change fixes, then the change, its comments and the move of its day (drawn by
tasks.procedures.changes_draws)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from officegym import clock
from officegym.apps.org.models import Person
from officegym.apps.tickets import services as tickets
from officegym.apps.tickets.models import Ticket
from officegym.graders.checks import Allow, check, guard
from officegym.graders.statements import says
from officegym.seed_data.tickets_handbook_changes import RETRO_LABEL, day

from ..base import CARRY_OUT, REFUSE, Declaration, Target, ToolCall
from ..common import dm_allowances
from ..tickets_common import new_comments, ticket_by_key
from ..w_people_replies import people_claim
from .core import Graded, Procedure
from .it import workday_at

CHANGES = "Production change requests"
SCHEDULED = ("scheduled",)


@dataclass(frozen=True)
class ScheduleChange(Procedure):
    """The change request "Change: `service`: `what`" filed `days` working days ago by `requester`, a member of
    the on-call `group` (whose team `team` is led by `manager`), planned for `planned` (its due date), with
    `comments` ((author, text, hours ago), oldest first). `moved_from`: the day it was planned for before the
    requester moved it, `moved_hours` ago (none when empty). `incident`: (summary, impact, urgency) of the
    incident the change says it fixes, filed just before it (none when empty). `go`: whether it is scheduled
    (approved by `approver`); `holds`: the difficulties this instance holds; `pool`: the people a comment naming
    the approver is read against; `skip`: the manager's manager, looked up when the manager is away; `head`:
    the Chief Technology Officer, looked up for an emergency. The tickets it files are numbered from `first`."""

    rules = (CHANGES,)
    hard = ("away", "stale", "exception", "changed")

    first: int
    actor: int
    lead: int
    requester: int
    group: str
    team: str
    manager: int
    service: str
    what: str
    planned: date
    comments: tuple[tuple[int, str, int], ...]
    go: bool
    approver: int
    approver_handle: str
    pool: tuple[int, ...]
    days: int = 2
    moved_from: date | None = None
    moved_hours: int = 3
    incident: tuple[str, str, str] = ()
    emergency: bool = False  # scheduled inside the freeze as an emergency: it takes the retro-review label
    holds: tuple[str, ...] = ()
    skip: int = 0
    head: str = ""
    strict: bool = True
    beside: tuple[str, ...] = ()  # the other changes of the same request (look-alikes)
    state: str = ""  # the draw's name for what the change shows (procedures.changes_draws.STATES)
    reported_to: int = 0  # whom the report on it goes to: when not its requester, they may be told by DM why it waits

    @property
    def key(self) -> str:
        """The change's key."""
        return f"IT-{self.first + bool(self.incident)}"

    @property
    def incident_key(self) -> str:
        """The key of the incident the change says it fixes ("" when none)."""
        return f"IT-{self.first}" if self.incident else ""

    @property
    def filed(self) -> int:
        """How many IT tickets the setup files."""
        return 1 + bool(self.incident)

    @property
    def summary(self) -> str:
        """The change's summary, as the article writes it."""
        return f"Change: {self.service}: {self.what}"

    def setup(self, session):
        now = clock.company_now(session)
        requester, lead = session.get(Person, self.requester), session.get(Person, self.lead)
        described = f"What changes: {self.what}. Rollback: revert the change and redeploy the previous release."
        if self.incident:
            summary, impact, urgency = self.incident
            clock.set_time(session, workday_at(now, self.days + 1, 10))
            made = tickets.create_ticket(session, requester, "IT", "Incident", summary,
                                         f"{summary}; customers see failed requests.", impact=impact, urgency=urgency,
                                         components=["Production"])
            tickets.assign_ticket(session, lead, made.key, self.requester, self.group)
            tickets.transition_ticket(session, requester, made.key, "Resolve", "Workaround",
                                      "Mitigated by a restart; the change request fixes the cause.")
            assert made.key == self.incident_key, (made.key, self.incident_key)
            described += f" This fixes {made.key} ({summary})."
        clock.set_time(session, workday_at(now, self.days, 11))
        made = tickets.create_ticket(session, requester, "IT", "Service Request", self.summary, described,
                                     components=["Production"], due_date=(self.moved_from or self.planned).isoformat())
        assert made.key == self.key, (made.key, self.key)
        tickets.assign_ticket(session, lead, made.key, self.requester, self.group)
        for person_id in dict.fromkeys([self.manager, *(author for author, _, _ in self.comments)]):
            tickets.watch_ticket(session, lead, made.key, person_id)  # so that approvers outside the group see it
        events = [(hours, author, text) for author, text, hours in self.comments]
        if self.moved_from:
            events.append((self.moved_hours, 0, ""))
        for hours, author, text in sorted(events, key=lambda e: -e[0]):
            clock.set_time(session, now - timedelta(hours=hours))
            if author:
                tickets.add_comment(session, session.get(Person, author), self.key, text)
            else:  # the requester moves the planned day (the history shows it)
                tickets.update_ticket(session, requester, self.key, due_date=self.planned.isoformat())
                tickets.add_comment(session, requester, self.key, f"Moved to {day(self.planned)}: the vendor "
                                                                  "changed their maintenance window.")

    def reads(self) -> list[ToolCall]:
        """What the reference reads: the change, its comments and history, the group's team and its lead, the
        manager's manager while they are away, and the incident and the department's head for an emergency."""
        calls = [ToolCall("tickets_get_ticket", {"key": self.key}), ToolCall("tickets_list_comments", {"key": self.key}),
                 ToolCall("tickets_get_history", {"key": self.key}), ToolCall("tickets_get_group", {"group": self.group}),
                 ToolCall("org_get_team", {"team": self.team})]
        if self.skip:
            calls.append(ToolCall("org_get_person", {"person": self.manager}))
        if self.incident:
            calls += [ToolCall("tickets_get_ticket", {"key": self.incident_key}),
                      ToolCall("org_get_department", {"department": self.head})]
        return calls

    def work(self) -> list[ToolCall]:
        """Scheduling it: Start work with the comment the article asks for, and the label of an emergency."""
        calls = [ToolCall("tickets_transition_ticket", {"key": self.key, "transition": "Start work", "comment": (
            f"Scheduled for {day(self.planned)}, approved by @{self.approver_handle}.")})]
        if self.emergency:
            calls.append(ToolCall("tickets_update_ticket", {"key": self.key, "labels": [RETRO_LABEL]}))
        return calls

    def steps(self):
        return self.reads() + (self.work() if self.go else [])

    def declared(self):
        return self.holds

    def fallen(self, kind):
        if kind not in self.holds:
            return None
        # misses the approval that counts, or takes one that does not
        return self.reads() + ([] if self.go else self.work())

    def declare(self, start):
        if not self.go:  # left as it is: reading another one instead changes nothing
            return Declaration([Target("ticket", self.key, [])])
        return Declaration([Target("ticket", self.key, list(self.beside))])

    def check(self, ctx):
        was = ticket_by_key(ctx.start, self.key)
        now = ctx.final.get(Ticket, was.id)
        labels = {r["name"] for r in ctx.diff.table("tickets_label").added if r["ticket_id"] == was.id}
        if self.go:
            said = f"{self.key} is scheduled: moved to In Progress"
            results = [(guard if self.strict else check)(said, now.status == "In Progress", f"it is {now.status}")]
            people = [ctx.start.get(Person, i) for i in (self.approver, *self.pool)]
            claim = people_claim(people[:1], people[1:], "approver")
            results += says([c["body"] for c in new_comments(ctx, was.id)], claim.right, claim.others,
                            f"A comment on {self.key} names who approved it, {claim.right.label}", "approver",
                            weight=0.5, deniable=False)
            if self.emergency:
                results.append(check(f"{self.key}, an emergency change, has the label {RETRO_LABEL}",
                                     RETRO_LABEL in labels, f"labels added: {sorted(labels)}", weight=1))
        else:
            results = [guard(f"{self.key} is not scheduled: it stays {was.status}", now.status == was.status,
                             f"it is {now.status}")]
        allowed = [Allow("tickets_comment", ("added",), lambda r: r["ticket_id"] == was.id
                         and r["author_id"] == ctx.actor_id, limit=2)]
        # scheduled: its move; left: only what a comment touches
        allowed.append(Allow("tickets_ticket", ("updated",), lambda r: r["id"] == was.id and r["status"] == (
            "In Progress" if self.go else was.status), ("status", "updated_at", "first_response_at")))
        if not self.go and self.requester != self.reported_to:  # the article has its requester told why: by a
            allowed += dm_allowances(ctx, self.requester)  # comment on it, or in their DM
        if self.go and self.emergency:
            allowed.append(Allow("tickets_label", ("added",), lambda r: r["ticket_id"] == was.id
                                 and r["name"] == RETRO_LABEL))
        return Graded(results, allowed)

    def outcome(self):
        return CARRY_OUT if self.go else REFUSE

