"""Tickets rules, called straight through the service layer: both workflows, resolutions and what
they need (blockers, sub-tasks, duplicates), incident priority, SLA clocks on the simulated clock,
assignment, labels, components, history and journal (links, watchers, sprints and boards are in
test_tickets_access). The scene is made with the services in two fresh projects (HD, a service desk
led by an IT person; APP, a software project led by an engineer); every refusal is checked to leave
the database as it was."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from sqlalchemy import select

from officegym.apps.org.models import Department, Person
from officegym.apps.tickets import services
from officegym.apps.tickets.models import Group, GroupMember, HistoryEntry, Ticket
from officegym.db import MetaEntry
from officegym.errors import Conflict, Forbidden, Invalid, NotFound
from officegym.journal import JournalEntry
from officegym.worlds import content_hash

DESK, APP, CREW, NIGHTS = "HD", "APP", "Test Desk Crew", "Test Desk Nights"


def cast_of(session) -> SimpleNamespace:
    """Ids of plain members in the roles the rules talk about (the owner is the admin)."""
    def members(department: str) -> list[int]:
        return list(session.scalars(select(Person.id).join(Department, Person.department_id == Department.id)
                                    .where(Department.name == department, Person.role == "member").order_by(Person.id)))
    it, eng, sales, people = members("IT"), members("Engineering"), members("Sales"), members("People")
    return SimpleNamespace(admin=session.scalar(select(Person.id).where(Person.role == "owner")), desk_lead=it[0],
                           eng_lead=eng[0], engineer=eng[1], crew=eng[2], reporter=sales[0], watcher=sales[1],
                           outsider=people[0])


def add_group(session, name: str, member_ids: list[int]) -> None:
    """An assignment group (no service makes groups: they are seeded data)."""
    group = Group(name=name, description="A test queue")
    session.add(group)
    session.flush()
    session.add_all([GroupMember(group_id=group.id, person_id=pid) for pid in member_ids])


def build_scene(episode) -> tuple:
    """The episode and its cast, with HD (components Laptops, Email), APP (API, Web) and two groups:
    CREW (an engineer who is no HD agent, and the HD lead) and NIGHTS (the HD lead only)."""
    with episode.session() as s:
        c = cast_of(s)
        ceo = s.get(Person, c.admin)
        services.create_project(s, ceo, DESK, "Test Help Desk", "service_desk", c.desk_lead)
        services.create_project(s, ceo, APP, "Test App", "software", c.eng_lead)
        for project, names in ((DESK, ("Laptops", "Email")), (APP, ("API", "Web"))):
            for name in names:
                services.create_component(s, ceo, project, name)
        add_group(s, CREW, [c.crew, c.desk_lead])
        add_group(s, NIGHTS, [c.desk_lead])
    return episode, c


@pytest.fixture
def scene(episode):
    """The scene of build_scene on a fresh tiny episode."""
    return build_scene(episode)


def act(episode, who: int, fn, *args, **kwargs):
    """Call a service as person `who` in its own committed transaction (a ticket comes back as its key)."""
    with episode.session() as s:
        out = fn(s, s.get(Person, who), *args, **kwargs)
    return out.key if isinstance(out, Ticket) else out


def refused(episode, error: type, who: int, fn, *args, **kwargs) -> str:
    """Call a service as `who`; it must raise `error` and change nothing. Returns the message."""
    before = content_hash(episode.engine)
    with pytest.raises(error) as raised:
        act(episode, who, fn, *args, **kwargs)
    assert content_hash(episode.engine) == before
    return raised.value.message


def row(episode, key: str) -> Ticket:
    """The ticket's row as stored now (detached)."""
    with episode.session() as s:
        return s.scalar(select(Ticket).where(Ticket.key == key))


def later(episode, minutes: int) -> None:
    """Move the company clock forward (one tick is 30 seconds)."""
    with episode.session() as s:
        ticks = s.get(MetaEntry, "clock_ticks")
        ticks.value = str(int(ticks.value) + 2 * minutes)


