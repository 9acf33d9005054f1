"""CRM pages and forms through the Flask test client: every page renders, every form changes the
database through the services, refusals show why with the right status and change nothing, and
the same action through the UI and through MCP leaves the same database change."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import select
from ui_helpers import Browser, call_tools, db_changes, error_message, text_of

from officegym.apps.crm import services
from officegym.apps.crm import list_views as crm_views
from officegym.apps.crm.models import Account, Activity, Case, Lead, LineItem, Opportunity
from officegym.apps.org.models import Department, Person


def sales_rep(db) -> Person:
    """A rep (not the head, not a team lead) of the Sales department."""
    sales = db.scalar(select(Department).where(Department.name == "Sales"))
    return db.scalars(select(Person).where(Person.department_id == sales.id, Person.id != sales.head_id,
                                           Person.manager_id != sales.head_id).order_by(Person.id)).first()


def open_deal(db, owner: Person, with_items: bool = False) -> Opportunity:
    """One of `owner`'s open deals, with or without line items."""
    for deal in db.scalars(select(Opportunity).where(Opportunity.owner_id == owner.id,
                                                     Opportunity.stage.in_(("Qualification", "Proposal")))
                           .order_by(Opportunity.id)):
        if services.has_line_items(db, deal) == with_items:
            return deal
    raise AssertionError("no such deal")


@pytest.fixture
def rep(browser) -> Person:
    """The browser acts as a sales rep."""
    with browser.db() as db:
        person = sales_rep(db)
    browser.act_as(person.handle)
    return person


PAGES = ["/crm/", "/crm/accounts", "/crm/accounts?sort=region&dir=desc", "/crm/contacts", "/crm/leads",
         "/crm/opportunities?stage=open&sort=amount&dir=desc", "/crm/cases?status=open", "/crm/search?q=a",
         "/crm/reports/pipeline?group_by=owner&stages=all", "/crm/accounts/1", "/crm/contacts/1", "/crm/leads/1",
         "/crm/leads/1/convert", "/crm/opportunities/1", "/crm/cases/1", "/crm/opportunity/new",
         "/crm/opportunity/1/edit", "/crm/opportunities/board?stage=open", "/crm/opportunities/board?q=a",
         "/crm/opportunities/1/close?stage=Closed+Lost", "/crm/account/1/edit?focus=owner", "/crm/lead/new"]


@pytest.mark.parametrize("path", PAGES)
def test_every_page_renders_for_an_admin(browser, path):
    response = browser.get(path)
    assert response.status_code == 200, error_message(response)
    assert 'data-testid="crm-nav-home"' in text_of(response)


def test_outside_sales_accounts_are_readable_and_deals_are_refused(browser):
    with browser.db() as db:
        engineer = db.scalar(select(Person).join(Department, Person.department_id == Department.id)
                             .where(Department.name == "Engineering", Person.role == "member"))
    browser.act_as(engineer.handle)
    assert browser.get("/crm/accounts/1").status_code == 200
    refused = browser.get("/crm/opportunities/1")
    assert refused.status_code == 403 and "Only the Sales department" in error_message(refused)


def test_lists_sort_filter_and_page(browser):
    first = text_of(browser.get("/crm/opportunities?sort=amount&dir=desc"))
    with browser.db() as db:
        owner = browser.episode.actor(db)
        expected = services.list_opportunities(db, owner, sort="amount", descending=True, limit=25)
    ids = [int(i) for i in re.findall(r'data-testid="record-row" data-id="(\d+)"', first)]
    assert ids == [o.id for o in expected.items]
    assert 'data-testid="page-next"' in first
    second = text_of(browser.get("/crm/opportunities?sort=amount&dir=desc&offset=25"))
    assert not set(ids) & {int(i) for i in re.findall(r'data-id="(\d+)"', second)}


def test_pipeline_page_totals_match_the_service(browser):
    page = text_of(browser.get("/crm/reports/pipeline?stages=all"))
    with browser.db() as db:
        rows = services.pipeline_report(db, browser.episode.actor(db), stages="all").page.items
    total = re.search(r'data-testid="pipeline-total">\$([\d,.]+)<', page).group(1)
    assert float(total.replace(",", "")) == sum(r.amount_cents for r in rows) / 100
    assert page.count('data-testid="pipeline-row"') == len(rows) and "<svg" in page


