"""The handbook's IT and people-operations articles on equipment requests and on offboarding a leaver
(seed_data.tickets_handbook writes them). Like seed_data.tickets_handbook_text, each function returns
an article's versions, oldest first; ARTICLES lists (function, owning role) for seed_data.tickets_handbook."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .tickets_handbook_text import V, doc

if TYPE_CHECKING:
    from .tickets_handbook import Ctx

ALLOWANCE = 1_500  # a person's equipment allowance a calendar year ($)


def equipment_requests(c: Ctx) -> list[V]:
    """Equipment the company buys for someone: the yearly allowance, who approves, and fulfilment."""
    return [V(45, "Equipment requests", "IT", doc(
        "Laptops, monitors, docks, headsets, keyboards and chairs that the company buys for you. (What you buy "
        "yourself and claim back is the Expense policy's business, not this article's.)", [
            "File a Service Request in the IT project (IT Help Desk), component Laptops & Hardware. Summary: \"<item> "
            "for <your name>\"; give the item's catalogue price in the description.",
            f"Everyone has an equipment allowance of ${ALLOWANCE:,} a calendar year. What counts toward it: the prices "
            "of your equipment requests that IT Support fulfilled this calendar year (resolved as Fixed), plus the new "
            "request. Requests cancelled or still open do not count. Add them up before anyone approves: your earlier "
            "requests are in the IT project (search by reporter).",
            "Two kinds of request never count toward the allowance: a replacement for a device reported lost or "
            "stolen (its description names the Incident that the Password and device policy asks for), and a new "
            "hire's first laptop (\"New laptop for new hire\").",
            "Within the allowance (the total, the new request included, at most the allowance), the requester's "
            f"manager approves, by commenting \"Approved\" on the ticket. Above it, {c.r('it_head')} approves on the "
            "ticket instead, and the manager's \"Approved\" does not count. While the approver is away, or when "
            "their word changes, see Approvals when the approver is away.",
            "IT Support fulfils a request that holds an approval that counts: it resolves it as Fixed, with a comment "
            "naming who approved it. Without one, the request stays open: IT Support never fulfils on the "
            "requester's word.",
            "A leaver's open requests are not fulfilled: see Offboarding a leaver."],
        f"{c.R('it_lead')} owns this article; questions go to #it-help."))]


def offboarding(c: Ctx) -> list[V]:
    """What happens when someone leaves: the offboarding request and what IT Support does with it."""
    return [V(60, "Offboarding a leaver", "People", doc("When someone leaves the company:", [
        "Their manager files a Service Request in the IT project, component Accounts & Access: \"Offboarding for "
        "<name>\", giving the last day, at least five working days before it.",
        "IT Support cancels the leaver's open equipment and access requests, approved or not: it resolves each one "
        "with the resolution Cancelled and a comment saying that the person is leaving.",
        "A withdrawn offboarding counts for nothing: when the manager writes on the Offboarding request that the "
        "person is staying after all (or cancels the request), their requests are worked as usual.",
        "Before the last day the manager hands the leaver's open work to teammates (a sales rep's CRM book: see "
        "Handing over a departing rep's book); on the last day IT Support disables their accounts and the leaver "
        "hands their laptop back (see Password and device policy).",
        f"{c.R('people_head')}'s team takes the leaver off the Headcount Plan {c.year} workbook."],
        f"{c.R('people_head')} owns this article."))]


ARTICLES: list = [(equipment_requests, "it_lead"), (offboarding, "people_head")]
