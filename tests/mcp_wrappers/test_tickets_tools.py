"""Tickets tools through the real MCP client, each result read back through the tools and the tables.
Records under test are made with the services in two fresh projects (ZQ, a service desk, and ZS, a
software project), never taken from the seeded tickets."""

from __future__ import annotations

import pytest
from scene_helpers import scene_worlds
from sqlalchemy import select

from officegym.apps.org.models import Person
from officegym.apps.tickets import services
from officegym.apps.tickets.models import Comment, Group, GroupMember, Link, Project, Sprint, Ticket, Watcher

DESK, SOFT, GROUP = "ZQ", "ZS", "Zz Desk Crew"


def roles(session) -> dict[str, Person]:
    """`lead` and `agent`: the two first plain members of one department (the lead runs both test
    projects, so that department's people are their agents); `outsider` and `other`: plain members of
    other departments; `admin`: the workspace owner."""
    members = list(session.scalars(select(Person).where(Person.role == "member").order_by(Person.id)))
    lead = next(p for p in members if sum(q.department_id == p.department_id for q in members) >= 2)
    agent = next(p for p in members if p.department_id == lead.department_id and p.id != lead.id)
    outsider, other = [p for p in members if p.department_id != lead.department_id][:2]
    owner = session.scalar(select(Person).where(Person.role == "owner").order_by(Person.id))
    return {"admin": owner, "lead": lead, "agent": agent, "outsider": outsider, "other": other}


def add_group(session, name: str, member: Person) -> None:
    """An assignment group of one member (groups are seeded data: no service makes them)."""
    group = Group(name=name, description="A test queue")
    session.add(group)
    session.flush()
    session.add(GroupMember(group_id=group.id, person_id=member.id))


def build(session) -> dict[str, str]:
    """The scene, made with the services: both projects with a component each, a group whose only member
    is the agent, the outsider's request ZQ-1, the other person's incident ZQ-2, the lead's story ZS-1 and
    the future sprint "ZS Sprint 1"."""
    r = roles(session)
    services.create_project(session, r["admin"], DESK, "Zz Help Desk", "service_desk", r["lead"].id)
    services.create_project(session, r["admin"], SOFT, "Zz Product", "software", r["lead"].id)
    services.create_component(session, r["lead"], DESK, "Laptops")
    services.create_component(session, r["lead"], SOFT, "API")
    add_group(session, GROUP, r["agent"])
    request = services.create_ticket(session, r["outsider"], DESK, "Service Request", "Need a second monitor")
    incident = services.create_ticket(session, r["other"], DESK, "Incident", "VPN drops every hour")
    story = services.create_ticket(session, r["lead"], SOFT, "Story", "Export reports to CSV")
    services.create_sprint(session, r["lead"], SOFT, "ZS Sprint 1")
    return {"request": request.key, "incident": incident.key, "story": story.key,
            **{role: person.handle for role, person in r.items()}}


@pytest.fixture
def world(store, agent):
    """A factory of fresh tiny episodes acting as one of `roles`, with the scene in place."""
    yield from scene_worlds(store, agent, roles, build)


def ticket_row(actor, key: str) -> Ticket:
    """The ticket's row, read from the table (detached)."""
    with actor.episode.session() as s:
        return s.scalar(select(Ticket).where(Ticket.key == key))


