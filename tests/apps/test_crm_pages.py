"""The Lightning-style CRM pages through the Flask test client: titles say where you are, links are
named by their record, the owner is shown with name and @handle and prefilled as a handle, pickers
mark the fields that name people and accounts, lists show owners, the Kanban board lays deals out by
stage, and every inline edit or path button posts a real form to the existing views."""

from __future__ import annotations

import html
import re

from sqlalchemy import select
from ui_helpers import error_message, text_of

from officegym.apps.crm import services
from officegym.apps.crm.models import OPEN_STAGES, Activity, Opportunity
from officegym.apps.org.models import Person


def _title(response) -> str:
    return html.unescape(re.search(r"<title>(.*?)</title>", text_of(response), re.S).group(1)).strip()


def _deal(browser, stage: str = "Qualification") -> Opportunity:
    with browser.db() as db:
        deal = db.scalars(select(Opportunity).where(Opportunity.stage == stage).order_by(Opportunity.id)).first()
        db.expunge(deal)
        return deal


def test_titles_say_where_you_are(browser):
    deal = _deal(browser)
    assert _title(browser.get(f"/crm/opportunities/{deal.id}")).startswith(f"{deal.name} | Opportunity")
    assert _title(browser.get("/crm/opportunities?stage=open")).startswith("Opportunities: open")
    assert _title(browser.get("/crm/opportunities")).startswith("Opportunities: All")
    assert _title(browser.get("/crm/search?q=renewal")).startswith("Search: renewal")
    assert _title(browser.get(f"/crm/accounts/{deal.account_id}")).endswith("| Account · officegym")


def test_the_owner_is_shown_by_name_and_handle_and_prefilled_as_a_handle(browser):
    deal = _deal(browser)
    with browser.db() as db:
        owner = db.get(Person, deal.owner_id)
        name, handle = owner.name, owner.handle
    page = text_of(browser.get(f"/crm/opportunities/{deal.id}"))
    highlights = page.split('data-testid="highlights"', 1)[1].split("</header>", 1)[0]
    assert f'href="/e/{browser.episode.id}/org/people/{handle}"' in highlights
    assert f"{html.escape(name)} <span class=\"handle\">@{handle}</span>" in highlights
    edit = text_of(browser.get(f"/crm/opportunity/{deal.id}/edit"))
    owner_field = re.search(r'<input id="field-owner" name="owner" value="([^"]*)"([^>]*)>', edit)
    assert owner_field.group(1) == f"@{handle}" and 'data-picker="people"' in owner_field.group(2)
    inline = re.search(r'<input id="inline-owner" name="owner" value="([^"]*)"([^>]*)>', page)
    assert inline.group(1) == f"@{handle}" and 'data-picker="people"' in inline.group(2)


def test_account_fields_are_account_pickers_prefilled_by_name(browser):
    with browser.db() as db:
        contact = services.list_contacts(db, browser.episode.actor(db), limit=1).items[0]
        account = contact.account.name
    edit = text_of(browser.get(f"/crm/contact/{contact.id}/edit"))
    field = re.search(r'<input id="field-account" name="account" value="([^"]*)"([^>]*)>', edit)
    assert html.unescape(field.group(1)) == account and 'data-picker="accounts"' in field.group(2)


def test_an_unchanged_owner_handle_is_not_a_change(browser):
    deal = _deal(browser)
    with browser.db() as db:
        handle = db.get(Person, deal.owner_id).handle
    before = browser.state()
    response = browser.post(f"/crm/opportunity/{deal.id}/edit", {"owner": handle, "next_step": "New step"})
    assert response.status_code == 303, error_message(response)
    with browser.db() as db:
        saved = db.get(Opportunity, deal.id)
        assert (saved.owner_id, saved.next_step) == (deal.owner_id, "New step")
    assert browser.state() != before


def test_every_stage_of_the_path_is_a_move_button_and_mark_complete_names_the_next(browser):
    deal = _deal(browser)
    page = text_of(browser.get(f"/crm/opportunities/{deal.id}"))
    for stage in ("Prospecting", "Proposal", "Negotiation", "Closed Won", "Closed Lost"):
        assert f'aria-label="Move to {stage}"' in page
    assert 'aria-label="Move to Qualification"' not in page  # where it is
    complete = page.split('data-testid="mark-complete"', 1)[0].rsplit("<form", 1)[1]
    assert 'name="stage" value="Proposal"' in complete and 'name="csrf_token"' in complete
    response = browser.post(f"/crm/opportunities/{deal.id}/stage", {"stage": "Proposal"})
    assert response.status_code == 303
    with browser.db() as db:
        assert db.get(Opportunity, deal.id).stage == "Proposal"


def test_lists_show_the_owner_and_mark_the_sorted_column(browser):
    page = text_of(browser.get("/crm/accounts?sort=region&dir=desc"))
    assert '<th scope="col">Owner</th>' in page
    assert re.search(r'aria-sort="descending"><a [^>]*data-testid="sort-region"', page)
    assert page.count('data-testid="row-owner"') == page.count('data-testid="record-row"') > 0
    default = text_of(browser.get("/crm/opportunities"))
    assert re.search(r'aria-sort="ascending"><a [^>]*data-testid="sort-close_date"', default)


def test_the_board_has_a_column_per_open_stage_and_cards_with_a_move_menu(browser):
    page = text_of(browser.get("/crm/opportunities/board"))
    assert re.findall(r'data-testid="board-column" data-stage="([^"]+)"', page) == list(OPEN_STAGES)
    with browser.db() as db:
        total = services.list_opportunities(db, browser.episode.actor(db), stage="open", limit=1).total
    assert page.count('data-testid="deal-card"') == min(total, 25 * 4) > 0
    assert ">Move to Proposal</button>" in page and "Move to Closed Lost" in page


def test_home_tasks_and_approvals_are_links_named_by_their_record(browser):
    with browser.db() as db:
        admin = browser.episode.actor(db)
        deal = services.list_opportunities(db, admin, stage="open", owner=admin.id, limit=1).items
        target = deal[0] if deal else None
        if target is not None:
            services.log_activity(db, admin, "opportunity", target.id, "task", "Send the order form", "", None)
        task = db.scalar(select(Activity).where(Activity.owner_id == admin.id, Activity.kind == "task",
                                                Activity.status == "Open"))
    page = text_of(browser.get("/crm/"))
    if task is not None:
        assert re.search(rf'#activity">{re.escape(html.escape(task.subject))}</a>', page)
    assert not re.search(r">(Task|opportunity|account) \d+</a>", page)
