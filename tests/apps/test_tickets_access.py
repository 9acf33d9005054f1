"""Who sees and works which ticket, through the services: service-desk privacy (reporters, watchers,
assignment groups, assignees, outsiders), internal work notes, what non-workers may still do, what
only a project's lead administers, admins who do everything; then the work shared around tickets:
links, watchers, sprints and boards. The scene is the one of test_tickets_services (HD, a service
desk; APP, a software project); refusals leave the database as it was."""

from __future__ import annotations

import pytest
from sqlalchemy import delete, select
from test_tickets_services import APP, CREW, DESK, act, build_scene, move, refused, row

from officegym import clock
from officegym.apps.org.models import Person
from officegym.apps.tickets import services
from officegym.apps.tickets.access import read_filter
from officegym.apps.tickets.models import Group, GroupMember, Ticket
from officegym.errors import Conflict, Forbidden, Invalid, NotFound


@pytest.fixture
def scene(episode):
    """HD and APP with a request HD-1 by the reporter, an incident HD-2 by the outsider and a story
    APP-1 by the engineering lead."""
    ep, c = build_scene(episode)
    act(ep, c.reporter, services.create_ticket, DESK, "Service Request", "New badge")
    act(ep, c.outsider, services.create_ticket, DESK, "Incident", "Payroll app down")
    act(ep, c.eng_lead, services.create_ticket, APP, "Story", "Dark mode")
    return ep, c


def seen(episode, who: int) -> tuple[list[str], list[str]]:
    """The keys `who` sees, by the read filter and by search (each sorted)."""
    with episode.session() as s:
        actor = s.get(Person, who)
        filtered = sorted(s.scalars(select(Ticket.key).where(read_filter(s, actor))))
        searched = sorted(t.key for t in services.search_tickets(s, actor, "", 0, 200).items)
    return filtered, searched


def sees(episode, who: int, expected: list[str]) -> None:
    """`who` sees exactly `expected` among the scene's projects, and gets every other HD ticket as not found."""
    filtered, searched = seen(episode, who)
    assert [k for k in filtered if k.split("-")[0] in (DESK, APP)] == sorted(expected)
    assert [k for k in searched if k.split("-")[0] in (DESK, APP)] == sorted(expected)
    for hidden in {"HD-1", "HD-2"} - set(expected):
        assert "No ticket " + hidden + " that you can see" in refused(episode, NotFound, who, services.get_ticket,
                                                                      hidden)


def test_service_desk_requests_are_seen_by_their_people_only(scene):
    ep, c = scene
    sees(ep, c.reporter, ["HD-1", "APP-1"])
    sees(ep, c.outsider, ["HD-2", "APP-1"])
    sees(ep, c.watcher, ["APP-1"])
    sees(ep, c.crew, ["APP-1"])  # an engineer: an APP agent, not an HD one
    for who in (c.desk_lead, c.admin):
        sees(ep, who, ["HD-1", "HD-2", "APP-1"])
    assert "No ticket HD-2" in refused(ep, NotFound, c.reporter, services.add_comment, "HD-2", "me too")
    act(ep, c.desk_lead, services.watch_ticket, "HD-1", c.watcher)
    act(ep, c.desk_lead, services.assign_ticket, "HD-2", assignee=c.crew, group=CREW)
    sees(ep, c.watcher, ["HD-1", "APP-1"])
    sees(ep, c.crew, ["HD-2", "APP-1"])
    with ep.session() as s:  # out of the group, the assignee still sees and works the ticket
        group_id = s.scalar(select(Group.id).where(Group.name == CREW))
        s.execute(delete(GroupMember).where(GroupMember.group_id == group_id, GroupMember.person_id == c.crew))
    sees(ep, c.crew, ["HD-2", "APP-1"])
    move(ep, c.crew, "HD-2", "Start work")
    act(ep, c.watcher, services.unwatch_ticket, "HD-1")
    sees(ep, c.watcher, ["APP-1"])
    with ep.session() as s:
        board = services.get_board(s, s.get(Person, c.reporter), DESK)
        assert {col.status: [t.key for t in col.tickets] for col in board.columns} == {
            "New": ["HD-1"], "Assigned": [], "In Progress": [], "Waiting on customer": []}
        assert services.open_counts(s, s.get(Person, c.reporter), board.project) == {"New": 1}
        assert services.open_counts(s, s.get(Person, c.desk_lead), board.project) == {"New": 1, "In Progress": 1}


