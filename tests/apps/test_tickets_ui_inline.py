"""The tickets controls without JavaScript, through the Flask test client: each field's editor opens
by its link and posts only its field (the others are kept), the status menu and the card menus list
what the workflow allows, pickers mark their fields, quick filters edit the query's text, and the
backlog and the filtered board show what the search services find."""

from __future__ import annotations

import html
import re

from sqlalchemy import select
from ui_helpers import error_message, text_of

from officegym.apps.org.models import Department, Person
from officegym.apps.tickets import services
from officegym.apps.tickets.models import Project, Sprint, Ticket, Watcher
from officegym.apps.tickets.quick import quick_filters, split_order, toggled


def first(db, *where) -> Ticket:
    """The first ticket matching the conditions."""
    found = db.scalars(select(Ticket).where(*where).order_by(Ticket.id)).first()
    assert found is not None, "the tiny world has no such ticket"
    return found


def forms_of(page: str) -> dict[str, str]:
    """The inline editors of a ticket page by field: their opening tag."""
    return {name: tag for tag, name in re.findall(r'(<form id="edit-([a-z-]+)"[^>]*>)', page)}


def test_an_editor_opens_by_its_link_at_the_current_value(browser):
    with browser.db() as db:
        story = first(db, Ticket.type == "Story", Ticket.status == "To Do")
        key, priority = story.key, story.priority
    closed = text_of(browser.get(f"/tickets/{key}"))
    editors = forms_of(closed)
    assert {"priority", "assignee", "assignment-group", "sprint", "labels", "due-date", "story-points",
            "account"} <= set(editors) and all(" hidden" in tag for tag in editors.values())
    assert f'href="{browser.base}/tickets/{key}?edit=priority#edit-priority"' in closed
    opened = text_of(browser.get(f"/tickets/{key}?edit=priority"))
    assert " hidden" not in forms_of(opened)["priority"] and " hidden" in forms_of(opened)["labels"]
    select_html = re.search(r'<select id="in-priority".*?</select>', opened, re.S).group(0)
    assert re.findall(r"<option selected>(\w+)</option>", select_html) == [priority]
    assert 'data-picker="people"' in re.search(r'<input id="in-assignee"[^>]*>', opened).group(0)
    assert 'data-picker="tickets"' in re.search(r'<input id="link-other"[^>]*>', opened).group(0)
    watchers = re.search(r'<input id="watch-person"[^>]*>', opened).group(0)
    assert 'data-picker="people"' in watchers and "data-picker-multi" in watchers


def test_an_editor_posts_one_field_and_keeps_the_others(browser):
    with browser.db() as db:
        story = first(db, Ticket.type == "Story")
        services.update_ticket(db, browser.episode.actor(db), story.key, labels="keep-me", story_points=3,
                               due_date="2026-05-04")
        key = story.key
        before = (story.summary, story.description, story.due_date, story.account_id)
    response = browser.post(f"/tickets/{key}/edit", {"priority": "Lowest", "next": f"{browser.base}/tickets/{key}"})
    assert response.status_code == 303 and response.headers["Location"].endswith(f"/tickets/{key}")
    with browser.db() as db:
        now = db.scalar(select(Ticket).where(Ticket.key == key))
        assert (now.summary, now.description, now.due_date, now.account_id) == before
        assert now.priority == "Lowest" and now.story_points == 3 and services.labels_of(db, now) == ["keep-me"]
    assert browser.post(f"/tickets/{key}/edit", {"story_points": "", "labels": ""}).status_code == 303
    with browser.db() as db:
        now = db.scalar(select(Ticket).where(Ticket.key == key))
        assert now.story_points is None and services.labels_of(db, now) == [] and now.due_date == before[2]
    state = browser.state()
    refused = browser.post(f"/tickets/{key}/edit", {})
    assert refused.status_code == 400 and "Nothing to change" in error_message(refused) and browser.state() == state