def move(episode, who: int, key: str, *steps) -> None:
    """Take transitions in turn; a step is a name or (name, resolution)."""
    for step in steps:
        name, resolution = (step, None) if isinstance(step, str) else step
        act(episode, who, services.transition_ticket, key, name, resolution)


def test_software_workflow_takes_every_transition_and_lists_the_others(scene):
    ep, c = scene
    key = act(ep, c.eng_lead, services.create_ticket, APP, "story", "Export to CSV")
    assert (row(ep, key).status, key) == ("To Do", "APP-1")
    assert [t.name for t in act(ep, c.engineer, services.available_transitions, key)] == ["Start progress", "Close"]
    assert "Assign APP-1 to someone before 'Start progress'" in refused(
        ep, Conflict, c.engineer, services.transition_ticket, key, "Start progress")
    act(ep, c.eng_lead, services.assign_ticket, key, assignee=c.engineer)
    move(ep, c.engineer, key, "Start progress", "Stop progress", "start progress", "Submit for review")
    assert row(ep, key).status == "In Review"
    move(ep, c.engineer, key, "Request changes")
    message = refused(ep, Conflict, c.engineer, services.transition_ticket, key, "Done", "Done")
    assert message == ("APP-1 is In Progress; 'Done' is not available from there. Available: 'Stop progress' → "
                       "To Do; 'Submit for review' → In Review; 'Close' → Done.")
    assert "'Fly' is not a transition from there" in refused(ep, Conflict, c.engineer, services.transition_ticket,
                                                             key, "Fly")
    move(ep, c.engineer, key, "in review", "Done")  # its only resolution, Done, is implied
    done = row(ep, key)
    assert (done.status, done.resolution, done.resolved_at is not None) == ("Done", "Done", True)
    move(ep, c.engineer, key, "Reopen")
    reopened = row(ep, key)
    assert (reopened.status, reopened.resolution, reopened.resolved_at) == ("To Do", "", None)
    move(ep, c.engineer, key, ("Close", "won't do"))
    assert (row(ep, key).status, row(ep, key).resolution) == ("Done", "Won't Do")


def test_service_workflow_takes_every_transition(scene):
    ep, c = scene
    key = act(ep, c.reporter, services.create_ticket, DESK, "Service Request", "Need a monitor")
    assert (row(ep, key).status, row(ep, key).priority) == ("New", "Medium")
    assert "'Start work' is not available" in refused(ep, Conflict, c.desk_lead, services.transition_ticket, key,
                                                      "Start work")
    act(ep, c.desk_lead, services.assign_ticket, key, assignee=c.desk_lead)
    assert row(ep, key).status == "Assigned"
    move(ep, c.desk_lead, key, "Start work", "Wait for customer", "Customer replied", ("Resolve", "fixed"))
    assert (row(ep, key).status, row(ep, key).resolution) == ("Resolved", "Fixed")
    move(ep, c.desk_lead, key, "Reopen")
    assert (row(ep, key).status, row(ep, key).resolution, row(ep, key).resolved_at) == ("In Progress", "", None)
    move(ep, c.desk_lead, key, "waiting on customer", "In Progress", ("Resolved", "Workaround"), "Close")
    assert (row(ep, key).status, row(ep, key).resolution) == ("Closed", "Workaround")
    assert act(ep, c.desk_lead, services.available_transitions, key) == []
    assert "Available: none" in refused(ep, Conflict, c.desk_lead, services.transition_ticket, key, "Reopen")
    other = act(ep, c.reporter, services.create_ticket, DESK, "Problem", "Printers jam")
    move(ep, c.desk_lead, other, ("Cancel", "Cancelled"))
    assert (row(ep, other).status, row(ep, other).resolution) == ("Resolved", "Cancelled")
    third = act(ep, c.desk_lead, services.create_ticket, DESK, "Incident", "Wifi slow", assignee=c.desk_lead)
    move(ep, c.desk_lead, third, ("Resolve", "Cannot Reproduce"))  # Resolve works from Assigned too
    assert row(ep, third).status == "Resolved"


