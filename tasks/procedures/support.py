"""The customer-case procedures of the handbook's "Duplicate customer cases" and "Reopening a customer
case": the account owner merges a customer's duplicate open cases into the one that stays open
(`MergeDuplicates`), and answers a customer who writes again about a closed problem by reopening its
case or opening a new one that names it (`ReopenCase`). The cases they work on are planted by the
setup (`PlantedCase`, `plant_cases`), their ids allotted in the plan (`CaseIds`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import select

from officegym import clock
from officegym.apps.crm import services as crm
from officegym.apps.crm.models import CASE_PRIORITIES, Account, Case
from officegym.apps.org.models import Person
from officegym.graders.checks import Allow, check, guard
from officegym.graders.statements import Candidate, says
from officegym.seed_data.tickets_handbook_support import DUPLICATE_NOTE, REOPEN_DAYS, REOPENED_NOTE

from ..base import CARRY_OUT, Declaration, Target, ToolCall
from ..crm import allow_activity, new_activities, same_text
from ..w_support_common import OPEN
from .core import Graded, Procedure

DUPLICATES = "Duplicate customer cases"
REOPENING = "Reopening a customer case"


@dataclass(frozen=True)
class PlantedCase:
    """A case the setup opens for the owner on `account`, `hours` before now, in `status` (New, Working,
    Escalated or Closed, `closed_days` ago) with `priority` (escalating raises it to High at least)."""

    id: int
    account: int
    subject: str
    hours: int
    priority: str
    status: str = "New"
    closed_days: int = 0

    @property
    def shown_priority(self) -> str:
        """Its priority once planted (an escalated case is High at least)."""
        if self.status == "Escalated" and CASE_PRIORITIES.index(self.priority) < CASE_PRIORITIES.index("High"):
            return "High"
        return self.priority


class CaseIds:
    """Allots the ids the setup's cases get, in the order the procedures plant them."""

    def __init__(self, session):
        self.next = (session.scalar(select(Case.id).order_by(Case.id.desc()).limit(1)) or 0) + 1

    def take(self) -> int:
        """The id of the next case planted."""
        self.next += 1
        return self.next - 1


def plant_cases(session, owner_id: int, cases: tuple[PlantedCase, ...]) -> None:
    """Open the cases for the owner at their times, in order (each must get its allotted id), then
    move each to its status."""
    owner, now = session.get(Person, owner_id), clock.company_now(session)
    for case in cases:
        clock.set_time(session, now - timedelta(hours=case.hours))
        made = crm.create_case(session, owner, case.account, case.subject, "The customer reported it by email.",
                               case.priority, "Email")
        if made.id != case.id:
            raise RuntimeError(f"the setup opened case {made.id}, not {case.id}")
        if case.status == "Working":
            crm.update_case(session, owner, case.id, status="Working")
        elif case.status == "Escalated":
            crm.escalate_case(session, owner, case.id, "Engineering must look at it.")
        elif case.status == "Closed":
            clock.set_time(session, now - timedelta(days=case.closed_days, hours=1))
            crm.update_case(session, owner, case.id, status="Closed")


def case_note(case: int, subject: str, body: str) -> ToolCall:
    """A note logged on a case."""
    return ToolCall("crm_log_activity", {"record_type": "case", "record_id": case, "kind": "note",
                                         "subject": subject, "body": body}, role="note")


def case_ids(ids) -> list[Candidate]:
    """Case ids as a reply or a note writes them."""
    return [Candidate.text(str(i), f"case {i}", f"#{i}") for i in ids]


def other_accounts(start, owner: int, account: int, first: int | None = None, limit: int = 12) -> list[int]:
    """The owner's other accounts, `first` (another account in the task) ahead, then the nearest by id."""
    theirs = start.scalars(select(Account.id).where(Account.owner_id == owner, Account.id != account))
    near = sorted((a for a in theirs if a != first), key=lambda a: (abs(a - account), a))
    return ([first] if first else []) + near[:limit]


def owners_lookalikes(start, owner: int, keep: set[int], limit: int = 12) -> list[int]:
    """The owner's other open cases (those an agent could close by mistake), by id."""
    return [c for c in start.scalars(select(Case.id).where(Case.owner_id == owner, Case.status.in_(OPEN + (
        "Escalated",))).order_by(Case.id.desc())) if c not in keep][:limit]


