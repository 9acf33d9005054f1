"""The handbook's month-end article: how an editor of a sales workbook reconciles it with the CRM,
which source wins, the rows left alone, and the tickets and the post that record the work
(seed_data.tickets_handbook writes it). Like seed_data.tickets_handbook_text, each function returns an
article's versions, oldest first."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .tickets_handbook_text import V, doc

if TYPE_CHECKING:
    from .tickets_handbook import Ctx

RECONCILED = "Reconciliation: {deal}"  # the summary of the ticket filed per corrected row


def month_end(c: Ctx) -> list[V]:
    """Month-end reconciliation of the sales workbooks: what is checked, which source wins, what is left
    alone, and how the work is recorded."""
    scope = [f"Each team's pipeline workbook (<Team> Pipeline {c.year}): every row of its Deals tab for a deal "
             "that is open in the CRM.",
             f"The FY{c.year} Sales Forecast: every row of its Closed Won tab for a deal won in the month being "
             "closed (the tab's Closed on column says when).",
             "Each editor reconciles the rows of the deals they can see in the CRM (their own, their team's and "
             "their reports'), and leaves the other rows to the editors who can."]
    rules = ["The CRM's deal record wins. A row's stage, amount, expected close and probability (on the Closed Won "
             "tab: its amount and closed on) must show what the deal record shows; a cell that disagrees is "
             "corrected to the CRM's value. Type values only: the formulas (Weighted, the totals) follow.",
             "Never the other way round: nobody edits a deal in the CRM to match a workbook.",
             "A figure quoted anywhere else does not count, however recent or sure it sounds: a chat message, a note "
             "or a ticket that gives another amount or date changes nothing. Only the deal record does.",
             "The one exception: a row of a pipeline workbook for a deal the CRM shows closed (won or lost) is left "
             "as it is, stage included. The Friday refresh drops it from the tab; do not correct it by hand.",
             "For each row you corrected, file one Task in SOPS (Sales Operations) with the summary "
             f"\"{RECONCILED.format(deal='<deal name>')}\", saying which columns disagreed and the CRM's values. File "
             "none for a row that agreed.",
             "When you are done, post one message in #deals naming each deal whose row you corrected. For the Closed "
             "Won tab, the post also gives the won total of the rows you reconciled as the CRM gives it: those deals' "
             "amounts in the CRM, added up."]
    return [V(55, "Month-end reconciliation of the sales workbooks", "Sales", doc(
        "Before a month's figures are read, an editor of each sales workbook brings it in line with the CRM. "
        f"{c.R('sales_ops')} runs the reconciliation; questions go to the SOPS project (Sales Operations).",
        "What is reconciled:", scope, "The rules:", rules))]
