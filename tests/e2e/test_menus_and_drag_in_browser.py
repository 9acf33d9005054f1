"""The UI as an agent drives it, in Chromium: every menu trigger of every app is a button with a name
that Playwright's role lookup finds, the chat page's one actions menu opens in the row whose button
was pressed, and a card dragged onto the middle of a tall Kanban column lands in that column even
though the page scrolls under the drag."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from officegym.apps.crm.models import Case, Opportunity
from officegym.apps.sheets.models import Workbook
from officegym.apps.tickets.models import Ticket

pytestmark = pytest.mark.e2e

TRIGGERS = "summary, [aria-haspopup]"  # what opens a menu, a disclosure or a popup


@pytest.fixture
def tiny(live_server):
    """A free episode on the tiny world (its owner acting) and its base URL."""
    episode = live_server.store.create(scale="tiny")
    yield episode, f"{live_server.base_url}/e/{episode.id}"
    live_server.store.delete(episode.id)


# Each trigger's kind (what its markup says it is, without what differs from one row to the next),
# or "" when it is not shown.
KINDS = """els => els.map(e => e.checkVisibility() ? [e.tagName, e.className, e.getAttribute('role'),
    e.getAttribute('aria-haspopup'), e.dataset.testid, e.closest('[role=menubar]') ? 'bar' : ''].join('|') : '')"""


def walk_triggers(page) -> list[str]:
    """Every kind of menu trigger in view, checked on its first shown one (a board repeats one kind
    on every card): a button (or, in a menu bar, a menu item) whose name get_by_role finds; their
    names. (One shown only on hover, as "Add reaction" is, is in no tree until then.)"""
    triggers = page.locator(TRIGGERS)
    kinds = triggers.evaluate_all(KINDS)
    names = []
    for index, kind in enumerate(kinds):
        if not kind or kind in kinds[:index]:
            continue
        trigger = triggers.nth(index)
        node = page.accessibility.snapshot(root=trigger.element_handle(), interesting_only=False)
        assert node and node["role"] in ("button", "menuitem") and node["name"].strip(), (
            trigger.evaluate("e => e.outerHTML"), node)
        found = page.get_by_role(node["role"], name=node["name"], exact=True)
        assert any(b.evaluate("(b, t) => b === t", trigger.element_handle()) for b in found.element_handles()), node
        names.append(node["name"])
    return names


def test_every_menu_trigger_is_a_button_with_a_name(page, tiny):
    episode, base = tiny
    with episode.session() as db:
        case = db.scalar(select(Case).where(Case.status.in_(("New", "Working"))).order_by(Case.id))
        ticket = db.scalar(select(Ticket).where(Ticket.key.like("ENG-%")).order_by(Ticket.id))
        workbook = db.scalar(select(Workbook).order_by(Workbook.id))
        case_id, key, status, workbook_id = case.id, ticket.key, ticket.status, workbook.id
    expected = {
        "/chat/c/general": "More actions for ",
        "/crm/opportunities/board": "Move ",
        f"/crm/cases/{case_id}": "Escalate case",
        f"/tickets/{key}": f"Status: {status}",
        "/tickets/projects/ENG/board": "Move ENG-",
        f"/sheets/w/{workbook_id}": "File",
    }
    for path, name in expected.items():
        page.goto(base + path)
        names = walk_triggers(page)
        assert any(n.startswith(name) for n in names), (path, names)
    # The chat menu and its React and "Add reaction" buttons, opened as an agent does: by role and name.
    page.goto(base + "/chat/c/general")
    row = page.get_by_test_id("message").last
    row.get_by_role("button", name="More actions for", exact=False).click()
    row.get_by_role("button", name="React", exact=True).click()
    expect(row.get_by_role("button", name="React with thumbs up")).to_be_visible()
    walk_triggers(page)


def test_a_drag_onto_the_middle_of_a_tall_column_moves_the_dragged_card_there(browser, small_server):
    episode = small_server.store.create(scale="small")
    page = browser.new_page(viewport={"width": 1280, "height": 600})
    try:
        with episode.session() as db:
            stages = dict(db.execute(select(Opportunity.id, Opportunity.stage)).all())
        page.goto(f"{small_server.base_url}/e/{episode.id}/crm/opportunities/board")
        source = page.get_by_role("region", name="Qualification").get_by_test_id("deal-card").first
        dragged = int(source.get_attribute("data-id"))
        target = page.get_by_role("region", name="Proposal")
        box = target.bounding_box()
        assert box["y"] + box["height"] / 2 > 600, "the column's middle is below the fold: the page scrolls"
        source.drag_to(target, target_position={"x": box["width"] / 2, "y": box["height"] / 2})
        expect(page.get_by_test_id("flash-info")).to_contain_text("moved to Proposal")
        deadline = time.monotonic() + 5
        while True:
            with episode.session() as db:
                now = dict(db.execute(select(Opportunity.id, Opportunity.stage)).all())
            if now != stages or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        assert {deal: stage for deal, stage in now.items() if stages[deal] != stage} == {dragged: "Proposal"}
    finally:
        page.close()
        small_server.store.delete(episode.id)
