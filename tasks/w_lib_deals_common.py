"""Helpers the deal templates share (tasks.w_lib_deals, tasks.w_lib_deals_more): who asks (the head of
Sales), the tools they serve, how a book is drawn across managers, and which target leads a declaration."""

from __future__ import annotations

from officegym.apps.org.models import Person

from .common import spread
from .crm import sales_people
from .procedures.deals_draws import Book
from .split import in_split

HANDED = ("handed over", "reassigned", "moved", "transferred", "done")
DEALS_TOOLS = ("chat", "crm.records", "crm.sales", "crm.service", "tickets.work")


def head_of_sales(session) -> Person:
    """The head of Sales: the one person of Sales without a manager in Sales (the VP of Sales)."""
    sales = {p.id for p in sales_people(session)}
    return next(p for p in sales_people(session) if p.manager_id not in sales)


def by_manager(books: list[Book], instance: int) -> Book:
    """A book drawn so that consecutive instances go to different managers where the world allows."""
    managers = sorted({b.manager.id for b in books})
    manager = managers[instance % len(managers)]
    return spread([b for b in books if b.manager.id == manager], instance // len(managers))


def split_first(declared, split: str):
    """The declaration with its first deal of the split that has look-alikes leading (the draws' proofs read
    the first target as the instance's record)."""
    declared.targets.sort(key=lambda t: not (t.kind == "opportunity" and t.lookalikes
                                             and in_split(split, "opportunity", t.ref)))
    return declared
