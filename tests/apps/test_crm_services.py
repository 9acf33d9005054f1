"""CRM rules, called straight through the service layer: the sales path, derived amounts,
discount approvals, all-or-nothing lead conversion, field history and who may read or edit what.
Every refusal is checked to leave the database as it was."""

from __future__ import annotations

from datetime import date

import pytest
from sqlalchemy import func, select

from officegym.apps.crm import services as crm
from officegym.apps.crm.models import (Account, Contact, DiscountApproval, FieldChange, Lead, Opportunity)
from officegym.apps.org.models import Department, Person, Team
from officegym.errors import Conflict, Forbidden, Invalid, NotFound
from officegym.worlds import content_hash


class Cast:
    """People of the small world in the roles the rules talk about."""

    def __init__(self, session):
        sales = session.scalar(select(Department).where(Department.name == "Sales"))
        teams = [t for t in sales.teams if len(t.members) >= 3]
        self.head_id = sales.head_id
        self.lead_id = teams[0].lead_id
        members = [p.id for p in teams[0].members if p.id != teams[0].lead_id]
        self.rep_id, self.teammate_id = members[0], members[1]
        self.outsider_id = members[-1]
        self.engineer_id = session.scalar(select(Person.id).join(Department, Person.department_id == Department.id)
                                          .where(Department.name == "Engineering", Person.role == "member"))
        self.admin_id = session.scalar(select(Person.id).where(Person.role == "admin"))

    def __call__(self, session, role: str) -> Person:
        return session.get(Person, getattr(self, f"{role}_id"))


@pytest.fixture
def world(small_episode):
    """The small episode and its cast. The small company has one sales team; the last rep is moved
    to a second team (as larger companies have) so that team boundaries can be tested."""
    with small_episode.session() as session:
        cast = Cast(session)
        sales = session.scalar(select(Department).where(Department.name == "Sales"))
        other = Team(name="Sales Development", slug="sales-development", department_id=sales.id,
                     lead_id=cast.head_id)
        session.add(other)
        session.flush()
        outsider = session.get(Person, cast.outsider_id)
        outsider.team_id, outsider.manager_id = other.id, cast.head_id
    return small_episode, cast


def new_deal(session, owner: Person, stage: str = "Prospecting", amount: float = 50000) -> Opportunity:
    """A fresh account and an opportunity on it, owned by `owner`."""
    account = crm.create_account(session, owner, f"Test Account {owner.id}-{stage}", industry="Retail",
                                 size="51-200", region="EMEA")
    return crm.create_opportunity(session, owner, account.id, f"Deal {owner.id} {stage}", "2026-03-31",
                                  amount=amount, stage=stage)


def refused(episode, error: type, fn, *args, **kwargs) -> str:
    """Call a service in its own transaction; it must raise `error` and change nothing."""
    before = content_hash(episode.engine)
    with pytest.raises(error) as raised:
        with episode.session() as session:
            fn(session, *[a(session) if callable(a) else a for a in args], **kwargs)
    assert content_hash(episode.engine) == before
    return raised.value.message


def test_sales_path_moves_one_stage_at_a_time_and_closing_needs_its_facts(world):
    episode, cast = world
    with episode.session() as session:
        deal_id = new_deal(session, cast(session, "rep")).id
    rep = lambda s: cast(s, "rep")  # noqa: E731
    assert "after Prospecting comes Qualification" in refused(episode, Invalid, crm.move_stage, rep, deal_id, "Proposal")
    assert "won from Negotiation" in refused(episode, Invalid, crm.move_stage, rep, deal_id, "Closed Won")
    assert "needs a loss_reason" in refused(episode, Invalid, crm.move_stage, rep, deal_id, "Closed Lost")
    assert "name the competitor" in refused(episode, Invalid, crm.move_stage, rep, deal_id, "Closed Lost",
                                            loss_reason="Competitor")
    with episode.session() as session:
        for stage in ("Qualification", "Proposal", "Qualification", "Proposal", "Negotiation", "Closed Won"):
            deal = crm.move_stage(session, cast(session, "rep"), deal_id, stage)
        assert (deal.stage, deal.probability, deal.closed_at is not None) == ("Closed Won", 100, True)
    assert "reopen it" in refused(episode, Conflict, crm.update_opportunity, rep, deal_id, next_step="call")
    assert "reopen it" in refused(episode, Conflict, crm.move_stage, rep, deal_id, "Negotiation")
    with episode.session() as session:
        deal = crm.reopen(session, cast(session, "rep"), deal_id, "Proposal")
        assert (deal.stage, deal.probability, deal.closed_at) == ("Proposal", 50, None)
        crm.move_stage(session, cast(session, "rep"), deal_id, "Closed Lost", loss_reason="competitor",
                       competitor="Initech")
    with episode.session() as session:
        deal = session.get(Opportunity, deal_id)
        assert (deal.stage, deal.loss_reason, deal.competitor, deal.probability) == ("Closed Lost", "Competitor",
                                                                                     "Initech", 0)
        stages = [(h.old_value, h.new_value) for h in session.scalars(select(FieldChange).where(
            FieldChange.record_type == "opportunity", FieldChange.record_id == deal_id, FieldChange.field == "stage")
            .order_by(FieldChange.id))]
        assert stages[0] == ("Prospecting", "Qualification") and stages[-1] == ("Proposal", "Closed Lost")
        assert len(stages) == 8


