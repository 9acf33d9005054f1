"""The tickets part of a world: projects per department, tickets whose people, groups, SLAs and
customers are coherent, and chat (#incidents, #it-help, every ticket key anywhere) that tells the
truth about them."""

from __future__ import annotations

import re
from collections import defaultdict

import pytest
from sqlalchemy import select

from officegym.apps.chat.models import Channel, Message
from officegym.apps.crm.models import Account, Case
from officegym.apps.org.models import Department, Person
from officegym.apps.tickets import workflow
from officegym.apps.tickets.models import (Comment, Group, GroupMember, Link, Project, Sprint, Ticket,
                                           TicketComponent)
from officegym.apps.tickets.sla import incident_priority
from officegym.db import make_sessionmaker, sqlite_engine
from officegym.seed_data.chat_text import history_end
from officegym.clock import now as company_now
from officegym.worlds import ensure_world

KEY = re.compile(r"\b(IT|ENG|SOPS|LEGAL)-(\d+)\b")


@pytest.fixture(scope="module", params=["tiny", "small"])
def world(request):
    built = ensure_world(request.param, 0)
    with make_sessionmaker(sqlite_engine(str(built.path), readonly=True))() as session:
        yield request.param, session


def _tickets(session) -> list[Ticket]:
    return list(session.scalars(select(Ticket).order_by(Ticket.id)))


def test_projects_belong_to_the_departments_that_run_them(world):
    scale, session = world
    projects = {p.key: p for p in session.scalars(select(Project))}
    expected = {"IT", "ENG", "SOPS"} | ({"LEGAL"} if scale == "small" else set())
    assert set(projects) == expected
    for project in projects.values():
        department = session.get(Department, project.department_id)
        lead = session.get(Person, project.lead_id)
        assert lead.department_id == department.id, (project.key, lead.name)
    assert projects["IT"].kind == "service_desk" and projects["ENG"].kind == "software"


def test_keys_are_numbered_per_project_in_filing_order(world):
    _scale, session = world
    by_project = defaultdict(list)
    for ticket in _tickets(session):
        by_project[ticket.project_id].append(ticket)
        assert ticket.key == f"{ticket.project.key}-{ticket.number}"
    for project_id, tickets in by_project.items():
        assert [t.number for t in tickets] == list(range(1, len(tickets) + 1))
        assert [t.created_at for t in tickets] == sorted(t.created_at for t in tickets)
        assert session.get(Project, project_id).next_number == len(tickets) + 1


def test_every_ticket_tells_a_consistent_story(world):
    _scale, session = world
    end = history_end(company_now(session))
    members = defaultdict(set)
    for row in session.scalars(select(GroupMember)):
        members[row.group_id].add(row.person_id)
    for t in _tickets(session):
        assert t.status in workflow.statuses(t.type), t.key
        assert t.created_at <= t.updated_at <= end, t.key
        assert (t.project.kind == "service_desk") == workflow.is_service(t.type), t.key
        if t.group_id and t.assignee_id:
            assert t.assignee_id in members[t.group_id], t.key
        if t.type == "Incident":
            assert t.priority == incident_priority(t.impact, t.urgency), t.key
        done = t.status in workflow.DONE_STATUSES
        assert bool(t.resolution) == done and (t.resolved_at is not None) == done, t.key
        assert (t.paused_since is not None) == (t.status == "Waiting on customer"), t.key
        if t.status not in ("New", "To Do"):
            assert t.assignee_id is not None, t.key
        if t.first_response_at is not None:  # the first response is the assignee's public comment
            assert session.scalar(select(Comment.id).where(Comment.ticket_id == t.id, Comment.internal.is_(False),
                                                           Comment.author_id == t.assignee_id,
                                                           Comment.created_at == t.first_response_at)), t.key
        if t.parent_id:
            parent = session.get(Ticket, t.parent_id)
            assert t.type == "Sub-task" and parent.project_id == t.project_id and parent.created_at <= t.created_at


def test_engineering_work_sits_in_sprints_and_components(world):
    _scale, session = world
    sprints = {s.id: s for s in session.scalars(select(Sprint))}
    assert sorted(s.state for s in sprints.values()) == ["active", "closed", "future"]
    eng = [t for t in _tickets(session) if t.project.key == "ENG"]
    assert all(session.scalar(select(TicketComponent.component_id).where(TicketComponent.ticket_id == t.id))
               for t in eng)
    in_closed = [t for t in eng if t.sprint_id and sprints[t.sprint_id].state == "closed"]
    assert all(t.status == "Done" for t in in_closed)
    assert any(t.sprint_id and sprints[t.sprint_id].state == "active" for t in eng)


def test_links_are_well_formed(world):
    _scale, session = world
    links = list(session.scalars(select(Link)))
    assert {link.kind for link in links} >= {"blocks", "caused_by"}
    for link in links:
        source, target = session.get(Ticket, link.source_id), session.get(Ticket, link.target_id)
        if link.kind == "caused_by":
            assert (source.type, target.type) == ("Incident", "Problem")
        if link.kind == "blocks":
            assert workflow.is_open(source.status), "a seeded blocker is still open work"


def test_escalated_cases_became_bugs_naming_the_account(world):
    _scale, session = world
    escalated = list(session.scalars(select(Case).where(Case.status == "Escalated")))
    assert escalated
    for case in escalated:
        bug = session.scalar(select(Ticket).where(Ticket.key == case.ticket_key))
        account = session.get(Account, case.account_id)
        assert bug is not None and bug.type == "Bug" and bug.account_id == account.id
        assert bug.summary.startswith(account.name) and bug.created_at >= case.created_at
    assert not session.scalar(select(Case.id).where(Case.status != "Escalated", Case.ticket_key.is_not(None)))


def test_legal_requests_name_the_account_they_are_about(world):
    scale, session = world
    legal = [t for t in _tickets(session) if t.project.key == "LEGAL" and t.account_id]
    has_legal = session.scalar(select(Department.id).where(Department.name == "Legal")) is not None
    assert bool(legal) == has_legal == (scale == "small")  # tiny has no Legal department, so no desk
    for t in legal:
        assert session.get(Account, t.account_id).name in t.summary


def test_every_ticket_key_in_chat_exists_and_predates_the_message(world):
    _scale, session = world
    filed = {t.key: t for t in _tickets(session)}
    seen = 0
    for message in session.scalars(select(Message)):
        for match in KEY.finditer(message.text):
            seen += 1
            ticket = filed.get(match.group(0))
            assert ticket is not None, message.text
            assert ticket.created_at <= message.created_at, message.text
    assert seen > 5


def test_incidents_channel_matches_the_tickets(world):
    _scale, session = world
    channel = session.scalar(select(Channel).where(Channel.name == "incidents"))
    assert channel is not None
    tops = list(session.scalars(select(Message).where(Message.channel_id == channel.id,
                                                      Message.thread_parent_id.is_(None))))
    assert tops
    for top in tops:
        ticket = session.scalar(select(Ticket).where(Ticket.key == KEY.search(top.text).group(0)))
        group = session.get(Group, ticket.group_id)
        assert ticket.summary in top.text and group.name in top.text
        assert f"Impact {ticket.impact}, urgency {ticket.urgency}, so priority {ticket.priority}" in top.text
        assert top.author_id == ticket.assignee_id
        replies = list(session.scalars(select(Message).where(Message.thread_parent_id == top.id)))
        said_resolved = [r for r in replies if "is resolved" in r.text]
        assert bool(said_resolved) == (ticket.resolved_at is not None), ticket.key
        for reply in said_resolved:
            assert reply.created_at >= ticket.resolved_at
