"""Tickets pages and forms through the Flask test client: pages show what the services hold, each
form changes the database through the services, service-desk privacy holds in the browser, and the
same actions through the UI and through MCP leave the same database change."""

from __future__ import annotations

import re

import anyio
import pytest
from mcp.client import Client
from sqlalchemy import select
from ui_helpers import Browser, error_message, text_of

from officegym.apps.crm.models import Account
from officegym.apps.org.models import Department, Person
from officegym.apps.tickets import services
from officegym.apps.tickets import blueprint as tickets_blueprint
from officegym.apps.tickets.models import Comment, Group, GroupMember, Link, Project, Sprint, Ticket, Watcher


def ticket(db, key: str) -> Ticket:
    """A ticket by key."""
    return db.scalar(select(Ticket).where(Ticket.key == key))


def first(db, *where) -> Ticket:
    """The first ticket matching the conditions."""
    found = db.scalars(select(Ticket).where(*where).order_by(Ticket.id)).first()
    assert found is not None, "the tiny world has no such ticket"
    return found


def keys_on(response) -> list[str]:
    """Ticket keys of the rows on a list page, in order."""
    return re.findall(r'data-testid="ticket-row" data-key="([A-Z]+-\d+)"', text_of(response))


def test_home_lists_projects_with_their_open_counts(browser):
    page = text_of(browser.get("/tickets/"))
    with browser.db() as db:
        actor = browser.episode.actor(db)
        for project in services.list_projects(db, actor):
            counts = services.open_counts(db, actor, project)
            row = re.search(rf'data-key="{project.key}">(.*?)</tr>', page, re.S).group(1)
            lead = re.search(r'data-testid="project-lead"><a [^>]*>(.*?)</a>', row).group(1)
            assert project.name in row and lead == db.get(Person, project.lead_id).name
            assert f'data-testid="project-open"><strong>{sum(counts.values())}</strong>' in row


def test_board_columns_hold_the_active_sprints_tickets(browser):
    page = text_of(browser.get("/tickets/projects/ENG/board"))
    with browser.db() as db:
        board = services.get_board(db, browser.episode.actor(db), "ENG")
        assert board.sprint is not None and board.sprint.state == "active"
        for column in board.columns:
            shown = re.search(rf'data-status="{column.status}">(.*?)</section>', page, re.S).group(1)
            assert re.findall(r'data-testid="board-card" data-key="([A-Z]+-\d+)"', shown) == [t.key for t in column.tickets]
    assert 'data-testid="sprint-admin"' in page  # the CEO is an admin: sprint forms are shown


def test_board_pages_show_every_card_once_in_priority_order(browser, monkeypatch):
    monkeypatch.setattr(tickets_blueprint, "CARDS", 1)  # the test sprint's columns hold a card or two: one a page pages
    with browser.db() as db:
        whole = services.get_board(db, browser.episode.actor(db), "ENG", limit=200)
    expected = {c.status: [t.key for t in c.tickets] for c in whole.columns}
    shown: dict[str, list[str]] = {status: [] for status in expected}
    url, pages = "/tickets/projects/ENG/board", 0
    while url:
        page, pages = text_of(browser.get(url)), pages + 1
        for status in expected:
            column = re.search(rf'data-status="{status}">(.*?)</section>', page, re.S).group(1)
            shown[status] += re.findall(r'data-testid="board-card" data-key="([A-Z]+-\d+)"', column)
        following = re.search(r'rel="next" data-testid="page-next" href="([^"]+)"', page)
        url = following.group(1).replace("&amp;", "&").removeprefix(browser.base) if following else None
    assert shown == expected and pages == max(len(keys) for keys in expected.values()) > 1


