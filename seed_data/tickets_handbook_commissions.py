"""The handbook's commissions article: how a manager checks their reports' rows of a quarter's commissions
workbook against the CRM before payroll (seed_data.tickets_handbook writes it). Like
seed_data.tickets_handbook_text, each function returns an article's versions, oldest first; ARTICLES lists
(function, owning role) for seed_data.tickets_handbook. The older version's rates are stale."""

from __future__ import annotations

from typing import TYPE_CHECKING

from officegym.apps.crm.models import DISCOUNT_LIMIT

from .tickets_handbook_text import V, doc

if TYPE_CHECKING:
    from .tickets_handbook import Ctx

COMMISSIONS = "Sales commissions"
COMMISSIONS_BOOK = "Commissions"  # the workbook's title: "Commissions Q4 2025"
RATES = {"New Business": 10.0, "Upsell": 7.0, "Renewal": 4.0}  # percent of the deal's amount
OLD_RATES = {"New Business": 8.0, "Upsell": 6.0, "Renewal": 5.0}  # the older version's
DISCOUNTED_SHARE = 0.5  # a deal with a line discounted above the limit earns this share of its type's rate


def commissions(c: Ctx) -> list[V]:
    """How the quarter's commission rows are checked, corrected, approved or rejected, and added."""
    old = doc(
        f"Sales Operations lists each quarter's Closed Won deals in a workbook {COMMISSIONS_BOOK} Q<quarter> <year>, "
        "one row per deal, and pays the commissions with the payroll after the quarter.", [
            "Commission rates: " + ", ".join(f"{kind} {rate:g}%" for kind, rate in OLD_RATES.items()) + ".",
            "Managers look over their reps' rows and tell Sales Operations if something is wrong."],
        f"{c.R('sales_ops')} owns this article.")
    rates = ", ".join(f"{kind} {rate:g}%" for kind, rate in RATES.items())
    new = doc(
        f"Sales Operations lists each quarter's Closed Won deals in the workbook {COMMISSIONS_BOOK} Q<quarter> <year> "
        "(for example Commissions Q4 2025), tab Rows: Deal, Owner, Type, Amount (dollars), Rate % (percent of the "
        "amount), Commission (dollars), Status and Note. A new row's Status is To check. Before payroll, each rep's "
        "manager checks the rows against the CRM; the CRM wins over the workbook.", [
            "You check the rows whose Owner is one of your direct reports (the directory lists them) and whose "
            "Status is To check, and no other row, whoever asks.",
            "A row pays only for a deal that is Closed Won in the CRM now, whose close date is in the workbook's "
            "quarter and whose owner in the CRM is the row's Owner. Any other row (a deal reopened since, closed "
            "in another quarter, or another rep's deal) is rejected: write Rejected in Status and a Note saying "
            "why, and change nothing else on the row.",
            "On every other row you check, Type and Amount are the deal's type and amount in the CRM: correct "
            "them where the row differs.",
            f"Rate % follows the deal's type: {rates}. A deal with a line item discounted above {DISCOUNT_LIMIT}% "
            "(a discount approved above the limit, see Discount and approval thresholds) earns half its type's "
            f"rate; a discount of {DISCOUNT_LIMIT}% or less changes nothing. The line items show each discount.",
            "Commission is Amount times Rate % divided by 100, to the cent. Then write Approved in Status.",
            "Add no row on your own. A rep may ask their manager to add a deal of theirs that is missing: add it "
            "(a row at the end of the tab, filled as above, Status Approved) only when the deal qualifies as rule 2 "
            "says. A rep may ask to raise a row: the CRM and this article alone settle it. Decline any such request "
            "the rules do not allow, naming this article and the fact that stands in the way (the deal's close "
            "date, stage or owner in the CRM, or the discount on its line).",
            "When you are done, tell Sales Operations (whoever asked you) by direct message which deals' rows you "
            "corrected and which you rejected, and the total Commission of your rows approved."],
        f"{c.R('sales_ops')} owns this article; questions go to Sales Operations.")
    return [V(400, COMMISSIONS, "Sales", old),
            V(70, COMMISSIONS, "Sales", new, "Rates by type, discounted deals, rejected rows and rows added")]


ARTICLES: list = [(commissions, "sales_ops")]