def test_line_items_drive_the_amount_and_big_discounts_need_the_managers_approval(world):
    episode, cast = world
    with episode.session() as session:
        rep = cast(session, "rep")
        deal = new_deal(session, rep)
        product = crm.list_products(session, rep).items[0]
        price = crm.price_book_entries(session, rep).items
        unit = next(e.unit_price_cents for e in price if e.product_id == product.id)
        item = crm.add_line_item(session, rep, deal.id, product.code, quantity=3, discount=10)
        assert deal.amount_cents == crm.line_total(3, unit, 1000) == item.total_cents
        deal_id, item_id = deal.id, item.id
    rep = lambda s: cast(s, "rep")  # noqa: E731
    assert "sum of its line items" in refused(episode, Conflict, crm.update_opportunity, rep, deal_id, amount=1)
    assert "needs the deal owner's manager's approval" in refused(episode, Forbidden, crm.update_line_item, rep,
                                                                  item_id, discount=25)
    with episode.session() as session:
        approval = crm.request_discount(session, cast(session, "rep"), item_id, 30, "Multi-year commitment")
        assert approval.approver_id == cast.lead_id and approval.status == "Pending"
        approval_id = approval.id
    assert "already has a pending request" in refused(episode, Conflict, crm.request_discount, rep, item_id, 35, "x")
    assert "Only" in refused(episode, Forbidden, crm.approve_discount, rep, approval_id)
    assert "Only" in refused(episode, Forbidden, crm.approve_discount, lambda s: cast(s, "head"), approval_id)
    with episode.session() as session:
        crm.approve_discount(session, cast(session, "lead"), approval_id, "OK for a 3-year term")
    with episode.session() as session:
        deal = session.get(Opportunity, deal_id)
        assert deal.amount_cents == crm.line_total(3, unit, 3000)
        assert session.get(DiscountApproval, approval_id).status == "Approved"
    assert "already approved" in refused(episode, Conflict, crm.reject_discount, lambda s: cast(s, "lead"),
                                         approval_id)


def test_lead_conversion_is_all_or_nothing(world):
    episode, cast = world
    with episode.session() as session:
        rep = cast(session, "rep")
        existing = crm.create_account(session, rep, "Clashing Company", industry="Energy")
        clash = crm.create_lead(session, rep, "Ada", "Clash", "Clashing Company", source="Event")
        fresh = crm.create_lead(session, rep, "Bo", "Fresh", "Fresh Ventures", email="bo@fresh.example")
        clash_id, fresh_id, existing_id = clash.id, fresh.id, existing.id
    rep = lambda s: cast(s, "rep")  # noqa: E731
    assert "already exists" in refused(episode, Conflict, crm.convert_lead, rep, clash_id)
    assert "stage must be one of" in refused(episode, Invalid, crm.convert_lead, rep, fresh_id, stage="Closed Won")
    assert "Close date" in refused(episode, Invalid, crm.convert_lead, rep, fresh_id, close_date="soon")
    with episode.session() as session:
        lead = crm.convert_lead(session, cast(session, "rep"), clash_id, account=existing_id, amount="$12,500")
        assert (lead.status, lead.converted_account_id) == ("Converted", existing_id)
        opportunity = session.get(Opportunity, lead.converted_opportunity_id)
        assert (opportunity.amount_cents, opportunity.stage, opportunity.close_date) == (1250000, "Qualification",
                                                                                        date(2026, 6, 14))
        assert session.get(Contact, lead.converted_contact_id).account_id == existing_id
        lead = crm.convert_lead(session, cast(session, "rep"), fresh_id, create_opportunity=False, region="APAC")
        account = session.get(Account, lead.converted_account_id)
        assert (account.name, account.region, lead.converted_opportunity_id) == ("Fresh Ventures", "APAC", None)
    assert "already converted" in refused(episode, Conflict, crm.convert_lead, rep, fresh_id)
    assert "source must be one of" in refused(episode, Invalid, crm.create_lead, rep, "A", "B", "C", source="Fax")
    assert "was converted" in refused(episode, Conflict, crm.update_lead, rep, fresh_id, status="Working")
    with episode.session() as session:
        assert session.get(Lead, fresh_id).converted_contact_id is not None


