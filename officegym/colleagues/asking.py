"""Whom a colleague acts for. A manager decides a discount request because someone asked, and the
handbook ("Discount and approval thresholds") has the deal's owner request it and the owner's
manager decide it: so a manager acts on a deal's pending requests only when the asker owns the
deal or made one of those requests. Anyone else who asks gets told so, and nothing changes.

Only deals the asker may see reach this module (see `visibility`). A manager acts on the deals a
message names, and on an account's deals only when the message speaks of a discount: a note about
a customer's refund names the account, and is no request to decide an unrelated discount.
"""

from __future__ import annotations

import re

from sqlalchemy import select
from sqlalchemy.orm import Session

from officegym.apps.crm.models import DiscountApproval, Opportunity
from officegym.apps.org.models import Person

from .knowledge import Record
from .visibility import may_see

_DISCOUNT = re.compile(r"\bdiscounts?\b|\d\s*% off\b", re.IGNORECASE)


def _waiting(session: Session, manager: Person, deal_ids: set[int]) -> list[DiscountApproval]:
    """The pending discount requests waiting on `manager` for these deals, oldest first."""
    if not deal_ids:
        return []
    return list(session.scalars(select(DiscountApproval).where(
        DiscountApproval.approver_id == manager.id, DiscountApproval.status == "Pending",
        DiscountApproval.opportunity_id.in_(sorted(deal_ids))).order_by(DiscountApproval.id)))


def _deals_named(session: Session, records: list[Record], text: str) -> dict[int, Opportunity]:
    """The deals the records name, an account standing for its deals when the text speaks of a discount."""
    deals = {r.row.id: r.row for r in records if r.kind == "opportunity"}
    accounts = [r.row.id for r in records if r.kind == "account"] if _DISCOUNT.search(text) else []
    if accounts:
        deals.update({d.id: d for d in session.scalars(select(Opportunity).where(
            Opportunity.account_id.in_(accounts)).order_by(Opportunity.id))})
    return deals


def may_ask(asker: Person, deal: Opportunity, approvals: list[DiscountApproval]) -> bool:
    """Whether the asker's role lets them ask for a decision on this deal's requests."""
    return deal.owner_id == asker.id or any(a.requested_by_id == asker.id for a in approvals)


def split_requests(session: Session, manager: Person, asker: Person, records: list[Record],
                   text: str) -> tuple[list[Record], list[Opportunity]]:
    """The deals (as records) whose pending requests on `manager` the asker may have decided, and
    the deals with requests waiting on `manager` that the asker may not ask about."""
    deals = _deals_named(session, records, text)
    by_deal: dict[int, list[DiscountApproval]] = {}
    for approval in _waiting(session, manager, set(deals)):
        by_deal.setdefault(approval.opportunity_id, []).append(approval)
    allowed, refused = [], []
    for deal_id, approvals in sorted(by_deal.items()):
        deal = deals[deal_id]
        record = Record("opportunity", f"opportunity:{deal.id}", deal.name, deal, 0)
        if may_ask(asker, deal, approvals):
            allowed.append(record)
        elif may_see(session, asker, record):  # a deal the asker cannot see is never spoken of
            refused.append(deal)
    return allowed, refused