def test_work_notes_are_for_workers_only(scene):
    ep, c = scene
    act(ep, c.desk_lead, services.assign_ticket, "HD-1", group=CREW)
    act(ep, c.desk_lead, services.watch_ticket, "HD-1", c.watcher)
    act(ep, c.desk_lead, services.add_work_note, "HD-1", "Badge printer is out of ribbon")
    act(ep, c.desk_lead, services.add_comment, "HD-1", "Your badge is on its way")
    act(ep, c.reporter, services.add_comment, "HD-1", "Thanks")
    bodies = {who: [(m.body, m.internal) for m in act(ep, who, services.list_comments, "HD-1").items]
              for who in (c.reporter, c.watcher, c.crew, c.admin)}
    public = [("Your badge is on its way", False), ("Thanks", False)]
    assert bodies[c.reporter] == bodies[c.watcher] == public
    assert bodies[c.crew] == bodies[c.admin] == [("Badge printer is out of ribbon", True)] + public
    for who in (c.reporter, c.watcher):
        assert "You cannot add work notes to HD-1" in refused(ep, Forbidden, who, services.add_work_note, "HD-1", "x")
    with ep.session() as s:
        ticket = s.scalar(select(Ticket).where(Ticket.key == "HD-1"))
        assert [services.can_see_notes(s, s.get(Person, p), ticket) for p in (c.reporter, c.crew)] == [False, True]


def test_non_workers_may_comment_but_not_change_a_ticket(scene):
    ep, c = scene
    story = "APP-1"
    message = refused(ep, Forbidden, c.reporter, services.update_ticket, story, summary="Light mode")
    assert message == ("You cannot edit APP-1: only the Test App project's agents, the members of the ticket's "
                       "assignment group and its assignee can. You can comment on tickets you can see.")
    refusals = [(services.assign_ticket, (story, c.engineer), "You cannot assign APP-1"),
                (services.transition_ticket, (story, "Close", "Won't Do"), "You cannot move APP-1"),
                (services.link_tickets, (story, "relates to", "HD-1"), "You cannot link APP-1"),
                (services.add_work_note, (story, "psst"), "You cannot add work notes to APP-1"),
                (services.watch_ticket, (story, c.watcher), "You cannot change the watchers of APP-1"),
                (services.set_sprint, (story, ""), "You cannot plan APP-1")]
    for fn, args, expected in refusals:
        assert expected in refused(ep, Forbidden, c.reporter, fn, *args)
    assert "You cannot move HD-1" in refused(ep, Forbidden, c.reporter, services.transition_ticket, "HD-1",
                                             "Cancel", "Cancelled")
    assert "You cannot assign APP-2" in refused(ep, Forbidden, c.reporter, services.create_ticket, APP, "Bug", "x",
                                                assignee=c.engineer)
    act(ep, c.reporter, services.add_comment, story, "Please!")
    act(ep, c.reporter, services.watch_ticket, story)
    assert [p.id for p in act(ep, c.reporter, services.list_watchers, story)] == [c.reporter]
    assert row(ep, story).summary == "Dark mode" and row(ep, story).first_response_at is None
    act(ep, c.engineer, services.update_ticket, story, summary="Light mode")  # any APP agent works it
    assert row(ep, story).summary == "Light mode"


def test_leads_administer_their_projects_and_admins_do_everything(scene):
    ep, c = scene
    for fn, args, doing in [(services.create_component, (APP, "Mobile"), "add components"),
                            (services.create_sprint, (APP, "Sprint 1"), "plan sprints"),
                            (services.update_project, (APP,), "change the project")]:
        message = refused(ep, Forbidden, c.engineer, fn, *args, **({"name": "App"} if args == (APP,) else {}))
        assert message == f"Only the lead of APP (Test App) and workspace admins can {doing}."
    assert "Only workspace admins create projects" in refused(ep, Forbidden, c.eng_lead, services.create_project,
                                                              "OPS", "Ops", "software", c.eng_lead)
    act(ep, c.eng_lead, services.create_component, APP, "Mobile")
    act(ep, c.eng_lead, services.create_sprint, APP, "Sprint 1")
    act(ep, c.eng_lead, services.update_project, APP, description="The app")
    assert [k.name for k in act(ep, c.admin, services.list_components, APP)] == ["API", "Mobile", "Web"]
    act(ep, c.admin, services.create_component, DESK, "Phones")
    act(ep, c.admin, services.assign_ticket, "HD-2", assignee=c.desk_lead)
    act(ep, c.admin, services.add_work_note, "HD-2", "Escalated by the CEO")
    move(ep, c.admin, "HD-2", "Start work", ("Resolve", "Fixed"))
    assert (row(ep, "HD-2").status, row(ep, "HD-2").resolution) == ("Resolved", "Fixed")
    with ep.session() as s:
        project = services.get_project(s, s.get(Person, c.admin), APP)
        assert (project.description, project.lead_id) == ("The app", c.eng_lead)


