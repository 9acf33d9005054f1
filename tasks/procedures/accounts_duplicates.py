"""The procedure of the handbook's "Duplicate contacts" (`MergeContacts`): Sales Operations files a pair of
contacts of one name as a SOPS task for their owner. At one account they are one person: the record created
first survives, the duplicate's open task is logged again on the survivor and completed on the duplicate, the
duplicate is marked (" (duplicate)" after its last name, email and phone cleared), and the ticket is answered
naming the survivor's email and sent to review. At two accounts they are two people: nothing changes and the
ticket is closed as Won't Do naming both accounts. The setup adds the second record (created before the world's
one, when it is to survive), the open task on whichever is the duplicate, and the ticket."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta

from officegym import clock
from officegym.apps.crm import services as crm
from officegym.apps.crm.models import Activity, Contact
from officegym.apps.org.models import Person
from officegym.apps.tickets import services as tickets
from officegym.graders.checks import Allow, check
from officegym.graders.statements import Candidate
from officegym.seed_data.tickets_handbook_accounts import DUPLICATE_MARK, DUPLICATES

from ..base import CARRY_OUT, REFUSE, Claim, Declaration, Target, ToolCall
from ..crm import allow_activity, same_text
from ..handbook import rule_claim
from .accounts_tickets import PAIR_SUMMARY, answered
from .core import Graded, Procedure

MERGED = ("merged", "marked", "done")


@dataclass(frozen=True)
class NewContact:
    """The second record the setup adds: at `account`, created at `created`."""

    account: int
    email: str
    phone: str
    title: str
    created: datetime


@dataclass(frozen=True)
class MergeContacts(Procedure):
    """The SOPS task `key` on the contacts `existing` (the world's) and `added` (the id the setup's record gets),
    both named `first_name` `last_name`, owned by `actor`. `same_account`: one person (merged) or two (refused).
    `survivor`/`duplicate`: the ids by creation. `task_subject`/`task_due`: the open task on the duplicate.
    Difficulties: `lookalike` (two accounts: the near miss merges them) and `stale` (the record added later is
    the survivor's elder: the near miss keeps the newer one, the ticket's first-named)."""

    rules = (DUPLICATES,)
    hard = ("lookalike", "stale")

    key: str
    actor: int
    filer: int
    existing: int
    added: int
    first_name: str
    last_name: str
    new: NewContact
    existing_email: str
    existing_account: str
    added_account: str
    same_account: bool
    survivor: int
    task_subject: str
    task_due: date
    task: int  # the id the open task gets
    other_accounts: tuple[str, ...] = ()  # the owner's other accounts (a refusal's candidates)
    colleagues: tuple[str, ...] = ()  # the emails of the account's other contacts (an answer's candidates)
    hours_ago: int = 3

    @property
    def duplicate(self) -> int:
        """The record to mark."""
        return self.added if self.survivor == self.existing else self.existing

    def email_of(self, contact: int) -> str:
        """A record's email at the start."""
        return self.existing_email if contact == self.existing else self.new.email

    def setup(self, session):
        now = clock.company_now(session)
        owner = session.get(Person, self.actor)
        clock.set_time(session, self.new.created)
        made = crm.create_contact(session, owner, self.new.account, self.first_name, self.last_name, self.new.title,
                                  self.new.email, self.new.phone)
        assert made.id == self.added, (made.id, self.added)
        clock.set_time(session, now - timedelta(days=6, hours=self.hours_ago))
        made_task = crm.log_activity(session, owner, "contact", self.duplicate, "task", self.task_subject,
                                     due_date=self.task_due.isoformat())
        assert made_task.id == self.task, (made_task.id, self.task)
        clock.set_time(session, now - timedelta(hours=self.hours_ago))
        tickets.create_ticket(session, session.get(Person, self.filer), "SOPS", "Task",
                              f"{PAIR_SUMMARY}{self.first_name} {self.last_name}", (
                                  f"The duplicate check found two contacts named {self.first_name} {self.last_name}: "
                                  f"{self.new.email} and {self.existing_email}. Please merge them as the handbook "
                                  "says if they are one person."), assignee=self.actor)

    def reads(self) -> list[ToolCall]:
        """The reads that find both records and the duplicate's open task."""
        return [ToolCall("tickets_get_ticket", {"key": self.key}),
                ToolCall("crm_list_contacts", {"query": f"{self.first_name} {self.last_name}"}),
                ToolCall("crm_get_contact", {"contact": self.added}),
                ToolCall("crm_get_contact", {"contact": self.existing}),
                ToolCall("crm_list_activities", {"record_type": "contact", "record_id": self.duplicate,
                                                 "kind": "task"})]

    def merge(self, survivor: int) -> list[ToolCall]:
        """The writes that merge the pair into `survivor`."""
        duplicate = self.added if survivor == self.existing else self.existing
        return [ToolCall("crm_log_activity", {"record_type": "contact", "record_id": survivor, "kind": "task",
                                              "subject": self.task_subject, "due_date": self.task_due.isoformat()}),
                ToolCall("crm_complete_task", {"activity": self.task}),
                ToolCall("crm_update_contact", {"contact": duplicate, "last_name": self.last_name + DUPLICATE_MARK,
                                                "email": "", "phone": ""}),
                ToolCall("tickets_transition_ticket", {"key": self.key, "transition": "Start progress"}),
                ToolCall("tickets_transition_ticket", {"key": self.key, "transition": "Submit for review", "comment": (
                    f"Merged: {self.email_of(survivor)} is the surviving record; the other is marked as a duplicate "
                    "and its open task carried over.")}, role="report", text_arg="comment")]

    def steps(self):
        if self.same_account:
            return self.reads() + self.merge(self.survivor)
        text = (f"These are two people, not one: one {self.first_name} {self.last_name} is a contact of "
                f"{self.existing_account}, the other of {self.added_account}. Per {DUPLICATES} only contacts of the "
                "same account are merged, so nothing was changed; closing as Won't Do.")
        return self.reads() + [ToolCall("tickets_transition_ticket", {
            "key": self.key, "transition": "Close", "resolution": "Won't Do", "comment": text},
            role="refusal", text_arg="comment", instead=self.merge(self.existing))]

    def declared(self):
        if not self.same_account:
            return ("lookalike",)
        return ("stale",) if self.survivor == self.added else ()

    def fallen(self, kind):
        if kind not in self.declared():
            return None
        return self.reads() + self.merge(self.existing if kind == "lookalike" else self.added
                                         if self.survivor == self.existing else self.existing)

    def _facts(self, start) -> list[Claim]:
        if not self.same_account:
            return [replace_field(rule_claim(start, DUPLICATES)),
                    Claim(Candidate.text(self.added_account), [Candidate.text(a) for a in self.other_accounts],
                          "comment", "other account")]
        # the duplicate's email is no candidate: "<survivor> stays, <duplicate> is marked" is a fair answer
        return [Claim(Candidate.text(self.email_of(self.survivor)), [Candidate.text(e) for e in self.colleagues],
                      "comment", "surviving record's email")]

    def declare(self, start):
        return Declaration([Target("contact", self.existing, [self.added])], self._facts(start))

    def check(self, ctx):
        results, allowed = [], []
        if self.same_account:
            dup = ctx.final.get(Contact, self.duplicate)
            marked = dup is not None and same_text(dup.last_name, self.last_name + DUPLICATE_MARK) \
                and not dup.email and not dup.phone
            held = f"{dup.last_name!r}, {dup.email!r}, {dup.phone!r}" if dup else "gone"
            results.append(check(f"The duplicate ({self.email_of(self.duplicate)}) is marked and its email and phone "
                                 "cleared", marked, held, weight=2))
            carried = [r for r in ctx.diff.table("crm_activity").added if r["record_type"] == "contact"
                       and r["record_id"] == self.survivor and r["kind"] == "task" and str(r["due_date"]) ==
                       self.task_due.isoformat() and same_text(r["subject"], self.task_subject)]
            results.append(check(f"The task \"{self.task_subject}\" is carried over to the survivor", len(carried) == 1,
                                 f"{len(carried)} such tasks", weight=2))
            task = ctx.final.get(Activity, self.task)
            results.append(check("The duplicate's task is completed", task is not None and task.status == "Completed",
                                 "still open"))
            allowed += [Allow("crm_contact", ("updated",), lambda r: r["id"] == self.duplicate,
                              ("last_name", "email", "phone")),
                        allow_activity("contact", self.survivor, "task", ctx.actor_id),
                        Allow("crm_activity", ("updated",), lambda r: r["id"] == self.task, ("status", "completed_at"))]
        facts = self._facts(ctx.start)[0 if self.same_account else 1:]
        answer = answered(ctx, self.key, self.same_account, DUPLICATES, MERGED, facts)
        return Graded(results + answer.results, allowed + answer.allowed)

    def outcome(self):
        return CARRY_OUT if self.same_account else REFUSE


def replace_field(claim: Claim) -> Claim:
    """The claim stated in a ticket comment (the `comment` argument)."""
    return replace(claim, field="comment")
