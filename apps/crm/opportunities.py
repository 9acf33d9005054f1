"""Opportunities and the sales path.

The path: Prospecting → Qualification → Proposal → Negotiation, one stage forward at a time (going
back is allowed); Closed Won only from Negotiation; Closed Lost from any open stage, with a loss
reason. A closed deal is read-only until it is reopened, explicitly, into an open stage.
"""

from __future__ import annotations

from datetime import date

from sqlalchemy import select
from sqlalchemy.orm import Session

from officegym import clock
from officegym.apps.org.models import Person
from officegym.apps.org.services import contains
from officegym.errors import Conflict, Invalid
from officegym.journal import journaled
from officegym.pagination import Page, paginate

from . import fields
from .access import require_edit, require_sales, resolve_owner
from .accounts import query_text, sort_order
from .lookups import resolve_account, resolve_opportunity
from .models import (CLOSED_STAGES, LOSS_REASONS, OPEN_STAGES, OPPORTUNITY_TYPES, STAGE_PROBABILITY, STAGES,
                     LineItem, Opportunity)

OPPORTUNITY_SORTS = {"name": Opportunity.name, "amount": Opportunity.amount_cents, "close_date": Opportunity.close_date,
                     "stage": Opportunity.probability, "created": Opportunity.created_at}
STAGE_FILTERS = ("open", "closed") + STAGES


def list_opportunities(session: Session, actor: Person, query: str = "", stage: str | None = None,
                       owner: int | str | None = None, account: int | str | None = None,
                       close_from: str | date | None = None, close_to: str | date | None = None,
                       sort: str = "close_date", descending: bool = False, offset: int = 0,
                       limit: int = 50) -> Page[Opportunity]:
    """Opportunities the actor may see; `stage` is a stage name, "open" or "closed"; close dates
    are inclusive bounds."""
    scope = require_sales(session, actor, "see opportunities")
    stmt = select(Opportunity).where(scope.read_filter(Opportunity.owner_id))
    stmt = stmt.order_by(*sort_order(OPPORTUNITY_SORTS, sort, descending, Opportunity.id))
    term = query_text(query)
    if term:
        stmt = stmt.where(contains(Opportunity.name, term))
    if stage:
        wanted = fields.choice(stage, STAGE_FILTERS, "stage")
        stages = {"open": OPEN_STAGES, "closed": CLOSED_STAGES}.get(wanted, (wanted,))
        stmt = stmt.where(Opportunity.stage.in_(stages))
    if owner not in (None, ""):
        stmt = stmt.where(Opportunity.owner_id == resolve_owner(session, owner).id)
    if account not in (None, ""):
        stmt = stmt.where(Opportunity.account_id == resolve_account(session, actor, account).id)
    if close_from not in (None, ""):
        stmt = stmt.where(Opportunity.close_date >= fields.day(close_from, "close_from"))
    if close_to not in (None, ""):
        stmt = stmt.where(Opportunity.close_date <= fields.day(close_to, "close_to"))
    return paginate(session, stmt, offset, limit)


def get_opportunity(session: Session, actor: Person, opportunity: int | str) -> Opportunity:
    """One opportunity by id or exact name."""
    return resolve_opportunity(session, actor, opportunity)


def line_items(session: Session, actor: Person, opportunity: int | str) -> list[LineItem]:
    """The products on an opportunity, in the order they were added."""
    found = resolve_opportunity(session, actor, opportunity)
    return list(session.scalars(select(LineItem).where(LineItem.opportunity_id == found.id).order_by(LineItem.id)))


def has_line_items(session: Session, opportunity: Opportunity) -> bool:
    """Whether the amount derives from line items."""
    return session.scalar(select(LineItem.id).where(LineItem.opportunity_id == opportunity.id).limit(1)) is not None


def _values(session: Session, actor: Person, values: dict) -> dict:
    out: dict = {}
    if "name" in values:
        out["name"] = fields.text(values["name"], "Opportunity name", 160, required=True)
    if "amount" in values:
        out["amount_cents"] = fields.money_cents(values["amount"])
    if "close_date" in values:
        out["close_date"] = fields.day(values["close_date"], "Close date")
    if "type" in values:
        out["type"] = fields.choice(values["type"], OPPORTUNITY_TYPES, "type")
    for key, limit in (("next_step", 250), ("competitor", 80), ("description", 4000)):
        if key in values:
            out[key] = fields.text(values[key], key.replace("_", " ").capitalize(), limit)
    return out


@journaled("crm.create_opportunity")
def create_opportunity(session: Session, actor: Person, account: int | str, name: str, close_date: str | date,
                       amount: float | str = 0, stage: str = "Prospecting", type: str = "New Business",
                       next_step: str = "", competitor: str = "", description: str = "",
                       owner: int | str | None = None) -> Opportunity:
    """A new open opportunity on an account; it starts in any open stage (Prospecting by default)."""
    require_sales(session, actor, "create opportunities")
    if account in (None, ""):
        raise Invalid("An opportunity belongs to an account: name it by id or exact name.")
    found_account = resolve_account(session, actor, account)
    owner_person = resolve_owner(session, owner, actor, assigning=True)
    start = fields.choice(stage, STAGES, "stage")
    if start not in OPEN_STAGES:
        raise Invalid(f"A new opportunity starts in an open stage ({', '.join(OPEN_STAGES)}); close it afterwards.")
    values = _values(session, actor, {"name": name, "amount": amount, "close_date": close_date, "type": type,
                                      "next_step": next_step, "competitor": competitor, "description": description})
    when = clock.advance(session)
    opportunity = Opportunity(account_id=found_account.id, owner_id=owner_person.id, stage=start,
                              probability=STAGE_PROBABILITY[start], created_at=when, **values)
    return fields.insert(session, actor, opportunity, "opportunity", when)