def test_query_box_runs_the_query_and_sorts_by_column(browser):
    query = "project = IT AND statusCategory != Done ORDER BY priority DESC"
    response = browser.get("/tickets/search", query_string={"q": query})
    with browser.db() as db:
        expected = services.search_tickets(db, browser.episode.actor(db), query, 0, 25)
    assert response.status_code == 200 and keys_on(response) == [t.key for t in expected.items]
    by_key = browser.get("/tickets/search", query_string={"q": "project = ENG", "sort": "key", "dir": "desc"})
    numbers = [int(k.split("-")[1]) for k in keys_on(by_key)]
    assert numbers == sorted(numbers, reverse=True) and 'aria-sort="descending"' in text_of(by_key)


def test_filters_build_a_query(browser):
    response = browser.get("/tickets/search", query_string={"project": "IT", "type": "Incident", "status": "open"})
    with browser.db() as db:
        expected = services.search_tickets(db, browser.episode.actor(db),
                                           'project = "IT" AND type = "Incident" AND statusCategory != Done', 0, 25)
    assert keys_on(response) == [t.key for t in expected.items] and expected.total > 0
    assert 'value="project = &#34;IT&#34; AND type = &#34;Incident&#34; AND statusCategory != Done"' in text_of(response)


def test_filing_an_incident_derives_priority_and_assigns_the_group(browser):
    with browser.db() as db:
        group = db.scalar(select(Group).where(Group.name == "IT Support"))
        member = db.get(Person, db.scalars(select(GroupMember.person_id).where(GroupMember.group_id == group.id)).first())
        next_number = db.scalar(select(Project.next_number).where(Project.key == "IT"))
    response = browser.post("/tickets/create", {"project": "IT", "type": "Incident", "summary": "Badge reader down",
                                                "impact": "High", "urgency": "Medium", "group": "IT Support",
                                                "assignee": f"@{member.handle}", "labels": "office door",
                                                "components": "Laptops & Hardware"})
    assert response.status_code == 303 and response.headers["Location"].endswith(f"/tickets/IT-{next_number}")
    with browser.db() as db:
        filed = ticket(db, f"IT-{next_number}")
        assert (filed.priority, filed.group_id, filed.assignee_id, filed.status) == ("High", group.id, member.id,
                                                                                    "Assigned")
        assert services.labels_of(db, filed) == ["door", "office"]
        assert services.components_of(db, filed) == ["Laptops & Hardware"]


def test_ticket_page_forms_change_the_ticket(browser):
    with browser.db() as db:
        work = first(db, Ticket.type == "Story", Ticket.status == "To Do")
        other = first(db, Ticket.type == "Task", Ticket.id != work.id)
        key, other_key = work.key, other.key
        me = browser.episode.actor(db)
    assert browser.post(f"/tickets/{key}/assign", {"assignee": f"@{me.handle}"}).status_code == 303
    assert browser.post(f"/tickets/{key}/transition", {"transition": "Start progress"}).status_code == 303
    assert browser.post(f"/tickets/{key}/comment", {"body": "Picking this up."}).status_code == 303
    assert browser.post(f"/tickets/{key}/comment", {"body": "Looks like a cache bug.", "internal": "1"}).status_code == 303
    assert browser.post(f"/tickets/{key}/links", {"kind": "is blocked by", "other": other_key}).status_code == 303
    assert browser.post(f"/tickets/{key}/watch", {}).status_code == 303
    assert browser.post(f"/tickets/{key}/edit", {"summary": "Renamed story", "description": "", "priority": "High",
                                                 "due_date": "2026-04-01", "labels": "q1-goal",
                                                 "story_points": "5"}).status_code == 303
    with browser.db() as db:
        now = ticket(db, key)
        assert (now.status, now.assignee_id, now.summary, now.priority, now.story_points) == (
            "In Progress", me.id, "Renamed story", "High", 5)
        assert now.due_date.isoformat() == "2026-04-01" and services.labels_of(db, now) == ["q1-goal"]
        notes = {(c.body, c.internal) for c in db.scalars(select(Comment).where(Comment.ticket_id == now.id))}
        assert {("Picking this up.", False), ("Looks like a cache bug.", True)} <= notes
        assert db.scalar(select(Link).where(Link.source_id == ticket(db, other_key).id, Link.target_id == now.id,
                                            Link.kind == "blocks"))
        assert db.get(Watcher, (now.id, me.id)) is not None
    page = text_of(browser.get(f"/tickets/{key}"))
    assert "Renamed story" in page and "is blocked by" in page and 'data-testid="work-note"' in page


