"""The expense-claims procedure of the handbook's "Approving expense claims": Accounting lists this month's
expense items in the workbook "Expense claims <year>" (tab Claims; tab History the items decided before),
and each manager writes Approved or Rejected (with a Note) in the Decision of their reports' Pending rows,
by the Expense policy's limits as the article applies them (meals per person, hotels per night, filed
within 60 days, home-office equipment added up over twelve months, an item claimed once).

`ExpenseBook` plants the workbook and decides the rows (`ClaimRow.verdict`); `TellClaimants` is the direct
message to each employee whose row was rejected (the draws are in procedures.finance_draws)."""

from __future__ import annotations

import re

from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import select

from officegym import clock
from officegym.apps.org.models import Person
from officegym.apps.sheets import services as sheets
from officegym.apps.sheets.models import Cell
from officegym.graders.checks import check, guard
from officegym.graders.sheets import allow_workbook_cells, cells_guard, value_of
from officegym.graders.statements import Candidate, says
from officegym.seed_data.tickets_handbook_finance import CLAIMS

from ..base import CARRY_OUT, REFUSE, Declaration, Target, ToolCall
from ..common import allow_new_conversation, allow_posts
from ..sheets import sheet_named, workbook_titled
from ..w_people_replies import dm_name, dm_replies
from .core import NO_OUTCOME, Graded, Procedure

EXPENSES = "Expense policy"
HEADER = ["Claim", "Employee", "Manager", "Date", "Category", "Description", "Amount", "Submitted", "Decision", "Note"]
DECISION, NOTE = "I", "J"


# The words that name each rule a row may break (Approving expense claims), a Note holding one of them
# says why; "ok" or "rejected" says nothing.
PER_PERSON = ("person", "people", "head", "each", "meal")
PER_NIGHT = ("night", "nights", "hotel")
LATE = ("60", "sixty", "late", "days")
TWICE = ("duplicate", "already", "twice", "paid")
OFFICE = ("500", "home", "office", "twelve", "12", "months", "year", "equipment")


def names_rule(note: str, why: tuple[str, ...]) -> bool:
    """Whether a Note names the rule a row breaks: one of `why`, as a whole word (any Note, without `why`)."""
    words = set(re.findall(r"[a-z0-9]+", note.casefold()))
    return bool(note.strip()) and (not why or any(w in words for w in why))


@dataclass(frozen=True)
class ClaimRow:
    """One expense item as Accounting lists it: `days_ago` (its date) and `filed_days_ago` (submitted) count
    back from the episode's day; `decision` as listed (Pending, Approved, Paid); `verdict` what the actor
    writes (Approved or Rejected; "" leave the row alone), `note` why a row is rejected, `trap` the
    difficulty the row holds (a kind of HARDS, or ""), `why` the words that name the rule it breaks."""

    claim: str
    employee: int
    employee_name: str
    manager_name: str
    days_ago: int
    category: str
    description: str
    amount: float
    filed_days_ago: int
    decision: str = "Pending"
    verdict: str = ""
    note: str = ""
    trap: str = ""
    why: tuple[str, ...] = ()  # words of the rule it breaks, one of which a rejected row's Note must hold

    def values(self, today) -> list:
        """The row's cells as Accounting typed them."""
        day = lambda back: (today - timedelta(days=back)).isoformat()  # noqa: E731
        return [self.claim, self.employee_name, self.manager_name, day(self.days_ago), self.category,
                self.description, self.amount, day(self.filed_days_ago), self.decision, ""]


