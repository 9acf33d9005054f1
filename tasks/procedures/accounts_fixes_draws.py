"""Draws of the SOPS tickets on contacts: customer data corrections (tasks.procedures.accounts_corrections: whose
contacts, who writes (the contact themself, a colleague listed at the account, someone at the customer's domain
no contact holds, or a contact of another customer), what they ask, the look-alike contact of the same name) and
the duplicate check's pairs (tasks.procedures.accounts_duplicates)."""

from __future__ import annotations

import random
from datetime import timedelta

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from officegym import clock
from officegym.apps.crm.models import Account, Contact
from officegym.apps.org.models import Person, Team
from officegym.seed_data.crm_vocab import CONTACT_TITLES, PHONES

from ..common import world_scan
from ..split import in_split, person_in
from .accounts_corrections import Change, CorrectionTicket, LookalikeContact
from .accounts_duplicates import MergeContacts, NewContact

COUNTING = ("self", "colleague")  # senders whose request counts
NOT_COUNTING = ("stranger", "outsider")  # someone at the domain no contact holds; a contact of another account


def contacts_at(session: Session, account_id: int) -> list[Contact]:
    """An account's contacts, by id (read once per session: the draws read the world before any setup)."""
    if "accounts_contacts" not in session.info:
        found: dict[int, list[Contact]] = {}
        for contact in session.scalars(select(Contact).order_by(Contact.id)):
            found.setdefault(contact.account_id, []).append(contact)
        session.info["accounts_contacts"] = found
    return session.info["accounts_contacts"].get(account_id, [])


def correction_owners(session: Session, split: str, least: int = 3) -> list[Person]:
    """Account owners of `split` with accounts of `least` contacts or more, one of them of `split`, by id."""
    def scan() -> tuple:
        counts = dict(session.execute(select(Contact.account_id, func.count()).group_by(Contact.account_id)).all())
        return tuple(sorted({a.owner_id for a in session.scalars(select(Account)) if counts.get(a.id, 0) >= least
                             and person_in(split, a.owner_id)
                             and any(in_split(split, "contact", c.id) for c in contacts_at(session, a.id))}))
    return [session.get(Person, i) for i in world_scan(session, ("correction owners", split, least), scan)]


def correction_accounts(session: Session, owner: Person, split: str, least: int = 3) -> list[Account]:
    """The owner's accounts a correction may be about (`least` contacts or more, one of `split`), by id."""
    return [a for a in session.scalars(select(Account).where(Account.owner_id == owner.id).order_by(Account.id))
            if len(contacts_at(session, a.id)) >= least and any(in_split(split, "contact", c.id)
                                                             for c in contacts_at(session, a.id))]


def sales_ops_people(session: Session, but: int = 0) -> list[Person]:
    """The members of the Sales Operations team (who file the customers' requests) other than `but`, by id."""
    team = session.scalar(select(Team.id).where(Team.name == "Sales Operations"))
    return list(session.scalars(select(Person).where(Person.team_id == team, Person.id != but).order_by(Person.id)))


def new_value(rng: random.Random, field: str, region: str, avoid: set[str]) -> str:
    """A title or a phone number (in the account region's format) other than those in `avoid`."""
    while True:
        value = (rng.choice(CONTACT_TITLES) if field == "title"
                 else PHONES.get(region, PHONES["North America"]).format(a=rng.randint(201, 989),
                                                                         b=rng.randint(0, 9999)))
        if value not in avoid:
            return value


def sender_of(session: Session, rng: random.Random, account: Account, kind: str, avoid: int = 0) -> tuple[str, str]:
    """Who writes about `account` (name, email): for "self" the contact `avoid`; a "colleague" listed at the
    account (not `avoid`); a "stranger" at the account's domain whom no contact holds; an "outsider", a contact of
    another account of the same owner (or of another owner's when there is none)."""
    people = contacts_at(session, account.id)
    if kind == "self":
        writer = session.get(Contact, avoid)
        return writer.name, writer.email
    if kind == "colleague":
        writer = rng.choice([c for c in people if c.id != avoid])
        return writer.name, writer.email
    if kind == "stranger":
        domain, known = people[0].email.split("@")[1], {c.email for c in people}
        while True:
            first_name, last_name = rng.choice(people).first_name, rng.choice(people).last_name
            email = f"{first_name}.{last_name}@{domain}".lower()
            if email not in known and f"{first_name} {last_name}" not in {c.name for c in people}:
                return f"{first_name} {last_name}", email
    mine = [a for a in session.scalars(select(Account).where(Account.owner_id == account.owner_id,
                                                             Account.id != account.id).order_by(Account.id))
            if contacts_at(session, a.id)]
    other = rng.choice(mine) if mine else session.get(Account, account.id % 500 + 1)
    writer = rng.choice(contacts_at(session, other.id))
    return writer.name, writer.email