def test_resolution_is_required_checked_and_refused_where_it_does_not_belong(scene):
    ep, c = scene
    key = act(ep, c.desk_lead, services.create_ticket, DESK, "Incident", "Mail down", assignee=c.desk_lead)
    move(ep, c.desk_lead, key, "Start work")
    assert "'Resolve' needs a resolution: one of Fixed, Workaround, Duplicate, Cannot Reproduce, Cancelled." == \
        refused(ep, Invalid, c.desk_lead, services.transition_ticket, key, "Resolve")
    assert "takes the resolution Fixed" in refused(ep, Invalid, c.desk_lead, services.transition_ticket, key,
                                                   "Resolve", "Done")
    assert "does not set a resolution" in refused(ep, Invalid, c.desk_lead, services.transition_ticket, key,
                                                  "Wait for customer", "Fixed")
    story = act(ep, c.eng_lead, services.create_ticket, APP, "Bug", "Crash", assignee=c.engineer)
    move(ep, c.engineer, story, "Start progress", "Submit for review")
    assert "takes the resolution Done; got 'Fixed'" in refused(ep, Invalid, c.engineer, services.transition_ticket,
                                                               story, "Done", "Fixed")


def test_fixing_needs_blockers_and_sub_tasks_finished_and_closing_may_not_strand_work(scene):
    ep, c = scene
    parent = act(ep, c.eng_lead, services.create_ticket, APP, "Story", "Parent", assignee=c.engineer)
    blocker = act(ep, c.eng_lead, services.create_ticket, APP, "Task", "Blocker", assignee=c.engineer)
    child = act(ep, c.eng_lead, services.create_ticket, APP, "Sub-task", "Child", parent=parent)
    act(ep, c.engineer, services.link_tickets, parent, "is blocked by", blocker)
    move(ep, c.engineer, parent, "Start progress", "Submit for review")
    assert "APP-1 is blocked by APP-2 (To Do); finish the blocking work first" in refused(
        ep, Conflict, c.engineer, services.transition_ticket, parent, "Done", "Done")
    assert "APP-2 blocks open work: APP-1 (In Review). Closing it as Won't Do" in refused(
        ep, Conflict, c.engineer, services.transition_ticket, blocker, "Close", "Won't Do")
    move(ep, c.engineer, blocker, "Start progress", "Submit for review", ("Done", "Done"))
    assert "APP-1 has open sub-tasks: APP-3 (To Do); finish or close them first." == refused(
        ep, Conflict, c.engineer, services.transition_ticket, parent, "Done", "Done")
    assert [t.key for t in act(ep, c.engineer, lambda s, a: services.sub_tasks(s, services.get_ticket(s, a, parent)))] \
        == [child]
    move(ep, c.engineer, child, ("Close", "Won't Do"))
    move(ep, c.engineer, parent, ("Done", "Done"))
    assert row(ep, parent).status == "Done"
    assert "a Sub-task of APP" in refused(ep, Invalid, c.eng_lead, services.create_ticket, APP, "Sub-task", "x",
                                          parent=child)
    assert "A sub-task needs a parent" in refused(ep, Invalid, c.eng_lead, services.create_ticket, APP, "Sub-task", "x")
    assert "Only sub-tasks have a parent" in refused(ep, Invalid, c.eng_lead, services.create_ticket, APP, "Task", "x",
                                                     parent=parent)


def test_cancelling_a_blocker_and_closing_as_duplicate(scene):
    ep, c = scene
    first = act(ep, c.reporter, services.create_ticket, DESK, "Incident", "VPN down")
    second = act(ep, c.reporter, services.create_ticket, DESK, "Incident", "VPN down again")
    act(ep, c.desk_lead, services.link_tickets, first, "blocks", second)
    assert "HD-1 blocks open work: HD-2 (New)" in refused(ep, Conflict, c.desk_lead, services.transition_ticket,
                                                          first, "Cancel", "Cancelled")
    act(ep, c.desk_lead, services.unlink_tickets, second, "is blocked by", first)
    assert "Link HD-1 to the ticket it duplicates first" in refused(
        ep, Conflict, c.desk_lead, services.transition_ticket, first, "Cancel", "Duplicate")
    act(ep, c.desk_lead, services.link_tickets, first, "duplicates", second)
    move(ep, c.desk_lead, first, ("Cancel", "Duplicate"))
    assert (row(ep, first).status, row(ep, first).resolution) == ("Resolved", "Duplicate")


