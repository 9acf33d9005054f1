"""The CRM part of a world: products and price books, accounts (some with a parent), contacts,
then (in crm_deals) opportunities with line items, discount approvals and stage history, and (in
crm_records) leads, cases and activities. Returns a `Crm` that chat uses to talk about real deals.

Every owner is a Sales person; every time is before the company's "now" and, except due dates and
close dates, no later than the end of the chat history (the Friday before), so the apps agree.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from random import Random

from faker import Faker
from sqlalchemy import insert
from sqlalchemy.orm import Session

from officegym.apps.crm.models import Account, Contact, PriceBook, PriceBookEntry, Product

from . import crm_vocab as cv
from . import vocab
from .bulk import bulk_insert
from .chat_text import history_end as chat_history_end
from .crm_deals import build_deals, insert_deals
from .crm_model import AccountRec, Crm, Ctx, _domain, _phone, _weighted, business_time
from .crm_records import build_records
from .org import Org, PersonRec, slugify


def _sales_cast(org: Org, now: datetime) -> tuple[list[PersonRec], dict[str, list[PersonRec]], list[PersonRec]]:
    """Account owners (account executives, by their team's region) and lead workers (SDRs).
    People who joined in the last months own nothing: their deals would predate them."""
    regions = {t["name"]: t.get("region") for d in vocab.DEPARTMENTS for t in d["teams"]}
    sales = [p for p in org.in_dept("Sales") if p.rank in ("lead", "member")]
    settled = [p for p in sales if p.since <= now - timedelta(days=200)] or \
        [p for p in sales if p.since < org.window_start] or sales
    aes = [p for p in settled if org.area_of(p) not in ("Sales Development", "Sales Operations")] or settled
    by_region: dict[str, list[PersonRec]] = {}
    for p in aes:
        by_region.setdefault(regions.get(org.area_of(p)) or "any", []).append(p)
    sdrs = [p for p in settled if org.area_of(p) == "Sales Development"] or aes
    head = org.person(org.heads["Sales"]) if "Sales" in org.heads else None
    return (aes or ([head] if head else [org.ceo])), by_region, sdrs


def _owner(ctx: Ctx, region: str, load: dict[int, int]) -> PersonRec:
    """The least-loaded rep of the region's team (any rep when no team covers the region)."""
    pool = ctx.by_region.get(cv.TEAM_REGION[region]) or ctx.by_region.get("any") or ctx.reps
    low = min(load.get(p.id, 0) for p in pool)
    pick = ctx.rng.choice([p for p in pool if load.get(p.id, 0) == low])
    load[pick.id] = load.get(pick.id, 0) + 1
    return pick


def _accounts(ctx: Ctx) -> list[AccountRec]:
    """org.customers first (chat already names them), then more companies; ~1 in 7 gets a
    regional subsidiary. Ids follow creation time, so parents come before their subsidiaries."""
    rng, fake, org, now = ctx.rng, ctx.fake, ctx.org, ctx.now
    top = round(ctx.spec.customers * 1.75)
    names = list(org.customers[:top])
    people = {p.name for p in org.people}
    while len(names) < top:
        name = fake.company()
        if name not in names and name not in people:
            names.append(name)
    twins = _lookalikes(ctx, names, people) if ctx.spec.crm_history else []
    load: dict[int, int] = {}
    head = org.heads.get("Sales")
    head_owned = set(rng.sample(range(top), min(2, max(1, top // 12)))) if head else set()
    earliest = max(org.founded + timedelta(days=60), now - timedelta(days=3 * 365))
    taken: set[str] = set()
    recs: list[AccountRec] = []
    for i, name in enumerate(names):
        region = _weighted(rng, cv.REGION_WEIGHTS)
        owner = org.person(head) if i in head_owned else _owner(ctx, region, load)
        created = business_time(rng, earliest, now - timedelta(days=200))
        recs.append(AccountRec(0, name, owner.id, region, _weighted(rng, cv.INDUSTRY_WEIGHTS),
                               _weighted(rng, cv.SIZE_WEIGHTS), _domain(name, taken, rng), created))
    big = [a for a in recs if a.size in ("1001-5000", "5000+")] or recs
    for parent in rng.sample(big, min(len(big), max(1, top // 7))):
        region = rng.choice([r for r in cv.SUBSIDIARIES if r != parent.region])
        suffix = rng.choice(cv.SUBSIDIARIES[region])
        created = business_time(rng, parent.created_at + timedelta(days=30), now - timedelta(days=190))
        size = cv.SIZES_DOWN.get(parent.size, parent.size)
        recs.append(AccountRec(0, f"{parent.name} - {suffix}", _owner(ctx, region, load).id, region, parent.industry,
                               size, parent.domain, max(created, parent.created_at + timedelta(days=1)),
                               parent_id=id(parent)))
    recs.sort(key=lambda a: (a.created_at, a.name))
    ids = {}
    for n, rec in enumerate(recs, start=1):
        rec.id = n
        ids[id(rec)] = n
    for rec in recs:
        rec.parent_id = ids[rec.parent_id] if rec.parent_id else None
    ctx.twins = twins
    return recs


LOOKALIKE_SUFFIXES = [" Inc", " LLC", " Ltd", " PLC", " Group", " Holdings", " and Sons"]


def _lookalike(name: str, rng: Random) -> str:
    """A company name that looks like `name`: another legal suffix, other punctuation, or Holdings."""
    for suffix in LOOKALIKE_SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)] + rng.choice([s for s in LOOKALIKE_SUFFIXES if s != suffix])
    if ", " in name:
        return name.replace(", ", " ", 1).replace(" and ", " & ")
    if "-" in name:
        return name.replace("-", " ") + rng.choice([" Group", " Partners"])
    return name + rng.choice([" Holdings", " International", " Group"])


def _lookalikes(ctx: Ctx, names: list[str], people: set[str]) -> list[tuple[str, str]]:
    """Turn about one account in 25 (never one chat already names) into a look-alike of another,
    so that finding an account or a deal by name needs care. Returns (look-alike, original) pairs."""
    rng, free = ctx.rng, list(range(len(ctx.org.customers), len(names)))
    twins: list[tuple[str, str]] = []
    for _ in range(len(names) // 25):
        if not free:
            break
        original = names[rng.randrange(len(ctx.org.customers))]  # a name chat talks about
        twin = _lookalike(original, rng)
        if twin in names or twin in people or any(original in pair for pair in twins):
            continue
        names[free.pop(rng.randrange(len(free)))] = twin
        twins.append((twin, original))
    return twins


def _contacts(ctx: Ctx, accounts: list[AccountRec]) -> list[dict]:
    """2–4 people per account, emailed at the account's domain."""
    rows: list[dict] = []
    emails: set[str] = set()
    for acc in accounts:
        for _ in range(ctx.rng.randint(2, 4)):
            first, last = ctx.fake.first_name(), ctx.fake.last_name()
            email = f"{slugify(first)}.{slugify(last)}@{acc.domain}".replace("-", "")
            if email in emails:
                continue
            emails.add(email)
            created = business_time(ctx.rng, acc.created_at, min(ctx.end, acc.created_at + timedelta(days=240)))
            rows.append({"id": len(rows) + 1, "account_id": acc.id, "first_name": first, "last_name": last,
                         "title": ctx.rng.choice(cv.CONTACT_TITLES), "email": email,
                         "phone": _phone(ctx.rng, acc.region), "owner_id": acc.owner_id, "created_at": created})
            acc.contact_ids.append(len(rows))
    return rows


def _catalog(session: Session) -> dict[str, tuple[int, str, int]]:
    """Products, the standard price book with every product, and a partner book 15% below list."""
    session.execute(insert(Product), [
        {"id": i, "code": code, "name": name, "family": family, "description": desc,
         "is_active": code not in cv.INACTIVE_PRODUCTS}
        for i, (code, name, family, _price, _unit, desc) in enumerate(cv.PRODUCTS, start=1)])
    session.execute(insert(PriceBook), [{"id": 1, "name": cv.STANDARD_BOOK, "is_standard": True, "is_active": True},
                                        {"id": 2, "name": cv.PARTNER_BOOK, "is_standard": False, "is_active": True}])
    entries = []
    for i, (code, _n, _f, price, _u, _d) in enumerate(cv.PRODUCTS, start=1):
        entries.append({"price_book_id": 1, "product_id": i, "unit_price_cents": price * 100})
        if code not in cv.INACTIVE_PRODUCTS:
            entries.append({"price_book_id": 2, "product_id": i,
                            "unit_price_cents": price * (100 - cv.PARTNER_DISCOUNT)})
    session.execute(insert(PriceBookEntry), [dict(e, id=n) for n, e in enumerate(entries, start=1)])
    return {code: (i, name, price * 100) for i, (code, name, _f, price, _u, _d) in enumerate(cv.PRODUCTS, start=1)}


def build_crm(session: Session, spec, seed: int, org: Org) -> Crm:
    """Generate and insert the CRM; return the `Crm` description (accounts and deals) for chat."""
    rng = Random(f"{seed}:crm")
    fake = Faker("en_US")
    fake.seed_instance(f"{seed}:crm")  # not `seed`: org's Faker already drew names from that stream
    now = org.now
    reps, by_region, sdrs = _sales_cast(org, now)
    ctx = Ctx(org, spec, rng, fake, now, chat_history_end(now), reps, by_region, sdrs)
    products = _catalog(session)
    accounts = _accounts(ctx)
    bulk_insert(session, Account, [
        {"id": a.id, "name": a.name, "industry": a.industry, "size": a.size, "region": a.region,
         "website": f"https://www.{a.domain}" + (f"/{slugify(a.name.rsplit(' - ', 1)[1])}" if a.parent_id else ""),
         "phone": _phone(rng, a.region), "owner_id": a.owner_id, "parent_id": a.parent_id,
         "created_at": a.created_at} for a in accounts])
    contacts = _contacts(ctx, accounts)
    crm = Crm(accounts, [], products, ctx.end, ctx.twins)
    crm.deals = build_deals(ctx, crm)
    records = build_records(ctx, crm, contacts)  # converted leads re-date the contacts they became
    bulk_insert(session, Contact, contacts)
    insert_deals(session, crm)
    for table, rows in records:  # in foreign-key order: leads and cases point at the rows above
        bulk_insert(session, table, rows)
    return crm