def test_resolving_needs_the_blockers_done_and_shows_why(browser):
    with browser.db() as db:
        blocked = first(db, Ticket.status == "In Review")
        blocker = first(db, Ticket.status == "To Do", Ticket.project_id == blocked.project_id, Ticket.type != "Sub-task")
        services.link_tickets(db, browser.episode.actor(db), blocker.key, "blocks", blocked.key)
        key = blocked.key
    before = browser.state()
    refused = browser.post(f"/tickets/{key}/transition", {"transition": "Done", "resolution": "Done"})
    assert refused.status_code == 409 and f"is blocked by {blocker.key}" in error_message(refused)
    assert browser.state() == before


def test_sprint_forms_on_the_board(browser):
    with browser.db() as db:
        eng = select(Project.id).where(Project.key == "ENG").scalar_subquery()
        active, future = (db.scalar(select(Sprint).where(Sprint.project_id == eng, Sprint.state == state))
                          for state in ("active", "future"))
        unfinished = [t.id for t in db.scalars(select(Ticket).where(Ticket.sprint_id == active.id,
                                                                      Ticket.status != "Done"))]
    for form in ({"action": "complete", "sprint": active.name, "move_to": future.name},
                 {"action": "start", "sprint": future.name, "end_date": "2026-03-27"},
                 {"action": "create", "name": "ENG Sprint 99"}):
        assert browser.post("/tickets/projects/ENG/sprints", form).status_code == 303, form
    with browser.db() as db:
        assert db.get(Sprint, active.id).state == "closed" and db.get(Sprint, future.id).state == "active"
        assert all(db.get(Ticket, i).sprint_id == future.id for i in unfinished) and unfinished
        assert db.scalar(select(Sprint).where(Sprint.name == "ENG Sprint 99")).state == "future"


def test_a_reporter_outside_the_desk_sees_only_their_requests(browser):
    with browser.db() as db:
        owner = browser.episode.actor(db)
        engineering = select(Department.id).where(Department.name == "Engineering").scalar_subquery()
        outsider = db.scalars(select(Person).where(Person.department_id == engineering,
                                                   Person.role == "member")).first()
        theirs = services.create_ticket(db, outsider, "IT", "Service Request", "A second monitor, please")
        services.add_work_note(db, owner, theirs.key, "secret triage note")
        hidden = services.create_ticket(db, owner, "IT", "Incident", "Someone else's request")
    browser.act_as(outsider.handle)
    listed = keys_on(browser.get("/tickets/search", query_string={"q": "project = IT"}))
    assert theirs.key in listed and hidden.key not in listed
    assert browser.get(f"/tickets/{hidden.key}").status_code == 404
    own = text_of(browser.get(f"/tickets/{theirs.key}"))
    assert "A second monitor, please" in own and 'data-testid="comment-form"' in own
    assert "secret triage note" not in own and 'name="internal"' not in own and 'data-testid="transitions"' not in own


def test_ticket_page_shows_sla_clocks_and_resolution_choices(browser):
    with browser.db() as db:
        incident = first(db, Ticket.type == "Incident", Ticket.status == "In Progress")
        clocks = services.get_sla(db, browser.episode.actor(db), incident.key)
    page = text_of(browser.get(f"/tickets/{incident.key}"))
    assert re.findall(r'data-testid="sla-clock" data-state="(\w+)"', page) == [c.state for c in clocks]
    menu = re.search(r'data-testid="transitions">(.*?)</details>', page, re.S).group(1)
    offered = re.findall(r'data-transition="([^"]+)"', menu)
    assert offered == ["Wait for customer", "Resolve"] and "Start work" not in menu  # In Progress: these two only
    form_url = re.search(r'<a class="menu-item" href="([^"]+)"[^>]*data-transition="Resolve"', menu).group(1)
    form = text_of(browser.get(form_url.replace("&amp;", "&").removeprefix(browser.base)))
    assert re.findall(r"<option>(.*?)</option>", form) == ["Fixed", "Workaround", "Duplicate", "Cannot Reproduce",
                                                            "Cancelled"]
    assert 'name="comment"' in form and f'action="{browser.base}/tickets/{incident.key}/transition"' in form