def require_open(opportunity: Opportunity, doing: str) -> None:
    """Closed deals are read-only until reopened."""
    if opportunity.is_closed:
        raise Conflict(f"Opportunity {opportunity.id} ({opportunity.name}) is {opportunity.stage}; reopen it "
                       f"(crm_reopen_opportunity) before you {doing}.")


@journaled("crm.update_opportunity")
def update_opportunity(session: Session, actor: Person, opportunity: int | str, **changes) -> Opportunity:
    """Change fields of an open opportunity: name, amount, close_date, type, next_step, competitor,
    description, account, owner. The stage moves with move_stage; the amount of a deal with line
    items follows them."""
    found = resolve_opportunity(session, actor, opportunity)
    require_edit(session, actor, found.owner_id, f"Opportunity {found.id} ({found.name})")
    if changes.get("stage") is not None or changes.get("probability") is not None:
        raise Invalid("The stage (and its probability) changes with crm_move_opportunity_stage, not with an update.")
    changes = fields.requested_changes(changes, {"name", "amount", "close_date", "type", "next_step", "competitor",
                                                 "description", "account", "owner"}, "Opportunities")
    require_open(found, "edit it")
    if "amount" in changes and has_line_items(session, found):
        raise Conflict(f"The amount of opportunity {found.id} is the sum of its line items; change those "
                       "(crm_update_line_item) instead.")
    values = _values(session, actor, changes)
    if changes.get("account") not in (None, ""):
        values["account_id"] = resolve_account(session, actor, changes["account"]).id
    if changes.get("owner") not in (None, ""):
        values["owner_id"] = resolve_owner(session, changes["owner"], actor, assigning=True).id
    fields.apply_changes(session, actor, found, "opportunity", values, clock.advance(session))
    return found


def _check_move(opportunity: Opportunity, target: str, loss_reason: str, competitor: str) -> None:
    current = opportunity.stage
    if target == current:
        raise Conflict(f"Opportunity {opportunity.id} is already in {current}.")
    if target == "Closed Won":
        if current != "Negotiation":
            raise Invalid(f"A deal is won from Negotiation; opportunity {opportunity.id} is in {current}. "
                          "Move it along the path first (one stage at a time).")
        if opportunity.amount_cents <= 0:
            raise Invalid(f"Opportunity {opportunity.id} has no amount; set it before closing the deal as won.")
    elif target == "Closed Lost":
        if not loss_reason:
            raise Invalid(f"Closing a deal as lost needs a loss_reason: one of {', '.join(LOSS_REASONS)}.")
        if loss_reason == "Competitor" and not competitor:
            raise Invalid("The loss reason is Competitor: name the competitor who won the deal.")
    elif OPEN_STAGES.index(target) > OPEN_STAGES.index(current) + 1:
        following = OPEN_STAGES[OPEN_STAGES.index(current) + 1]
        raise Invalid(f"The sales path goes one stage at a time: after {current} comes {following}, not {target}.")


@journaled("crm.move_opportunity_stage")
def move_stage(session: Session, actor: Person, opportunity: int | str, stage: str, loss_reason: str = "",
               competitor: str = "") -> Opportunity:
    """Move an open opportunity along the sales path (see the module docstring); Closed Lost needs
    a loss reason (and the competitor when the reason is Competitor)."""
    found = resolve_opportunity(session, actor, opportunity)
    require_edit(session, actor, found.owner_id, f"Opportunity {found.id} ({found.name})")
    require_open(found, "move its stage")
    target = fields.choice(stage, STAGES, "stage")
    reason = fields.choice(loss_reason, LOSS_REASONS, "loss_reason") if loss_reason else ""
    rival = fields.text(competitor, "Competitor", 80)
    if reason and target != "Closed Lost":
        raise Invalid("A loss reason is given only when closing a deal as Closed Lost.")
    _check_move(found, target, reason, rival)
    when = clock.advance(session)
    values = {"stage": target, "probability": STAGE_PROBABILITY[target]}
    if target in CLOSED_STAGES:
        values["closed_at"] = when
    if target == "Closed Lost":
        values["loss_reason"] = reason
        if rival:
            values["competitor"] = rival
    fields.apply_changes(session, actor, found, "opportunity", values, when)
    return found


@journaled("crm.reopen_opportunity")
def reopen(session: Session, actor: Person, opportunity: int | str, stage: str = "Negotiation") -> Opportunity:
    """Reopen a closed deal into an open stage; the loss reason and close time are cleared."""
    found = resolve_opportunity(session, actor, opportunity)
    require_edit(session, actor, found.owner_id, f"Opportunity {found.id} ({found.name})")
    if not found.is_closed:
        raise Conflict(f"Opportunity {found.id} is open ({found.stage}); only closed deals are reopened.")
    target = fields.choice(stage, STAGES, "stage")
    if target not in OPEN_STAGES:
        raise Invalid(f"Reopen into an open stage: {', '.join(OPEN_STAGES)}.")
    values = {"stage": target, "probability": STAGE_PROBABILITY[target], "closed_at": None, "loss_reason": ""}
    fields.apply_changes(session, actor, found, "opportunity", values, clock.advance(session))
    return found
