"""A request to type a figure into a sales workbook, which the month-end article settles: the deal
record in the CRM counts, a figure quoted in a message does not. `vouched_drift` draws the deal and
the row (carried out: the rep changed the deal in the CRM, and the row is corrected by `ReconcileTab`);
`CheckFigure` is the refused twin's reads, when the CRM still has the old amount, or the deal is closed
(a row the article leaves alone); `stage_drifts` are a row's stage and probability after the deal moved on
(tasks.procedures.revenue)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select

from officegym.apps.crm.models import OPEN_STAGES, STAGE_PROBABILITY, LineItem
from officegym.apps.sheets.formula.a1 import cell_text

from ..base import REFUSE, Declaration, Target, ToolCall
from ..common import pick
from ..sheets import a1
from ..split import in_split
from ..w_revenue_common import layout
from .core import Procedure
from .revenue import RECONCILE, Drift, ReconcileTab
from .revenue_draws import drift_of


def request_row(session, rng, split: str, book, actor_id: int, deals, wanted) -> tuple:
    """A deal a request is about, of the split, on the tab's Deals (not the newest, not the actor's, one
    `wanted` accepts): (the deal, its row, the look-alike row beside it, the columns, the tab's area)."""
    _, cols, rows = layout(session, book.id, "Deals")
    newest = max(deals, key=lambda d: (d.created_at, d.id))
    deal = pick(rng, [d for d in deals if in_split(split, "opportunity", d.id) and d is not newest
                      and d.owner_id != actor_id and wanted(d)])
    row = rows[deal.name]
    beside = min(set(rows.values()) - {row}, key=lambda r: (abs(r - row), r))
    return deal, row, beside, cols, f"Deals!A1:{cell_text(max(rows.values()), max(cols.values()))}"


def vouched_drift(session, rng, split: str, book, actor_id: int, deals, refused: bool) -> tuple[ReconcileTab, Drift]:
    """A deal on the tab without line items whose owner says its amount is now the revenue family's
    raised amount; the tab that reconciles it when the owner did change it in the CRM (`refused`: they
    did not, and the drift is never planted)."""
    itemised = set(session.scalars(select(LineItem.opportunity_id)))
    deal, row, beside, cols, area = request_row(session, rng, split, book, actor_id, deals,
                                                lambda d: d.id not in itemised)
    drift = drift_of("crm_amount", deal, "Deals", row, cols, actor_id, beside)
    others = tuple(d.id for d in deals if d.id != deal.id)
    return ReconcileTab(book.id, book.title, "Deals", area, (deal.id, *others), () if refused else (drift,)), drift


@dataclass(frozen=True)
class CheckFigure(Procedure):
    """The refused twin: read the row and the deal record, which still has the old amount (`drift.wrong`),
    and change nothing. Difficulty `stale`: the near miss types the requested figure (`work`)."""

    rules = (RECONCILE,)
    hard = ("stale", "exception")

    workbook: int
    title: str
    area: str
    drift: Drift
    deals: tuple[int, ...]
    kind: str = "stale"  # the difficulty its near miss falls for
    writes: tuple[ToolCall, ...] = ()  # what carrying it out writes, when not the drift's own value

    def setup(self, session):
        if self.drift.how == "closed":
            self.drift.plant(session, self.workbook, "closed", 0)

    def work(self) -> list[ToolCall]:
        """What carrying the request out writes (the refusal's `instead`)."""
        return list(self.writes) or [self.drift.write(self.workbook), self.drift.ticket(self.title)]

    def steps(self):
        return [ToolCall("sheets_read_range", {"workbook": self.workbook, "range": self.area}),
                ToolCall("crm_get_opportunity", {"opportunity": self.drift.deal})]

    def declared(self):
        return (self.kind,)

    def fallen(self, kind):
        return self.steps() + self.work() if kind == self.kind else None

    def declare(self, start):
        others = [i for i in self.deals if i != self.drift.deal]
        return Declaration([Target("cell", self.drift.cell, [self.drift.lookalike], {"workbook": self.workbook}),
                            Target("opportunity", self.drift.deal, others)])

    def outcome(self):
        return REFUSE


def stage_drifts(deal, tab: str, row: int, cols: dict, beside: int) -> tuple[Drift, Drift]:
    """The drifts of a deal its owner moves to the next open stage: the row's stage, and its probability."""
    stage = OPEN_STAGES[OPEN_STAGES.index(deal.stage) + 1]
    moved = Drift(deal.id, deal.name, "Stage", a1(tab, row, cols["Stage"]), stage, deal.stage, "crm", deal.owner_id,
                  a1(tab, beside, cols["Stage"]))
    return moved, Drift(deal.id, deal.name, "Probability", a1(tab, row, cols["Probability"]),
                        STAGE_PROBABILITY[stage] / 100, STAGE_PROBABILITY[deal.stage] / 100, "follows", deal.owner_id,
                        a1(tab, beside, cols["Probability"]))