def test_forms_fit_the_project_and_ticket_type(browser):
    with browser.db() as db:
        incident, story = first(db, Ticket.type == "Incident"), first(db, Ticket.type == "Story")
    desk, software = (text_of(browser.get(f"/tickets/create?project={key}")) for key in ("IT", "ENG"))
    assert 'name="impact"' in desk and 'name="story_points"' not in desk and "<option>Service Request</option>" in desk
    assert 'name="impact"' not in software and 'name="story_points"' in software and "<option>Bug</option>" in software
    edit = text_of(browser.get(f"/tickets/{incident.key}/edit"))
    assert 'name="impact"' in edit and 'name="priority"' not in edit
    assert 'name="priority"' in text_of(browser.get(f"/tickets/{story.key}/edit"))


def test_the_remaining_forms_change_the_ticket(browser):
    with browser.db() as db:
        owner = browser.episode.actor(db)
        watching = select(Watcher.ticket_id).where(Watcher.person_id == owner.id)
        story = first(db, Ticket.type == "Story", Ticket.status == "To Do", Ticket.id.not_in(watching))
        other = first(db, Ticket.type == "Task", Ticket.id != story.id)
        future = db.scalar(select(Sprint).where(Sprint.project_id == story.project_id, Sprint.state == "future"))
        account = db.scalars(select(Account.name).order_by(Account.id)).first()
        watcher = db.scalars(select(Person).where(Person.id != owner.id, Person.id.not_in(
            select(Watcher.person_id).where(Watcher.ticket_id == story.id))).order_by(Person.id)).first()
        services.link_tickets(db, owner, story.key, "relates to", other.key)
        key = story.key
    forms = [("links", {"kind": "relates to", "other": other.key, "remove": "1"}), ("watch", {}),
             ("watch", {"stop": "1"}), ("watch", {"person": f"@{watcher.handle}"}), ("sprint", {"sprint": future.name}),
             ("assign", {"group": "Platform On-Call"}), ("edit", {"summary": story.summary, "account": account})]
    for action, form in forms:
        assert browser.post(f"/tickets/{key}/{action}", form).status_code == 303, (action, form)
    with browser.db() as db:
        now = ticket(db, key)
        assert other.key not in {o.key for _r, o, _l in services.links_of(db, now)}
        assert now.sprint_id == future.id and now.account_id is not None
        assert {w.person_id for w in db.scalars(select(Watcher).where(Watcher.ticket_id == now.id))} >= {watcher.id}
        assert db.get(Watcher, (now.id, owner.id)) is None and db.get(Group, now.group_id).name == "Platform On-Call"
    page = text_of(browser.get(f"/tickets/{key}"))
    assert f'data-testid="field-account">{account}<' in page.replace("&amp;", "&") and "Platform On-Call" in page
    assert browser.post(f"/tickets/{key}/edit", {"summary": story.summary, "account": ""}).status_code == 303
    with browser.db() as db:
        assert ticket(db, key).account_id is None


