"""The typeahead pickers' lookups: suggestions come from the search services as the acting person,
carry the value the field accepts, are few, and never show what that person may not see."""

from __future__ import annotations

from sqlalchemy import select

from officegym.apps.chat.models import Channel, Membership
from officegym.apps.crm.models import Opportunity
from officegym.apps.org.models import Person
from officegym.apps.tickets.models import Ticket
from officegym.web_lookups import MAX_RESULTS


def _lookup(browser, kind: str, q: str) -> dict:
    response = browser.get(f"/lookup/{kind}", query_string={"q": q})
    assert response.status_code == 200, response.data
    assert response.mimetype == "application/json"
    return response.get_json()


def test_people_are_suggested_by_part_of_a_name_with_their_handle_as_the_value(browser):
    with browser.db() as db:
        someone = db.scalars(select(Person).order_by(Person.id).offset(3)).first()
        name, handle = someone.name, someone.handle
    found = _lookup(browser, "people", name.split()[-1])
    assert {"value": handle, "label": name} in [{k: r[k] for k in ("value", "label")} for r in found["results"]]
    assert all(len(found["results"]) <= MAX_RESULTS for found in [found, _lookup(browser, "people", "a")])
    assert len(_lookup(browser, "people", "a")["results"]) == MAX_RESULTS


def test_a_ticket_is_found_by_its_key_and_by_words_of_its_summary(browser):
    with browser.db() as db:
        ticket = db.scalars(select(Ticket).order_by(Ticket.id)).first()
        key, summary = ticket.key, ticket.summary
    assert [r["value"] for r in _lookup(browser, "tickets", key.lower())["results"]] == [key]
    longest = max(summary.replace('"', " ").split(), key=len)
    assert key in [r["value"] for r in _lookup(browser, "tickets", longest)["results"]] or \
        len(_lookup(browser, "tickets", longest)["results"]) == MAX_RESULTS


def test_deals_and_accounts_are_suggested_by_name(browser):
    with browser.db() as db:
        deal = db.scalars(select(Opportunity).order_by(Opportunity.id)).first()
        deal_name, account_name = deal.name, deal.account.name
    assert deal_name in [r["value"] for r in _lookup(browser, "opportunities", deal_name)["results"]]
    assert account_name in [r["value"] for r in _lookup(browser, "accounts", account_name)["results"]]


def test_a_private_channel_is_suggested_only_to_its_members(browser):
    with browser.db() as db:
        private = db.scalars(select(Channel).where(Channel.kind == "private").order_by(Channel.id)).first()
        members = select(Membership.person_id).where(Membership.channel_id == private.id)
        member = db.scalars(select(Person).where(Person.id.in_(members)).order_by(Person.id)).first()
        outsider = db.scalars(select(Person).where(Person.id.not_in(members)).order_by(Person.id)).first()
        name, member, outsider = private.name, member.handle, outsider.handle
    browser.act_as(member)
    assert name in [r["value"] for r in _lookup(browser, "channels", name)["results"]]
    browser.act_as(outsider)
    assert name not in [r["value"] for r in _lookup(browser, "channels", name)["results"]]


def test_an_unknown_kind_is_refused_and_a_long_query_is_cut_before_the_search(browser):
    assert browser.get("/lookup/passwords", query_string={"q": "a"}).status_code == 404
    found = _lookup(browser, "people", "x" * 10_000)
    assert found["results"] == [] and len(found["query"]) == 80


def test_a_query_the_ticket_language_refuses_gives_no_suggestions_and_no_error_page(browser):
    found = _lookup(browser, "tickets", 'a\\ "b')
    assert isinstance(found["results"], list)
