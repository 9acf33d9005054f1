"""Every kind of tickets form refuses bad input with the service's reason and the right status, and
changes nothing (the whole database hashes the same before and after)."""

from __future__ import annotations

import pytest
from sqlalchemy import select
from ui_helpers import assert_refused, text_of

from officegym.apps.org.models import Department, Person
from officegym.apps.tickets.models import Article, GroupMember, Project, Sprint, Ticket, Watcher

# (what, path, form, status, message part). {story}/{incident}/{done} are filled from the world.
REFUSALS = [
    ("unknown type", "/tickets/create", {"project": "IT", "type": "Bug", "summary": "x"}, 400, "must be one of"),
    ("no summary", "/tickets/create", {"project": "ENG", "type": "Task", "summary": " "}, 400, "Summary is required"),
    ("bad due date", "/tickets/create", {"project": "ENG", "type": "Task", "summary": "x", "due_date": "31/03"}, 400,
     "YYYY-MM-DD"),
    ("unknown group", "/tickets/create", {"project": "IT", "type": "Incident", "summary": "x", "group": "Nobody"}, 404,
     "No assignment group"),
    ("sub-task without parent", "/tickets/create", {"project": "ENG", "type": "Sub-task", "summary": "x"}, 400,
     "needs a parent"),
    ("priority of an incident", "/tickets/create", {"project": "IT", "type": "Incident", "summary": "x",
                                                    "priority": "High"}, 400, "impact and urgency"),
    ("unknown account", "/tickets/create", {"project": "ENG", "type": "Task", "summary": "x", "account": "Nope Inc"},
     404, "No CRM account named 'Nope Inc'"),
    ("unknown component", "/tickets/create", {"project": "ENG", "type": "Task", "summary": "x", "components": "Nope"},
     404, "ENG has no component 'Nope'"),
    ("impossible due date on edit", "/tickets/{story}/edit", {"summary": "x", "due_date": "2026-02-30"}, 400,
     "YYYY-MM-DD"),
    ("bad impact on edit", "/tickets/{incident}/edit", {"summary": "x", "impact": "Huge"}, 400, "impact must be"),
    ("bad points on edit", "/tickets/{story}/edit", {"summary": "x", "story_points": "many"}, 400, "Story points"),
    ("unknown assignee", "/tickets/{story}/assign", {"assignee": "@ghost"}, 404, "No person matches"),
    ("assignee outside the group", "/tickets/{incident}/assign", {"assignee": "@{outsider}"}, 400,
     "is not in the assignment group"),
    ("unavailable transition", "/tickets/{story}/transition", {"transition": "Done", "resolution": "Done"}, 409,
     "not available"),
    ("missing resolution", "/tickets/{incident}/transition", {"transition": "Cancel"}, 400, "needs a resolution"),
    ("reopen needs an assignee", "/tickets/{done}/transition", {"transition": "Reopen"}, 409, "before 'Reopen'"),
    ("empty comment", "/tickets/{story}/comment", {"body": "   "}, 400, "Comment is required"),
    ("empty work note", "/tickets/{story}/comment", {"body": "", "internal": "1"}, 400, "Work note is required"),
    ("link to itself", "/tickets/{story}/links", {"kind": "blocks", "other": "{story}"}, 400, "linked to itself"),
    ("unknown link kind", "/tickets/{story}/links", {"kind": "eats", "other": "{incident}"}, 400, "Link kind"),
    ("malformed key", "/tickets/{story}/links", {"kind": "blocks", "other": "twelve"}, 400, "such as IT-142"),
    ("remove a missing link", "/tickets/{story}/links", {"kind": "blocks", "other": "{incident}", "remove": "1"}, 404,
     "no link"),
    ("unknown watcher", "/tickets/{story}/watch", {"person": "@ghost"}, 404, "No person matches"),
    ("watch twice", "/tickets/{watched}/watch", {}, 409, "already watches"),
    ("closed sprint", "/tickets/{story}/sprint", {"sprint": "{closed_sprint}"}, 409, "is closed"),
    ("sprint action", "/tickets/projects/ENG/sprints", {"action": "explode"}, 400, "create, start or complete"),
    ("start while another sprint is active", "/tickets/projects/ENG/sprints", {"action": "start", "sprint": "{future_sprint}",
                                                                 "end_date": "2026-01-01"}, 409, "still active"),
    ("unknown sprint", "/tickets/projects/ENG/sprints", {"action": "complete", "sprint": "Sprint 404"}, 404,
     "ENG has no sprint 'Sprint 404'"),
    ("sprints on a service desk", "/tickets/projects/IT/sprints", {"action": "create", "name": "S1"}, 400,
     "service desk"),
    ("article without a title", "/tickets/kb/new", {"title": " ", "category": "IT", "body": "x"}, 400,
     "Title is required"),
    ("article of an unknown category", "/tickets/kb/{article}/edit", {"title": "x", "category": "Gossip", "body": "x"},
     400, "Category must be one of"),
]


