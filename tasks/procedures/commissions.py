"""The commissions procedure of the handbook's "Sales commissions": Sales Operations lists a quarter's Closed
Won deals in the workbook "Commissions Q<n> <year>" (tab Rows: Deal, Owner, Type, Amount, Rate %, Commission,
Status, Note), and each rep's manager checks their direct reports' rows against the CRM before payroll: Type
and Amount as the CRM has them, the rate by type (half of it for a deal with a line discounted above the
limit), the commission recomputed, Approved; a row of a deal reopened since, closed in another quarter or
owned by another rep is Rejected with a Note saying why.

`CommissionBook` plants the workbook (and reopens the deals the rows say were won) and checks the rows;
`AddedRow` is a rep's missing deal, added when it qualifies (the draws are in procedures.commissions_draws)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import select

from officegym import clock
from officegym.apps.crm import services as crm
from officegym.apps.org.models import Person
from officegym.apps.sheets import services as sheets
from officegym.apps.sheets.models import Cell
from officegym.graders.checks import check, guard
from officegym.graders.sheets import allow_workbook_cells, cells_guard, close, value_of
from officegym.graders.statements import Candidate, says
from officegym.seed_data.tickets_handbook_commissions import COMMISSIONS

from ..base import CARRY_OUT, REFUSE, Declaration, Target, ToolCall
from ..sheets import sheet_named, workbook_titled
from .core import NO_OUTCOME, Graded, Procedure

TAB = "Rows"
HEADER = ["Deal", "Owner", "Type", "Amount", "Rate %", "Commission", "Status", "Note"]
COLUMN = {name: chr(ord("A") + k) for k, name in enumerate(HEADER)}
TO_CHECK = "To check"


def number(value: float):
    """A number as a tool types it (a whole number without decimals)."""
    return int(value) if float(value).is_integer() else value


@dataclass(frozen=True)
class CommissionRow:
    """One row as Sales Operations listed it (`kind`, `amount`, `rate`) and as the CRM and the article make it
    (`right_kind`, `right_amount`, `right_rate`); `verdict` what the actor writes in Status (Approved,
    Rejected, or "" for a row not theirs to check), `why` the spellings a rejected row's Note may give,
    `trap` the difficulty the row holds (a kind of HARDS, or "")."""

    deal: int
    deal_name: str
    owner_name: str
    kind: str
    amount: float
    rate: float
    right_kind: str
    right_amount: float
    right_rate: float
    verdict: str = ""
    why: tuple[str, ...] = ()
    trap: str = ""
    note: str = ""  # the reference's Note on a rejected row

    @property
    def commission(self) -> float:
        """The Commission as listed."""
        return round(self.amount * self.rate / 100, 2)

    @property
    def right_commission(self) -> float:
        """The Commission as the article makes it."""
        return round(self.right_amount * self.right_rate / 100, 2)

    @property
    def corrected(self) -> bool:
        """Whether checking it changes a figure (an approved row that disagreed)."""
        return self.verdict == "Approved" and (self.kind, self.amount, self.rate) != (
            self.right_kind, self.right_amount, self.right_rate)

    def values(self, status: str = TO_CHECK, right: bool = False) -> list:
        """The row's cells as listed (or, `right`, as they should end)."""
        kind, amount, rate, paid = ((self.right_kind, self.right_amount, self.right_rate, self.right_commission)
                                    if right else (self.kind, self.amount, self.rate, self.commission))
        return [self.deal_name, self.owner_name, kind, number(amount), number(rate), number(paid), status, ""]


def _cell_value(session, book_id: int, address: str):
    sheet = sheet_named(session, book_id, TAB)
    col, row = ord(address[0]) - ord("A"), int(address[1:]) - 1
    return value_of(session.scalar(select(Cell).where(Cell.sheet_id == sheet.id, Cell.row == row, Cell.col == col)))


def row_shows(session, book_id: int, line: int, row: CommissionRow) -> list[str]:
    """What is wrong with the final cells of an approved row at 1-based `line` (empty: it is right)."""
    shown = {name: _cell_value(session, book_id, f"{COLUMN[name]}{line}") for name in HEADER}
    wrong = []
    if str(shown["Type"] or "").strip().casefold() != row.right_kind.casefold():
        wrong.append(f"Type {shown['Type']!r}")
    for name, right in (("Amount", row.right_amount), ("Commission", row.right_commission)):
        if not isinstance(shown[name], (int, float)) or not close(shown[name], right, 0.011):
            wrong.append(f"{name} {shown[name]!r}, not {right}")
    rate = shown["Rate %"]
    if not isinstance(rate, (int, float)) or not (close(rate, row.right_rate) or close(rate * 100, row.right_rate)):
        wrong.append(f"Rate % {rate!r}, not {row.right_rate:g}")
    return wrong