@dataclass(frozen=True)
class MergeDuplicates(Procedure):
    """Merge one customer's duplicate open cases (`cases`, of `subject` on `account`, owned by the actor):
    the one opened first stays open, unless one is Escalated (then it stays); each other one gets a
    "Duplicate" note naming it and is Closed; the one that stays takes the highest priority. `lookalike`:
    an open case of the same subject on another account of the owner, left alone. Difficulties:
    `exception` (an Escalated case opened later stays), `lookalike` (that other account's case), `stale`
    (`said`: the request names another case to keep; the handbook decides)."""

    rules = (DUPLICATES,)
    hard = ("exception", "lookalike", "stale")

    owner: int
    account: int
    account_name: str
    cases: tuple[PlantedCase, ...]
    lookalike: PlantedCase | None = None
    said: int = 0  # the case the request says to keep (0: it names none)

    def first(self) -> PlantedCase:
        """The case opened first."""
        return max(self.cases, key=lambda c: c.hours)

    def survivor(self) -> PlantedCase:
        """The case that stays open."""
        return next((c for c in self.cases if c.status == "Escalated"), self.first())

    def top(self) -> str:
        """The highest priority among the duplicates."""
        return max((c.shown_priority for c in self.cases), key=CASE_PRIORITIES.index)

    def setup(self, session):
        plant_cases(session, self.owner, self.cases + ((self.lookalike,) if self.lookalike else ()))

    def merged(self, kept: PlantedCase, closed: tuple[PlantedCase, ...]) -> list[ToolCall]:
        """Closing `closed` into `kept`, and raising `kept` to the highest priority."""
        calls = [ToolCall("crm_list_cases", {"account": self.account, "status": "open"})]
        for case in closed:
            calls += [case_note(case.id, DUPLICATE_NOTE, f"Duplicate of case {kept.id}."),
                      ToolCall("crm_update_case", {"case": case.id, "status": "Closed"})]
        top = max((c.shown_priority for c in (kept, *closed)), key=CASE_PRIORITIES.index)
        if top != kept.shown_priority:
            calls.append(ToolCall("crm_update_case", {"case": kept.id, "priority": top}))
        return calls

    def steps(self):
        kept = self.survivor()
        return self.merged(kept, tuple(c for c in self.cases if c != kept))

    def declared(self):
        return (("exception",) * (self.survivor() != self.first()) + ("lookalike",) * bool(self.lookalike)
                + ("stale",) * bool(self.said and self.said != self.survivor().id))

    def fallen(self, kind):
        if kind not in self.declared():
            return None
        if kind == "stale":  # the case the request named kept
            told = next(c for c in self.cases if c.id == self.said)
            return self.merged(told, tuple(c for c in self.cases if c != told))
        if kind == "exception":  # the case opened first kept, the Escalated one closed
            return self.merged(self.first(), tuple(c for c in self.cases if c != self.first()))
        kept = self.survivor()  # the other account's case of the same subject closed too
        return self.merged(kept, tuple(c for c in self.cases if c != kept) + (self.lookalike,))

    def declare(self, start):
        ids = {c.id for c in self.cases}
        near = ([self.lookalike.id] if self.lookalike else []) + owners_lookalikes(start, self.owner, ids)
        accounts = other_accounts(start, self.owner, self.account, self.lookalike.account if self.lookalike else None)
        return Declaration([Target("account", self.account, accounts), *(Target("case", c.id, near)
                                                                         for c in self.cases)])

    def check(self, ctx):
        kept, results, allowed = self.survivor(), [], []
        for case in self.cases:
            now = ctx.final.get(Case, case.id)
            if case == kept:
                top = (f"Case {case.id} has the duplicates' highest priority, {self.top()}",
                       now.priority == self.top(), f"it is {now.priority}")
                results += [guard(f"Case {case.id} of {self.account_name} stays open", now.status == case.status,
                                  f"it is {now.status}"),
                            check(*top) if self.top() != case.shown_priority else guard(*top)]
                allowed.append(Allow("crm_case", ("updated",), lambda row, i=case.id: row["id"] == i
                                     and row["priority"] == self.top(), ("priority",)))
                continue
            notes = [f"{r['subject']}\n{r['body']}" for r in new_activities(ctx, "case", case.id, "note")]
            results += [check(f"Duplicate case {case.id} of {self.account_name} is Closed", now.status == "Closed",
                              f"it is {now.status}", weight=1),
                        *says(notes, case_ids([kept.id])[0], [],  # it may name the other duplicates too
                              f"A note on case {case.id} names the case that stays open, {kept.id}", "case kept open",
                              weight=1)]
            allowed += [Allow("crm_case", ("updated",), lambda row, i=case.id: row["id"] == i
                              and row["status"] == "Closed", ("status", "closed_at")),
                        allow_activity("case", case.id, "note", ctx.actor_id)]
        return Graded(results, allowed)

    def outcome(self):
        return CARRY_OUT