def test_access_follows_ownership_team_and_management(world):
    episode, cast = world
    with episode.session() as session:
        deal_id = new_deal(session, cast(session, "rep")).id
        account_id = session.get(Opportunity, deal_id).account_id
    for role, error, text in (("teammate", Forbidden, "you can edit your own"),
                              ("outsider", Forbidden, "another sales team"),
                              ("engineer", Forbidden, "Only the Sales department")):
        message = refused(episode, error, crm.update_opportunity, lambda s, r=role: cast(s, r), deal_id,
                          next_step="mine now")
        assert text in message
    with episode.session() as session:
        assert crm.get_opportunity(session, cast(session, "teammate"), deal_id).id == deal_id
        assert crm.get_account(session, cast(session, "engineer"), account_id).id == account_id
        visible = {o.id for o in crm.list_opportunities(session, cast(session, "outsider"), limit=200).items}
        assert deal_id not in visible
        for role in ("lead", "head", "admin"):
            crm.update_opportunity(session, cast(session, role), deal_id, next_step=f"{role} was here")
    refused(episode, Forbidden, crm.list_opportunities, lambda s: cast(s, "engineer"))
    assert "cannot give records" in refused(episode, Forbidden, crm.update_opportunity, lambda s: cast(s, "rep"),
                                            deal_id, owner=cast.teammate_id)
    with episode.session() as session:
        deal = crm.update_opportunity(session, cast(session, "lead"), deal_id, owner=cast.teammate_id)
        history = crm.record_history(session, cast(session, "lead"), "opportunity", deal_id).items
        assert history[0].field == "owner" and history[0].new_value == cast(session, "teammate").name
        assert deal.owner_id == cast.teammate_id


def test_pipeline_report_sums_what_the_actor_sees(world):
    episode, cast = world
    with episode.session() as session:
        rep = cast(session, "rep")
        mine = crm.list_opportunities(session, rep, stage="open", limit=200).items
        report = crm.pipeline_report(session, rep, group_by="stage")
        rows = report.page.items
        assert sum(r.count for r in rows) == len(mine) == report.count
        assert sum(r.amount_cents for r in rows) == sum(o.amount_cents for o in mine) == report.amount_cents
        by_quarter = crm.pipeline_report(session, rep, group_by="quarter", stages="all").page.items
        assert [r.key for r in by_quarter] == sorted(r.key for r in by_quarter)
        q1 = crm.pipeline_report(session, rep, group_by="owner", quarter="2026-Q1", stages="all")
        in_q1 = crm.list_opportunities(session, rep, close_from="2026-01-01", close_to="2026-03-31", limit=200)
        assert sum(r.count for r in q1.page.items) == q1.count == in_q1.total
    refused(episode, Invalid, crm.pipeline_report, lambda s: cast(s, "rep"), quarter="Q5")
    refused(episode, Invalid, crm.pipeline_report, lambda s: cast(s, "rep"), group_by="colour")
    refused(episode, Invalid, crm.pipeline_report, lambda s: cast(s, "rep"), limit=0)