def note_checks(row: CommissionRow, note: str) -> list:
    """The checks of a rejected row's Note: it names why (one of the row's `why` spellings; a note of a rejection
    is worded as one, "no longer Closed Won", so its negations deny nothing)."""
    return says([note], Candidate.text(row.why[0], *row.why[1:]), [], f"The Note on {row.deal_name}'s row says why "
                f"it is rejected ({row.why[0]})", "reason", weight=1.5, deniable=False)


@dataclass(frozen=True)
class CommissionBook(Procedure):
    """Plant the workbook `title` (owned by `sales_ops`, the actor editing it), reopen the deals of `reopened`
    ((deal, owner) pairs) after the rows were listed, and check the actor's rows of `rows`. `asked`: the deal
    a rep asks about (its row's outcome: a raise refused when the listed rate stands). Difficulties: each
    row's `trap` (the near miss approves the row as listed, or approves another manager's row too)."""

    rules = (COMMISSIONS,)
    hard = ("lookalike", "stale", "exception", "changed")

    title: str
    sales_ops: int
    actor: int
    rows: tuple[CommissionRow, ...]
    reopened: tuple[tuple[int, int], ...] = ()
    reports_read: ToolCall | None = None
    asked: str = ""
    adds_row: bool = False  # a rep's missing deal is added at the end of the tab (AddedRow)
    access: str = "editor"  # the actor's access to the workbook

    def cell(self, row: CommissionRow, column: str = "Status") -> str:
        """The address of one of the row's cells on the tab (without the tab)."""
        return f"{COLUMN[column]}{self.line(row)}"

    def line(self, row: CommissionRow) -> int:
        """The row's line on the tab (1-based, the header first), found by its deal."""
        return next(k for k, r in enumerate(self.rows) if r.deal == row.deal) + 2

    @property
    def checked(self) -> tuple[CommissionRow, ...]:
        """The rows the actor checks."""
        return tuple(r for r in self.rows if r.verdict)

    def setup(self, session):
        owner = session.get(Person, self.sales_ops)
        clock.set_time(session, clock.company_now(session).replace(hour=8, minute=40) - timedelta(days=1))
        book = sheets.create_workbook(session, owner, self.title, [TAB], "The quarter's commissions, one row a deal")
        sheets.write_range(session, owner, book.id, f"{TAB}!A1", [HEADER] + [r.values() for r in self.rows])
        sheets.share_workbook(session, owner, book.id, self.actor, self.access)
        for minute, (deal, rep) in enumerate(self.reopened):
            clock.set_time(session, clock.company_now(session).replace(hour=15, minute=10 + minute))
            crm.reopen(session, session.get(Person, rep), deal)

    def write(self, row: CommissionRow, approve_as_listed: bool = False) -> ToolCall:
        """The call that checks a row: its Status (and Note), with its figures corrected where they differ."""
        if row.verdict == "Rejected" and not approve_as_listed:
            cells = [{"cell": f"{TAB}!{self.cell(row)}", "value": "Rejected"},
                     {"cell": f"{TAB}!{self.cell(row, 'Note')}", "value": row.note or row.why[0]}]
        else:
            right = row.values("Approved", right=not approve_as_listed)
            cells = [{"cell": f"{TAB}!{self.cell(row, name)}", "value": value}
                     for name, value in zip(HEADER[2:7], right[2:7])
                     if name == "Status" or value != row.values()[HEADER.index(name)]]
        return ToolCall("sheets_write_cells", {"workbook": self.title, "cells": cells})

    def steps(self, as_listed: tuple[str, ...] = ()):
        calls = [self.reports_read] if self.reports_read else []
        area = f"{TAB}!A1:H{len(self.rows) + 1}"
        calls.append(ToolCall("sheets_read_range", {"workbook": self.title, "range": area}))
        for row in self.checked:
            calls += [ToolCall("crm_get_opportunity", {"opportunity": row.deal}),
                      self.write(row, row.deal_name in as_listed)]
        return calls

    def declared(self):
        return tuple(k for k in self.hard if any(r.trap == k for r in self.rows))

    def fallen(self, kind):
        row = next((r for r in self.rows if r.trap == kind), None)
        if row is None:
            return None
        if not row.verdict:  # another manager's row: approved as listed too
            return self.steps() + [ToolCall("sheets_write_cells", {"workbook": self.title, "cells": [
                {"cell": f"{TAB}!{self.cell(row)}", "value": "Approved"}]})]
        return self.steps((row.deal_name,))

    def declare(self, start):
        others = [f"{TAB}!{self.cell(r)}" for r in self.rows if not r.verdict]
        book = workbook_titled(start, self.title)
        extra = {"workbook": book.id} if book is not None else {}
        first = sorted(self.checked, key=lambda r: (r.deal_name != self.asked, not r.trap, r.deal))  # not by place
        return Declaration([Target("cell", f"{TAB}!{self.cell(r)}", others, extra) for r in first])

    def check(self, ctx):
        book = workbook_titled(ctx.start, self.title)
        statuses, figures, notes = [], [], []
        for row in self.checked:
            line = self.line(row)
            status = str(_cell_value(ctx.final, book.id, self.cell(row)) or "").strip()
            if status.casefold() != row.verdict.casefold():
                statuses.append(f"{row.deal_name}: {status!r}, not {row.verdict}")
            elif row.verdict == "Approved" and row_shows(ctx.final, book.id, line, row):
                figures.append(f"{row.deal_name}: {', '.join(row_shows(ctx.final, book.id, line, row))}")
            elif row.verdict == "Rejected":
                notes.append((row, str(_cell_value(ctx.final, book.id, self.cell(row, "Note")) or "")))
        ranges = [f"{TAB}!{self.cell(r, 'Type')}:{self.cell(r, 'Note')}" for r in self.checked]
        results = [guard("Each of your reports' rows is Approved or Rejected as Sales commissions says", not statuses,
                         f"{len(statuses)} rows are not: {'; '.join(statuses[:4])}"),
                   guard("Each row you approved shows the CRM's type and amount, the article's rate and the "
                         "commission they make", not figures, f"{len(figures)} rows do not: {'; '.join(figures[:4])}"),
                   cells_guard(ctx, book.id, ranges + ([self.end_row] if self.adds_row else []))]
        for row, note in notes:
            results += note_checks(row, note)
        return Graded(results, allow_workbook_cells(ctx, book.id))

    @property
    def end_row(self) -> str:
        """The range of the row after the last (where a rep's missing deal is added)."""
        return f"{TAB}!A{len(self.rows) + 2}:H{len(self.rows) + 2}"

    def outcome(self):
        asked = next((r for r in self.checked if r.deal_name == self.asked), None)
        if asked is None:
            return NO_OUTCOME
        return CARRY_OUT if asked.corrected else REFUSE


