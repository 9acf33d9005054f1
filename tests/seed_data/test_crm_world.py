"""The CRM part of a world: coherent records owned by Sales, exact money, and chat that tells the
truth about real deals."""

from __future__ import annotations

import re
from collections import Counter
from datetime import timedelta

import pytest
from sqlalchemy import select

from officegym.apps.chat.models import Channel, Message
from officegym.apps.crm.models import (CLOSED_STAGES, LOSS_REASONS, OPEN_STAGES, STAGE_PROBABILITY, Account,
                                       Activity, Case, Contact, DiscountApproval, FieldChange, Lead, LineItem,
                                       Opportunity, PriceBook, PriceBookEntry, Product)
from officegym.apps.org.models import Department, Person, Team
from officegym.clock import now as company_now
from officegym.config import load_settings
from officegym.db import make_sessionmaker, sqlite_engine
from officegym.worlds import ensure_world

AMOUNT = re.compile(r"\$\d{1,3}(?:,\d{3})*(?:\.\d{2})?(?!\d|,\d|\.\d|[kKmM])")  # "$120,000", not "$120k"
# Words of a deal message -> the stage they claim the deal is in now.
CLAIMS = {"Closed Won": "Closed Won", "signed": "Closed Won", "Verbal yes": "Closed Won", "Signed!": "Closed Won",
          "Closed Lost": "Closed Lost", "went with": "Closed Lost", "We lost": "Closed Lost",
          "Negotiation": "Negotiation", "Proposal sent": "Proposal", "Proposal)": "Proposal",
          "qualified opp": "Qualification", "Qualification)": "Qualification", "new opportunity": "Prospecting",
          "Prospecting)": "Prospecting"}


@pytest.fixture(scope="module", params=["tiny", "small"])
def world(request):
    built = ensure_world(request.param, 0)
    with make_sessionmaker(sqlite_engine(str(built.path), readonly=True))() as session:
        yield request.param, session


def _all(session, model):
    return list(session.scalars(select(model).order_by(model.id)))


def _sales_ids(session) -> set[int]:
    dept = session.scalar(select(Department).where(Department.name == "Sales"))
    return set(session.scalars(select(Person.id).where(Person.department_id == dept.id)))


def _cents(text: str) -> int:
    return round(float(text.lstrip("$").replace(",", "")) * 100)


def test_sizes_and_owners(world):
    scale, session = world
    accounts, deals = _all(session, Account), _all(session, Opportunity)
    if scale == "small":
        assert len(accounts) >= 35 and len(deals) >= 60 and len(_all(session, Lead)) >= 25
    else:
        assert 12 <= len(accounts) <= 20 and len(deals) >= 20 and len(_all(session, Case)) >= 10
    sales = _sales_ids(session)
    for model in (Account, Contact, Lead, Opportunity, Case, Activity):
        owners = {row.owner_id for row in _all(session, model)}
        assert owners and owners <= sales, model
    assert len({a.name for a in accounts}) == len(accounts)
    assert any(a.parent_id for a in accounts)
    by_id = {a.id: a for a in accounts}
    for contact in _all(session, Contact):
        assert contact.owner_id == by_id[contact.account_id].owner_id
        assert contact.email.endswith("@" + by_id[contact.account_id].website.split("www.")[1].split("/")[0])


def test_catalog_and_price_books(world):
    _scale, session = world
    products = _all(session, Product)
    assert 8 <= len(products) <= 14 and len({p.family for p in products}) >= 4
    standard, partner = (session.scalar(select(PriceBook).where(PriceBook.is_standard.is_(flag)))
                         for flag in (True, False))
    prices = {(e.price_book_id, e.product_id): e.unit_price_cents for e in _all(session, PriceBookEntry)}
    assert {p.id for p in products} == {pid for book, pid in prices if book == standard.id}
    for (book, pid), cents in prices.items():
        if book == partner.id:
            assert cents == prices[(standard.id, pid)] * 85 // 100


def test_money_stages_and_dates(world):
    _scale, session = world
    now = company_now(session)
    items = Counter()
    for item in _all(session, LineItem):
        assert item.total_cents == (item.quantity * item.unit_price_cents * (10000 - item.discount_bp) + 5000) // 10000
        items[item.opportunity_id] += item.total_cents
    deals = _all(session, Opportunity)
    assert sum(d.id in items for d in deals) >= len(deals) // 2
    for deal in deals:
        if deal.id in items:
            assert deal.amount_cents == items[deal.id], deal
        assert deal.probability == STAGE_PROBABILITY[deal.stage]
        assert deal.created_at < now
        if deal.stage in CLOSED_STAGES:
            assert deal.closed_at is not None and deal.closed_at <= now and deal.close_date == deal.closed_at.date()
        else:
            assert deal.closed_at is None and deal.next_step
        if deal.stage == "Closed Lost":
            assert deal.loss_reason in LOSS_REASONS
            assert deal.competitor or deal.loss_reason != "Competitor"
    assert len({d.amount_cents for d in deals}) == len(deals)  # "the biggest deal" has one answer
    assert {d.stage for d in deals} == set(OPEN_STAGES + CLOSED_STAGES)
    soon = [d for d in deals if d.stage in OPEN_STAGES and d.close_date.month == now.month]
    assert len(soon) >= 3


