"""The world of an outage credit (w_deals_credit): who approves a credit of each size, the outages a
customer reported in IT, and the credits noted on its account or on a billing case of it."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from officegym import clock
from officegym.apps.crm import services as crm
from officegym.apps.crm.models import Case
from officegym.apps.org.models import Person
from officegym.apps.tickets import services as tickets

from .crm import money
from .tickets_common import next_key

TIERS = ("manager", "Customer Success", "Finance")  # who approves: up to $1,000, to $10,000, above


def chief(session: Session, title: str) -> Person:
    """The person with this exact title."""
    return session.scalar(select(Person).where(Person.title == title).order_by(Person.id))


def approvers(session: Session, owner: Person) -> dict[str, Person]:
    """The approver of each tier for an account owned by `owner`."""
    return {"manager": session.get(Person, owner.manager_id),
            "Customer Success": chief(session, "VP of Customer Success"),
            "Finance": chief(session, "Chief Financial Officer")}


def incident_step(reporter_id: int, fixer_id: int, owner_id: int, account: str, start: datetime, hours: float,
              urgency: str, summary: str):
    """A setup step: an outage the customer reported, resolved `hours` later, with the owner watching."""
    def run(session: Session) -> None:
        reporter, fixer = session.get(Person, reporter_id), session.get(Person, fixer_id)
        clock.set_time(session, start)
        ticket = tickets.create_ticket(session, reporter, "IT", "Incident", summary, f"Reported by {account}.",
                                       impact="High", urgency=urgency, account=account)
        tickets.assign_ticket(session, fixer, ticket.key, fixer.id, "IT Support")
        tickets.watch_ticket(session, fixer, ticket.key, owner_id)
        tickets.transition_ticket(session, fixer, ticket.key, "Start work")
        clock.set_time(session, start + timedelta(hours=hours))
        tickets.transition_ticket(session, fixer, ticket.key, "Resolve", "Fixed")
    return run


def earlier_credit_step(owner_id: int, account: str, when: date, dollars: int, invoice: str, why: str, who: str,
                   on_case: bool = False):
    """A setup step: a credit the owner noted long ago, on the account or on a billing case of it (closed
    since)."""
    def run(session: Session) -> None:
        owner = session.get(Person, owner_id)
        clock.set_time(session, datetime.combine(when, time(14, 10)))
        body = f"Credit of {money(dollars * 100)} on invoice {invoice} for {why}. Approved by {who}."
        if not on_case:
            crm.log_activity(session, owner, "account", account, "note", "Credit approved", body)
            return
        case = crm.create_case(session, owner, account, f"Billing: credit for {why}",
                               f"The customer asked for a credit for {why}.", priority="Medium")
        crm.log_activity(session, owner, "case", case.id, "note", "Credit approved", body)
        crm.update_case(session, owner, case.id, status="Closed")
    return run




def tier_of(dollars: int) -> str:
    """Who approved an earlier credit of this size on its own."""
    return TIERS[0] if dollars <= 1000 else TIERS[1] if dollars <= 10000 else TIERS[2]


def next_case(session: Session) -> int:
    """The id the CRM's next case gets."""
    return (session.scalar(select(func.max(Case.id))) or 0) + 1


def next_it(session: Session) -> int:
    """The number the IT project's next ticket gets."""
    return int(next_key(session, "IT").split("-")[1])