def test_the_assignee_editor_clears_with_a_blank_and_keeps_when_not_sent(browser):
    with browser.db() as db:
        story = first(db, Ticket.type == "Story", Ticket.assignee_id.is_not(None))
        key, assignee = story.key, story.assignee_id
    assert browser.post(f"/tickets/{key}/assign", {"group": "-"}).status_code == 303
    with browser.db() as db:
        assert db.scalar(select(Ticket).where(Ticket.key == key)).assignee_id == assignee
    assert browser.post(f"/tickets/{key}/assign", {"assignee": ""}).status_code == 303
    with browser.db() as db:
        assert db.scalar(select(Ticket).where(Ticket.key == key)).assignee_id is None


def test_several_watchers_at_once_and_a_bad_one_adds_none(browser):
    with browser.db() as db:
        story = first(db, Ticket.type == "Story")
        watching = select(Watcher.person_id).where(Watcher.ticket_id == story.id)
        two = db.scalars(select(Person).where(Person.id.not_in(watching)).order_by(Person.id).limit(3)).all()
        key = story.key
    state = browser.state()
    refused = browser.post(f"/tickets/{key}/watch", {"person": f"{two[0].handle}, ghost-person"})
    assert refused.status_code == 404 and browser.state() == state
    assert browser.post(f"/tickets/{key}/watch", {"person": f"{two[0].handle}, @{two[1].handle}, "}).status_code == 303
    with browser.db() as db:
        ids = set(db.scalars(select(Watcher.person_id).where(Watcher.ticket_id == story.id)))
        assert {two[0].id, two[1].id} <= ids and two[2].id not in ids


def test_the_status_menu_and_its_form_page(browser):
    with browser.db() as db:
        review = first(db, Ticket.project.has(key="ENG"), Ticket.status == "In Review")
        key = review.key
    page = html.unescape(text_of(browser.get(f"/tickets/{key}")))
    assert f"<title>[{key}] {review.summary} – Tickets · officegym</title>" in page
    menu = re.search(r'data-testid="transitions">(.*?)</details>', page, re.S).group(1)
    assert 'data-testid="field-status">In Review<' in menu
    assert re.findall(r'data-transition="([^"]+)"', menu) == ["Request changes", "Done", "Close"]
    assert '<input type="hidden" name="resolution" value="Done">' in menu  # its one resolution: no form needed
    assert 'data-testid="transition-form"' not in page  # no buttons below the description any more
    refused = browser.get(f"/tickets/{key}/transition?name=Start%20progress")
    assert refused.status_code == 409 and "Available: 'Request changes'" in error_message(refused)
    sneaky = text_of(browser.get(f"/tickets/{key}/transition?name=Close&next=javascript:alert(1)"))
    assert 'href="javascript:' not in sneaky
    assert f'href="{browser.base}/tickets/{key}" data-testid="transition-cancel"' in sneaky


def test_board_cards_have_a_move_menu_for_their_workers_only(browser):
    page = html.unescape(text_of(browser.get("/tickets/projects/ENG/board")))
    assert "<title>Board: ENG · officegym</title>" in page
    with browser.db() as db:
        board = services.get_board(db, browser.episode.actor(db), "ENG")
        card = next(t for c in board.columns for t in c.tickets if t.status == "In Progress")
        key, summary = card.key, card.summary
        sales = db.scalar(select(Department.id).where(Department.name == "Sales"))
        lead = db.scalar(select(Project.lead_id).where(Project.key == "ENG"))
        outsider = db.scalars(select(Person).where(Person.department_id == sales, Person.role == "member",
                                                   Person.id != lead).order_by(Person.id)).first().handle
    shown = re.search(rf'data-key="{key}"[^>]*>(.*?)</li>\s*(?:<li class="board-card"|</ul>)', page, re.S).group(1)
    assert re.search(rf'<a [^>]*class="card-link"><span class="card-key">{key}</span> {re.escape(summary)}</a>', shown)
    assert '<summary role="button" aria-label="Move ' + key + '">Move</summary>' in shown
    moves = re.findall(r'data-to="([^"]+)"', shown)
    assert moves == ["To Do", "In Review", "Done"] and f">Move {key} to In Review<" in shown
    browser.act_as(outsider)
    assert 'data-testid="card-menu"' not in text_of(browser.get("/tickets/projects/ENG/board"))


