"""Draws of the deal templates (tasks.w_lib_deals): a departing rep and their manager, and the procedures
that hand the rep's book over (`handover_book`): the discount requests pending on the rep's deals (those
of the world and two the rep asked for yesterday, one of whose reasons names a competitor the CRM does not
know), the rep's accounts, and each open deal with its new owner."""

from __future__ import annotations

from dataclasses import dataclass, replace

from sqlalchemy import select

from officegym.apps.crm.access import reports_of, scope_of
from officegym.apps.crm.models import OPEN_STAGES, Account, DiscountApproval, LineItem, Opportunity
from officegym.apps.org.models import Person
from officegym.colleagues.reasons import known_competitors, names_competitor, reason_stands

from ..base import ToolCall
from ..common import pick, world_scan
from ..crm import sales_people
from ..split import in_split, person_in
from .core import Procedure, Reads
from .deals import DecideDiscount, HandOverAccount, HandOverDeal

UNKNOWN = ("Northwind Cloud", "Veltrix", "Quorra Systems", "Paylyte")  # competitors no deal of the CRM names
GOOD = ("Matching {rival}'s three-year price", "{rival} quoted them 30% less for the same seats",
        "Their budget is capped at ${budget:,} this year")
TRICKY = ("Matching {rival}'s three-year price", "{rival} quoted them 30% less for the same seats")


@dataclass
class Book:
    """A departing rep's book as the world holds it: open deals, accounts, pending requests on the deals."""

    rep: Person
    manager: Person
    deals: list[Opportunity]
    accounts: list[Account]
    pending: list[DiscountApproval]
    free_items: list[LineItem]  # lines of the rep's open deals with no request pending


def book_of(session, rep: Person) -> Book:
    """The book of `rep` (see Book)."""
    deals = list(session.scalars(select(Opportunity).where(Opportunity.owner_id == rep.id,
                                                           Opportunity.stage.in_(OPEN_STAGES))
                                 .order_by(Opportunity.id)))
    ids = [d.id for d in deals]
    pending = list(session.scalars(select(DiscountApproval).where(DiscountApproval.status == "Pending",
                                                                  DiscountApproval.opportunity_id.in_(ids))
                                   .order_by(DiscountApproval.id)))
    asked = {a.line_item_id for a in pending}
    items = [i for i in session.scalars(select(LineItem).where(LineItem.opportunity_id.in_(ids)).order_by(LineItem.id))
             if i.id not in asked]
    accounts = list(session.scalars(select(Account).where(Account.owner_id == rep.id).order_by(Account.id)))
    return Book(rep, session.get(Person, rep.manager_id), deals, accounts, pending, items)


def visible_rivals(session, person: Person) -> list[str]:
    """The competitors named on deals `person` may read in the CRM (those they can tell a reason names)."""
    readable = scope_of(session, person).readable
    where = Opportunity.competitor != ""
    if readable is not None:
        where = where & Opportunity.owner_id.in_(sorted(readable))
    return sorted(set(session.scalars(select(Opportunity.competitor).where(where))))


def fair_reasons(session, manager: Person, reasons) -> bool:
    """Whether every competitor the `reasons` name is one `manager` can see on a deal."""
    hidden = set(known_competitors(session)) - set(visible_rivals(session, manager))
    return not any(names_competitor(r, hidden) for r in reasons)


def departing(session, split: str, least: int, most: int) -> list[Book]:
    """Books of reps of the split whose manager (of the split too) is in Sales, with `least` to `most` open
    deals (one of the split), one of them on an account a teammate owns, two deals with lines free for a new
    request, and no pending request above 35% (which would need the head of Sales's word), by the rep's id."""
    def scan() -> tuple:
        found = []
        for rep in sales_people(session):
            if rep.manager_id is None or not person_in(split, rep.manager_id) or not person_in(split, rep.id):
                continue
            book = book_of(session, rep)
            team = reports_of(session, book.manager)
            foreign = [d for d in book.deals if d.account.owner_id != rep.id and d.account.owner_id in team]
            odd = [d for d in book.deals if d.account.owner_id != rep.id and d.account.owner_id not in team]
            free = {i.opportunity_id for i in book.free_items}
            if (least <= len(book.deals) <= most and foreign and not odd and len(free) >= 2
                    and all(a.discount_bp <= 3500 for a in book.pending) and book.manager.manager_id is not None
                    and any(in_split(split, "opportunity", d.id) for d in book.deals)
                    and fair_reasons(session, book.manager, [a.reason for a in book.pending])):
                found.append(rep.id)
        return tuple(found)
    return [book_of(session, session.get(Person, rep)) for rep in world_scan(session, ("departing", split, least, most),
                                                                              scan)]