def test_pipeline_report_pages_hold_every_group_once_with_totals_over_all(world):
    episode, cast = world
    with episode.session() as session:
        head = cast(session, "head")
        whole = crm.pipeline_report(session, head, group_by="owner", stages="all", limit=200)
        assert whole.page.total == len(whole.page.items) > 2 and whole.page.next_offset is None
        pages, offset = [], 0
        while offset is not None:
            report = crm.pipeline_report(session, head, group_by="owner", stages="all", offset=offset, limit=2)
            assert (report.count, report.amount_cents, report.weighted_cents) == (
                whole.count, whole.amount_cents, whole.weighted_cents)
            assert report.largest_cents == max(r.amount_cents for r in whole.page.items)
            pages.append(report.page.items)
            offset = report.page.next_offset
        assert [r.key for page in pages for r in page] == [r.key for r in whole.page.items]
        amounts = [r.amount_cents for r in whole.page.items]
        assert amounts == sorted(amounts, reverse=True)  # owners come largest first
        beyond = crm.pipeline_report(session, head, group_by="owner", stages="all", offset=500, limit=2)
        assert beyond.page.items == [] and beyond.page.total == whole.page.total
        assert (beyond.count, beyond.amount_cents, beyond.weighted_cents, beyond.largest_cents) == (
            whole.count, whole.amount_cents, whole.weighted_cents, whole.largest_cents)
        # Each owner's row, summed here from the deals (weighted cents rounded half up per owner).
        deals = session.execute(select(Opportunity.owner_id, Opportunity.amount_cents, Opportunity.probability)).all()
        expected: dict[str, list[int]] = {}
        for owner_id, cents, probability in deals:
            row = expected.setdefault(str(owner_id), [0, 0, 0])
            row[0], row[1], row[2] = row[0] + 1, row[1] + cents, row[2] + cents * probability
        assert {r.key: (r.count, r.amount_cents, r.weighted_cents) for r in whole.page.items} == {
            key: (n, cents, (weighted + 50) // 100) for key, (n, cents, weighted) in expected.items()}
        names = dict(session.execute(select(Person.id, Person.name)).all())
        assert [r.label for r in whole.page.items] == [names[int(r.key)] for r in whole.page.items]


def test_cases_escalate_once_and_closing_stamps_the_time(world):
    episode, cast = world
    with episode.session() as session:
        rep = cast(session, "rep")
        account = crm.create_account(session, rep, "Case Study Inc")
        contact = crm.create_contact(session, rep, account.id, "Cy", "Case", email="cy@case.example")
        case = crm.create_case(session, rep, account.name, "Login fails", priority="Low", contact=contact.email)
        crm.escalate_case(session, rep, case.id, "Customer CEO called")
        assert (case.status, case.priority) == ("Escalated", "High")
        notes = crm.list_activities(session, rep, "case", case.id).items
        assert notes[0].body == "Customer CEO called"
        case_id = case.id
    assert "only a New or Working case" in refused(episode, Conflict, crm.escalate_case, lambda s: cast(s, "rep"),
                                                   case_id, "again")
    with episode.session() as session:
        case = crm.update_case(session, cast(session, "rep"), case_id, status="Closed")
        assert case.closed_at is not None


@pytest.mark.parametrize("call, error, text", [
    (lambda s, a: crm.create_account(s, a, ""), Invalid, "Account name is required"),
    (lambda s, a: crm.create_account(s, a, "X", industry="Farming"), Invalid, "industry must be one of"),
    (lambda s, a: crm.create_opportunity(s, a, 10**30, "X", "2026-01-01"), NotFound, "No account has id"),
    (lambda s, a: crm.create_opportunity(s, a, 1, "X", "31/01/2026"), Invalid, "YYYY-MM-DD"),
    (lambda s, a: crm.create_opportunity(s, a, 1, "X", "2026-01-01", amount=-5), Invalid, "zero or more"),
    (lambda s, a: crm.create_opportunity(s, a, 1, "X", "2026-01-01", amount=12.345), Invalid, "two decimals"),
    (lambda s, a: crm.create_opportunity(s, a, 1, "X", "2026-01-01", stage="Closed Won"), Invalid, "open stage"),
    (lambda s, a: crm.log_activity(s, a, "planet", 1, "call", "Hi"), Invalid, "record_type must be one of"),
    (lambda s, a: crm.log_activity(s, a, "account", 1, "fax", "Hi"), Invalid, "kind must be one of"),
    (lambda s, a: crm.log_activity(s, a, "account", 1, "call", "Hi", due_date="2026-04-01"), Invalid, "Only tasks"),
    (lambda s, a: crm.list_accounts(s, a, sort="colour"), Invalid, "sort must be one of"),
    (lambda s, a: crm.get_contact(s, a, "nobody@nowhere.example"), NotFound, "No contact"),
    (lambda s, a: crm.add_line_item(s, a, 10**30, 1), NotFound, "No opportunity"),
])
def test_bad_input_is_refused_with_a_clear_message(world, call, error, text):
    episode, cast = world
    assert text in refused(episode, error, lambda s: call(s, cast(s, "rep")))


def test_counts_are_unchanged_after_refusals(world):
    episode, cast = world
    with episode.session() as session:
        before = session.scalar(select(func.count()).select_from(FieldChange))
    refused(episode, Invalid, crm.create_account, lambda s: cast(s, "rep"), "Dup", industry="Nope")
    with episode.session() as session:
        assert session.scalar(select(func.count()).select_from(FieldChange)) == before