def test_pipeline_page_pages_owners_and_keeps_the_grand_total(browser, monkeypatch):
    monkeypatch.setattr(crm_views, "PAGE", 2)  # the small world has a handful of owners; 2 a page makes several
    with browser.db() as db:
        report = services.pipeline_report(db, browser.episode.actor(db), group_by="owner", stages="all", limit=200)
    owners = [r.key for r in report.page.items]
    shown = []
    url = "/crm/reports/pipeline?group_by=owner&stages=all"
    while url:
        page = text_of(browser.get(url))
        shown += re.findall(r'data-testid="pipeline-row" data-key="(\d+)"', page)
        total = re.search(r'data-testid="pipeline-total">\$([\d,.]+)<', page).group(1)
        assert float(total.replace(",", "")) == report.amount_cents / 100
        following = re.search(r'rel="next" data-testid="page-next" href="([^"]+)"', page)
        url = following.group(1).replace("&amp;", "&").removeprefix(browser.base) if following else None
    assert shown == owners and len(owners) > 2


def test_forms_write_through_the_services(browser, rep):
    with browser.db() as db:
        deal, lead = open_deal(db, rep), db.scalar(select(Lead).where(Lead.owner_id == rep.id,
                                                                     Lead.status.in_(("New", "Working"))))
        case = db.scalar(select(Case).where(Case.owner_id == rep.id, Case.status.in_(("New", "Working"))))
    assert browser.post(f"/crm/opportunity/{deal.id}/edit", {"next_step": "Send the MSA"}).status_code == 303
    assert browser.post(f"/crm/opportunities/{deal.id}/line-items",
                        {"product": "PLT-ENT", "quantity": "2", "discount": "10"}).status_code == 303
    assert browser.post(f"/crm/opportunity/{deal.id}/activities",
                        {"kind": "task", "subject": "Chase legal", "due_date": "2026-03-20"}).status_code == 303
    assert browser.post("/crm/account/new", {"name": "Brand New Co", "industry": "Retail"}).status_code == 303
    assert browser.post(f"/crm/leads/{lead.id}/convert", {"create_opportunity": "yes", "amount": "$12,000",
                                                         "close_date": "2026-05-01",
                                                         "stage": ""}).status_code == 303  # as the form shows
    if case is not None:
        assert browser.post(f"/crm/cases/{case.id}/escalate", {"reason": "VIP"}).status_code == 303
    with browser.db() as db:
        saved = db.get(Opportunity, deal.id)
        items = db.scalars(select(LineItem).where(LineItem.opportunity_id == deal.id)).all()
        assert saved.next_step == "Send the MSA" and saved.amount_cents == sum(i.total_cents for i in items)
        assert db.scalar(select(Activity).where(Activity.subject == "Chase legal")).due_date.isoformat() == "2026-03-20"
        assert db.scalar(select(Account).where(Account.name == "Brand New Co")).owner_id == rep.id
        converted = db.get(Lead, lead.id)
        assert converted.status == "Converted"
        opened = db.get(Opportunity, converted.converted_opportunity_id)
        assert (opened.amount_cents, opened.stage) == (1_200_000, "Qualification")  # the service's default stage
        if case is not None:
            assert db.get(Case, case.id).status == "Escalated"


REFUSALS = [
    ("/crm/opportunity/{deal}/edit", {"amount": "lots"}, 400, "not an amount of dollars"),
    ("/crm/opportunity/{deal}/edit", {"close_date": "31/12/2026"}, 400, "YYYY-MM-DD"),
    ("/crm/opportunities/{deal}/stage", {"stage": "Closed Won"}, 400, "won from Negotiation"),
    ("/crm/opportunities/{deal}/stage", {"stage": "Closed Lost"}, 400, "needs a loss_reason"),
    ("/crm/opportunities/{deal}/line-items", {"product": "PLT-ENT", "discount": "35"}, 403, "approval"),
    ("/crm/opportunities/{deal}/line-items", {"product": "NOPE", "quantity": "1"}, 404, "No product"),
    ("/crm/opportunity/{deal}/activities", {"kind": "call", "subject": ""}, 400, "Subject is required"),
    ("/crm/opportunity/{others}/edit", {"next_step": "mine"}, 403, "you can edit your own"),
    ("/crm/account/new", {"name": ""}, 400, "Account name is required"),
    ("/crm/leads/{converted}/convert", {"create_opportunity": "yes"}, 409, "already converted"),
    ("/crm/lead/{converted}/edit", {"status": "Working"}, 409, "was converted"),
    ("/crm/contact/new", {"first_name": "A", "last_name": "B"}, 400, "belongs to an account"),
    ("/crm/lead/new", {"first_name": "A", "last_name": "B", "company": "C", "email": "nope"}, 400, "not an email"),
    ("/crm/case/new", {"account": "999999", "subject": "Broken"}, 404, "No account has id"),
    ("/crm/opportunities/{deal}/reopen", {}, 409, "only closed deals are reopened"),
    ("/crm/opportunities/{deal}/stage", {"stage": ""}, 400, "stage must be one of"),
    ("/crm/opportunities/{deal}/line-items", {"product": "", "quantity": "1"}, 400, "Name a product"),
    ("/crm/opportunity/{deal}/activities", {"kind": "", "subject": "Call"}, 400, "kind must be one of"),
    ("/crm/line-items/999999/update", {"quantity": "2"}, 404, "No line item has id"),
    ("/crm/line-items/{item}/update", {"quantity": "0"}, 400, "quantity must be a whole number"),
    ("/crm/line-items/{item}/discount", {"discount": "15", "reason": "x"}, 400, "need no approval"),
    ("/crm/approvals/999999/approve", {}, 404, "No approval has id"),
    ("/crm/tasks/999999/complete", {}, 404, "No activity has id"),
    ("/crm/cases/999999/escalate", {"reason": "x"}, 404, "No case has id"),
]