def test_projects_components_and_groups(world):
    admin, scene = world("admin")
    made = admin.write("tickets_create_project", {"key": "zops", "name": "Zz Ops", "kind": "software",
                                                  "lead": f"@{scene['agent']}"}, "tickets.create_project")
    assert (made["key"], made["kind"], made["lead"]["handle"], made["components"]) == ("ZOPS", "software",
                                                                                       scene["agent"], [])
    assert made["types"] == ["Bug", "Task", "Story", "Sub-task"] and made["open_total"] == 0
    listed = admin.ok("tickets_list_projects", {"limit": 200})
    assert {"ZOPS", DESK, SOFT} <= {p["key"] for p in listed["items"]} and listed["total"] == len(listed["items"])
    changed = admin.write("tickets_update_project", {"project": "ZOPS", "name": "Zz Operations",
                                                     "lead": f"@{scene['lead']}"}, "tickets.update_project")
    assert (changed["name"], changed["lead"]["handle"]) == ("Zz Operations", scene["lead"])
    component = admin.write("tickets_create_component", {"project": "Zz Operations", "name": "Deploys",
                                                         "lead": f"@{scene['agent']}"}, "tickets.create_component")
    assert (component["project"], component["name"], component["lead"]["handle"]) == ("ZOPS", "Deploys",
                                                                                        scene["agent"])
    with admin.episode.session() as s:
        row = s.scalar(select(Project).where(Project.key == "ZOPS"))
        assert (row.name, row.lead_id) == ("Zz Operations", roles(s)["lead"].id)
    desk = admin.ok("tickets_get_project", {"project": DESK})
    assert [c["name"] for c in desk["components"]] == ["Laptops"] and desk["kind"] == "service_desk"
    assert desk["open_counts"] == {"New": 2} and desk["open_total"] == 2 and "Waiting on customer" in desk["statuses"]
    groups = admin.ok("tickets_list_groups", {"limit": 200})
    assert {"name": GROUP, "member_count": 1} in [{k: g[k] for k in ("name", "member_count")} for g in groups["items"]]
    group = admin.ok("tickets_get_group", {"group": GROUP.lower()})
    assert [m["handle"] for m in group["members"]] == [scene["agent"]]


def test_file_read_and_edit_an_incident(world):
    agent, scene = world("agent")
    made = agent.write("tickets_create_ticket", {
        "project": DESK, "type": "incident", "summary": " Mail is down ", "impact": "High", "urgency": "High",
        "labels": ["Email", "outage"], "components": ["laptops"], "due_date": "2030-01-15"}, "tickets.create_ticket")
    key = made["key"]
    assert (key, made["type"], made["status"], made["priority"], made["summary"]) == (
        "ZQ-3", "Incident", "New", "Highest", "Mail is down")
    assert made["labels"] == ["email", "outage"] and made["components"] == ["Laptops"]
    assert made["reporter"]["handle"] == scene["agent"] and made["can_work"] is True
    assert [c["name"] for c in made["sla"]] == ["Time to first response", "Time to resolution"]
    assert {c["state"] for c in made["sla"]} == {"running"} and made["sla"][0]["target_minutes"] == 15
    assert {t["name"] for t in made["transitions"]} == {"Cancel"}
    changed = agent.write("tickets_update_ticket", {"key": key.lower(), "urgency": "Low", "labels": [],
                                                    "due_date": "", "description": "All mailboxes"},
                          "tickets.update_ticket")
    assert (changed["priority"], changed["urgency"], changed["labels"]) == ("Medium", "Low", [])
    assert changed["due_date"] is None
    row = ticket_row(agent, key)
    assert (row.priority, row.impact, row.description, row.due_date) == ("Medium", "High", "All mailboxes", None)
    assert agent.ok("tickets_get_ticket", {"key": key})["description"] == "All mailboxes"
    history = agent.ok("tickets_get_history", {"key": key})
    assert {"field": "priority", "old_value": "Highest", "new_value": "Medium"} in [
        {k: e[k] for k in ("field", "old_value", "new_value")} for e in history["items"]]
    assert history["items"][0]["field"] == "created" and history["total"] == len(history["items"])
    page = agent.ok("tickets_get_history", {"key": key, "offset": 1, "limit": 1})
    assert page["items"] == history["items"][1:2] and page["next_offset"] == (2 if history["total"] > 2 else None)


def test_sub_tasks_belong_to_their_parent(world):
    lead, scene = world("lead")
    sub = lead.write("tickets_create_ticket", {"project": SOFT, "type": "Sub-task", "summary": "Write the CSV writer",
                                               "parent": scene["story"], "assignee": f"@{scene['agent']}",
                                               "story_points": 3}, "tickets.create_ticket")
    assert (sub["parent"], sub["assignee"]["handle"], sub["story_points"]) == (scene["story"], scene["agent"], 3)
    parent = lead.ok("tickets_get_ticket", {"key": scene["story"]})
    assert [t["key"] for t in parent["sub_tasks"]] == [sub["key"]] and parent["sla"] == []