def correction(session: Session, rng: random.Random, account: Account, split: str, key: str, kind: str,
               asks: int, stale: bool, lookalike_id: int = 0, sender: tuple[str, str] | None = None,
               filer: Person | None = None, taken: frozenset[int] = frozenset()) -> CorrectionTicket:
    """A request on `account` filed as `key` by Sales Operations (`filer`, else one drawn): a sender of `kind`
    (COUNTING or NOT_COUNTING; `sender` = (name, email) when given) asks for `asks` corrections (one contact's
    title and phone for "self", else one field of up to `asks` contacts), the last changed by a later email
    when `stale`; with `lookalike_id`, a contact of the first contact's name is added at another of the owner's
    accounts (the id it will get). The contacts of `taken` (asked about by other tickets of the plan) are not
    asked about again."""
    people = contacts_at(session, account.id)
    free = [c for c in people if c.id not in taken]
    first = rng.choice([c for c in free if in_split(split, "contact", c.id)] or free)
    others = [c for c in people if c.id != first.id and c.id not in taken]
    if kind == "self":
        asked = [(first, "title"), (first, "phone")][:max(1, asks)]
    else:
        asked = [(c, rng.choice(("title", "phone"))) for c in [first, *rng.sample(others, min(len(others), asks - 1))]]
    name, email = sender or sender_of(session, rng, account, kind, first.id)
    changes, used = [], {getattr(c, f) for c in people for f in ("title", "phone")}
    for n, (contact, field) in enumerate(asked):
        value = new_value(rng, field, account.region, used)
        first_ask = new_value(rng, field, account.region, used | {value}) if stale and n == len(asked) - 1 else ""
        used |= {value, first_ask}
        changes.append(Change(contact.id, contact.name, field, value, getattr(contact, field), first_ask))
    twin = None
    if lookalike_id:
        other = rng.choice(list(session.scalars(select(Account).where(Account.id != account.id,
                                                                      Account.owner_id == account.owner_id)
                                                .order_by(Account.id))))
        other_domain = (contacts_at(session, other.id) or [first])[0].email.split("@")[1]
        twin = LookalikeContact(other.owner_id, other.id, first.first_name, first.last_name, rng.choice(CONTACT_TITLES),
                                f"{first.first_name}.{first.last_name}@{other_domain}".lower(),
                                new_value(rng, "phone", other.region, set()), rng.randint(12, 60))
    filer = filer or rng.choice(sales_ops_people(session, account.owner_id))
    return CorrectionTicket(key, account.owner_id, filer.id, filer.name, account.id, account.name, email, name,
                            kind in COUNTING, tuple(changes), tuple(c.email for c in people), twin, lookalike_id)


def next_contact_id(session: Session) -> int:
    """The id the next contact will get."""
    return (session.scalar(select(func.max(Contact.id))) or 0) + 1


TASKS = ("Send the renewal quote to {first}", "Book a quarterly review with {first}",
         "Follow up with {first} on the pilot", "Share the security questionnaire with {first}")


def next_ids(session: Session, model) -> int:
    """The id the next row of `model` will get."""
    return (session.scalar(select(func.max(model.id))) or 0) + 1


def duplicate_pair(session: Session, rng: random.Random, owner: Person, split: str, key: str, kind: str,
                   ids: tuple[int, int], filer: Person, taken: frozenset[int] = frozenset()) -> MergeContacts:
    """A pair of one name for the duplicate check, on a contact of `owner` of `split` not in `taken`: `kind` is
    "newer" (the added record is the duplicate), "older" (the added record was created first: it survives) or
    "elsewhere" (the added record is at another of the owner's accounts: two people). `ids`: the ids the added
    contact and its open task will get."""
    accounts = correction_accounts(session, owner, split)
    names = dict(session.execute(select(Contact.first_name + " " + Contact.last_name, func.count())
                                 .group_by(Contact.first_name, Contact.last_name)).all())
    pool = [c for a in accounts for c in contacts_at(session, a.id)
            if in_split(split, "contact", c.id) and c.id not in taken and names[c.name] == 1]
    existing = rng.choice(pool)
    account = existing.account
    mine = [a for a in session.scalars(select(Account).where(Account.owner_id == owner.id, Account.id != account.id)
                                       .order_by(Account.id)) if contacts_at(session, a.id)]
    home = rng.choice(mine) if kind == "elsewhere" else account
    domain = contacts_at(session, home.id)[0].email.split("@")[1]
    email = (f"{existing.first_name}.{existing.last_name}@{domain}" if kind == "elsewhere"
             else f"{existing.first_name[0]}{existing.last_name}@{domain}").lower().replace(" ", "")
    now = clock.company_now(session)
    created = existing.created_at - timedelta(days=rng.randint(20, 300)) if kind == "older" else \
        now - timedelta(days=rng.randint(5, 40), hours=rng.randint(1, 6))
    new = NewContact(home.id, email, new_value(rng, "phone", home.region, {existing.phone}),
                     rng.choice(CONTACT_TITLES), created)
    return MergeContacts(key, owner.id, filer.id, existing.id, ids[0], existing.first_name, existing.last_name, new,
                         existing.email, account.name, home.name, kind != "elsewhere",
                         ids[0] if kind == "older" else existing.id,
                         rng.choice(TASKS).format(first=existing.first_name),
                         now.date() + timedelta(days=rng.randint(3, 21)), ids[1],
                         tuple(a.name for a in mine if a.id != home.id)[:6],
                         tuple(c.email for c in contacts_at(session, account.id) if c.id != existing.id))