# The same forms refused to someone who does not work the ticket or lead the project ({plain}).
FORBIDDEN = [
    ("move", "/tickets/{story}/transition", {"transition": "Close", "resolution": "Won't Do"}, 403, "You cannot move"),
    ("edit", "/tickets/{story}/edit", {"summary": "Mine now"}, 403, "You cannot edit"),
    ("assign", "/tickets/{story}/assign", {"assignee": "@{plain}"}, 403, "You cannot assign"),
    ("work note", "/tickets/{story}/comment", {"body": "psst", "internal": "1"}, 403, "You cannot add work notes"),
    ("link", "/tickets/{story}/links", {"kind": "relates to", "other": "{watched}"}, 403, "You cannot link"),
    ("ticket's sprint", "/tickets/{story}/sprint", {"sprint": ""}, 403, "You cannot plan"),
    ("someone else's watch", "/tickets/{story}/watch", {"person": "@{owner}"}, 403, "change the watchers of"),
    ("plan a sprint", "/tickets/projects/ENG/sprints", {"action": "create", "name": "Shadow sprint"}, 403,
     "Only the lead of ENG"),
    ("comment on a private request", "/tickets/{hidden}/comment", {"body": "hi"}, 404, "that you can see"),
    ("watch a private request", "/tickets/{hidden}/watch", {}, 404, "that you can see"),
    ("someone else's article", "/tickets/kb/{article}/edit", {"title": "Mine now", "category": "IT", "body": "x"}, 403,
     "or a workspace admin changes it"),
]


@pytest.fixture
def names(browser) -> dict:
    """Keys and names of the world the refusals are made on."""
    with browser.db() as db:
        def first(*where):
            return db.scalars(select(Ticket).where(*where).order_by(Ticket.id)).first()
        story = first(Ticket.type == "Story", Ticket.status == "To Do")
        incident = first(Ticket.type == "Incident", Ticket.status == "New", Ticket.group_id.is_not(None))
        done = first(Ticket.status == "Resolved")
        sales = db.scalar(select(Department.id).where(Department.name == "Sales"))
        outsider = db.scalars(select(Person).where(Person.department_id == sales)).first()
        watched = first(Ticket.type == "Task")
        me = browser.episode.actor(db)
        db.merge(Watcher(ticket_id=watched.id, person_id=me.id))
        sprints = {s.state: s.name for s in db.scalars(select(Sprint))}
        done_key = done.key
        db.get(Ticket, done.id).assignee_id = None
        eng_lead = db.scalar(select(Project.lead_id).where(Project.key == "ENG"))
        plain = next(p for p in db.scalars(select(Person).where(Person.department_id == sales, Person.role == "member",
                                                                  Person.id != eng_lead).order_by(Person.id))
                     if story.assignee_id != p.id and not db.get(GroupMember, (story.group_id or 0, p.id)))
        groups = select(GroupMember.group_id).where(GroupMember.person_id == plain.id)
        hidden = first(Ticket.project.has(key="IT"), Ticket.reporter_id != plain.id,
                       Ticket.assignee_id.is_distinct_from(plain.id), Ticket.group_id.not_in(groups),
                       Ticket.id.not_in(select(Watcher.ticket_id).where(Watcher.person_id == plain.id)))
    return {"story": story.key, "incident": incident.key, "done": done_key, "outsider": outsider.handle,
            "watched": watched.key, "closed_sprint": sprints["closed"], "future_sprint": sprints["future"],
            "plain": plain.handle, "owner": me.handle, "hidden": hidden.key,
            "article": db.scalars(select(Article.number).where(Article.owner_id != plain.id)
                                  .order_by(Article.id)).first()}


@pytest.mark.parametrize("what,path,form,status,message", REFUSALS, ids=[r[0] for r in REFUSALS])
def test_a_refused_form_says_why_and_changes_nothing(browser, names, what, path, form, status, message):
    assert_refused(browser, names, path, form, status, message)


@pytest.mark.parametrize("what,path,form,status,message", FORBIDDEN, ids=[r[0] for r in FORBIDDEN])
def test_a_form_refused_to_someone_who_does_not_work_it(browser, names, what, path, form, status, message):
    browser.act_as(names["plain"])
    assert_refused(browser, names, path, form, status, message)


def test_every_kind_of_tickets_form_has_a_refusal_case(web_app):
    forms = {r.endpoint for r in web_app.url_map.iter_rules()
             if r.endpoint.startswith("tickets.") and "POST" in r.methods}
    covered = {_endpoint_of(path) for _what, path, *_ in REFUSALS}
    assert forms and forms <= covered, f"forms without a refusal case: {forms - covered}"


def _endpoint_of(path: str) -> str:
    tail = path.split("/tickets", 1)[1]
    if tail == "/create":
        return "tickets.create_ticket"
    if tail.startswith("/projects/"):
        return "tickets.sprint_action"
    if tail.startswith("/kb/"):
        return "tickets.kb_create" if tail == "/kb/new" else "tickets.kb_update"
    action = tail.rsplit("/", 1)[1]
    return {"edit": "tickets.update_ticket", "assign": "tickets.assign", "transition": "tickets.transition",
            "comment": "tickets.comment", "links": "tickets.link", "watch": "tickets.watch",
            "sprint": "tickets.sprint"}[action]


def test_a_form_without_its_security_token_is_refused(browser, names):
    before = browser.state()
    response = browser.post(f"/tickets/{names['story']}/comment", {"body": "hello"}, csrf=None)
    assert response.status_code == 400 and "security token" in text_of(response)
    assert browser.state() == before


def test_a_malformed_query_shows_the_reason_and_no_results(browser):
    response = browser.get("/tickets/search", query_string={"q": "project = IT ANDD status = Done"})
    page = text_of(response)
    assert response.status_code == 400 and "Unexpected &#39;ANDD&#39; at position 13" in page
    assert 'data-testid="ticket-row"' not in page