def readings(episode, who: int, key: str) -> list[tuple[str, str]]:
    """How the ticket's links read from it for `who`: (reading, other key)."""
    with episode.session() as s:
        actor = s.get(Person, who)
        ticket = services.get_ticket(s, actor, key)
        return [(reading, other.key) for reading, other, _link in services.links_of(s, ticket, actor)]


def test_links_read_both_ways_and_refuse_loops_repeats_and_wrong_kinds(scene):
    ep, c = scene
    bug = act(ep, c.engineer, services.create_ticket, APP, "Bug", "Crash on save")
    act(ep, c.engineer, services.link_tickets, bug, "is blocked by", "APP-1")
    assert readings(ep, c.engineer, "APP-1") == [("blocks", bug)]
    assert readings(ep, c.reporter, bug) == [("is blocked by", "APP-1")]
    for kind, first, second, expected in [("blocks", "APP-1", bug, "APP-1 blocks APP-2 already."),
                                          ("blocks", bug, "APP-1", "a link cannot go both ways"),
                                          ("relates", "APP-1", "app-1", "cannot be linked to itself")]:
        assert expected in refused(ep, Conflict if "itself" not in expected else Invalid, c.engineer,
                                   services.link_tickets, first, kind, second)
    act(ep, c.engineer, services.link_tickets, "APP-1", "relates to", bug)
    assert "already" in refused(ep, Conflict, c.engineer, services.link_tickets, bug, "relates_to", "APP-1")
    assert "Link kind must be one of: blocks, causes, duplicates" in refused(
        ep, Invalid, c.engineer, services.link_tickets, bug, "fixes", "APP-1")
    assert "No ticket HD-1 that you can see" in refused(ep, NotFound, c.engineer, services.link_tickets, bug,
                                                        "relates", "HD-1")
    act(ep, c.desk_lead, services.link_tickets, "HD-1", "relates to", bug)  # a private request stays private
    assert [r for r in readings(ep, c.engineer, bug) if r[1] == "HD-1"] == []
    assert readings(ep, c.desk_lead, bug)[-1] == ("relates to", "HD-1")
    act(ep, c.desk_lead, services.unlink_tickets, "HD-1", "relates to", bug)
    problem = act(ep, c.desk_lead, services.create_ticket, DESK, "Problem", "Payroll DB flaps")
    act(ep, c.desk_lead, services.link_tickets, "HD-2", "is caused by", problem)
    assert readings(ep, c.desk_lead, problem) == [("causes", "HD-2")]
    assert "HD-1 is a Service Request and HD-3 a Problem" in refused(
        ep, Invalid, c.desk_lead, services.link_tickets, problem, "causes", "HD-1")
    act(ep, c.engineer, services.unlink_tickets, bug, "is blocked by", "APP-1")
    act(ep, c.engineer, services.unlink_tickets, bug, "relates to", "APP-1")  # made from APP-1's side
    assert readings(ep, c.engineer, bug) == []
    assert "There is no link APP-1 blocks APP-2." == refused(ep, NotFound, c.engineer, services.unlink_tickets,
                                                             "APP-1", "blocks", bug)
    changes = [(h.field, h.old_value, h.new_value) for h in act(ep, c.engineer, services.get_history, bug)][1:]
    assert changes == [("link", "", "is blocked by APP-1"), ("link", "", "relates to APP-1"),
                       ("link", "", "relates to HD-1"), ("link", "relates to HD-1", ""),
                       ("link", "is blocked by APP-1", ""), ("link", "relates to APP-1", "")]


def test_people_watch_themselves_and_workers_manage_the_watchers(scene):
    ep, c = scene
    act(ep, c.reporter, services.watch_ticket, "HD-1")
    assert "already watches HD-1" in refused(ep, Conflict, c.reporter, services.watch_ticket, "HD-1")
    act(ep, c.desk_lead, services.watch_ticket, "HD-1", c.watcher)
    assert "You cannot change the watchers of HD-1" in refused(ep, Forbidden, c.reporter, services.unwatch_ticket,
                                                               "HD-1", c.watcher)
    assert sorted(p.id for p in act(ep, c.watcher, services.list_watchers, "HD-1")) == sorted([c.reporter, c.watcher])
    act(ep, c.desk_lead, services.unwatch_ticket, "HD-1", c.watcher)
    act(ep, c.reporter, services.unwatch_ticket, "HD-1")
    assert "does not watch HD-1" in refused(ep, Conflict, c.reporter, services.unwatch_ticket, "HD-1")
    assert act(ep, c.desk_lead, services.list_watchers, "HD-1") == []


