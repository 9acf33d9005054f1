"""The CRM's records as the world builder draws them, before they are inserted: accounts, deals
with their lines and approvals, the `Crm` that chat, tickets and sheets talk about, the drawing
context, and the small draws every CRM generator shares (a business time, a weighted pick, a
domain, a phone number)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from random import Random

from faker import Faker

from . import crm_vocab as cv
from .org import Org, PersonRec, slugify


@dataclass
class AccountRec:
    """A generated account and what the other generators need of it."""

    id: int
    name: str
    owner_id: int
    region: str
    industry: str
    size: str
    domain: str
    created_at: datetime
    parent_id: int | None = None
    contact_ids: list[int] = field(default_factory=list)


@dataclass
class LineRec:
    """A line item: quantity × list price less a whole-percent discount (in basis points)."""

    code: str
    quantity: int
    unit_price_cents: int
    discount_bp: int = 0

    @property
    def total_cents(self) -> int:
        """The same rounding as apps.crm.products.line_total."""
        return (self.quantity * self.unit_price_cents * (10000 - self.discount_bp) + 5000) // 10000


@dataclass
class ApprovalRec:
    """A discount request on one line of a deal."""

    line: int  # index into DealRec.lines
    discount_bp: int
    status: str
    approver_id: int
    requested_at: datetime
    decided_at: datetime | None
    reason: str
    note: str = ""


@dataclass
class DealRec:
    """A generated opportunity; `changes` are its stage moves (old, new, when), oldest first."""

    id: int
    name: str
    account: AccountRec
    owner_id: int
    type: str
    stage: str
    close_date: date
    created_at: datetime
    closed_at: datetime | None = None
    amount_cents: int = 0
    competitor: str = ""
    loss_reason: str = ""
    next_step: str = ""
    description: str = ""
    product: str = ""  # name of the main product
    changes: list[tuple[str, str, datetime]] = field(default_factory=list)
    lines: list[LineRec] = field(default_factory=list)
    approvals: list[ApprovalRec] = field(default_factory=list)


@dataclass
class Crm:
    """What the CRM holds, as chat (and task authors) need it."""

    accounts: list[AccountRec]
    deals: list[DealRec]
    products: dict[str, tuple[int, str, int]]  # code -> (id, name, list price in cents)
    history_end: datetime
    twins: list[tuple[str, str]] = field(default_factory=list)  # (look-alike account, the account it mimics)

    def account(self, account_id: int) -> AccountRec:
        """An account by id (ids are 1..N)."""
        return self.accounts[account_id - 1]


@dataclass
class Ctx:
    """Shared state of one CRM build."""

    org: Org
    spec: object
    rng: Random
    fake: Faker
    now: datetime
    end: datetime  # end of the seeded history
    reps: list[PersonRec]  # who owns accounts and deals
    by_region: dict[str, list[PersonRec]]
    sdrs: list[PersonRec]  # who works leads
    twins: list[tuple[str, str]] = field(default_factory=list)  # look-alike accounts (see _lookalikes)


def business_time(rng: Random, start: datetime, end: datetime) -> datetime:
    """A working-day time between 9:00 and 16:00 within [start, end] (clamped when none fits)."""
    first, last = start.date(), max(start.date(), end.date())
    day = first + timedelta(days=rng.randint(0, (last - first).days))
    if day.weekday() >= 5:  # a weekend day becomes the Friday before or the Monday after, if in range
        friday, monday = day - timedelta(days=day.weekday() - 4), day + timedelta(days=7 - day.weekday())
        day = friday if friday >= first else monday if monday <= last else day
    at = datetime.combine(day, time(rng.randint(9, 15), rng.randint(0, 59), rng.randint(0, 59)))
    return min(max(at, start), end)


def _weighted(rng: Random, weights: dict[str, int]) -> str:
    return rng.choices(list(weights), weights=list(weights.values()))[0]


def _domain(name: str, taken: set[str], rng: Random) -> str:
    base = re.sub(r"[^a-z0-9]", "", slugify(name.replace(" and ", " ")))[:22] or "customer"
    domain = f"{base}.{rng.choice(cv.TLDS)}"
    while domain in taken:
        domain = f"{base}{rng.randint(2, 99)}.{rng.choice(cv.TLDS)}"
    taken.add(domain)
    return domain


def _phone(rng: Random, region: str) -> str:
    return cv.PHONES[region].format(a=rng.randint(201, 989), b=rng.randint(100, 9999))