def test_assign_and_move_a_request_through_the_service_workflow(world):
    agent, scene = world("agent")
    key = scene["request"]
    got = agent.write("tickets_assign_ticket", {"key": key, "group": GROUP, "assignee": f"@{scene['agent']}"},
                      "tickets.assign_ticket")
    assert (got["status"], got["group"], got["assignee"]["handle"]) == ("Assigned", GROUP, scene["agent"])
    agent.write("tickets_transition_ticket", {"key": key, "transition": "Start work"}, "tickets.transition_ticket")
    waiting = agent.write("tickets_transition_ticket", {"key": key, "transition": "Wait for customer",
                                                        "comment": "Which size?"}, "tickets.transition_ticket")
    assert waiting["status"] == "Waiting on customer" and waiting["sla"][1]["state"] == "paused"
    assert waiting["sla"][0]["state"] == "met" and waiting["first_response_at"] is not None
    with agent.episode.session("setup") as s:  # the reporter answers: the ticket goes back to work
        services.add_comment(s, roles(s)["outsider"], key, "27 inch please")
    assert agent.ok("tickets_get_ticket", {"key": key})["status"] == "In Progress"
    done = agent.write("tickets_transition_ticket", {"key": key, "transition": "resolved", "resolution": "fixed"},
                       "tickets.transition_ticket")
    assert (done["status"], done["resolution"]) == ("Resolved", "Fixed") and done["sla"][1]["state"] == "met"
    assert {t["name"] for t in done["transitions"]} == {"Reopen", "Close"}
    row = ticket_row(agent, key)
    assert (row.status, row.resolution, bool(row.resolved_at), row.paused_since) == ("Resolved", "Fixed", True, None)
    cleared = agent.write("tickets_assign_ticket", {"key": key, "assignee": ""}, "tickets.assign_ticket")
    assert cleared["assignee"] is None and ticket_row(agent, key).assignee_id is None


def test_comments_and_work_notes(world):
    agent, scene = world("agent")
    key = scene["request"]
    comment = agent.write("tickets_add_comment", {"key": key, "body": " On its way "}, "tickets.add_comment")
    note = agent.write("tickets_add_work_note", {"key": key, "body": "Order from stock"}, "tickets.add_work_note")
    assert (comment["body"], comment["internal"], note["internal"]) == ("On its way", False, True)
    assert comment["author"]["handle"] == scene["agent"] and note["ticket"] == key
    listed = agent.ok("tickets_list_comments", {"key": key})
    assert [(c["id"], c["internal"]) for c in listed["items"]] == [(comment["id"], False), (note["id"], True)]
    assert agent.ok("tickets_list_comments", {"key": key, "limit": 1})["next_offset"] == 1
    with agent.episode.session() as s:
        rows = list(s.scalars(select(Comment).where(Comment.id.in_([comment["id"], note["id"]])).order_by(Comment.id)))
        assert [(r.body, r.internal) for r in rows] == [("On its way", False), ("Order from stock", True)]
    assert ticket_row(agent, key).first_response_at is not None


def test_watchers(world):
    agent, scene = world("agent")
    key = scene["request"]
    mine = agent.write("tickets_watch_ticket", {"key": key}, "tickets.watch_ticket")
    assert mine["watching"] and [w["handle"] for w in mine["watchers"]] == [scene["agent"]]
    theirs = agent.write("tickets_watch_ticket", {"key": key, "person": f"@{scene['other']}"}, "tickets.watch_ticket")
    assert {w["handle"] for w in theirs["watchers"]} == {scene["agent"], scene["other"]}
    gone = agent.write("tickets_unwatch_ticket", {"key": key}, "tickets.unwatch_ticket")
    assert not gone["watching"] and [w["handle"] for w in gone["watchers"]] == [scene["other"]]
    with agent.episode.session() as s:
        watchers = set(s.scalars(select(Person.handle).join(Watcher, Watcher.person_id == Person.id)
                                 .join(Ticket, Ticket.id == Watcher.ticket_id).where(Ticket.key == key)))
    assert watchers == {scene["other"]}
    assert [w["handle"] for w in agent.ok("tickets_get_ticket", {"key": key})["watchers"]] == [scene["other"]]