def _planted_requests(session, rng, book: Book, first_id: int) -> list[DecideDiscount]:
    """Two requests the rep made yesterday on lines of two deals: one whose reason stands, one naming a
    competitor the CRM does not know."""
    rivals, by_deal = visible_rivals(session, book.manager), {}
    for item in book.free_items:
        by_deal.setdefault(item.opportunity_id, item)
    items = rng.sample(list(by_deal.values()), 2)
    names = {d.id: d.name for d in book.deals}
    good = pick(rng, GOOD).format(rival=pick(rng, rivals), budget=rng.randrange(4, 20) * 5_000)
    tricky = pick(rng, TRICKY).format(rival=pick(rng, UNKNOWN))
    made = []
    for k, (item, reason) in enumerate(rng.sample([(items[0], good), (items[1], tricky)], 2)):
        stands = reason_stands(session, reason)  # the good one stands, the one naming an unknown competitor not
        made.append(DecideDiscount(first_id + k, item.id, item.opportunity_id, names[item.opportunity_id],
                                   pick(rng, (25, 28, 30, 32)), reason, stands, book.rep.id, minute=10 + k,
                                   tricky=reason == tricky))
    return made


def handover_book(session, rng, book: Book, split: str, mover: Person) -> tuple[list[Procedure], list[Person]]:
    """The procedures of the handover of `book` (after the request and the articles' reads), and the teammates
    who take over deals. One of the rep's accounts with an open deal of theirs goes to a teammate (a report
    of the manager with accounts of their own), moved by `mover` ten minutes ago ("changed")."""
    rep, manager = book.rep, book.manager
    first = (session.scalar(select(DiscountApproval.id).order_by(DiscountApproval.id.desc())) or 0) + 1
    decide = [DecideDiscount(a.id, a.line_item_id, a.opportunity_id, session.get(Opportunity, a.opportunity_id).name,
                             a.discount_bp // 100, a.reason, reason_stands(session, a.reason)) for a in book.pending]
    decide += _planted_requests(session, rng, book, first)
    team = sorted(reports_of(session, manager) - {rep.id})
    mates = [session.get(Person, i) for i in team if session.scalar(select(Account.id).where(Account.owner_id == i))]
    own = [d for d in book.deals if d.account.owner_id == rep.id]
    moved = pick(rng, own)
    taker = pick(rng, mates)
    owners = {d.id: taker.id if d.account_id == moved.account_id else manager.id if d.account.owner_id == rep.id
              else d.account.owner_id for d in book.deals}
    names = tuple(sorted({session.get(Person, i).name for i in owners.values()} | {manager.name}))
    ordered = sorted(book.deals, key=lambda d: (not in_split(split, "opportunity", d.id), rng.random()))
    others = [d.id for d in session.scalars(select(Opportunity).where(Opportunity.owner_id.in_(team),
                                                                      Opportunity.stage.in_(OPEN_STAGES))
                                            .order_by(Opportunity.id))]
    deals, moving = [], True
    for d in ordered:
        to = session.get(Person, owners[d.id])
        holds = ("changed",) if d.account_id == moved.account_id else ("exception",) if to.id != manager.id else ()
        deals.append(HandOverDeal(d.id, d.name, d.account_id, rep.name, to.id, to.handle, to.name, manager.id,
                                  manager.handle, manager.name, names, holds,
                                  mover.id if holds == ("changed",) and moving else 0,
                                  tuple(sorted(others, key=lambda i: (abs(i - d.id), i))[:6])))
        moving = moving and holds != ("changed",)
    accounts = [HandOverAccount(a.id, a.name, manager.id, manager.handle) for a in book.accounts
                if a.id != moved.account_id]
    reads = Reads((ToolCall("crm_list_opportunities", {"owner": f"@{rep.handle}", "stage": "open"}),
                   ToolCall("crm_list_accounts", {"owner": f"@{rep.handle}"}),
                   ToolCall("crm_list_discount_approvals", {"status": "Pending", "mine": True})))
    takers = [session.get(Person, i) for i in dict.fromkeys(owners.values()) if i != manager.id]
    decide = [replace(d, new_owner=owners[d.deal]) for d in decide]
    return [reads, *decide, *accounts, *deals], takers
