"""The handbook's purchases article: how Procurement works a team's purchase requests against the team's
budget for the quarter (seed_data.tickets_handbook writes it). Like seed_data.tickets_handbook_text, each
function returns an article's versions, oldest first; ARTICLES lists (function, owning role) for
seed_data.tickets_handbook. The older version let a manager approve more, and had no budget to check."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .tickets_handbook_text import V, doc

if TYPE_CHECKING:
    from .tickets_handbook import Ctx

PURCHASES = "Team purchase requests"
BUDGETS_BOOK = "Team Purchase Budgets"  # the workbook's title: "Team Purchase Budgets 2026"
PURCHASES_TAB = "Purchases"
PROJECT, PROJECT_NAME = "PUR", "Purchase Requests"
MANAGER_LIMIT = 2_500  # up to this amount ($) the team's manager approves; above it the department's head
OLD_MANAGER_LIMIT = 5_000  # the older version's
PURCHASE_ORDER = 10_000  # above this, a purchase order (not this article's business)


def purchases(c: Ctx) -> list[V]:
    """Who approves a team's purchase, how its budget for the quarter is checked, and what is written where."""
    old = doc(
        "Software seats, hardware and services a team buys for its work are requested from Procurement.", [
            f"File a request in {PROJECT} ({PROJECT_NAME}) giving the item, the vendor and the amount.",
            f"Your manager approves up to ${OLD_MANAGER_LIMIT:,} by commenting on the request; above it, "
            f"{c.r('finance_head')} approves.",
            "Procurement buys what is approved and keeps a list of what each team bought."],
        f"{c.R('finance_head')} owns this article.")
    new = doc(
        "Software seats, hardware for a team and outside services that a team buys for its work, up to "
        f"${PURCHASE_ORDER:,} a request (above that it is a purchase order, which {c.r('finance_head')} signs). "
        "Equipment for one person is Equipment requests' business, not this article's.", [
            f"The requester files a Service Request in {PROJECT} ({PROJECT_NAME}): summary \"<item> from <vendor> "
            "for <team>\", the amount in dollars in the description. Procurement works the requests assigned to it.",
            f"Each team has a budget a quarter: its row (Team, Owner, Budget) on the quarter's tab of the workbook "
            f"{BUDGETS_BOOK} {c.year} (tabs named like \"Q1 {c.year}\"). Its tab {PURCHASES_TAB} lists what was "
            "bought (Request, Team, Vendor, Item, Amount, Quarter, Approved by).",
            f"Who approves depends on the request's amount. Up to ${MANAGER_LIMIT:,}: the requester's manager, as "
            "the directory shows, by commenting \"Approved\" on the request. Above it: the head of the requester's "
            "department, as the directory shows, in the same way, and the manager's \"Approved\" does not count "
            "on its own. While the approver is away, or when their word changes, see Approvals when the approver "
            "is away. The requester's word that it was approved counts for nothing.",
            "Before buying, add up the team's spend of the current quarter: the Amounts of the team's rows on "
            f"{PURCHASES_TAB} whose Quarter is the current quarter (rows of an earlier quarter do not count), plus "
            "the request. When that is over the team's Budget on the current quarter's tab, the request is not "
            "bought, whoever approved it: it stays open, with a comment saying that it would take the team over "
            "its budget for the quarter and how much of the budget is left (the Budget less the quarter's spend "
            "so far).",
            "A request with an approval that counts, within the budget, is bought: Procurement adds its row at the "
            f"end of {PURCHASES_TAB} (Quarter: the current quarter; Approved by: the approver's name), then "
            "resolves the request as Fixed with a comment naming who approved it. Work a team's requests oldest "
            "first: one bought counts toward the next.",
            "A request without an approval that counts stays open until it has one: Procurement never buys on "
            "anyone else's word.",
            "A request its requester withdrew on the ticket (\"withdrawn\", \"no longer needed\") is resolved as "
            "Cancelled, with a comment, and nothing is bought, approved or not."],
        f"{c.R('finance_head')} owns this article; Procurement answers questions about it.")
    return [V(260, PURCHASES, "Finance", old),
            V(70, PURCHASES, "Finance", new, "Approval by amount; purchases checked against each team's quarterly "
                                              "budget")]


ARTICLES: list = [(purchases, "finance_head")]