@pytest.mark.parametrize("path,form,status,expected", REFUSALS, ids=[f"{i}" for i in range(len(REFUSALS))])
def test_refused_forms_say_why_and_change_nothing(browser, rep, path, form, status, expected):
    with browser.db() as db:
        deal = open_deal(db, rep)
        item = db.scalar(select(LineItem.id).where(LineItem.opportunity_id == open_deal(db, rep, True).id))
        others = db.scalar(select(Opportunity.id).where(Opportunity.owner_id != rep.id,
                                                        Opportunity.stage.in_(("Qualification", "Proposal")),
                                                        Opportunity.owner_id == rep.manager_id))
        converted = db.scalar(select(Lead.id).where(Lead.status == "Converted", Lead.owner_id == rep.id)) \
            or db.scalar(select(Lead.id).where(Lead.status == "Converted"))
    before = browser.state()
    response = browser.post(path.format(deal=deal.id, others=others, converted=converted, item=item), form)
    assert (response.status_code, expected in error_message(response)) == (status, True), error_message(response)
    assert browser.state() == before


def test_a_form_without_its_csrf_token_is_refused(browser, rep):
    before = browser.state()
    response = browser.post("/crm/account/new", {"name": "Sneaky"}, csrf=None)
    assert response.status_code == 400 and browser.state() == before


# ---------------------------------------------------------------- parity with MCP

def test_the_same_actions_through_ui_and_mcp_make_the_same_change(web_app, store):
    ui_episode, mcp_episode = store.create(scale="tiny"), store.create(scale="tiny")
    try:
        browser = Browser(web_app.test_client(), ui_episode)
        with browser.db() as db:
            rep = sales_rep(db)
            deal, priced = open_deal(db, rep), open_deal(db, rep, with_items=True)
            item = db.scalar(select(LineItem.id).where(LineItem.opportunity_id == priced.id))
        browser.act_as(rep.handle)
        steps = [
            (f"/crm/opportunity/{deal.id}/edit", {"next_step": "Demo on Friday", "amount": "$75,500"},
             "crm_update_opportunity", {"opportunity": deal.id, "next_step": "Demo on Friday", "amount": 75500}),
            (f"/crm/opportunities/{deal.id}/stage", {"stage": "Closed Lost", "loss_reason": "Competitor",
                                                     "competitor": "Initech"},
             "crm_move_opportunity_stage", {"opportunity": deal.id, "stage": "Closed Lost",
                                            "loss_reason": "Competitor", "competitor": "Initech"}),
            (f"/crm/line-items/{item}/update", {"quantity": "3", "discount": "12.5"},
             "crm_update_line_item", {"line_item": item, "quantity": 3, "discount": 12.5}),
            (f"/crm/account/{priced.account_id}/activities", {"kind": "note", "subject": "Met the CFO"},
             "crm_log_activity", {"record_type": "account", "record_id": priced.account_id, "kind": "note",
                                  "subject": "Met the CFO"}),
        ]
        for path, form, _tool, _args in steps:
            response = browser.post(path, form)
            assert response.status_code == 303, error_message(response)

        call_tools(mcp_episode, rep.id, [(tool, args) for _path, _form, tool, args in steps])
        ui_changes, mcp_changes = db_changes(ui_episode), db_changes(mcp_episode)
        assert set(ui_changes) >= {"crm_opportunity", "crm_line_item", "crm_activity"}
        assert ui_changes == mcp_changes
    finally:
        store.delete(ui_episode.id)
        store.delete(mcp_episode.id)
