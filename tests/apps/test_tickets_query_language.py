"""The ticket query language against the small world: every field and operator gives exactly the
tickets a plain Python filter over all rows picks; AND, OR, NOT and parentheses nest as documented;
ORDER BY sorts; functions read the simulated clock and the actor; malformed queries are refused with
a message naming the place and what was expected."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select

from officegym import clock
from officegym.apps.org.models import Person
from officegym.apps.tickets import services, workflow
from officegym.apps.tickets.models import PRIORITY_RANK, Group, GroupMember, Sprint, Ticket, TicketLabel, Watcher
from officegym.errors import Invalid, NotFound


@pytest.fixture
def world(small_episode):
    """(session, owner, every ticket with the facts the filters need); the owner sees every ticket."""
    with small_episode.session() as s:
        owner = s.scalar(select(Person).where(Person.role == "owner"))
        tickets = list(s.scalars(select(Ticket).order_by(Ticket.id)))
        labels = {}
        for ticket_id, name in s.execute(select(TicketLabel.ticket_id, TicketLabel.name)):
            labels.setdefault(ticket_id, set()).add(name)
        watchers = {}
        for ticket_id, person_id in s.execute(select(Watcher.ticket_id, Watcher.person_id)):
            watchers.setdefault(ticket_id, set()).add(person_id)
        facts = {"labels": labels, "watchers": watchers, "now": clock.now(s),
                 "groups": {g.name: g.id for g in s.scalars(select(Group))},
                 "active": {sp.id for sp in s.scalars(select(Sprint).where(Sprint.state == "active"))}}
        yield s, owner, tickets, facts


def found(session, actor, query: str) -> list[str]:
    """Every key the query returns, in its order, fetched page by page."""
    keys, offset = [], 0
    while True:
        page = services.search_tickets(session, actor, query, offset, 100)
        keys += [t.key for t in page.items]
        offset += 100
        if offset >= page.total:
            return keys


def picked(tickets, keep) -> set[str]:
    """Keys of the tickets the predicate keeps."""
    return {t.key for t in tickets if keep(t)}


def test_the_world_has_enough_variety_for_these_tests(world):
    _s, _owner, tickets, facts = world
    assert len(tickets) > 100 and facts["labels"] and facts["watchers"] and facts["active"]
    assert {t.type for t in tickets} >= {"Bug", "Story", "Task", "Incident", "Service Request"}
    assert any(t.assignee_id is None for t in tickets) and any(t.due_date for t in tickets)


def test_every_field_and_operator_matches_a_plain_filter(world):
    s, owner, tickets, facts = world
    it_support = facts["groups"]["IT Support"]
    members = set(s.scalars(select(GroupMember.person_id).where(GroupMember.group_id == it_support)))
    sample = next(t for t in tickets if t.assignee_id and t.type == "Incident")
    assignee = s.get(Person, sample.assignee_id)
    label = sorted(next(iter(facts["labels"].values())))[0]
    watched_by = next(iter(sorted(next(iter(facts["watchers"].values())))))
    due_sample = next(t for t in tickets if t.due_date)
    cases = {
        "project = IT": lambda t: t.key.startswith("IT-"),
        "project != IT": lambda t: not t.key.startswith("IT-"),
        "project in (IT, LEGAL)": lambda t: t.key.split("-")[0] in ("IT", "LEGAL"),
        'project = "Engineering"': lambda t: t.key.startswith("ENG-"),
        "status = Done": lambda t: t.status == "Done",
        'status in ("In Progress", "In Review")': lambda t: t.status in ("In Progress", "In Review"),
        "status not in (Done, Closed, Resolved)": lambda t: t.status not in ("Done", "Closed", "Resolved"),
        "statusCategory = Done": lambda t: t.status in workflow.DONE_STATUSES,
        "statusCategory != Done": lambda t: t.status not in workflow.DONE_STATUSES,
        "type = Incident": lambda t: t.type == "Incident",
        "issuetype != Bug": lambda t: t.type != "Bug",
        "priority = High": lambda t: t.priority == "High",
        "priority >= High": lambda t: t.priority_rank >= PRIORITY_RANK["High"],
        "priority < Medium": lambda t: t.priority_rank < PRIORITY_RANK["Medium"],
        "impact = High": lambda t: t.impact == "High",
        "urgency is empty": lambda t: not t.urgency,
        "resolution is not empty": lambda t: bool(t.resolution),
        "resolution = EMPTY": lambda t: not t.resolution,  # Jira's spelling of IS EMPTY
        "assignee != null": lambda t: t.assignee_id is not None,
        "resolution = Fixed": lambda t: t.resolution == "Fixed",
        f"assignee = @{assignee.handle}": lambda t: t.assignee_id == assignee.id,
        f"assignee != @{assignee.handle}": lambda t: t.assignee_id != assignee.id,
        "assignee is empty": lambda t: t.assignee_id is None,
        "assignee = currentUser()": lambda t: t.assignee_id == owner.id,
        'assignee in membersOf("IT Support")': lambda t: t.assignee_id in members,
        f"reporter = @{assignee.handle}": lambda t: t.reporter_id == assignee.id,
        'group = "IT Support"': lambda t: t.group_id == it_support,
        'assignmentGroup != "IT Support"': lambda t: t.group_id != it_support,
        "group is empty": lambda t: t.group_id is None,
        f'labels = "{label}"': lambda t: label in facts["labels"].get(t.id, ()),
        "labels is empty": lambda t: t.id not in facts["labels"],
        f'labels not in ("{label}")': lambda t: label not in facts["labels"].get(t.id, ()),
        f"watcher = {s.get(Person, watched_by).email}": lambda t: watched_by in facts["watchers"].get(t.id, ()),
        "sprint in openSprints()": lambda t: t.sprint_id in facts["active"],
        "sprint is empty": lambda t: t.sprint_id is None,
        "parent is not empty": lambda t: t.parent_id is not None,
        "account is not empty": lambda t: t.account_id is not None,
        "points >= 5": lambda t: t.story_points is not None and t.story_points >= 5,
        "points in (1, 2, 3)": lambda t: t.story_points in (1, 2, 3),
        f"due = {due_sample.due_date.isoformat()}": lambda t: t.due_date == due_sample.due_date,
        f"due < {due_sample.due_date.isoformat()}": lambda t: t.due_date is not None and t.due_date < due_sample.due_date,
        "duedate is empty": lambda t: t.due_date is None,
        "created >= -7d": lambda t: t.created_at >= facts["now"] - timedelta(days=7),
        "updated < startOfDay(-2d)": lambda t: t.updated_at < (facts["now"] - timedelta(days=2)).replace(
            hour=0, minute=0, second=0, microsecond=0),
        f"created = {sample.created_at.date().isoformat()}": lambda t: t.created_at.date() == sample.created_at.date(),
        "resolved is empty": lambda t: t.resolved_at is None,
        f"key = {sample.key}": lambda t: t.key == sample.key,
        "key > ENG-40": lambda t: t.key.startswith("ENG-") and t.number > 40,
        'summary ~ "vpn"': lambda t: "vpn" in t.summary.lower(),
        'summary !~ "vpn"': lambda t: "vpn" not in t.summary.lower(),
        'text ~ "error"': lambda t: "error" in (t.summary + " " + (t.description or "")).lower(),
    }
    for query, keep in cases.items():
        expected = picked(tickets, keep)
        assert set(found(s, owner, query)) == expected, query
    nonempty = [q for q, keep in cases.items() if picked(tickets, keep)]
    assert len(nonempty) >= len(cases) - 6, "most cases must select something, or they prove little"


def test_not_binds_tighter_than_and_which_binds_tighter_than_or(world):
    s, owner, tickets, _facts = world
    it, high, done = (lambda t: t.key.startswith("IT-")), (lambda t: t.priority == "High"), (lambda t: t.status == "Done")
    cases = {
        "project = IT OR priority = High AND status = Done": lambda t: it(t) or (high(t) and done(t)),
        "(project = IT OR priority = High) AND status = Done": lambda t: (it(t) or high(t)) and done(t),
        "NOT project = IT AND priority = High": lambda t: (not it(t)) and high(t),
        "NOT (project = IT AND priority = High)": lambda t: not (it(t) and high(t)),
        "NOT NOT project = IT": it,
        "project = IT and PRIORITY = high or Status = done": lambda t: (it(t) and high(t)) or done(t),
    }
    results = {q: set(found(s, owner, q)) for q in cases}
    for query, keep in cases.items():
        assert results[query] == picked(tickets, keep), query
    assert results["project = IT OR priority = High AND status = Done"] != \
        results["(project = IT OR priority = High) AND status = Done"]


def test_order_by_sorts_by_each_field_and_direction_with_the_key_breaking_ties(world):
    s, owner, tickets, _facts = world
    by_key = {t.key: t for t in tickets}
    priority_desc = [by_key[k] for k in found(s, owner, "ORDER BY priority DESC, created ASC")]
    assert len(priority_desc) == len(tickets)
    assert priority_desc == sorted(tickets, key=lambda t: (-t.priority_rank, t.created_at, t.id))
    keyed = found(s, owner, "project in (ENG, IT) ORDER BY key")
    assert keyed == [t.key for t in sorted((t for t in tickets if t.key.split("-")[0] in ("ENG", "IT")),
                                           key=lambda t: (t.key.split("-")[0], t.number))]
    due = [by_key[k] for k in found(s, owner, "due is not empty ORDER BY due DESC")]
    assert [t.due_date for t in due] == sorted((t.due_date for t in due), reverse=True) and due
    newest = found(s, owner, "")
    assert newest == [t.key for t in sorted(tickets, key=lambda t: (t.created_at, t.id), reverse=True)]


def test_a_reporter_sees_only_what_they_may_whatever_the_query(world):
    s, _owner, tickets, _facts = world
    reporter = s.get(Person, next(t.reporter_id for t in tickets if t.key.startswith("IT-")))
    visible = set(found(s, reporter, "project = IT"))
    mine = picked(tickets, lambda t: t.key.startswith("IT-") and t.reporter_id == reporter.id)
    assert mine <= visible
    assert visible <= {t.key for t in tickets if t.key.startswith("IT-")}
    assert set(found(s, reporter, "reporter = currentUser()")) >= mine


MALFORMED = [
    ("project =", "Unexpected end of the query at position 9: expected a value"),
    ("project IT", "expected an operator after project"),
    ("= IT", "expected a field name"),
    ("colour = red", "Unknown field 'colour' at position 0"),
    ("project = IT AND", "Unexpected end of the query at position 16"),
    ("project = IT OR OR status = Done", "expected a field name"),
    ("(project = IT", "expected ')'"),
    ("project = IT)", "expected AND, OR, ORDER BY or the end of the query"),
    ('summary ~ "unterminated', "Unterminated quoted text starting at position 10"),
    ("project = IT ; drop table tickets_ticket", "Unexpected character ';' at position 13"),
    ("status = Sleeping", "'Sleeping' at position 9 is not a status"),
    ("priority = Urgent", "'Urgent' at position 11 is not a priority"),
    ("project = NOPE", "No project 'NOPE'"),
    ("summary > b", "summary at position 0 does not take >"),
    ("project ~ IT", "project at position 0 does not take ~"),
    ("created > yesterday", "'yesterday' at position 10 is not a date"),
    ("created > startOfDay(soon)", "'soon' at position 21 is not an offset"),
    ("points = many", "points takes a whole number"),
    ("key = not-a-key", "is not a ticket key such as IT-142"),
    ("status in (Done", "expected ')'"),
    ("status is full", "expected EMPTY after IS or IS NOT"),
    ("ORDER BY colour", "Unknown field 'colour' at position 9; expected a field to order by"),
    ("project = IT ORDER priority", "expected AND, OR, ORDER BY or the end of the query"),
    ('group = "Night Owls"', "No assignment group 'Night Owls'"),
    ('assignee in membersOf()', "membersOf() at position 12 takes one group name"),
    ("statusCategory = Sideways", "is not a status category"),
    ("project = IT AND " * 150, "the limit is 2000"),
    ("(" * 33 + "project = IT" + ")" * 33, "more than 32 levels inside one another"),
    ("NOT " * 400 + "project = IT", "more than 32 levels inside one another"),
]


@pytest.mark.parametrize("query,message", MALFORMED, ids=[q[:30] for q, _ in MALFORMED])
def test_a_malformed_query_is_refused_with_a_message_naming_the_place(world, query, message):
    s, owner, _tickets, _facts = world
    with pytest.raises(Invalid) as refused:
        services.search_tickets(s, owner, query, 0, 10)
    assert message in refused.value.message


def test_a_query_that_is_not_text_or_names_nobody_is_refused(world):
    s, owner, _tickets, _facts = world
    with pytest.raises(NotFound, match="No person matches '@nobody.here'"):
        services.search_tickets(s, owner, "assignee = @nobody.here", 0, 10)
    with pytest.raises(Invalid, match="A query is text"):
        services.search_tickets(s, owner, ["project = IT"], 0, 10)
