"""The handbook's people-operations articles on moving people around: an internal transfer to another team (the
open tickets handed over, the team channels, the approvals that follow the new manager) and a new hire's start
date moved (the onboarding requests re-dated; an earlier start only with the laptop ready), and a customer's
personal data request (answered only at the address on their contact record). Like
seed_data.tickets_handbook_text, each function returns an article's versions, oldest first; ARTICLES lists
(function, owning role) for seed_data.tickets_handbook."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .tickets_handbook_text import V, doc

if TYPE_CHECKING:
    from .tickets_handbook import Ctx

TRANSFERS = "Internal transfers"
START_DATES = "Moving a new hire's start date"
DATA_REQUESTS = "Personal data requests"
DATA_SUBJECT = "Your personal data"  # the subject of the email that answers a personal data request
HANDED_NOTE = "Handed over"  # how the work note on a handed-over ticket begins


def internal_transfers(c: Ctx) -> list[V]:
    """Someone moves to another team: the directory, their open tickets, the team channels, their approvals."""
    old = doc("When someone changes teams inside the company:", [
        "Their old manager keeps approving their requests until the end of the month in which they move.",
        "They keep their open tickets and finish them before they start with the new team.",
        "They join the new team's channel themselves."])
    new = doc("When someone moves to another team inside the company, People moves them in the directory on the "
              "transfer day. From then on the directory shows their new team and manager, and that manager is their "
              "manager for everything this handbook asks of one. The old team's lead then:", [
        "Hands over the person's open work of the old team: every ticket that is not done, is assigned to them and "
        "has the old team's component goes to the old team's lead, who becomes its assignee and adds a work note "
        f"beginning \"{HANDED_NOTE}\" that says the person moved and to which team.",
        "Leaves the rest as it is: an open ticket with the new team's component stays with the person (their work "
        "follows them), and so does every ticket that is done. Tickets they reported or watch, or that only "
        "mention them, are not theirs to hand over.",
        "Removes them from the old team's channel (team-<old team>; the lead created it, so the chat app lets "
        "them). The new team's lead invites them to team-<new team>.",
        "Tells the new team's lead by direct message which of the person's open tickets stay with them, by key "
        "(or that none do).",
        "Their access requests wait for the new manager, as Requesting access says for a change of teams: an "
        "\"Approved\" their old manager gave, before or after the move, no longer counts."],
        f"{c.R('people_head')} owns this article.")
    return [V(320, TRANSFERS, "People", old),
            V(28, TRANSFERS, "People", new, "Open tickets are handed over on the transfer day; approvals follow the "
              "new manager at once")]


def start_dates(c: Ctx) -> list[V]:
    """A new hire's start date moved: their onboarding requests re-dated by IT Support, and when not to."""
    old = doc("When a new hire's start date moves, the hiring manager tells IT Support, who re-dates the laptop.")
    new = doc("New people start on a Monday (see New-hire onboarding checklist). When Recruiting and the hiring "
              "manager agree another start date, the hiring manager tells the IT Support agent who holds the new "
              "hire's requests, by direct message. IT Support then:", [
        "Moves the due date of each open request filed for the new hire (their laptop, \"New laptop for new "
        "hire\", whose description names them, and their access requests, \"Access to <system> for <name>\") to "
        "the new start date, and comments on each one giving the new date.",
        "Leaves the rest as it is: a request already resolved keeps its date, and another new hire's requests are "
        "not touched, even when they start the same day.",
        "A later start date is always possible. An earlier one needs the new hire's laptop ready: only when their "
        "laptop request is resolved as Fixed (delivered) does IT Support move the requests to the earlier date. "
        "While it is still open, IT Support moves nothing (the laptop takes five working days, see the onboarding "
        "checklist) and tells the hiring manager, naming the laptop request; the start date stays as it was.",
        "The hiring manager tells the onboarding buddy the new date."],
        f"{c.R('people_head')} owns this article; IT Support does the re-dating.")
    return [V(260, START_DATES, "People", old),
            V(33, START_DATES, "People", new, "Every onboarding request is re-dated; an earlier start needs the laptop "
              "delivered")]


def data_requests(c: Ctx) -> list[V]:
    """A customer's contact asks which personal data the company holds about them: who may ask, what they get."""
    old = doc("A customer who asks which personal data we hold about them gets it from the account owner, by email, "
              "within a month.")
    new = doc("A customer's contact may ask which personal data about them the company holds. The request comes in as "
              "a case on their account, and the account's owner answers it within a month:", [
        "Check who is asking: only the person themself, writing from the email address on their contact record in "
        "the CRM. The case's description shows the address the request came from.",
        "When it matches, log an email on their contact record with the subject \"" + DATA_SUBJECT + "\" that lists "
        "what their contact record holds: their name, title, email, phone and account. Nothing about anyone else: "
        "no other contact's details, and none of the account's deals, notes or cases.",
        "When the address is not the one on their record (a personal mailbox, a colleague writing for them), send "
        "no data at all: log a note on the case giving the address the request came from and saying it is not on "
        "the contact record. They may ask again from the address on file.",
        "Either way, close the case once it is answered.",
        "Who else may see customer data, and where: see Data sharing: salaries and customer data."],
        f"{c.R('security')} owns this article.")
    return [V(410, DATA_REQUESTS, "Security", old),
            V(21, DATA_REQUESTS, "Security", new, "Only the address on the contact record gets an answer")]


ARTICLES: list = [(internal_transfers, "people_head"), (start_dates, "people_head"), (data_requests, "security")]