def test_incident_priority_is_impact_times_urgency(scene):
    ep, c = scene
    expected = {("High", "High"): "Highest", ("High", "Medium"): "High", ("High", "Low"): "Medium",
                ("Medium", "High"): "High", ("Medium", "Medium"): "Medium", ("Medium", "Low"): "Low",
                ("Low", "High"): "Medium", ("Low", "Medium"): "Low", ("Low", "Low"): "Lowest"}
    ranks = {"Highest": 5, "High": 4, "Medium": 3, "Low": 2, "Lowest": 1}
    for (impact, urgency), priority in expected.items():
        key = act(ep, c.reporter, services.create_ticket, DESK, "Incident", "x", impact=impact, urgency=urgency.lower())
        made = row(ep, key)
        assert (made.impact, made.urgency, made.priority, made.priority_rank) == (impact, urgency, priority,
                                                                                 ranks[priority])
    act(ep, c.desk_lead, services.update_ticket, "HD-9", impact="High")
    assert (row(ep, "HD-9").priority, row(ep, "HD-9").priority_rank) == ("Medium", 3)
    assert "derives from its impact and urgency" in refused(ep, Invalid, c.desk_lead, services.update_ticket, "HD-9",
                                                            priority="High")
    assert "derives from its impact and urgency" in refused(ep, Invalid, c.reporter, services.create_ticket, DESK,
                                                            "Incident", "x", priority="High")
    assert "Impact and urgency are set on incidents only" in refused(
        ep, Invalid, c.reporter, services.create_ticket, DESK, "Service Request", "x", impact="High")
    request = act(ep, c.reporter, services.create_ticket, DESK, "Service Request", "x", priority="low")
    assert (row(ep, request).priority, row(ep, request).priority_rank) == ("Low", 2)


def sla(episode, who: int, key: str) -> dict:
    """The ticket's SLA clocks now, by name: (state, elapsed minutes)."""
    return {k.name: (k.state, k.elapsed_minutes) for k in act(episode, who, services.get_sla, key)}


def test_first_response_stops_at_a_workers_first_public_comment(scene):
    ep, c = scene
    key = act(ep, c.reporter, services.create_ticket, DESK, "Incident", "Printer on fire")  # Medium: 4 h to respond
    act(ep, c.desk_lead, services.assign_ticket, key, group=CREW)
    act(ep, c.desk_lead, services.watch_ticket, key, c.watcher)
    act(ep, c.reporter, services.add_comment, key, "Any news?")
    act(ep, c.desk_lead, services.add_work_note, key, "Looking into it")
    act(ep, c.watcher, services.add_comment, key, "Same here")
    assert row(ep, key).first_response_at is None  # not the reporter, not a work note, not a non-worker
    assert sla(ep, c.desk_lead, key)["Time to first response"][0] == "running"
    later(ep, 250)
    assert sla(ep, c.desk_lead, key)["Time to first response"][0] == "overdue"
    act(ep, c.crew, services.add_comment, key, "On it")  # a member of the assignment group
    responded = row(ep, key).first_response_at
    assert responded is not None and row(ep, key).status == "New"
    act(ep, c.desk_lead, services.add_comment, key, "Still on it")
    assert row(ep, key).first_response_at == responded
    state, elapsed = sla(ep, c.reporter, key)["Time to first response"]
    assert state == "breached" and 250 <= elapsed <= 255
    quick = act(ep, c.reporter, services.create_ticket, DESK, "Incident", "Mouse broken")
    act(ep, c.desk_lead, services.add_comment, quick, "Sending a new one")
    assert sla(ep, c.reporter, quick)["Time to first response"] == ("met", 0)
    software = act(ep, c.eng_lead, services.create_ticket, APP, "Bug", "No SLA here")
    assert act(ep, c.eng_lead, services.get_sla, software) == []


