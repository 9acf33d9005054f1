"""Helpers of the credit-requests workflow (w_revenue_requests): the requests Customer Success lists,
who approves each, the earlier credits the accounts' notes show (one per invoice: a request on an
invoice already credited goes to no approver), and the setup that plants them."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from officegym import clock
from officegym.apps.chat import services as chat
from officegym.apps.crm import services as crm
from officegym.apps.crm.models import Account
from officegym.apps.org.models import Department, Person
from officegym.apps.sheets import services as sheets

from .common import pick
from .split import in_split, person_in

TITLE = "Credit and refund requests 2026"
REFUND = "Refund of annual prepayment"
KINDS = ("Service credit", "Goodwill credit", REFUND)
REASONS = {"Service credit": ["the February outages", "the data export failures in January"],
           "Goodwill credit": ["the delayed onboarding", "a billing error on their last invoice"],
           REFUND: ["seats they cancelled within the trial period", "a duplicate annual payment"]}
AMOUNTS = {"Service credit": [300, 450, 650, 800, 1_200, 2_500, 4_800, 7_200, 12_500],
           "Goodwill credit": [250, 400, 700, 1_500, 3_000],
           REFUND: [400, 900, 3_600, 8_000]}
PRIORS = [0, 0, 250, 600, 3_000, 9_500]  # credits approved on the account within twelve months
MANAGER_UP_TO, CS_UP_TO = 1_000, 10_000
BANDS = ("manager", "Customer Success", "Finance")
REFUSALS = (1, 0, 2, 1)  # how many requests of an instance (by instance % 4) are on an invoice already credited


def tier(kind: str, amount: int, prior: int) -> str:
    """Who approves a request: every refund of an annual prepayment goes to Finance; otherwise the
    account's twelve-month total decides (the owner's manager, Customer Success, Finance). A total
    on a band's edge is never drawn."""
    total = prior + amount
    if kind == REFUND or total > CS_UP_TO:
        return "Finance"
    return "manager" if total < MANAGER_UP_TO else "Customer Success"


def approver_of(session, band: str, owner: Person) -> Person:
    """The person who approves a band: the owner's manager, or the head of the department."""
    found = owner.manager_id if band == "manager" else \
        session.scalar(select(Department.head_id).where(Department.name == band))
    if found is None:
        raise RuntimeError(f"the world has no {band} approver for this task")
    return session.get(Person, found)


def _invoice(rng) -> str:
    return f"INV-2026-{rng.randrange(100, 400):04d}"


def draw_requests(rng, accounts: list[Account], refusals: int) -> list[dict]:
    """One request per account, with the account's earlier credits, drawn until the requests that go
    through go to at least two approvers (or one, when only one goes), no total sits on a band's edge,
    and no two share an amount or an invoice. `refusals` of them ask again on an invoice the
    account's earlier credit already covered (`done`: they go to no approver)."""
    for _ in range(500):
        drawn, done = [], set(rng.sample(range(len(accounts)), refusals))
        for n, account in enumerate(accounts):
            kind = pick(rng, KINDS)
            row = {"account": account.id, "kind": kind, "amount": pick(rng, AMOUNTS[kind]),
                   "prior": pick(rng, [p for p in PRIORS if p] if n in done else PRIORS),
                   "old": pick(rng, [0, 2_000, 8_000]), "reason": pick(rng, REASONS[kind]), "invoice": _invoice(rng),
                   "earlier": _invoice(rng), "done": n in done}
            if row["done"]:
                row["earlier"] = row["invoice"]
            row["tier"] = tier(kind, row["amount"], row["prior"])
            drawn.append(row)
        going = [r for r in drawn if not r["done"]]
        totals = {r["prior"] + r["amount"] for r in drawn}
        invoices = {r["invoice"] for r in drawn} | {r["earlier"] for r in drawn if not r["done"]}
        if len({r["tier"] for r in going}) >= min(2, len(going)) and not totals & {MANAGER_UP_TO, CS_UP_TO} \
                and len(invoices) == len(drawn) * 2 - refusals and len({r["amount"] for r in drawn}) == len(drawn):
            return drawn
    raise RuntimeError("no requests go to two approvers")


def plant(owner_id: int, asker_id: int, rows: list[dict], ask: str):
    """The setup: the owner's earlier credit notes on the accounts (one within twelve months, on the
    invoice it names, one older); yesterday Customer Success listed the requests in a workbook shared
    with the owner and told them by direct message."""
    def run(session) -> None:
        owner, asker = session.get(Person, owner_id), session.get(Person, asker_id)
        base = clock.company_now(session).replace(hour=11, minute=0, second=0, microsecond=0)
        for row in rows:
            for days, amount, invoice in ((400, row["old"], "INV-2024-0871"), (40, row["prior"], row["earlier"])):
                if amount:
                    clock.set_time(session, base - timedelta(days=days))
                    crm.log_activity(session, owner, "account", row["account"], "note", "Service credit approved",
                                     f"${amount:,} on {invoice} for an outage. Approved as the handbook says.")
        clock.set_time(session, base.replace(hour=15, minute=20) - timedelta(days=1))
        book = sheets.create_workbook(session, asker, TITLE, ["Requests"], "Customers' credit and refund requests")
        table = [["Account", "Invoice", "Request", "Amount", "Reason"]] + [
            [session.get(Account, r["account"]).name, r["invoice"], r["kind"], r["amount"], r["reason"]] for r in rows]
        sheets.write_range(session, asker, book.id, "Requests!A1", table)
        sheets.share_workbook(session, asker, book.id, owner.id, "viewer")
        chat.post_message(session, asker, chat.open_conversation(session, asker, [owner.id]).id, ask)
    return run


def owners_with_accounts(session, split: str) -> list[tuple[Person, list[Account]]]:
    """Sales people of `split` with a manager who own at least four accounts of the split (by id)
    whose names the workbook can hold as they are."""
    sales = session.scalar(select(Department.id).where(Department.name == "Sales"))
    found = []
    for owner in session.scalars(select(Person).where(Person.department_id == sales, Person.manager_id.is_not(None))
                                 .order_by(Person.id)):
        accounts = [a for a in session.scalars(select(Account).where(Account.owner_id == owner.id).order_by(Account.id))
                    if in_split(split, "account", a.id) and '"' not in a.name]
        if person_in(split, owner.id) and len(accounts) >= 4:
            found.append((owner, accounts))
    return found


def asker_in_success(session, rng, *besides: int) -> Person:
    """Someone in Customer Success (not its head) who lists the requests."""
    success = session.scalar(select(Department.id).where(Department.name == "Customer Success"))
    people = [p for p in session.scalars(select(Person).where(Person.department_id == success).order_by(Person.id))
              if p.id not in besides and p.manager_id is not None]
    return pick(rng, people)
