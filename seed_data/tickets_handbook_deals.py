"""The handbook's sales articles on handing over a departing rep's book and on opening renewals
(seed_data.tickets_handbook writes them). Like seed_data.tickets_handbook_text, each function returns an
article's versions, oldest first; ARTICLES lists (function, owning role) for seed_data.tickets_handbook."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .tickets_handbook_text import V, doc

if TYPE_CHECKING:
    from .tickets_handbook import Ctx

HANDOVER_NOTE = "Handover from {rep}"  # the subject of the note on each deal that changed owner
RENEWAL_NAME = "{account} - Renewal {year}"  # the name of a renewal opportunity


def departing_rep(c: Ctx) -> list[V]:
    """How a departing sales rep's CRM book is handed over: the order, who takes what, what stays."""
    return [V(50, "Handing over a departing rep's book", "Sales", doc(
        "When a sales rep leaves the company or Sales, their manager hands over the rep's book in the CRM before "
        "the rep's last day (the CRM side of Offboarding a leaver).", [
            "First decide every discount request still pending on the rep's deals, by Discount and approval "
            "thresholds. Do it before any deal changes owner: the CRM lets only the deal owner's manager decide a "
            "request, as the deal stands when it is decided.",
            "Each open deal of the rep on an account that someone else owns goes to that account's owner: the "
            "customer keeps the rep who owns the account. Look at the account's owner as it is when you move the "
            "deal, not as it was when the handover was asked for.",
            "Every other open deal of the rep, and every account the rep owns, goes to the manager, who holds them "
            "until the rep's successor starts.",
            "Closed deals, won or lost, stay with the departing rep: they are the rep's record (the CRM keeps them "
            "read-only anyway). So do the rep's contacts, leads and cases until the successor starts.",
            f"Log a note on each deal that changed owner, with the subject \"{HANDOVER_NOTE.format(rep='<rep>')}\" "
            "and its new owner's name in the body.",
            "Then tell whoever asked that the book is handed over, naming each colleague other than yourself who "
            "took over deals."],
        f"{c.R('sales_head')} owns this article; questions go to #deals."))]


def renewals(c: Ctx) -> list[V]:
    """When and how a won deal's renewal is opened, and what an Upsell changes."""
    return [V(70, "Renewals", "Sales", doc(
        "A customer's contract runs twelve months from the close date of the deal that won it. Its renewal is "
        "opened as soon as the deal is won, so that it shows in the pipeline a year ahead.", [
            "Within five working days of a New Business or Renewal win, the won deal's owner opens its renewal: "
            "one opportunity on the same account, type Renewal, named "
            f"\"{RENEWAL_NAME.format(account='<account>', year='<year>')}\" "
            "(the year it closes), stage Prospecting, close date one year after the won deal's close date, and "
            "amount the won deal's amount.",
            "An Upsell win extends the contract it was sold into and renews with it: it opens no renewal of its "
            "own. Its owner adds the Upsell's amount to the amount of the account's open Renewal opportunity "
            "instead (the renewal then comes to what it was plus the Upsell). Only where the account has no open "
            "Renewal opportunity does an Upsell win open one, as any other win does.",
            "A deal closed lost starts no contract and opens no renewal.",
            "Nothing else changes on the won deal or on the account."],
        f"{c.R('sales_ops')} owns this article; questions go to the SOPS project (Sales Operations)."))]


ARTICLES: list = [(departing_rep, "sales_head"), (renewals, "sales_ops")]