def test_resolution_clock_pauses_while_waiting_on_the_customer(scene):
    ep, c = scene
    key = act(ep, c.reporter, services.create_ticket, DESK, "Incident", "Site down", impact="High", urgency="High")
    act(ep, c.desk_lead, services.assign_ticket, key, assignee=c.desk_lead)
    act(ep, c.desk_lead, services.transition_ticket, key, "Start work", comment="Looking now")  # a public reply
    assert sla(ep, c.reporter, key)["Time to first response"] == ("met", 1)
    assert [m.body for m in act(ep, c.reporter, services.list_comments, key).items] == ["Looking now"]
    later(ep, 60)
    move(ep, c.desk_lead, key, "Wait for customer")
    assert row(ep, key).paused_since is not None
    later(ep, 300)
    state, elapsed = sla(ep, c.desk_lead, key)["Time to resolution"]
    assert state == "paused" and 60 <= elapsed <= 62
    act(ep, c.desk_lead, services.add_comment, key, "Can you try again?")
    assert row(ep, key).status == "Waiting on customer"  # only the reporter's answer resumes the work
    act(ep, c.reporter, services.add_comment, key, "It works on my machine now")
    resumed = row(ep, key)
    assert (resumed.status, resumed.paused_since) == ("In Progress", None) and 300 <= resumed.paused_minutes <= 302
    later(ep, 170)
    state, elapsed = sla(ep, c.desk_lead, key)["Time to resolution"]
    assert state == "running" and 230 <= elapsed <= 234  # a 4 h target: not yet breached
    later(ep, 15)
    assert sla(ep, c.desk_lead, key)["Time to resolution"][0] == "overdue"
    move(ep, c.desk_lead, key, ("Resolve", "Fixed"))
    later(ep, 600)
    state, elapsed = sla(ep, c.desk_lead, key)["Time to resolution"]
    assert state == "breached" and 245 <= elapsed <= 250  # stopped at resolution
    quick = act(ep, c.desk_lead, services.create_ticket, DESK, "Incident", "Key stuck", assignee=c.desk_lead)
    later(ep, 30)
    move(ep, c.desk_lead, quick, ("Resolve", "Workaround"))
    later(ep, 6000)
    assert sla(ep, c.desk_lead, quick)["Time to resolution"] == ("met", 30)
    move(ep, c.desk_lead, quick, "Reopen")  # the 100 hours it spent resolved do not count
    state, elapsed = sla(ep, c.desk_lead, quick)["Time to resolution"]
    assert state == "running" and 30 <= elapsed <= 32


def test_assignment_follows_the_group_and_the_project_agents(scene):
    ep, c = scene
    key = act(ep, c.reporter, services.create_ticket, DESK, "Incident", "Laptop dead")
    assert "does not work HD: assign one of the project's agents" in refused(
        ep, Forbidden, c.desk_lead, services.assign_ticket, key, assignee=c.outsider)
    assert "Give an assignee, an assignment group or both" in refused(ep, Invalid, c.desk_lead,
                                                                      services.assign_ticket, key)
    act(ep, c.desk_lead, services.assign_ticket, key, group=CREW.lower())
    assert (row(ep, key).status, row(ep, key).assignee_id) == ("New", None)
    with ep.session() as s:
        handles = [s.get(Person, pid).handle for pid in (c.crew, c.desk_lead)]
        names = {pid: s.get(Person, pid).name for pid in (c.crew, c.desk_lead, c.engineer)}
    message = refused(ep, Invalid, c.desk_lead, services.assign_ticket, key, assignee=c.engineer)
    assert f"is not in the assignment group {CREW}; assign one of its members" in message
    assert all(f"@{h}" in message for h in handles)
    act(ep, c.desk_lead, services.assign_ticket, key, assignee=f"@{handles[0]}")  # a member who is no HD agent
    assert (row(ep, key).status, row(ep, key).assignee_id) == ("Assigned", c.crew)
    act(ep, c.desk_lead, services.assign_ticket, key, group=NIGHTS)  # the crew member is not on nights
    assert (row(ep, key).group_id is not None, row(ep, key).assignee_id) == (True, None)
    act(ep, c.desk_lead, services.assign_ticket, key, assignee=c.desk_lead, group="")
    assert (row(ep, key).group_id, row(ep, key).assignee_id) == (None, c.desk_lead)
    act(ep, c.desk_lead, services.assign_ticket, key, assignee="")
    assert (row(ep, key).assignee_id, row(ep, key).status) == (None, "Assigned")
    changes = [(h.field, h.old_value, h.new_value) for h in act(ep, c.desk_lead, services.get_history, key)]
    assert changes == [("created", "", key), ("group", "", CREW), ("assignee", "", names[c.crew]),
                       ("status", "New", "Assigned"), ("group", CREW, NIGHTS), ("assignee", names[c.crew], ""),
                       ("group", NIGHTS, ""), ("assignee", "", names[c.desk_lead]),
                       ("assignee", names[c.desk_lead], "")]