def test_big_discounts_only_with_the_managers_approval(world):
    _scale, session = world
    approvals = _all(session, DiscountApproval)
    assert Counter(a.status for a in approvals)["Pending"] >= 2
    for item in _all(session, LineItem):
        if item.discount_bp > 2000:
            deal = session.get(Opportunity, item.opportunity_id)
            manager = session.get(Person, deal.owner_id).manager_id
            assert any(a.line_item_id == item.id and a.status == "Approved" and a.approver_id == manager
                       and a.discount_bp == item.discount_bp for a in approvals), item
    for a in approvals:
        item = session.get(LineItem, a.line_item_id)
        deal = session.get(Opportunity, a.opportunity_id)
        assert item.opportunity_id == deal.id and a.requested_by_id == deal.owner_id
        assert a.approver_id == session.get(Person, deal.owner_id).manager_id
        if a.status == "Pending":
            assert a.decided_at is None and item.discount_bp <= 2000 < a.discount_bp


def test_leads_cases_and_history(world):
    _scale, session = world
    leads = _all(session, Lead)
    assert {"New", "Working", "Qualified", "Unqualified", "Converted"} <= {lead.status for lead in leads}
    for lead in leads:
        if lead.status == "Converted":
            deal = session.get(Opportunity, lead.converted_opportunity_id)
            contact = session.get(Contact, lead.converted_contact_id)
            assert deal.account_id == contact.account_id == lead.converted_account_id
            assert lead.converted_at and contact.email == lead.email
        else:
            assert lead.converted_account_id is None
    open_cases = Counter(c.account_id for c in _all(session, Case) if c.status != "Closed")
    ranked = open_cases.most_common(2)
    assert ranked[0][1] > ranked[1][1]
    for case in _all(session, Case):
        assert case.contact_id is None or session.get(Contact, case.contact_id).account_id == case.account_id
    moves = list(session.scalars(select(FieldChange).where(FieldChange.field == "stage")))
    assert moves
    for move in moves:
        deal = session.get(Opportunity, move.record_id)
        assert move.changed_by_id == deal.owner_id and move.changed_at >= deal.created_at
    last = {}
    for move in sorted(moves, key=lambda m: m.id):
        last[move.record_id] = move.new_value
    assert all(session.get(Opportunity, rid).stage == stage for rid, stage in last.items())


def test_chat_only_tells_the_truth_about_deals(world):
    _scale, session = world
    accounts = sorted(_all(session, Account), key=lambda a: -len(a.name))
    deals = Counter()
    by_account: dict[int, list[Opportunity]] = {}
    for deal in _all(session, Opportunity):
        by_account.setdefault(deal.account_id, []).append(deal)
    channels = {c.id: c for c in _all(session, Channel)}
    sales_teams = {f"team-{t.slug}" for t in _all(session, Team)
                   if t.department_id == session.scalar(select(Department.id).where(Department.name == "Sales"))}
    for message in _all(session, Message):
        amounts = AMOUNT.findall(message.text)
        account = next((a for a in accounts if a.name in message.text), None)
        if not amounts or account is None:
            continue
        channel = channels[message.channel_id].name
        matches = [d for d in by_account.get(account.id, []) if d.amount_cents == _cents(amounts[0])]
        assert len(matches) == 1, message.text
        deal = matches[0]
        claimed = {stage for word, stage in CLAIMS.items() if word in message.text}
        if claimed:
            assert deal.stage in claimed, (message.text, deal.stage)
        else:  # the only stage-less deal news: a discount the manager approved
            percent = int(re.search(r"approving (\d+)%", message.text).group(1))
            assert session.scalar(select(DiscountApproval).where(
                DiscountApproval.opportunity_id == deal.id, DiscountApproval.status == "Approved",
                DiscountApproval.discount_bp == percent * 100)), message.text
        if "went with" in message.text or "We lost" in message.text:
            assert deal.competitor and deal.competitor in message.text
        if deal.closed_at and claimed:  # news of a closed deal comes around its closing, never long before
            assert message.created_at >= deal.closed_at - timedelta(days=4)
        if channel == "deals" or channel in sales_teams:
            assert message.author_id == deal.owner_id, message.text
        deals[channel] += 1
    assert deals["deals"] >= 3 and sum(deals.values()) >= 6, deals


def test_deals_channel_is_for_sales(world):
    _scale, session = world
    deals = session.scalar(select(Channel).where(Channel.name == "deals"))
    assert deals.kind == "public" and not deals.is_archived and "deal" in deals.topic.lower()
    from officegym.apps.chat.models import Membership
    members = set(session.scalars(select(Membership.person_id).where(Membership.channel_id == deals.id)))
    ceo = session.scalar(select(Person.id).where(Person.role == "owner"))
    assert _sales_ids(session) | {ceo} <= members


def test_another_seed_gives_other_accounts(tmp_path):
    names = []
    for seed in (0, 1):
        built = ensure_world("tiny", seed, load_settings(home=tmp_path / str(seed)))
        with make_sessionmaker(sqlite_engine(str(built.path), readonly=True))() as session:
            names.append({a.name for a in _all(session, Account)})
    assert len(names[0] & names[1]) < len(names[0]) // 2