def test_links_block_work_until_removed(world):
    lead, scene = world("lead")
    with lead.episode.session("setup") as s:
        blocker = services.create_ticket(s, roles(s)["lead"], SOFT, "Bug", "CSV escaping is wrong").key
    out = lead.write("tickets_link_tickets", {"key": blocker, "kind": "blocks", "other": scene["story"]},
                     "tickets.link_tickets")
    assert out["ticket"]["key"] == blocker and [(x["kind"], x["ticket"]["key"]) for x in out["links"]] == [
        ("blocks", scene["story"])]
    story = lead.ok("tickets_get_ticket", {"key": scene["story"]})
    assert [(x["kind"], x["ticket"]["key"]) for x in story["links"]] == [("is blocked by", blocker)]
    with lead.episode.session() as s:
        assert s.scalar(select(Link.kind).join(Ticket, Ticket.id == Link.source_id).where(Ticket.key == blocker)) \
            == "blocks"
    back = lead.write("tickets_unlink_tickets", {"key": scene["story"], "kind": "is blocked by", "other": blocker},
                      "tickets.unlink_tickets")
    assert back["links"] == [] and lead.ok("tickets_get_ticket", {"key": blocker})["links"] == []


def test_sprints_and_the_board(world):
    lead, scene = world("lead")
    planned = lead.write("tickets_create_sprint", {"project": SOFT, "name": "ZS Sprint 2", "goal": "Polish"},
                         "tickets.create_sprint")
    assert (planned["state"], planned["goal"], planned["ticket_count"]) == ("future", "Polish", 0)
    placed = lead.write("tickets_set_sprint", {"key": scene["story"], "sprint": "zs sprint 1"}, "tickets.set_sprint")
    assert placed["sprint"] == "ZS Sprint 1"
    started = lead.write("tickets_start_sprint", {"project": SOFT, "sprint": "ZS Sprint 1", "start_date": "2030-01-06",
                                                  "end_date": "2030-01-20"}, "tickets.start_sprint")
    assert (started["state"], started["start_date"], started["end_date"], started["open_count"]) == (
        "active", "2030-01-06", "2030-01-20", 1)
    board = lead.ok("tickets_get_board", {"project": SOFT})
    assert board["sprint"]["name"] == "ZS Sprint 1"
    assert {c["status"]: [t["key"] for t in c["tickets"]] for c in board["columns"]} == {
        "To Do": [scene["story"]], "In Progress": [], "In Review": [], "Done": []}
    done = lead.write("tickets_complete_sprint", {"project": SOFT, "sprint": "ZS Sprint 1", "move_to": "ZS Sprint 2"},
                      "tickets.complete_sprint")
    assert done["state"] == "closed" and ticket_row(lead, scene["story"]).sprint_id == planned["id"]
    sprints = lead.ok("tickets_list_sprints", {"project": SOFT})
    assert [(x["name"], x["state"], x["ticket_count"]) for x in sprints["items"]] == [
        ("ZS Sprint 1", "closed", 0), ("ZS Sprint 2", "future", 1)]
    with lead.episode.session() as s:
        assert s.get(Sprint, started["id"]).state == "closed"
    queue = lead.ok("tickets_get_board", {"project": DESK})
    assert queue["sprint"] is None and [c["total"] for c in queue["columns"] if c["status"] == "New"] == [2]
    backlog = lead.write("tickets_set_sprint", {"key": scene["story"], "sprint": ""}, "tickets.set_sprint")
    assert backlog["sprint"] is None and ticket_row(lead, scene["story"]).sprint_id is None


def test_board_columns_show_a_window_of_cards_and_count_them_all(world):
    lead, scene = world("lead")
    whole = lead.ok("tickets_get_board", {"project": DESK})
    queued = {c["status"]: [t["key"] for t in c["tickets"]] for c in whole["columns"]}
    assert sorted(queued["New"]) == sorted([scene["request"], scene["incident"]]) and whole["next_offset"] is None
    first = lead.ok("tickets_get_board", {"project": DESK, "limit": 1})
    second = lead.ok("tickets_get_board", {"project": DESK, "limit": 1, "offset": first["next_offset"]})
    new = [next(c for c in board["columns"] if c["status"] == "New") for board in (first, second)]
    assert [c["total"] for c in new] == [2, 2] and first["next_offset"] == 1 and second["next_offset"] is None
    assert [t["key"] for c in new for t in c["tickets"]] == queued["New"]  # the same order, one card at a time
    lead.fails("tickets_get_board", {"project": DESK, "limit": 0}, "limit")
    only = lead.ok("tickets_get_board", {"project": DESK, "query": f"key = {scene['incident']}"})
    kept = [t["key"] for c in only["columns"] for t in c["tickets"]]
    assert kept == [scene["incident"]] and sum(c["total"] for c in only["columns"]) == 1
    lead.fails("tickets_get_board", {"project": DESK, "query": "status = "}, "expected a value")


