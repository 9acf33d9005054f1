"""Accounts and contacts: list, read, create, update. Every employee reads them; Sales edits."""

from __future__ import annotations

from sqlalchemy import asc, desc, func, or_, select
from sqlalchemy.orm import Session

from officegym import clock
from officegym.apps.org.models import Person
from officegym.apps.org.services import contains
from officegym.errors import Conflict, Invalid
from officegym.journal import journaled
from officegym.pagination import Page, paginate

from . import fields
from .access import require_edit, require_sales, resolve_owner
from .lookups import resolve_account, resolve_contact
from .models import INDUSTRIES, REGIONS, SIZES, Account, Contact

ACCOUNT_SORTS = {"name": Account.name, "created": Account.created_at, "industry": Account.industry,
                 "region": Account.region, "size": Account.size}
CONTACT_SORTS = {"name": Contact.last_name, "created": Contact.created_at, "title": Contact.title}


def sort_order(sorts: dict, sort: str, descending: bool, tie) -> list:
    """ORDER BY for a named sort column, refusing unknown names."""
    if sort not in sorts:
        raise Invalid(f"sort must be one of: {', '.join(sorts)}; got {sort!r}.")
    if not isinstance(descending, bool):
        raise Invalid("descending must be true or false.")
    return [(desc if descending else asc)(sorts[sort]), tie]


def query_text(query) -> str:
    """A search term of at most 100 characters."""
    return fields.text(query, "query", 100)


def list_accounts(session: Session, actor: Person, query: str = "", industry: str | None = None,
                  region: str | None = None, owner: int | str | None = None, sort: str = "name",
                  descending: bool = False, offset: int = 0, limit: int = 50) -> Page[Account]:
    """Accounts whose name or website contains `query`, filtered by industry, region and owner."""
    stmt = select(Account).order_by(*sort_order(ACCOUNT_SORTS, sort, descending, Account.id))
    term = query_text(query)
    if term:
        stmt = stmt.where(or_(contains(Account.name, term), contains(Account.website, term)))
    if industry:
        stmt = stmt.where(Account.industry == fields.choice(industry, INDUSTRIES, "industry"))
    if region:
        stmt = stmt.where(Account.region == fields.choice(region, REGIONS, "region"))
    if owner is not None and owner != "":
        stmt = stmt.where(Account.owner_id == resolve_owner(session, owner).id)
    return paginate(session, stmt, offset, limit)


def get_account(session: Session, actor: Person, account: int | str) -> Account:
    """One account by id or exact name."""
    return resolve_account(session, actor, account)


def child_accounts(session: Session, actor: Person, account: int | str) -> list[Account]:
    """The accounts whose parent is this one, by name."""
    found = resolve_account(session, actor, account)
    return list(session.scalars(select(Account).where(Account.parent_id == found.id).order_by(Account.name)))


def _account_values(session: Session, actor: Person, values: dict, current: Account | None) -> dict:
    out: dict = {}
    if "name" in values:
        name = fields.text(values["name"], "Account name", 160, required=True)
        clash = session.scalar(select(Account.id).where(func.lower(Account.name) == name.lower()))
        if clash is not None and (current is None or clash != current.id):
            raise Conflict(f"An account named {name!r} already exists (id {clash}); open it instead.")
        out["name"] = name
    for key, allowed in (("industry", INDUSTRIES), ("size", SIZES), ("region", REGIONS)):
        if key in values and values[key] not in (None, ""):
            out[key] = fields.choice(values[key], allowed, key)
    if "website" in values:
        out["website"] = fields.text(values["website"], "Website", 160)
    if "phone" in values:
        out["phone"] = fields.phone(values["phone"])
    if "parent" in values:
        out["parent_id"] = _parent_id(session, actor, values["parent"], current)
    return out


def _parent_id(session: Session, actor: Person, parent, current: Account | None) -> int | None:
    if parent in (None, "", 0):
        return None
    found = resolve_account(session, actor, parent)
    ancestor = found
    while ancestor is not None:  # no account may end up its own ancestor
        if current is not None and ancestor.id == current.id:
            raise Invalid(f"{found.name} cannot be the parent of {current.name}: that would make a loop.")
        ancestor = ancestor.parent
    return found.id


