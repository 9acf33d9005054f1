"""The tickets pages in real Chromium: the status menu at the top of a ticket, fields edited in place
(and cancelled), the assignee picker, quick filters, the backlog, and the move menu (and drag and
drop) of board cards. The checks read the database: each control really changed what it says."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from officegym.apps.org.models import Person
from officegym.apps.tickets import services
from officegym.apps.tickets.models import GroupMember, Project, Ticket

pytestmark = pytest.mark.e2e


@pytest.fixture
def free(live_server):
    """A free episode of the tiny world (acting as its owner) and its base URL."""
    episode = live_server.store.create(scale="tiny")
    yield episode, f"{live_server.base_url}/e/{episode.id}"
    live_server.store.delete(episode.id)


def _ticket(episode, *where) -> Ticket:
    with episode.session() as db:
        found = db.scalars(select(Ticket).where(*where).order_by(Ticket.id)).first()
        assert found is not None, "the tiny world has no such ticket"
        db.expunge(found)
        return found


def _now(episode, key: str) -> Ticket:
    with episode.session() as db:
        found = db.scalar(select(Ticket).where(Ticket.key == key))
        db.expunge(found)
        return found


def _eng(episode) -> int:
    with episode.session() as db:
        return db.scalar(select(Project.id).where(Project.key == "ENG"))


def test_the_status_menu_offers_only_the_available_transitions_and_applies_one(page, free):
    episode, base = free
    story = _ticket(episode, Ticket.project_id == _eng(episode), Ticket.status == "In Progress")
    page.goto(f"{base}/tickets/{story.key}")
    expect(page).to_have_title(re.compile(rf"^\[{story.key}\] .+ – Tickets"))
    menu = page.get_by_test_id("status-menu")
    expect(menu).to_have_text("Status: In Progress")
    items = page.get_by_test_id("transitions").get_by_test_id("transition")
    expect(items.first).to_be_hidden()  # closed until opened
    menu.click()
    expect(items).to_have_text(["Stop progress (to To Do)", "Submit for review (to In Review)", "Close (to Done)"])
    for absent in ("Start progress", "Request changes", "Reopen"):
        expect(page.get_by_role("button", name=re.compile(f"^{absent}"))).to_have_count(0)
    page.get_by_role("button", name="Submit for review (to In Review)").click()
    expect(page.get_by_test_id("flash-info")).to_have_text(f"{story.key} is now In Review.")
    expect(page.get_by_test_id("field-status")).to_have_text("In Review")
    assert _now(episode, story.key).status == "In Review"
    assert page.get_by_test_id("transition-form").count() == 0  # no second set of buttons below


def test_a_transition_that_needs_a_resolution_opens_its_form(page, free):
    episode, base = free
    story = _ticket(episode, Ticket.project_id == _eng(episode), Ticket.status == "To Do")
    page.goto(f"{base}/tickets/{story.key}")
    page.get_by_test_id("status-menu").click()
    page.get_by_role("link", name="Close (to Done)").click()
    expect(page).to_have_title(re.compile(rf"^Close \[{story.key}\]"))
    page.get_by_label("Resolution").select_option("Won't Do")
    page.get_by_label("Comment (optional, public)").fill("Out of scope this quarter.")
    page.get_by_test_id("transition-submit").click()
    expect(page.get_by_test_id("field-status")).to_have_text("Done")
    now = _now(episode, story.key)
    assert (now.status, now.resolution) == ("Done", "Won't Do")


def test_an_inline_edit_is_cancelled_then_saved(page, free):
    episode, base = free
    story = _ticket(episode, Ticket.project_id == _eng(episode), Ticket.priority == "Medium")
    page.goto(f"{base}/tickets/{story.key}")
    editor = page.get_by_test_id("inline-priority")
    expect(editor).to_be_hidden()
    page.get_by_role("link", name="Edit priority").click()
    expect(editor).to_be_visible()
    choice = editor.get_by_label("Priority")
    expect(choice).to_be_focused()
    expect(choice).to_have_value("Medium")  # the select starts at the current value
    choice.select_option("Highest")
    editor.get_by_role("link", name="Cancel").click()
    expect(editor).to_be_hidden()
    expect(page.get_by_test_id("field-priority")).to_have_text("Medium")
    assert _now(episode, story.key).priority == "Medium"
    page.get_by_role("link", name="Edit priority").click()
    expect(choice).to_have_value("Medium")  # the cancelled choice is gone
    choice.select_option("Highest")
    editor.get_by_role("button", name="Save").click()
    expect(page.get_by_test_id("field-priority")).to_have_text("Highest")
    now = _now(episode, story.key)
    assert (now.priority, now.summary, now.due_date, now.story_points) == ("Highest", story.summary, story.due_date,
                                                                          story.story_points)


def test_escape_closes_an_editor_and_labels_save_in_place(page, free):
    episode, base = free
    story = _ticket(episode, Ticket.project_id == _eng(episode), Ticket.status == "To Do")
    page.goto(f"{base}/tickets/{story.key}")
    page.get_by_role("link", name="Edit labels").click()
    field = page.get_by_test_id("inline-labels").get_by_label("Labels (words separated by spaces)")
    field.fill("q2-goal customer")
    field.press("Escape")
    expect(page.get_by_test_id("inline-labels")).to_be_hidden()
    page.get_by_role("link", name="Edit labels").click()
    field.fill("q2-goal customer")
    field.press("Enter")
    expect(page.get_by_test_id("field-labels")).to_have_text("customer, q2-goal")


def test_the_assignee_picker_finds_a_person_by_part_of_the_name(page, free):
    episode, base = free
    incident = _ticket(episode, Ticket.type == "Incident", Ticket.status == "In Progress")
    with episode.session() as db:
        member = db.scalars(select(Person).join(GroupMember, GroupMember.person_id == Person.id).where(
            GroupMember.group_id == incident.group_id, Person.id != incident.assignee_id).order_by(Person.id)).first()
        name, handle = member.name, member.handle
    page.goto(f"{base}/tickets/{incident.key}")
    page.get_by_role("link", name="Edit assignee").click()
    field = page.get_by_role("combobox", name="Assignee (type a name; blank unassigns)")
    expect(field).to_be_focused()
    field.fill("")
    field.press_sequentially(name.split()[-1][:5], delay=20)
    page.get_by_role("option", name=re.compile(f"^{re.escape(name)}")).first.click()
    expect(field).to_have_value(handle)
    page.get_by_test_id("inline-assignee").get_by_role("button", name="Save").click()
    expect(page.get_by_test_id("field-assignee")).to_have_text(name)
    assert _now(episode, incident.key).assignee_id == member.id


def test_quick_filters_add_and_remove_a_query_clause(page, free):
    episode, base = free
    page.goto(f"{base}/tickets/search?q=project%20%3D%20ENG")
    expect(page).to_have_title("Search: project = ENG · officegym")
    filters = page.get_by_role("navigation", name="Quick filters")
    filters.get_by_role("link", name="Unassigned").click()
    expect(page).to_have_title("Search: project = ENG AND assignee is EMPTY · officegym")
    with episode.session() as db:
        owner = episode.actor(db)
        expected = services.search_tickets(db, owner, "project = ENG AND assignee is EMPTY", 0, 25)
    rows = page.get_by_test_id("ticket-row")
    expect(rows).to_have_count(len(expected.items))
    assert [r.get_attribute("data-key") for r in rows.all()] == [t.key for t in expected.items]
    active = filters.get_by_role("link", name="Unassigned")
    expect(active).to_have_attribute("aria-current", "true")
    active.click()
    assert parse_qs(urlsplit(page.url).query)["q"] == ["project = ENG"]
    page.goto(f"{base}/tickets/projects/ENG/board")
    filters.get_by_role("link", name="Unassigned").click()
    filters.get_by_role("link", name="Priority High", exact=True).click()  # the filters add up
    query = "assignee is EMPTY AND priority = High"
    expect(page).to_have_title(f"Board: ENG ({query}) · officegym")
    with episode.session() as db:
        board = services.get_board(db, episode.actor(db), "ENG", query=query)
        shown = sorted(t.key for c in board.columns for t in c.tickets)
        assert shown and all(t.assignee_id is None and t.priority == "High" for c in board.columns for t in c.tickets)
    page.wait_for_load_state()  # the whole board, not only the part parsed when the title arrived
    assert sorted(page.get_by_test_id("board-card").evaluate_all("cs => cs.map(c => c.dataset.key)")) == shown
    filters.get_by_role("link", name="Clear filters").click()
    expect(page).to_have_title("Board: ENG · officegym")


def test_the_backlog_groups_open_work_outside_the_active_sprint(page, free):
    episode, base = free
    page.goto(f"{base}/tickets/projects/ENG/board")
    page.get_by_role("link", name="ENG backlog").click()
    expect(page).to_have_title("Backlog: ENG · officegym")
    with episode.session() as db:
        owner = episode.actor(db)
        future = [s for s in services.list_sprints(db, owner, "ENG") if s.state == "future"]
        expected = {s.name: services.search_tickets(db, owner, f"project = ENG AND sprint = {s.id} AND statusCategory"
                                                     " != Done ORDER BY priority DESC, key ASC", 0, 50) for s in future}
        expected["Backlog"] = services.search_tickets(db, owner, "project = ENG AND sprint is EMPTY AND statusCategory "
                                                      "!= Done ORDER BY priority DESC, key ASC", 0, 50)
    groups = page.get_by_test_id("backlog-group")
    expect(groups).to_have_count(len(expected))
    for group, (name, found) in zip(groups.all(), expected.items()):
        assert group.get_attribute("data-group") == name
        keys = group.get_by_test_id("ticket-row").evaluate_all("rows => rows.map(r => r.dataset.key)")
        assert keys == [t.key for t in found.items]
    assert sum(f.total for f in expected.values()) > 0
    first = next(t for f in expected.values() for t in f.items)
    page.get_by_role("link", name=f"{first.key} {first.summary}").click()
    expect(page.get_by_test_id("ticket-key")).to_have_text(first.key)


def test_a_card_menu_moves_the_card_to_another_column(page, free):
    episode, base = free
    card = _ticket(episode, Ticket.project_id == _eng(episode), Ticket.status == "In Progress",
                   Ticket.sprint_id.is_not(None))
    page.goto(f"{base}/tickets/projects/ENG/board?sprint={card.sprint_id}")
    moving = page.locator(f'[data-testid="board-card"][data-key="{card.key}"]')
    moving.get_by_role("link", name=f"{card.key} {card.summary}").wait_for()
    moving.get_by_test_id("card-menu").locator("summary").click()
    expect(moving.get_by_role("button", name=f"Move {card.key} to In Progress")).to_have_count(0)
    moving.get_by_role("button", name=f"Move {card.key} to In Review").click()
    expect(page.get_by_test_id("flash-info")).to_have_text(f"{card.key} is now In Review.")
    column = page.locator('[data-testid="board-column"][data-status="In Review"]')
    expect(column.locator(f'[data-key="{card.key}"]')).to_have_count(1)
    assert _now(episode, card.key).status == "In Review"
    # Dragging the card back to In Progress takes the card's own "Request changes" move.
    column.locator(f'[data-key="{card.key}"]').drag_to(
        page.locator('[data-testid="board-column"][data-status="In Progress"]'))
    expect(page.locator(f'[data-testid="board-column"][data-status="In Progress"] [data-key="{card.key}"]')
           ).to_have_count(1)
    assert _now(episode, card.key).status == "In Progress"