@dataclass(frozen=True)
class ExpenseBook(Procedure):
    """Plant the workbook `title` (owned by `controller`, `editors` and the actor editing it) and decide the
    actor's Pending rows of `rows` (the Claims tab) against `history` (the History tab). `asked`: the claim a
    colleague's message asks the actor to approve (its verdict makes the outcome). Difficulties: each row's
    `trap` (its near miss writes the other verdict, or approves it when the row is another manager's)."""

    rules = (CLAIMS, EXPENSES)
    hard = ("lookalike", "stale", "summed", "exception")

    title: str
    controller: int
    actor: int
    editors: tuple[int, ...]
    rows: tuple[ClaimRow, ...]
    history: tuple[ClaimRow, ...]
    asked: str = ""

    def cell(self, row: ClaimRow, column: str = DECISION) -> str:
        """The address of one of the row's cells on the Claims tab."""
        return f"Claims!{column}{self.rows.index(row) + 2}"

    @property
    def decided(self) -> tuple[ClaimRow, ...]:
        """The rows the actor decides."""
        return tuple(r for r in self.rows if r.verdict)

    def setup(self, session):
        owner = session.get(Person, self.controller)
        today = clock.company_now(session).date()
        clock.set_time(session, clock.company_now(session).replace(hour=9, minute=5) - timedelta(days=1))
        book = sheets.create_workbook(session, owner, self.title, ["Claims", "History"],
                                      "This month's expense items to decide, and the items decided before")
        for tab, rows in (("Claims", self.rows), ("History", self.history)):
            sheets.write_range(session, owner, book.id, f"{tab}!A1", [HEADER] + [r.values(today) for r in rows])
        for person in (self.actor, *self.editors):
            sheets.share_workbook(session, owner, book.id, person, "editor")

    def write(self, row: ClaimRow, verdict: str | None = None) -> ToolCall:
        """The call that decides a row (with its note when rejected)."""
        verdict = verdict or row.verdict
        cells = [{"cell": self.cell(row), "value": verdict}]
        if verdict == "Rejected":
            cells.append({"cell": self.cell(row, NOTE), "value": row.note or "Breaks the Expense policy"})
        return ToolCall("sheets_write_cells", {"workbook": self.title, "cells": cells})

    def steps(self, swap: dict[str, str] | None = None):
        swap = swap or {}
        calls = [ToolCall("sheets_read_range", {"workbook": self.title, "range": f"Claims!A1:J{len(self.rows) + 1}"}),
                 ToolCall("sheets_read_range", {"workbook": self.title,
                                                "range": f"History!A1:J{len(self.history) + 1}"})]
        return calls + [self.write(r, swap.get(r.claim)) for r in self.decided]

    def declared(self):
        return tuple(k for k in self.hard if any(r.trap == k for r in self.rows))

    def fallen(self, kind):
        row = next((r for r in self.rows if r.trap == kind), None)
        if row is None:
            return None
        if not row.verdict:  # a row not the actor's to decide (another manager's): approves it too
            return self.steps() + [self.write(row, "Approved")]
        return self.steps({row.claim: "Rejected" if row.verdict == "Approved" else "Approved"})

    def declare(self, start):
        others = [self.cell(r) for r in self.rows if not r.verdict]
        book = workbook_titled(start, self.title)
        extra = {"workbook": book.id} if book is not None else {}
        over = ("summed", "Rejected")  # the asked row first, else the row over the twelve months' limit
        first = sorted(self.decided, key=lambda r: (r.claim != self.asked, (r.trap, r.verdict) != over))
        return Declaration([Target("cell", self.cell(r), others, extra) for r in first])

    def _shows(self, session, book_id: int, address: str) -> str:
        sheet = sheet_named(session, book_id, "Claims")
        col, row = ord(address.split("!")[1][0]) - ord("A"), int(address.split("!")[1][1:]) - 1
        found = session.scalar(select(Cell).where(Cell.sheet_id == sheet.id, Cell.row == row, Cell.col == col))
        value = value_of(found)
        return "" if value is None else str(value).strip()

    def check(self, ctx):
        book = workbook_titled(ctx.start, self.title)
        wrong, unnoted = [], []
        for row in self.decided:
            shown = self._shows(ctx.final, book.id, self.cell(row))
            if shown.lower() != row.verdict.lower():
                wrong.append(f"{row.claim} ({row.description}): {shown!r}, not {row.verdict}")
            elif row.verdict == "Rejected" and not names_rule(self._shows(ctx.final, book.id, self.cell(row, NOTE)),
                                                              row.why):
                unnoted.append(row.claim)
        ranges = [self.cell(r, c) for r in self.decided for c in (DECISION, NOTE)]
        results = [guard("Every Pending row of your reports is decided as the handbook says", not wrong,
                         f"{len(wrong)} rows are not: {'; '.join(wrong[:4])}"),
                   check("Every row you rejected has a Note naming the rule it breaks", not unnoted,
                         f"no Note naming its rule on {unnoted}"),
                   cells_guard(ctx, book.id, ranges)]
        return Graded(results, allow_workbook_cells(ctx, book.id))

    def outcome(self):
        asked = next((r for r in self.rows if r.claim == self.asked), None)
        if asked is None:
            return NO_OUTCOME
        return REFUSE if asked.verdict == "Rejected" else CARRY_OUT


@dataclass(frozen=True)
class TellClaimants(Procedure):
    """A direct message to each employee of `rejected` ((person id, handle, claim ids)) naming the claims
    rejected; a message to any of `others` (the actor's other claimants) is allowed, never required."""

    rules = (CLAIMS,)

    actor: int
    rejected: tuple[tuple[int, str, tuple[str, ...]], ...]
    others: tuple[int, ...] = ()
    texts: tuple[str, ...] = ()

    def steps(self):
        calls: list[ToolCall] = []
        for (_person, handle, _claims), text in zip(self.rejected, self.texts):
            calls += [ToolCall("chat_open_conversation", {"people": [f"@{handle}"]}),
                      ToolCall("chat_post_message", {"channel": dm_name(self.actor, _person), "text": text},
                               role="note")]
        return calls

    def check(self, ctx):
        results, allowed = [], []
        everyone = [(p, claims) for p, _h, claims in self.rejected] + [(p, ()) for p in self.others]
        for person, claims in everyone:
            dm, texts = dm_replies(ctx, person)
            _channel, opened = allow_new_conversation(ctx, [ctx.final.get(Person, ctx.actor_id),
                                                             ctx.final.get(Person, person)])
            allowed += opened + (allow_posts(ctx, dm, limit=1, mentions=2) if dm else [])
            name = ctx.start.get(Person, person).name
            for claim in claims:
                results += says(texts, Candidate.text(claim), [], f"A direct message tells {name} that {claim} "
                                "was rejected", "claim", weight=2, deniable=False)
        return Graded(results, allowed)
