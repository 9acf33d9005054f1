"""The Lightning-style CRM in real Chromium: the clickable sales path and "Mark stage as complete",
closing as lost through its reason, inline edits (and their no-JavaScript fallback), the owner shown
and changed with the people picker, record tabs, sortable lists with an Owner column, the Kanban
board, and no select anywhere in the CRM that defaults to a value the record does not hold."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from officegym.apps.crm import services
from officegym.apps.crm.record_fields import current_values
from officegym.apps.crm.record_views import GET
from officegym.apps.crm.models import Opportunity
from officegym.apps.org.models import Department, Person

pytestmark = pytest.mark.e2e


@pytest.fixture
def crm(live_server):
    """A free episode on the tiny world (the actor is the company's admin) and its base URL."""
    episode = live_server.store.create(scale="tiny")
    yield episode, f"{live_server.base_url}/e/{episode.id}"
    live_server.store.delete(episode.id)


def deal_in(episode, stage: str, skip: int = 0) -> Opportunity:
    """An open deal of the episode in `stage`."""
    with episode.session() as db:
        return db.scalars(select(Opportunity).where(Opportunity.stage == stage, Opportunity.amount_cents > 0)
                          .order_by(Opportunity.id).offset(skip)).first()


def stored(episode, deal_id: int) -> Opportunity:
    """The deal as the database holds it now."""
    with episode.session() as db:
        deal = db.get(Opportunity, deal_id)
        db.expunge(deal)
        return deal


def current_stage(page) -> str:
    return page.locator('[data-testid="stage"][aria-current="step"]').inner_text()


def test_the_path_moves_a_deal_and_marks_stages_complete(page, crm):
    episode, base = crm
    deal = deal_in(episode, "Qualification")
    page.goto(f"{base}/crm/opportunities/{deal.id}")
    assert page.title().startswith(f"{deal.name} | Opportunity")
    assert current_stage(page) == "Qualification"
    page.get_by_role("button", name="Move to Proposal").click()
    assert current_stage(page) == "Proposal" and stored(episode, deal.id).stage == "Proposal"
    page.get_by_role("button", name="Mark stage as complete").click()
    assert current_stage(page) == "Negotiation" and stored(episode, deal.id).stage == "Negotiation"
    # From Negotiation the next step is a closed stage, which the closing form asks for.
    expect(page.get_by_role("button", name="Mark stage as complete")).to_have_count(0)
    page.get_by_role("button", name="Move to Prospecting").click()  # going back is allowed
    assert stored(episode, deal.id).stage == "Prospecting"


def test_closing_as_lost_asks_the_reason_and_a_blank_choice_is_refused(page, crm):
    episode, base = crm
    deal = deal_in(episode, "Proposal")
    page.goto(f"{base}/crm/opportunities/{deal.id}")
    page.get_by_role("button", name="Move to Closed Lost").click()
    assert page.title().startswith(f"Close {deal.name} | Opportunity")
    assert page.get_by_label("Loss reason", exact=True).input_value() == ""  # "Choose…"
    page.get_by_role("button", name="Close as lost").click()
    expect(page.get_by_test_id("flash-error").or_(page.get_by_role("alert")).first).to_contain_text("loss_reason")
    assert stored(episode, deal.id).stage == "Proposal"
    page.go_back()
    page.get_by_label("Loss reason", exact=True).select_option("Competitor")
    page.get_by_label("Competitor (when the loss reason is Competitor)").fill("Initech")
    page.get_by_role("button", name="Close as lost").click()
    assert current_stage(page) == "Closed Lost"
    saved = stored(episode, deal.id)
    assert (saved.stage, saved.loss_reason, saved.competitor) == ("Closed Lost", "Competitor", "Initech")
    # Closed: no path buttons, and reopening starts from "Choose…", never a stage picked for you.
    expect(page.get_by_role("button", name="Move to Negotiation")).to_have_count(0)
    assert page.get_by_label("Reopen into").input_value() == ""


def test_inline_edit_saves_one_field_and_cancel_changes_nothing(page, crm):
    episode, base = crm
    deal = deal_in(episode, "Qualification")
    page.goto(f"{base}/crm/opportunities/{deal.id}")
    shown = page.get_by_test_id("field-next-step")
    page.get_by_role("link", name="Edit Next step").click()
    field = page.get_by_role("textbox", name="Next step")
    expect(field).to_be_focused()
    assert field.input_value() == deal.next_step
    field.fill("Never saved")
    page.get_by_role("button", name="Cancel").click()
    expect(field).to_be_hidden()
    expect(shown).to_have_text(deal.next_step or "—")
    assert stored(episode, deal.id).next_step == deal.next_step
    page.get_by_role("link", name="Edit Next step").click()
    assert field.input_value() == deal.next_step  # the cancelled text is gone
    field.fill("Book the pricing call")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(shown).to_have_text("Book the pricing call")
    saved = stored(episode, deal.id)
    assert (saved.next_step, saved.name, saved.amount_cents) == ("Book the pricing call", deal.name, deal.amount_cents)


def test_without_javascript_the_pencil_opens_the_edit_form_at_its_field_and_tabs_are_sections(browser, crm):
    episode, base = crm
    deal = deal_in(episode, "Qualification")
    context = browser.new_context(java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(f"{base}/crm/opportunities/{deal.id}")
        for section in ("details", "related", "activity"):  # every section is on the page, linked from the tabs
            expect(page.locator(f"#{section}")).to_be_visible()
        expect(page.get_by_role("tab")).to_have_count(0)
        page.get_by_role("link", name="Edit Next step").click()
        assert "/edit?focus=next_step" in page.url
        expect(page.get_by_label("Next step")).to_be_focused()
        assert page.get_by_label("Owner (@handle)").input_value().startswith("@")
    finally:
        context.close()


def test_tabs_switch_sections_and_remember_the_one_open(page, crm):
    episode, base = crm
    deal = deal_in(episode, "Proposal")
    page.goto(f"{base}/crm/opportunities/{deal.id}")
    details, related = page.get_by_role("tab", name="Details"), page.get_by_role("tab", name="Related")
    expect(details).to_have_attribute("aria-selected", "true")
    expect(page.get_by_test_id("line-items")).to_be_hidden()
    related.click()
    expect(related).to_have_attribute("aria-selected", "true")
    expect(page.get_by_test_id("line-items")).to_be_visible()
    related.press("ArrowRight")
    expect(page.get_by_role("tab", name="Activity")).to_be_focused()
    expect(page.get_by_test_id("activity-form")).to_be_visible()
    page.reload()
    expect(page.get_by_role("tab", name="Activity")).to_have_attribute("aria-selected", "true")


def test_the_owner_is_shown_and_the_people_picker_changes_it(page, crm):
    episode, base = crm
    deal = deal_in(episode, "Proposal")
    with episode.session() as db:
        owner = db.get(Person, deal.owner_id)
        owner_name, owner_handle = owner.name, owner.handle
        sales = db.scalar(select(Department.id).where(Department.name == "Sales"))
        other = db.scalars(select(Person).where(Person.department_id == sales, Person.id != owner.id)
                           .order_by(Person.id)).first()
        other_name, other_handle = other.name, other.handle
    page.goto(f"{base}/crm/opportunities/{deal.id}")
    highlight = page.get_by_test_id("highlights").get_by_role("link", name=f"{owner_name} @{owner_handle}")
    expect(highlight).to_have_attribute("href", f"/e/{episode.id}/org/people/{owner_handle}")
    page.get_by_role("link", name="Edit Owner").click()
    field = page.get_by_role("combobox", name="Owner")
    assert field.input_value() == f"@{owner_handle}"  # a handle, never an internal number
    field.fill("")
    field.press_sequentially(other_name.split()[-1][:4], delay=20)
    page.get_by_role("option", name=other_name).first.click()
    expect(field).to_have_value(other_handle)
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_test_id("highlights").get_by_role("link", name=f"{other_name} @{other_handle}")).to_be_visible()
    assert stored(episode, deal.id).owner_id == other.id


def test_lists_sort_by_a_header_and_show_the_owner(page, crm):
    episode, base = crm
    page.goto(f"{base}/crm/opportunities?stage=open")
    assert page.title().startswith("Opportunities: open")
    table = page.get_by_test_id("record-list")
    expect(table.get_by_role("columnheader", name="Owner")).to_be_visible()
    amount = table.get_by_role("columnheader", name="Amount")
    expect(amount).not_to_have_attribute("aria-sort", "ascending")
    amount.get_by_role("link").click()
    expect(table.get_by_role("columnheader", name="Amount")).to_have_attribute("aria-sort", "ascending")
    table.get_by_role("columnheader", name="Amount").get_by_role("link").click()
    expect(table.get_by_role("columnheader", name="Amount")).to_have_attribute("aria-sort", "descending")
    with episode.session() as db:
        admin = episode.actor(db)
        expected = services.list_opportunities(db, admin, stage="open", sort="amount", descending=True, limit=25)
        owners = {p.id: p.name for p in db.scalars(select(Person))}
        wanted = [(o.name, owners[o.owner_id]) for o in expected.items]
    rows = page.get_by_test_id("record-row")
    shown = [(rows.nth(i).locator("td").first.inner_text(), rows.nth(i).get_by_test_id("row-owner").inner_text())
             for i in range(rows.count())]
    assert shown == wanted


def test_the_kanban_card_menu_and_a_drag_move_a_deal(page, crm):
    episode, base = crm
    first, second = deal_in(episode, "Qualification"), deal_in(episode, "Qualification", 1)
    page.goto(f"{base}/crm/opportunities/board")
    qualification = page.get_by_role("region", name="Qualification")
    card = qualification.get_by_test_id("deal-card").filter(has=page.get_by_role("link", name=first.name, exact=True))
    with episode.session() as db:
        expect(card).to_contain_text(f"${first.amount_cents / 100:,.2f}")
        expect(card).to_contain_text(db.get(Person, first.owner_id).name)
    card.locator("summary", has_text=f"Move {first.name}").click()  # the card menu
    card.get_by_role("button", name="Move to Proposal").click()
    proposal = page.get_by_role("region", name="Proposal")
    expect(proposal.get_by_role("link", name=first.name, exact=True)).to_be_visible()
    assert stored(episode, first.id).stage == "Proposal" and "/board" in page.url
    dragged = page.get_by_role("region", name="Qualification").get_by_test_id("deal-card").filter(
        has=page.get_by_role("link", name=second.name, exact=True))
    # Onto the column's heading: both ends in view, so the page does not scroll under the drag.
    dragged.drag_to(page.get_by_role("region", name="Proposal").get_by_role("heading", level=2))
    proposal = page.get_by_role("region", name="Proposal")
    expect(proposal.get_by_role("link", name=second.name, exact=True)).to_be_visible()
    assert stored(episode, second.id).stage == "Proposal"


SELECTS = """Array.from(document.querySelectorAll('select')).map(s => [s.name, s.id, s.value])"""


def test_no_crm_select_defaults_to_a_value_the_record_does_not_hold(page, crm):
    episode, base = crm
    with episode.session() as db:
        admin = episode.actor(db)
        deal, lost = deal_in(episode, "Proposal"), deal_in(episode, "Closed Lost")
        records = {"opportunity": [deal.id, lost.id], "account": [deal.account_id],
                   "lead": [services.list_leads(db, admin, status="Working", limit=1).items[0].id],
                   "case": [services.list_cases(db, admin, status="open", limit=1).items[0].id],
                   "contact": [services.list_contacts(db, admin, account=deal.account_id, limit=1).items[0].id]}
        held = {}
        for kind, ids in records.items():
            for record_id in ids:
                record = GET[kind](db, admin, record_id)
                held[kind, record_id] = current_values(db, admin, kind, record)
    plural = {"opportunity": "opportunities", "account": "accounts", "lead": "leads", "case": "cases",
              "contact": "contacts"}
    pages = [(f"/crm/{plural[kind]}/{i}", held[kind, i]) for kind, i in held]
    pages += [(f"/crm/{kind}/{i}/edit", held[kind, i]) for kind, i in held]
    pages += [(f"/crm/{kind}/new", {}) for kind in plural]
    pages += [(f"/crm/opportunities/{deal.id}/close", {}),
              (f"/crm/opportunities/{deal.id}/close?stage=Closed+Lost", {}),
              (f"/crm/leads/{records['lead'][0]}/convert", {}), ("/crm/opportunities/board", {}),
              ("/crm/opportunities?stage=open", {"stage": "open"}), ("/crm/cases?priority=High", {"priority": "High"}),
              ("/crm/reports/pipeline?group_by=owner&stages=all", {"group_by": "owner", "stages": "all"})]
    wrong = []
    for path, values in pages:
        page.goto(base + path)
        for name, ident, value in page.evaluate(SELECTS):
            if value and value != values.get(name):
                wrong.append(f"{path} #{ident} defaults to {value!r}, the record holds {values.get(name)!r}")
    assert not wrong, wrong
