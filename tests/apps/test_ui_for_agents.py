"""What a browser user is offered and told, through the Flask test client: pickers offer only valid
choices, a field that cannot be edited is read-only with the reason, error pages speak of the UI's
own controls (never MCP tool names), notices stay in the episode that raised them, member lists are
paged, and the server's root page names every app."""

from __future__ import annotations

import re

from sqlalchemy import select
from ui_helpers import Browser, error_message, text_of

from officegym.apps.chat import services as chat
from officegym.apps.chat.models import Channel, Membership
from officegym.apps.crm import services as crm
from officegym.apps.crm.models import LineItem, Opportunity
from officegym.apps.org.models import Person
from officegym.web_wording import TOOL_NAME, ui_message


CLOSED = ("Closed Won", "Closed Lost")


def _members(db, name: str) -> set[str]:
    channel = db.scalar(select(Channel).where(Channel.name == name))
    return set(db.scalars(select(Person.handle).join(Membership, Membership.person_id == Person.id)
                          .where(Membership.channel_id == channel.id)))


def test_the_invite_picker_offers_only_people_not_in_the_channel(browser, owner):
    with browser.db() as db:
        members = _members(db, "random")
    page = text_of(browser.get("/chat/c/random/members"))
    offered = set(re.findall(r'type="checkbox" name="people" value="@([^"]+)"', page))
    assert offered and not offered & members
    typed = browser.get("/lookup/invitees", query_string={"q": "a", "channel": "random"}).get_json()["results"]
    assert typed and not {r["value"] for r in typed} & members
    everyone = browser.get("/lookup/people", query_string={"q": "a"}).get_json()["results"]
    assert {r["value"] for r in everyone} & members  # the plain people lookup still names members
    # Picking one of them adds them, and they are not offered again.
    chosen = sorted(offered)[0]
    assert browser.post("/chat/c/random/invite", {"people": f"@{chosen}"}).status_code == 303
    assert f'value="@{chosen}"' not in text_of(browser.get("/chat/c/random/members"))


def test_member_lists_are_paged(browser, owner):
    with browser.db() as db:
        total = len(_members(db, "general"))
    page = text_of(browser.get("/chat/c/general/members"))
    assert page.count('data-testid="member"') == min(total, 50)
    assert (total > 50) == ('data-testid="page-next"' in page)


def test_a_deal_with_line_items_shows_its_amount_read_only_with_the_reason(browser, owner):
    with browser.db() as db:
        with_items = db.scalar(select(Opportunity).where(Opportunity.stage.not_in(CLOSED),
                                                         Opportunity.id.in_(select(LineItem.opportunity_id))))
        without = db.scalar(select(Opportunity).where(Opportunity.stage.not_in(CLOSED),
                                                      Opportunity.id.not_in(select(LineItem.opportunity_id))))
        assert crm.has_line_items(db, with_items)
        deal, other = with_items.id, without.id
    page = text_of(browser.get(f"/crm/opportunities/{deal}"))
    assert 'data-testid="locked-amount">(read-only: sum of line items)' in page
    assert 'data-inline-edit="amount"' not in page and 'data-inline-form="amount"' not in page
    form = text_of(browser.get(f"/crm/opportunity/{deal}/edit"))
    assert re.search(r'<input id="field-amount" name="amount" value="[^"]*" readonly aria-describedby="locked-amount">',
                     form) and "Read-only: sum of line items." in form
    plain = text_of(browser.get(f"/crm/opportunities/{other}"))
    assert 'data-inline-edit="amount"' in plain and 'data-testid="locked-amount"' not in plain


def test_error_pages_name_the_ui_controls_not_mcp_tools(browser):
    for path in ("/tickets/ENG-99999", "/crm/opportunities/99999999", "/org/people/nobody-at-all"):
        response = browser.get(path)
        shown = error_message(response)
        assert response.status_code == 404 and shown and not TOOL_NAME.search(shown), (path, shown)
    assert "Use ticket Search to find tickets." in error_message(browser.get("/tickets/ENG-99999"))
    # The service's own message is unchanged: the wording is the view's.
    assert ui_message("change those (crm_update_line_item) instead.") == \
        "change those (the line item's Edit form under Products) instead."
    assert ui_message("crm_get_opportunity lists an opportunity's line items.").startswith("The opportunity's page")


def test_a_notice_shows_only_in_the_episode_that_raised_it(web_app, store, browser):
    other = store.create(scale="tiny")
    try:
        with browser.db() as db:
            mine = chat.post_message(db, browser.episode.actor(db), "general", "to delete").id
        assert browser.post(f"/chat/m/{mine}/delete").status_code == 303
        elsewhere = Browser(browser.client, other)  # the same browser (its cookies), another episode
        assert 'data-testid="flash-info"' not in text_of(elsewhere.get("/chat/c/general"))
        assert "Message deleted." in text_of(browser.get("/chat/c/general"))
        assert 'data-testid="flash-info"' not in text_of(browser.get("/chat/c/general"))  # shown once
    finally:
        store.delete(other.id)


def test_the_root_page_names_every_app(web_app):
    page = text_of(web_app.test_client().get("/"))
    for app in ("chat", "CRM", "sheets", "tickets", "directory"):
        assert app in page
