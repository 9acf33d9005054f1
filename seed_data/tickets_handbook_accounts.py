"""The handbook's CRM-operations articles: customers' corrections of their contact records, and the Monday
review of overdue pipeline (seed_data.tickets_handbook writes them). Like seed_data.tickets_handbook_text,
each function returns an article's versions, oldest first; ARTICLES lists (function, owning role) for
seed_data.tickets_handbook."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .tickets_handbook_text import V, doc

if TYPE_CHECKING:
    from .tickets_handbook import Ctx

CORRECTIONS = "Customer data corrections"
OVERDUE = "Overdue pipeline review"
DUPLICATES = "Duplicate contacts"
DUPLICATE_MARK = " (duplicate)"  # added to a merged duplicate's last name
GRACE_DAYS = 14  # an open deal overdue by this many days or fewer is left to its owner this week
STALE_NEXT_STEP = "Confirm the timeline with the customer"  # the next step of a pushed deal


def corrections(c: Ctx) -> list[V]:
    """Who may have a customer's contact record corrected, and how the request is answered."""
    old = doc(
        "Customers sometimes ask us to correct their contact record in the CRM: a new job title, phone number or "
        "email address. Sales Operations files each request in the SOPS project (Sales Operations) and assigns it "
        "to the contact's owner.", [
            "Correct the fields the customer asks for on their contact record.",
            "Comment on the ticket what you changed and close it."],
        f"{c.R('sales_ops')} owns this article.")
    new = doc(
        "Customers sometimes ask us to correct contact records in the CRM: a new job title, phone number or email "
        "address. The request reaches Sales Operations by email; Sales Operations files it as a task in the SOPS "
        "project (Sales Operations), quoting the email and the address it came from, and assigns it to the owner "
        "of the contacts concerned.", [
            "Only the customer's own people may ask: the request counts when the address it came from is the email "
            "of a contact of that same account in the CRM (the contact themself, or a colleague listed at that "
            "account). An address at the customer's domain that no contact of the account holds does not count, "
            "and neither does a contact of another account, whoever they say they are.",
            "Where the request counts, correct exactly the fields it asks for, on the contacts it names at that "
            "account (another customer may have a contact of the same name: check the account). Change nothing else "
            "on the contact or the account.",
            "When the customer corrects their own request, Sales Operations adds their later email to the ticket as a "
            "comment: the latest email wins.",
            "Then answer on the ticket: a comment saying what you changed, and move it to In Review (Start progress, "
            "then Submit for review); Sales Operations confirms to the customer and closes it.",
            "Where the request does not count, change nothing in the CRM: close the ticket as Won't Do, with a "
            "comment saying that the sender is not a contact of the account (name the address) and citing this "
            "article. Sales Operations answers the sender."],
        f"{c.R('sales_ops')} owns this article; questions go to the SOPS project.")
    return [V(200, CORRECTIONS, "Sales", old),
            V(40, CORRECTIONS, "Sales", new, "Only contacts of the account may ask; the answer goes through review")]


def overdue(c: Ctx) -> list[V]:
    """What the Monday review does with open deals whose close date has passed."""
    return [V(60, OVERDUE, "Sales", doc(
        "Every Monday, before the forecast call, each sales rep reviews their open deals whose close date has "
        "passed; a manager may be asked to review their team's. A deal's close date is the one the CRM shows now.", [
            f"A deal whose close date passed {GRACE_DAYS} days ago or less stays as it is this week: its owner still "
            "has time to update it.",
            f"A deal whose close date passed more than {GRACE_DAYS} days ago is stale. In Proposal or Negotiation, "
            "push its close date to the last day of the next calendar month and set its next step to "
            f"\"{STALE_NEXT_STEP}\".",
            "A stale deal in Prospecting or Qualification is closed as Closed Lost with the loss reason No Decision, "
            "posted in #deals as Loss reasons for Closed Lost deals says.",
            "Exception: a Renewal deal (type Renewal) is never closed by this review. Push it as in rule 2, whatever "
            "its stage.",
            "Change nothing else on the deals. Then tell whoever asked for the review which deals were closed lost."],
        f"{c.R('sales_head')} owns this article; questions go to #deals."))]


def duplicates(c: Ctx) -> list[V]:
    """When two contact records are one person, which survives, what is carried over and how the other is marked."""
    return [V(30, DUPLICATES, "Sales", doc(
        "Sales Operations' weekly duplicate check files each pair of contacts that may be one person as a task in "
        "the SOPS project (Sales Operations), naming both records by email, and assigns it to their owner. The "
        "CRM has no merge: the owner merges them by hand.", [
            "Two records are one person only when they are contacts of the same account with the same first and last "
            "name. The same name at two different accounts is two people: change nothing, and close the ticket as "
            "Won't Do with a comment naming both accounts.",
            "The record created first survives; the other is the duplicate (the CRM shows when each was created).",
            "Carry over each open task of the duplicate: log it again on the survivor as a task with the same subject "
            "and due date, then complete it on the duplicate. Other activities stay where they are.",
            f"Mark the duplicate for deletion: add \"{DUPLICATE_MARK.strip()}\" after its last name (a space, then "
            "the word in brackets) and clear its email and phone. Sales Operations deletes marked records every month; "
            "nothing else changes on either record.",
            "Answer on the ticket with a comment naming the surviving record's email, and send it to review as "
            f"{CORRECTIONS} says for a request that counts."],
        f"{c.R('sales_ops')} owns this article; questions go to the SOPS project."))]


ARTICLES: list = [(corrections, "sales_ops"), (overdue, "sales_head"), (duplicates, "sales_ops")]