@dataclass(frozen=True)
class AddedRow(Procedure):
    """A rep's deal missing from the workbook, added at the end of the tab (`line`, 1-based) when `add`
    (theirs, Closed Won, closed in the quarter), left out otherwise. `row`: the row as it should read."""

    rules = (COMMISSIONS,)

    title: str
    line: int
    row: CommissionRow
    add: bool

    def call(self) -> ToolCall:
        """The call that adds the row."""
        return ToolCall("sheets_write_range", {"workbook": self.title, "start": f"{TAB}!A{self.line}",
                                                "rows": [self.row.values("Approved", right=True)[:7]]})

    def steps(self):
        read = [ToolCall("crm_get_opportunity", {"opportunity": self.row.deal})]
        return read + ([self.call()] if self.add else [])

    def check(self, ctx):
        book = workbook_titled(ctx.start, self.title)
        sheet = sheet_named(ctx.final, book.id, TAB)
        lines = [c.row + 1 for c in ctx.final.scalars(select(Cell).where(Cell.sheet_id == sheet.id, Cell.col == 0))
                 if str(value_of(c) or "").strip().casefold() == self.row.deal_name.casefold()]
        if not self.add:
            return Graded([guard(f"No row of {self.row.deal_name} was added", not lines, f"rows {lines}")])
        wrong = row_shows(ctx.final, book.id, lines[0], self.row) if len(lines) == 1 else ["not one row"]
        owner = str(_cell_value(ctx.final, book.id, f"B{lines[0]}") or "") if len(lines) == 1 else ""
        status = str(_cell_value(ctx.final, book.id, f"G{lines[0]}") or "") if len(lines) == 1 else ""
        return Graded([check(f"One row of {self.row.deal_name} is added, with the CRM's type and amount, the "
                             "article's rate, its commission, its owner and Status Approved",
                             not wrong and owner.strip().casefold() == self.row.owner_name.casefold()
                             and status.strip().casefold() == "approved",
                             f"rows {lines}: {wrong}, owner {owner!r}, status {status!r}", weight=6)])

    def outcome(self):
        return CARRY_OUT if self.add else REFUSE