def test_labels_and_components_are_parsed_and_replaced(scene):
    ep, c = scene
    key = act(ep, c.eng_lead, services.create_ticket, APP, "Task", "Tidy", labels="Backend, api  UI api",
              components="api, Web")
    with ep.session() as s:
        made = s.scalar(select(Ticket).where(Ticket.key == key))
        assert (services.labels_of(s, made), services.components_of(s, made)) == (["api", "backend", "ui"],
                                                                                  ["API", "Web"])
    act(ep, c.engineer, services.update_ticket, key, labels=["Perf"], components=["WEB"])
    act(ep, c.engineer, services.update_ticket, key, labels=[], components=[])
    with ep.session() as s:
        made = s.scalar(select(Ticket).where(Ticket.key == key))
        assert (services.labels_of(s, made), services.components_of(s, made)) == ([], [])
    changes = [(h.field, h.old_value, h.new_value) for h in act(ep, c.engineer, services.get_history, key)][1:]
    assert changes == [("labels", "api, backend, ui", "perf"), ("components", "API, Web", "Web"),
                       ("labels", "perf", ""), ("components", "Web", "")]
    assert "may hold only letters, digits and - _ ." in refused(ep, Invalid, c.engineer, services.update_ticket, key,
                                                               labels=["a/b"])
    assert "at most 10 labels; got 11" in refused(ep, Invalid, c.engineer, services.update_ticket, key,
                                                  labels=[f"l{n}" for n in range(11)])
    assert "APP has no component 'Mobile'. Components: API, Web." == refused(
        ep, NotFound, c.engineer, services.update_ticket, key, components=["Mobile"])
    assert "Nothing to change" in refused(ep, Invalid, c.engineer, services.update_ticket, key)


def test_every_write_is_journaled_and_history_names_rows(scene):
    ep, c = scene
    with ep.session() as s:
        since = s.scalar(select(JournalEntry.seq).order_by(JournalEntry.seq.desc()))
    key = act(ep, c.eng_lead, services.create_ticket, APP, "Story", "Journal me", priority="High")
    act(ep, c.eng_lead, services.create_sprint, APP, "Sprint A")
    act(ep, c.engineer, services.set_sprint, key, "Sprint A")
    act(ep, c.engineer, services.update_ticket, key, summary="Journal me twice", due_date="2030-01-31",
        story_points="5")
    act(ep, c.engineer, services.add_comment, key, "Done soon")
    with ep.session() as s:
        journal = [(e.action, e.actor_id) for e in s.scalars(select(JournalEntry).where(JournalEntry.seq > since)
                                                             .order_by(JournalEntry.seq))]
        history = [(h.field, h.new_value, h.changed_by_id) for h in s.scalars(
            select(HistoryEntry).join(Ticket, Ticket.id == HistoryEntry.ticket_id).where(Ticket.key == key)
            .order_by(HistoryEntry.id))]
    assert journal == [("tickets.create_ticket", c.eng_lead), ("tickets.create_sprint", c.eng_lead),
                       ("tickets.set_sprint", c.engineer), ("tickets.update_ticket", c.engineer),
                       ("tickets.add_comment", c.engineer)]
    assert history == [("created", key, c.eng_lead), ("sprint", "Sprint A", c.engineer),
                       ("summary", "Journal me twice", c.engineer), ("due_date", "2030-01-31", c.engineer),
                       ("story_points", "5", c.engineer)]
