"""The handbook's finance articles: how a manager decides the expense claims Accounting lists in the claims
workbook (seed_data.tickets_handbook writes them). Like seed_data.tickets_handbook_text, each function
returns an article's versions, oldest first; ARTICLES lists (function, owning role) for
seed_data.tickets_handbook. The limits themselves stay in the Expense policy (seed_data.tickets_handbook_rules)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .tickets_handbook_text import V, doc

if TYPE_CHECKING:
    from .tickets_handbook import Ctx

CLAIMS = "Approving expense claims"
CLAIMS_BOOK = "Expense claims"  # the workbook's title starts so; the year follows
FILE_WITHIN_DAYS = 60  # as the Expense policy says
OFFICE_YEARLY = 500  # the Expense policy's home-office equipment limit, in dollars


def claims(c: Ctx) -> list[V]:
    """Who decides an expense claim, by which rules, and what is written where."""
    old = doc(
        f"Accounting lists the items of every expense report it receives in the workbook {CLAIMS_BOOK} {c.year}, "
        "one row per item, and managers approve them there.", [
            "Approve your reports' rows by writing Approved in the Decision column.",
            "Ask Accounting when in doubt."],
        f"{c.R('controller')} owns this article.")
    new = doc(
        f"Accounting lists the items of every expense report it receives in the workbook {CLAIMS_BOOK} {c.year}: "
        "the tab Claims holds this month's items, one row per item (Claim, Employee, Manager, Date, Category, "
        "Description, Amount in dollars, Submitted, Decision, Note), and the tab History the items decided "
        "before. Every manager is an editor of it. The limits are the Expense policy's; this article says how a "
        "claim is decided against them.", [
            "You decide the rows whose Manager is you and whose Decision says Pending, and no other row (not a "
            "row of someone else's report, whoever asks, nor a row decided already; when a manager is away, "
            "Approvals when the approver is away says who decides in their place). Write Approved or Rejected "
            "in Decision; a rejected row gets a Note saying which rule it breaks. We never pay part of an item: "
            "one over its limit is rejected whole, and the employee may file again what the policy allows.",
            "Meals are limited per person: the Description gives how many people ate; divide the Amount by them. "
            "A customer dinner has the customer dinner limit only when its Description names the customer.",
            "Hotels are limited per night: the Description gives the nights.",
            "An item submitted more than 60 days after its Date is rejected, whatever it is.",
            "Home-office equipment (category Office) is limited over twelve months: add the Amounts of the "
            "employee's Office rows approved or paid (Claims and History) dated within the twelve months before "
            "the item, and the item itself. Over the limit, the item is rejected. Older rows do not count.",
            "An item is claimed once: a row with the same employee, Date, Category and Amount as a row approved "
            "or paid already (in either tab) is a duplicate and is rejected, naming the earlier claim.",
            "When you are done, tell each employee whose row you rejected, by direct message, which claim and why; "
            "then tell Accounting (whoever asked you) that your rows are decided. Accounting pays the approved "
            "rows on Friday."],
        f"{c.R('controller')} owns this article; questions go to Accounting.")
    return [V(300, CLAIMS, "Finance", old),
            V(90, CLAIMS, "Finance", new, "The rules a claim is decided by; rejected rows get a note")]


ARTICLES: list = [(claims, "controller")]
