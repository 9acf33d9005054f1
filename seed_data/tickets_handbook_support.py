"""The handbook's customer-case articles: merging a customer's duplicate cases into the one that stays
open, and answering a customer who writes again about a problem whose case was closed (reopen it, or
open a new case that names it). Like seed_data.tickets_handbook_text, each function returns an
article's versions, oldest first; ARTICLES lists (function, owning role) for seed_data.tickets_handbook."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .tickets_handbook_text import V, doc

if TYPE_CHECKING:
    from .tickets_handbook import Ctx

DUPLICATE_NOTE = "Duplicate"  # the subject of the note logged on a case closed as a duplicate
REOPENED_NOTE = "Reopened"  # the subject of the note logged on a case reopened
REOPEN_DAYS = 14  # a case closed at most this many days ago is reopened rather than opened anew


def duplicate_cases(c: Ctx) -> list[V]:
    """When two or more open cases of one customer are about the same problem: which one stays open,
    how the others are closed, and the priority the one that stays keeps."""
    what = ("A customer who writes in again about the same problem often gets a second case. Open cases (New, "
            "Working or Escalated) of the same account with the same subject are duplicates. A case of another "
            "account, a case with another subject and a Closed case are not duplicates, however alike they look.")
    rules = ["One case stays open: the one opened first (the earliest created). The exception: when one of the "
             "duplicates is Escalated, the Escalated case stays open, whenever it was opened, since it carries "
             "the escalation.",
             f"Close every other duplicate: first log a note on it with the subject \"{DUPLICATE_NOTE}\" that names "
             "the case that stays open by its id (\"Duplicate of case 1234.\"), then set its status to Closed.",
             "The case that stays open keeps the highest priority among the duplicates: if a case you close had a "
             "higher priority, raise the one that stays open to it. Never lower a priority.",
             "Only the cases' owner merges them. When you are done, tell whoever asked which case stays open for "
             "each customer."]
    return [V(40, "Duplicate customer cases", "Customer Support", doc(what, rules))]


def reopening_cases(c: Ctx) -> list[V]:
    """A customer writes again about a problem whose case was closed: reopen it when it was closed
    recently, or open a new case that names it."""
    what = ("A customer sometimes writes again about a problem we closed. Find the account's Closed case with the "
            "same subject; if there are several, the one closed most recently is the one that counts. Its closed "
            "date (closed_at) decides what you do, counted in days up to today.")
    rules = [f"Closed {REOPEN_DAYS} days ago or less: reopen that case. Log a note on it with the subject "
             f"\"{REOPENED_NOTE}\" saying what the customer reports now, then set its status to Working. Do not open "
             "a new case.",
             f"Closed more than {REOPEN_DAYS} days ago: leave it Closed and open a new case on the account with the "
             "same subject, whose description names the old case by its id (\"Follows case 1234.\").",
             "Either way the case's owner does it, and tells whoever passed the message on whether the case was "
             "reopened or a new one opened, naming the old case by its id.",
             "A customer who writes about a problem that still has an open case gets no new case: see Duplicate "
             "customer cases."]
    return [V(35, "Reopening a customer case", "Customer Support", doc(what, rules))]


ARTICLES: list = [(duplicate_cases, "cs_head"), (reopening_cases, "cs_head")]