def test_search_filters_orders_and_pages(world):
    admin, scene = world("admin")
    found = admin.ok("tickets_search_tickets", {"query": f"project = {DESK} ORDER BY key DESC"})
    assert [t["key"] for t in found["items"]] == [scene["incident"], scene["request"]] and found["total"] == 2
    first = admin.ok("tickets_search_tickets", {"query": f"project in ({DESK}, {SOFT}) ORDER BY key", "limit": 2})
    assert first["total"] == 3 and first["next_offset"] == 2 and len(first["items"]) == 2
    rest = admin.ok("tickets_search_tickets", {"query": f"project in ({DESK}, {SOFT}) ORDER BY key", "offset": 2})
    assert [t["key"] for t in rest["items"]] == [scene["story"]] and rest["next_offset"] is None
    typed = admin.ok("tickets_search_tickets", {"query": f'project = {DESK} AND type = "Service Request"'})
    assert [t["key"] for t in typed["items"]] == [scene["request"]]
    assert typed["items"][0]["reporter"]["handle"] == scene["outsider"]


# ---------------------------------------------------------------- who may do what

def test_reporter_sees_only_own_requests_and_never_work_notes(world):
    reporter, scene = world("outsider")
    with reporter.episode.session("setup") as s:
        agent = roles(s)["agent"]
        services.add_comment(s, agent, scene["request"], "Which size?")
        services.add_work_note(s, agent, scene["request"], "Reporter is remote")
    found = reporter.ok("tickets_search_tickets", {"query": f"project = {DESK}"})
    assert [t["key"] for t in found["items"]] == [scene["request"]] and found["total"] == 1
    mine = reporter.ok("tickets_get_ticket", {"key": scene["request"]})
    assert mine["can_work"] is False and mine["comment_count"] == 1
    comments = reporter.ok("tickets_list_comments", {"key": scene["request"]})
    assert [c["body"] for c in comments["items"]] == ["Which size?"] and comments["total"] == 1
    reporter.fails("tickets_get_ticket", {"key": scene["incident"]}, "that you can see")
    reporter.fails("tickets_list_comments", {"key": scene["incident"]}, "that you can see")
    reporter.fails("tickets_add_work_note", {"key": scene["request"], "body": "x"}, "cannot add work notes")
    assert reporter.ok("tickets_get_project", {"project": DESK})["open_counts"] == {"New": 1}


def test_writes_that_take_a_ticket_out_of_sight_stand(world):
    """A group member from another department hands a request over, and a watcher leaves a private
    request: both writes stand and answer. Who handed the request over still sees it and may add a
    work note, but no longer changes it; the former watcher no longer sees the other request."""
    other, scene = world("other")
    with other.episode.session("setup") as s:
        r = roles(s)
        add_group(s, "Zz Night Crew", r["other"])
        services.assign_ticket(s, r["admin"], scene["request"], r["other"].id, "Zz Night Crew")
        chair = services.create_ticket(s, r["outsider"], DESK, "Service Request", "New chair").key
        services.watch_ticket(s, r["agent"], chair, r["other"].id)
    handed = other.write("tickets_assign_ticket", {"key": scene["request"], "group": GROUP,
                                                   "assignee": f"@{scene['agent']}"}, "tickets.assign_ticket")
    assert (handed["group"], handed["assignee"]["handle"], handed["can_work"]) == (GROUP, scene["agent"], False)
    left = other.write("tickets_unwatch_ticket", {"key": chair}, "tickets.unwatch_ticket")
    assert (left["watching"], left["watchers"]) == (False, [])
    kept = other.ok("tickets_get_ticket", {"key": scene["request"]})
    assert (kept["group"], kept["can_work"]) == (GROUP, False)
    other.write("tickets_add_work_note", {"key": scene["request"], "body": "Handed to the desk"},
                "tickets.add_work_note")
    other.fails("tickets_update_ticket", {"key": scene["request"], "summary": "Mine again"}, "You handed it over")
    other.fails("tickets_get_ticket", {"key": chair}, "that you can see")
    with other.episode.session() as s:
        assert s.get(Group, ticket_row(other, scene["request"]).group_id).name == GROUP