def columns(episode, who: int, project: str) -> dict[str, list[str]]:
    """The project's board as {status: keys}."""
    with episode.session() as s:
        board = services.get_board(s, s.get(Person, who), project)
        return {col.status: [t.key for t in col.tickets] for col in board.columns}


def test_sprints_run_one_at_a_time_and_hand_on_unfinished_work(scene):
    ep, c = scene
    lead = c.eng_lead
    assert "HD is a service desk; sprints belong to software projects." == refused(
        ep, Invalid, lead, services.create_sprint, DESK, "Sprint 1")
    for name in ("Sprint 1", "Sprint 2"):
        act(ep, lead, services.create_sprint, APP, name, goal="Ship")
    assert "already has a sprint called 'sprint 1'" in refused(ep, Conflict, lead, services.create_sprint, APP,
                                                              "sprint 1")
    assert "A sprint ends after it starts" in refused(ep, Invalid, lead, services.start_sprint, APP, "Sprint 1",
                                                      "2030-01-06", start_date="2030-01-06")
    act(ep, lead, services.start_sprint, APP, "Sprint 1", "2030-01-20", start_date="2030-01-06")
    assert "Sprint 'Sprint 1' is still active in APP" in refused(ep, Conflict, lead, services.start_sprint, APP,
                                                                "Sprint 2", "2030-02-01")
    done = act(ep, lead, services.create_ticket, APP, "Task", "Small thing", assignee=c.engineer)
    for key in ("APP-1", done):
        act(ep, c.engineer, services.set_sprint, key, "sprint 1")
    move(ep, c.engineer, done, "Start progress", "Submit for review", ("Done", "Done"))
    assert "APP-1 is already in 'Sprint 1'" in refused(ep, Conflict, c.engineer, services.set_sprint, "APP-1",
                                                       "Sprint 1")
    assert "is a service desk" in refused(ep, Invalid, c.desk_lead, services.set_sprint, "HD-1", "Sprint 1")
    assert columns(ep, c.reporter, APP) == {"To Do": ["APP-1"], "In Progress": [], "In Review": [], "Done": [done]}
    assert "only the active sprint can be completed" in refused(ep, Conflict, lead, services.complete_sprint, APP,
                                                               "Sprint 2")
    assert "moves to a future sprint; 'Sprint 1' is active" in refused(ep, Conflict, lead, services.complete_sprint,
                                                                      APP, "Sprint 1", move_to="Sprint 1")
    act(ep, lead, services.complete_sprint, APP, "Sprint 1", move_to="Sprint 2")
    with ep.session() as s:
        sprints = {k.name: k for k in services.list_sprints(s, s.get(Person, lead), APP)}
    assert [(k.name, k.state) for k in sprints.values()] == [("Sprint 1", "closed"), ("Sprint 2", "future")]
    assert (row(ep, "APP-1").sprint_id, row(ep, done).sprint_id) == (sprints["Sprint 2"].id, sprints["Sprint 1"].id)
    assert "Sprint 'Sprint 1' is closed" in refused(ep, Conflict, c.engineer, services.set_sprint, "APP-1", "Sprint 1")
    assert "only a future sprint can start" in refused(ep, Conflict, lead, services.start_sprint, APP, "Sprint 1",
                                                       "2030-03-01")
    with ep.session() as s:
        today = clock.today(s).date()
    act(ep, lead, services.start_sprint, APP, "Sprint 2", "2030-02-01")  # from today by default
    with ep.session() as s:
        started = services.active_sprint(s, services.get_project(s, s.get(Person, lead), APP))
        assert (started.name, started.start_date, started.end_date.isoformat()) == ("Sprint 2", today, "2030-02-01")
    act(ep, lead, services.complete_sprint, APP, "Sprint 2")  # no move_to: back to the backlog
    assert row(ep, "APP-1").sprint_id is None
    assert "APP-1 is already in the backlog" in refused(ep, Conflict, c.engineer, services.set_sprint, "APP-1", "")
    assert columns(ep, c.reporter, APP) == {"To Do": ["APP-1"], "In Progress": [], "In Review": []}
    assert columns(ep, c.desk_lead, DESK) == {"New": ["HD-1", "HD-2"], "Assigned": [], "In Progress": [],
                                              "Waiting on customer": []}