@dataclass(frozen=True)
class ReopenCase(Procedure):
    """A customer writes again (`report`) about `subject`: the account's most recently Closed case of it
    (`closed[0]`) is reopened (a "Reopened" note, then Working) when closed at most REOPEN_DAYS ago; else
    it stays Closed and a new case of the subject names it. `closed[1:]`: older Closed cases of the same
    subject, left alone. Difficulties: `exception` (closed too long ago: a new case), `lookalike` (an
    older Closed case of the subject, beside a case to reopen), `stale` (`said_days`: the message that
    passes the report on says it was closed on the other side of REOPEN_DAYS; the closed date decides)."""

    rules = (REOPENING,)
    hard = ("exception", "lookalike", "stale")

    owner: int
    account: int
    account_name: str
    subject: str
    report: str
    closed: tuple[PlantedCase, ...]
    said_days: int = 0  # how long ago the message that passes the report on says it was closed (0: it does not)

    @property
    def reopens(self) -> bool:
        """Whether the case that counts was closed recently enough to be reopened."""
        return self.closed[0].closed_days <= REOPEN_DAYS

    def setup(self, session):
        plant_cases(session, self.owner, tuple(sorted(self.closed, key=lambda c: c.id)))

    def acted(self, case: PlantedCase, reopen: bool) -> list[ToolCall]:
        """Reopening `case`, or opening a new case that follows it."""
        calls = [ToolCall("crm_list_cases", {"account": self.account, "status": "Closed"})]
        if reopen:
            return calls + [case_note(case.id, REOPENED_NOTE, f"The customer wrote again: {self.report}"),
                            ToolCall("crm_update_case", {"case": case.id, "status": "Working"})]
        return calls + [ToolCall("crm_create_case", {"account": self.account, "subject": self.subject, "description":
                                                     f"Follows case {case.id}. {self.report}"}, role="note")]

    def steps(self):
        return self.acted(self.closed[0], self.reopens)

    def declared(self):
        stale = self.said_days and (self.said_days <= REOPEN_DAYS) != self.reopens
        return (("exception",) * (not self.reopens) + ("lookalike",) * (self.reopens and len(self.closed) > 1)
                + ("stale",) * bool(stale))

    def fallen(self, kind):
        if kind not in self.declared():
            return None
        if kind == "exception":  # reopened all the same
            return self.acted(self.closed[0], True)
        if kind == "stale":  # done as the message's date would have it
            return self.acted(self.closed[0], not self.reopens)
        return self.acted(self.closed[1], self.reopens)  # the older case taken for the one that counts

    def declare(self, start):
        return Declaration([Target("account", self.account, other_accounts(start, self.owner, self.account)),
                            Target("case", self.closed[0].id, [c.id for c in self.closed[1:]] + owners_lookalikes(
                                start, self.owner, set()))])

    def new_cases(self, ctx) -> list[dict]:
        """The cases the actor opened on the account during the episode."""
        return [r for r in ctx.diff.table("crm_case").added if r["account_id"] == self.account
                and r["owner_id"] == ctx.actor_id]

    def check(self, ctx):
        case, made = self.closed[0], self.new_cases(ctx)
        now = ctx.final.get(Case, case.id)
        if self.reopens:
            notes = [r["body"] or "" for r in new_activities(ctx, "case", case.id, "note")]
            return Graded([check(f"Case {case.id} of {self.account_name} is reopened (Working)",
                                 now.status == "Working", f"it is {now.status}", weight=2),
                           check(f"A note on case {case.id} says what the customer reports",
                                 len(notes) == 1 and len(notes[0].split()) >= 4, f"notes {notes}", weight=1),
                           guard(f"No new case on {self.account_name}", not made, f"{len(made)} opened")],
                          [Allow("crm_case", ("updated",), lambda row: row["id"] == case.id
                                 and row["status"] == "Working", ("status", "closed_at")),
                           allow_activity("case", case.id, "note", ctx.actor_id)])
        texts = [r["description"] or "" for r in made]
        return Graded([guard(f"Case {case.id} of {self.account_name} stays Closed", now.status == "Closed",
                             f"it is {now.status}"),
                       check(f"One new case on {self.account_name} about \"{self.subject}\"",
                             len(made) == 1 and same_text(made[0]["subject"], self.subject),
                             f"{[r['subject'] for r in made]}", weight=2),
                       *says(texts, case_ids([case.id])[0], [],
                             f"Its description names the old case, {case.id}", "old case", weight=1)],
                      [Allow("crm_case", ("added",), lambda row: row["account_id"] == self.account
                             and row["owner_id"] == ctx.actor_id, limit=1)])

    def outcome(self):
        return CARRY_OUT