@journaled("crm.create_account")
def create_account(session: Session, actor: Person, name: str, industry: str = "", size: str = "",
                   region: str = "", website: str = "", phone: str = "", parent: int | str | None = None,
                   owner: int | str | None = None) -> Account:
    """A new account, owned by the actor unless a manager names another owner."""
    require_sales(session, actor, "create accounts")
    owner_person = resolve_owner(session, owner, actor, assigning=True)
    values = _account_values(session, actor, {"name": name, "industry": industry, "size": size, "region": region,
                                              "website": website, "phone": phone, "parent": parent}, None)
    when = clock.advance(session)
    return fields.insert(session, actor, Account(**{"industry": "", "size": "", "region": "", **values},
                                                 owner_id=owner_person.id, created_at=when), "account", when)


@journaled("crm.update_account")
def update_account(session: Session, actor: Person, account: int | str, **changes) -> Account:
    """Change fields of an account: name, industry, size, region, website, phone, parent, owner."""
    found = resolve_account(session, actor, account)
    require_edit(session, actor, found.owner_id, f"Account {found.name}")
    changes = fields.requested_changes(changes, {"name", "industry", "size", "region", "website", "phone",
                                                 "parent", "owner"}, "Accounts")
    values = _account_values(session, actor, changes, found)
    if changes.get("owner") not in (None, ""):
        values["owner_id"] = resolve_owner(session, changes["owner"], actor, assigning=True).id
    fields.apply_changes(session, actor, found, "account", values, clock.advance(session))
    return found


def list_contacts(session: Session, actor: Person, query: str = "", account: int | str | None = None,
                  owner: int | str | None = None, sort: str = "name", descending: bool = False,
                  offset: int = 0, limit: int = 50) -> Page[Contact]:
    """Contacts whose name, email or title contains `query`, optionally at one account."""
    stmt = select(Contact).order_by(*sort_order(CONTACT_SORTS, sort, descending, Contact.id))
    term = query_text(query)
    if term:
        full = Contact.first_name + " " + Contact.last_name
        stmt = stmt.where(or_(contains(full, term), contains(Contact.email, term), contains(Contact.title, term)))
    if account not in (None, ""):
        stmt = stmt.where(Contact.account_id == resolve_account(session, actor, account).id)
    if owner not in (None, ""):
        stmt = stmt.where(Contact.owner_id == resolve_owner(session, owner).id)
    return paginate(session, stmt, offset, limit)


def get_contact(session: Session, actor: Person, contact: int | str) -> Contact:
    """One contact by id or email."""
    return resolve_contact(session, actor, contact)


def _contact_values(session: Session, actor: Person, values: dict) -> dict:
    out: dict = {}
    if "first_name" in values:
        out["first_name"] = fields.text(values["first_name"], "First name", 60, required=True)
    if "last_name" in values:
        out["last_name"] = fields.text(values["last_name"], "Last name", 60, required=True)
    if "title" in values:
        out["title"] = fields.text(values["title"], "Title", 120)
    if "email" in values:
        out["email"] = fields.email(values["email"])
    if "phone" in values:
        out["phone"] = fields.phone(values["phone"])
    if values.get("account") not in (None, ""):
        out["account_id"] = resolve_account(session, actor, values["account"]).id
    return out


@journaled("crm.create_contact")
def create_contact(session: Session, actor: Person, account: int | str, first_name: str, last_name: str,
                   title: str = "", email: str = "", phone: str = "", owner: int | str | None = None) -> Contact:
    """A new contact at an account."""
    require_sales(session, actor, "create contacts")
    if account in (None, ""):
        raise Invalid("A contact belongs to an account: name it by id or exact name.")
    owner_person = resolve_owner(session, owner, actor, assigning=True)
    values = _contact_values(session, actor, {"account": account, "first_name": first_name, "last_name": last_name,
                                              "title": title, "email": email, "phone": phone})
    when = clock.advance(session)
    return fields.insert(session, actor, Contact(**values, owner_id=owner_person.id, created_at=when), "contact",
                         when)


@journaled("crm.update_contact")
def update_contact(session: Session, actor: Person, contact: int | str, **changes) -> Contact:
    """Change fields of a contact: first_name, last_name, title, email, phone, account, owner."""
    found = resolve_contact(session, actor, contact)
    require_edit(session, actor, found.owner_id, f"Contact {found.name}")
    changes = fields.requested_changes(changes, {"first_name", "last_name", "title", "email", "phone", "account",
                                                 "owner"}, "Contacts")
    values = _contact_values(session, actor, changes)
    if changes.get("owner") not in (None, ""):
        values["owner_id"] = resolve_owner(session, changes["owner"], actor, assigning=True).id
    fields.apply_changes(session, actor, found, "contact", values, clock.advance(session))
    return found