def test_search_pages_and_sorting_replaces_the_query_order(browser):
    first_page = browser.get("/tickets/search", query_string={"q": "order by key desc", "sort": "summary"})
    with browser.db() as db:
        everything = services.search_tickets(db, browser.episode.actor(db), "ORDER BY summary ASC", 0, 25)
    assert first_page.status_code == 200 and keys_on(first_page) == [t.key for t in everything.items]
    assert everything.next_offset == 25 and 'data-testid="page-next"' in text_of(first_page)
    second = browser.get("/tickets/search", query_string={"q": "order by key desc", "sort": "summary", "offset": 25})
    assert keys_on(second) and not set(keys_on(second)) & set(keys_on(first_page))


def test_only_the_lead_sees_the_sprint_forms(browser):
    with browser.db() as db:
        project = db.scalar(select(Project).where(Project.key == "ENG"))
        member = db.scalars(select(Person).where(Person.id != project.lead_id, Person.role == "member")).first()
    browser.act_as(member.handle)
    page = text_of(browser.get("/tickets/projects/ENG/board"))
    assert 'data-testid="sprint-picker"' in page and 'data-testid="sprint-admin"' not in page
    assert 'data-testid="sprint-picker"' not in text_of(browser.get("/tickets/projects/IT/board"))


def _mcp(episode, calls: list[tuple[str, dict]]) -> None:
    async def run():
        async with Client(episode.mcp_server()) as client:
            for name, args in calls:
                result = await client.call_tool(name, args)
                assert not result.is_error, result.content
    anyio.run(run)


@pytest.fixture
def twin(store):
    """A second free episode of the tiny world, for MCP."""
    created = store.create(scale="tiny", seed=0)
    yield created
    store.delete(created.id)


def test_the_same_actions_through_ui_and_mcp_make_the_same_change(web_app, episode, twin):
    ui = Browser(web_app.test_client(), episode)
    with ui.db() as db:
        me = episode.actor(db)
        story = first(db, Ticket.type == "Story", Ticket.status == "To Do")
        incident = first(db, Ticket.type == "Incident", Ticket.status == "New")
        group = db.get(Group, incident.group_id)
        member = db.get(Person, db.scalars(select(GroupMember.person_id).where(GroupMember.group_id == group.id)).first())
    steps = [
        (f"/tickets/{story.key}/assign", {"assignee": f"@{me.handle}"},
         "tickets_assign_ticket", {"key": story.key, "assignee": f"@{me.handle}"}),
        (f"/tickets/{story.key}/transition", {"transition": "Start progress"},
         "tickets_transition_ticket", {"key": story.key, "transition": "Start progress"}),
        (f"/tickets/{incident.key}/assign", {"assignee": f"@{member.handle}"},
         "tickets_assign_ticket", {"key": incident.key, "assignee": f"@{member.handle}"}),
        (f"/tickets/{incident.key}/comment", {"body": "On it", "internal": "1"},
         "tickets_add_work_note", {"key": incident.key, "body": "On it"}),
        (f"/tickets/{incident.key}/edit", {"summary": incident.summary, "description": incident.description,
                                           "impact": "High", "urgency": "High", "due_date": "", "labels": ""},
         "tickets_update_ticket", {"key": incident.key, "impact": "High", "urgency": "High", "due_date": "",
                                   "labels": []}),
        (f"/tickets/{incident.key}/transition", {"transition": "Resolve", "resolution": "Workaround"},
         "tickets_transition_ticket", {"key": incident.key, "transition": "Resolve", "resolution": "Workaround"}),
    ]
    for path, form, _tool, _args in steps:
        response = ui.post(path, form)
        assert response.status_code == 303, error_message(ui.get(path.rsplit("/", 1)[0]))
    _mcp(twin, [(tool, args) for _p, _f, tool, args in steps])
    ui_diff, mcp_diff = episode.diff(), twin.diff()
    assert {name: (t.added, t.removed, [(u.key, u.fields, u.after) for u in t.updated])
            for name, t in ui_diff.tables.items()} == \
           {name: (t.added, t.removed, [(u.key, u.fields, u.after) for u in t.updated])
            for name, t in mcp_diff.tables.items()}
    assert {"tickets_ticket", "tickets_comment"} <= set(ui_diff.tables)
