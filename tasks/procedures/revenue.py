"""The month-end reconciliation of a sales workbook against the CRM (the handbook's "Month-end
reconciliation of the sales workbooks"): `ReconcileTab` brings the rows of one tab back in line with
the deal records and files a SOPS Task per corrected row; `ReconcilePost` is the one post in #deals
that names the corrected deals (and, for the Closed Won tab, the month's won total). The rows' drifts
(`Drift`) are planted the way the revenue family plants them (tasks.w_revenue_drift): a teammate types
over a cell, the owner moves a deal on in the CRM, or closes it (a row the handbook leaves alone)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from sqlalchemy import select

from officegym import clock

from officegym.apps.chat import services as chat
from officegym.apps.crm import services as crm
from officegym.apps.org.models import Person
from officegym.apps.sheets import services as sheets
from officegym.apps.sheets.formula.a1 import parse_area
from officegym.apps.sheets.models import Cell
from officegym.graders.checks import check, guard
from officegym.graders.replies import report_reply
from officegym.graders.sheets import allow_workbook_cells, cells_guard, value_of
from officegym.graders.statements import Candidate, says

from ..base import Claim, Declaration, Target, ToolCall
from ..common import added_messages, allow_posts, channel_named
from ..crm import money
from ..sheets import sheet_named
from ..sheets_formulas import EXCEL_EPOCH
from ..tickets_common import added_tickets, allow_new_ticket, same_text
from ..w_revenue_common import agrees, at
from .core import Graded, Procedure

RECONCILE = "Month-end reconciliation of the sales workbooks"
RECONCILED = "Reconciliation: {deal}"
CORRECTED = ("corrected", "fixed", "updated", "reconciled", "put back", "realigned")
FIELD = {"Amount": "amount", "Expected close": "close_date"}  # a CRM drift's column -> the deal's field


def typed_value(value):
    """A value as a tool types it into a cell: a date as YYYY-MM-DD, a whole amount without decimals."""
    if isinstance(value, date):
        return value.isoformat()
    return int(value) if isinstance(value, float) and value.is_integer() else value


def computed(value):
    """What a cell computes for a value the CRM holds (a date is a serial number)."""
    return (value - EXCEL_EPOCH).days if isinstance(value, date) else value


@dataclass(frozen=True)
class Drift:
    """One row's disagreement with the CRM, planted by the setup. `how`: "typed" (`by` typed `wrong`
    over the cell), "crm" (the owner `by` changed the deal to `right` after the row was written: its
    amount, its close date or its stage), "follows" (another cell of a "crm" drift's row, such as the
    probability of the new stage) or "closed" (the owner closed the deal lost: the row stays as it is).
    `right` is the CRM's value the cell must show (a date, a number or a stage), `lookalike` the same
    column's cell of a look-alike row, and `stale` a message a teammate posts in #deals quoting the
    wrong value as true (empty: none)."""

    deal: int
    name: str
    column: str
    cell: str
    right: object
    wrong: object
    how: str
    by: int
    lookalike: str
    stale: str = ""
    late: bool = False  # a CRM change made after the request (ten minutes ago), not yesterday

    def plant(self, session, workbook: int, phase: str, minute: int) -> None:
        """Make the row disagree (see the class's docstring), in the setup's `phase`: first every typed
        cell, then the messages vouching for them, the CRM's changes and the closed deals."""
        person = session.get(Person, self.by)
        if phase == "typed" == self.how:
            at(session, 2, 16, minute)
            sheets.write_cells(session, person, workbook, [{"cell": self.cell, "value": typed_value(self.wrong)}])
        elif phase == "stale" and self.stale:
            at(session, 1, 9, 40 + minute)
            chat.post_message(session, person, channel_named(session, "deals").id, self.stale)
        elif phase == "crm" == self.how:
            at(session, 1, 11, minute)
            if self.late:
                clock.set_time(session, clock.company_now(session) - timedelta(minutes=10))
            if self.column == "Stage":
                crm.move_stage(session, person, self.deal, self.right)
            else:
                crm.update_opportunity(session, person, self.deal, **{FIELD[self.column]: typed_value(self.right)})
        elif phase == "closed" == self.how:
            at(session, 1, 15, minute)
            crm.move_stage(session, person, self.deal, "Closed Lost", loss_reason="No Decision")

    def write(self, workbook: int, cell: str | None = None) -> ToolCall:
        """The call that types the CRM's value into the cell (or into `cell`)."""
        return ToolCall("sheets_write_cells", {"workbook": workbook, "cells": [
            {"cell": cell or self.cell, "value": typed_value(self.right)}]})

    def ticket(self, title: str) -> ToolCall:
        """The SOPS Task the handbook asks for per corrected row."""
        return ToolCall("tickets_create_ticket", {"project": "SOPS", "type": "Task",
                                                  "summary": RECONCILED.format(deal=self.name), "description": (
            f"{title}: the row of {self.name} disagreed with the CRM on {self.column.lower()}; corrected to the CRM's "
            f"value, {typed_value(self.right)}.")})


@dataclass(frozen=True)
class ReconcileTab(Procedure):
    """Reconcile the rows of `deals` (ids, 30 or more in a marathon) on `tab` of workbook `workbook`
    (`title`) with the CRM: correct each cell of `drifts` that disagrees, file a SOPS Task for each
    corrected row, and leave the rows of deals the CRM shows closed (`how` "closed") as they are.
    Difficulties: `changed` (deals changed in the CRM since their row was written), `stale` (a message
    quoting a typed-over value), `exception` (a closed deal's row), `lookalike` (the look-alike row)."""

    rules = (RECONCILE,)
    hard = ("changed", "stale", "exception", "lookalike")

    workbook: int
    title: str
    tab: str
    area: str
    deals: tuple[int, ...]
    drifts: tuple[Drift, ...]
    reads: tuple[ToolCall, ...] = ()

    @property
    def fixed(self) -> tuple[Drift, ...]:
        """The drifts the reconciliation corrects (all but the closed deals' rows)."""
        return tuple(d for d in self.drifts if d.how != "closed")

    def setup(self, session):
        for phase in ("typed", "stale", "crm", "closed"):
            for minute, drift in enumerate(self.drifts):
                drift.plant(session, self.workbook, phase, minute)

    def _fix(self, drift: Drift, cell: str | None = None) -> list[ToolCall]:
        if drift.how == "follows":  # the same row as the drift before it: read and filed with it
            return [drift.write(self.workbook, cell)]
        return [ToolCall("crm_get_opportunity", {"opportunity": drift.deal}), drift.write(self.workbook, cell),
                drift.ticket(self.title)]

    def steps(self, swap=None):
        calls = [ToolCall("sheets_read_range", {"workbook": self.workbook, "range": self.area}), *self.reads]
        for drift in self.drifts:
            calls += ([ToolCall("crm_get_opportunity", {"opportunity": drift.deal})] if drift.how == "closed" else
                      swap(drift) if swap is not None and swap(drift) is not None else self._fix(drift))
        return calls + [ToolCall("sheets_read_range", {"workbook": self.workbook, "range": self.area})]

    def declared(self):
        kinds = {"crm": "changed", "closed": "exception"}
        held = {kinds[d.how] for d in self.drifts if d.how in kinds} | ({"stale"} if any(d.stale for d in self.drifts)
                                                                        else set())
        return tuple(k for k in self.hard if k in held or k == "lookalike")

    def fallen(self, kind):
        if kind == "exception":  # corrects the closed deal's stage too
            closed = [d for d in self.drifts if d.how == "closed"]
            return self.steps() + [ToolCall("sheets_write_cells", {"workbook": self.workbook, "cells": [
                {"cell": closed[0].cell, "value": "Closed Lost"}]})] if closed else None
        picked = {"changed": lambda d: d.how == "crm", "stale": lambda d: bool(d.stale),
                  "lookalike": lambda d: d.how != "closed"}[kind]
        first = next((d for d in self.drifts if picked(d)), None)
        if first is None:
            return None
        if kind == "lookalike":  # corrects the look-alike row instead
            return self.steps(lambda d: self._fix(d, d.lookalike) if d is first else None)
        return self.steps(lambda d: [ToolCall("crm_get_opportunity", {"opportunity": d.deal})] if d is first else None)

    def declare(self, start):
        first = self.fixed[0]
        others = [i for i in self.deals if i != first.deal]
        cells = [Target("cell", d.cell, [d.lookalike], {"workbook": self.workbook}) for d in self.fixed]
        return Declaration([*cells, Target("opportunity", first.deal, others)])

    def _shows(self, session, drift: Drift):
        area = parse_area(drift.cell)
        sheet = sheet_named(session, self.workbook, area.sheet)
        cell = session.scalar(select(Cell).where(Cell.sheet_id == sheet.id, Cell.row == area.top,
                                                 Cell.col == area.left)) if sheet is not None else None
        return value_of(cell)

    def check(self, ctx):
        """A guard that no corrected row still disagrees (a stale row is a wrong figure on Friday, whatever
        else was done), a Task per corrected row, and no cell changed but the corrected ones."""
        filed = [r["summary"] for r in added_tickets(ctx, "SOPS")]
        wrong = [f"{d.name} ({d.column}: {self._shows(ctx.final, d)!r})" for d in self.fixed
                 if not agrees(self._shows(ctx.final, d), computed(d.right))]
        counts = {d.name: sum(same_text(s, RECONCILED.format(deal=d.name)) for s in filed) for d in self.fixed}
        results = [guard(f"Every row of {self.tab} that disagreed with the CRM shows the CRM's values", not wrong,
                         f"{len(wrong)} rows still disagree: {'; '.join(wrong[:4])}"),
                   check(f"One SOPS Task \"{RECONCILED.format(deal='<deal>')}\" per corrected row of {self.tab}",
                         all(n == 1 for n in counts.values()),
                         f"filed {[(k, n) for k, n in counts.items() if n != 1][:4]}", weight=2),
                   cells_guard(ctx, self.workbook, [d.cell for d in self.fixed])]
        allowed = allow_workbook_cells(ctx, self.workbook)
        for drift in self.fixed:
            allowed += allow_new_ticket(ctx, "SOPS", "Task", RECONCILED.format(deal=drift.name))
        return Graded(results, allowed)


@dataclass(frozen=True)
class ReconcilePost(Procedure):
    """The one post in #deals that ends a reconciliation: it names each corrected deal (`corrected`,
    among the names of the rows that agreed, `agreed`) and, when `total` is given, the month's won
    total as the CRM adds it up (difficulty `summed`: the near miss gives the workbook's total before
    the corrections, `stale_total`)."""

    rules = (RECONCILE,)
    hard = ("summed",)

    text: str
    corrected: tuple[str, ...]
    agreed: tuple[str, ...]
    total: int | None = None  # cents
    stale_total: int | None = None
    weight: float = 11.0  # of the claims together: the post that reports the work weighs most of the task's

    def steps(self):
        return [ToolCall("chat_post_message", {"channel": "deals", "text": self.text}, role="report")]

    def declared(self):
        return self.hard if self.total is not None else ()

    def fallen(self, kind):
        if kind != "summed" or self.total is None:
            return None
        return [ToolCall("chat_post_message", {"channel": "deals", "text": self.text.replace(
            money(self.total), money(self.stale_total))}, role="report")]

    def _claims(self) -> list[Claim]:
        names = [Candidate.text(n) for n in self.agreed]
        claims = [Claim(Candidate.text(n), names, "text", "corrected deal") for n in self.corrected]
        if self.total is not None:
            claims.append(Claim(Candidate.money(self.total), [Candidate.money(self.stale_total)], "text",
                                "month's won total"))
        return claims

    def declare(self, start):
        return Declaration([], self._claims())

    def check(self, ctx):
        channel = channel_named(ctx.final, "deals")
        posts = [m["text"] for m in added_messages(ctx, ctx.actor_id) if m["channel_id"] == channel.id]
        results = [check("One post in #deals ends the reconciliation", len(posts) == 1, f"{len(posts)} posts"),
                   *report_reply(posts, "The post in #deals says the rows were corrected", CORRECTED)]
        for claim in self._claims():
            results += says(posts, claim.right, claim.others, f"The post in #deals names the {claim.kind}, "
                            f"{claim.right.label}", claim.kind, weight=self.weight / len(self._claims()))
        return Graded(results, allow_posts(ctx, channel.id, None, limit=1, mentions=0))