def test_a_filtered_board_and_a_bad_filter(browser):
    page = text_of(browser.get("/tickets/projects/ENG/board", query_string={"q": "assignee is EMPTY"}))
    with browser.db() as db:
        board = services.get_board(db, browser.episode.actor(db), "ENG", query="assignee is EMPTY")
        expected = sorted(t.key for c in board.columns for t in c.tickets)
    assert sorted(re.findall(r'data-testid="board-card" data-key="([A-Z]+-\d+)"', page)) == expected and expected
    assert 'aria-current="true">Unassigned</a>' in page and 'data-testid="quick-clear"' in page
    bad = browser.get("/tickets/projects/ENG/board", query_string={"q": "colour = blue"})
    assert bad.status_code == 400 and 'data-testid="query-error"' in text_of(bad)
    assert 'data-testid="board-card"' in text_of(bad)  # the whole board, unfiltered, under the error


def test_the_backlog_lists_future_sprints_then_the_backlog(browser):
    with browser.db() as db:
        eng = select(Project.id).where(Project.key == "ENG").scalar_subquery()
        future = db.scalars(select(Sprint.name).where(Sprint.project_id == eng, Sprint.state == "future")
                            .order_by(Sprint.id)).all()
    page = html.unescape(text_of(browser.get("/tickets/projects/ENG/backlog")))
    assert re.findall(r'data-testid="backlog-group" data-group="([^"]+)"', page) == [*future, "Backlog"]
    assert "<title>Backlog: ENG · officegym</title>" in page
    refused = browser.get("/tickets/projects/IT/backlog")
    assert refused.status_code == 400 and "service desk" in error_message(refused)


def test_a_backlog_filter_cannot_reach_past_the_backlog_with_parentheses(browser):
    escaping = browser.get("/tickets/projects/ENG/backlog", query_string={"q": "assignee is EMPTY) OR (project = IT"})
    assert escaping.status_code == 400 and "IT-" not in html.unescape(text_of(escaping))
    long = browser.get("/tickets/projects/ENG/backlog", query_string={"q": "summary ~ x " + "AND key = ENG-1 " * 5000})
    assert long.status_code == 400 and "the limit is 2000" in text_of(long)


def test_quick_filters_edit_the_query_text():
    assert split_order("project = ENG order by key") == ("project = ENG", "order by key")
    assert toggled("project = ENG ORDER BY key", "assignee is EMPTY") == (
        False, "project = ENG AND assignee is EMPTY ORDER BY key")
    assert toggled("project = ENG AND assignee is empty", "assignee is EMPTY") == (True, "project = ENG")
    assert toggled("project = ENG OR project = IT", "priority = High")[1] == \
        "(project = ENG OR project = IT) AND priority = High"
    assert toggled("(a = 1 OR b = 2) AND assignee = currentUser()", "assignee = currentUser()") == (
        True, "(a = 1 OR b = 2)")
    labels = [q.label for q in quick_filters("")]
    assert labels[:3] == ["Only my tickets", "Recently updated", "Unassigned"] and "Priority Highest" in labels


def test_search_titles_say_the_query_and_links_name_the_record(browser):
    page = html.unescape(text_of(browser.get("/tickets/search", query_string={"q": "project = IT"})))
    assert "<title>Search: project = IT · officegym</title>" in page
    with browser.db() as db:
        shown = services.search_tickets(db, browser.episode.actor(db), "project = IT", 0, 1).items[0]
        key, summary = shown.key, shown.summary
    assert f'aria-labelledby="key-{key} sum-{key}">{key}</a>' in page and f'<td id="sum-{key}">{summary}</td>' in page
