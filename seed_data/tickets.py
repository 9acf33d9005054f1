"""The tickets part of a world: assignment groups from the org's teams, a project per department
that runs one (IT help desk, engineering, sales operations, legal requests), components, sprints,
and tickets whose people, teams and customers are the world's own: production incidents worked
by engineering on-call groups (and discussed in #incidents), CRM cases escalated into engineering
bugs that name the real account (the case keeps the ticket key), legal reviews of real accounts.

Every time is no later than the end of the seeded history; tickets are built as records first
(seed_data.tickets_build), numbered per project in creation order, then bulk-inserted here.
"""

from __future__ import annotations

from datetime import timedelta
from random import Random

from sqlalchemy import bindparam, insert, select, update
from sqlalchemy.orm import Session

from officegym.apps.crm.models import Case
from officegym.apps.org.models import Department
from officegym.apps.tickets.models import (Comment, Component, Group, GroupMember, HistoryEntry, Link, Project,
                                           Sprint, Ticket, TicketComponent, TicketLabel, Watcher)

from . import tickets_story as story
from . import tickets_vocab as tv
from .bulk import bulk_insert
from .chat_text import history_end as chat_history_end
from .crm_model import Crm
from .org import Org
from .tickets_build import TicketMaker
from .tickets_model import GroupRec, ProjectRec, Tickets


def _groups(org: Org) -> dict[str, GroupRec]:
    """A group per team of IT, Engineering (on-call), Legal, Customer Success and Sales Operations."""
    groups: dict[str, GroupRec] = {}
    for team in org.teams:
        if team.dept not in ("IT", "Engineering", "Legal", "Customer Success") and team.area != "Sales Operations":
            continue
        on_call = team.dept == "Engineering"
        name = f"{team.area} On-Call" if on_call else team.area
        if name in groups:  # a squad joins the group of its area (the area's first team owns the group)
            groups[name].member_ids = sorted(set(groups[name].member_ids) | set(team.member_ids))
            continue
        members = sorted(set(team.member_ids) | ({org.heads["IT"]} if team.dept == "IT" else set()))
        description = (f"On-call rotation of the {team.area} team: production incidents" if on_call
                       else f"The {team.area} team's queue")
        groups[name] = GroupRec(len(groups) + 1, name, members, on_call, team.id, description)
    return groups


def _projects(org: Org) -> dict[str, ProjectRec]:
    """IT, ENG, SOPS and LEGAL, for the departments the company has."""
    plans = [("IT", "IT Help Desk", "service_desk", "IT", "Laptops, access, network and production incidents"),
             ("ENG", "Engineering", "software", "Engineering", "Product engineering work across the teams"),
             ("SOPS", "Sales Operations", "software", "Sales", "CRM, forecasting, territories and quotes"),
             ("LEGAL", "Legal Requests", "service_desk", "Legal", "Contract reviews, NDAs and privacy questions")]
    projects: dict[str, ProjectRec] = {}
    for key, name, kind, dept, description in plans:
        if dept not in org.heads:
            continue
        leads = [t.lead_id for t in org.teams if t.dept == dept and t.name in ("IT Support", "Sales Operations")]
        lead = leads[0] if leads else org.heads[dept]
        agents = [p.id for p in org.in_dept(dept)]
        projects[key] = ProjectRec(len(projects) + 1, key, name, kind, lead, dept, description, agents=agents)
    return projects


def _components(org: Org, projects: dict[str, ProjectRec]) -> list[dict]:
    rows = []
    named = {"IT": tv.IT_COMPONENTS,
             "ENG": [(t.name, t.focus) for t in org.teams if t.dept == "Engineering"],
             "SOPS": [("CRM", "CRM data and configuration"), ("Forecasting", "Pipeline and forecast reports"),
                      ("Territories", "Account assignment"), ("Quotes", "Quote templates and approvals")],
             "LEGAL": [("Contracts", "Customer and vendor contracts"), ("Privacy", "DPAs and privacy questions"),
                       ("Trademarks", "Names and brands")]}
    for project in projects.values():
        for name, description in named[project.key]:
            rows.append({"id": len(rows) + 1, "project_id": project.id, "name": name, "description": description,
                         "lead_id": None})
            project.components[name] = len(rows)
    return rows


def _sprints(org: Org, projects: dict[str, ProjectRec], spec) -> list[dict]:
    """ENG's last sprint (closed), the active one (started the Monday before "now") and the next;
    with a long ticket history, a closed sprint for every fortnight of it."""
    if "ENG" not in projects:
        return []
    monday = org.now.date() - timedelta(days=org.now.weekday() + 7)
    plan = (("closed", -14), ("active", 0), ("future", 14))
    if spec.ticket_history:
        plan = story.sprint_plan(monday, (org.window_start - timedelta(days=63)).date())
    rows = []
    for k, (state, offset) in enumerate(plan):
        start = monday + timedelta(days=offset)
        last = k - len(plan) + 3  # the last three are always 0, 1, 2: ENG Sprint 23, 24 and 25
        goal = story.sprint_goal(k, len(plan)) or ("Stabilise payments retries",
                                                    "Ship bulk operations and on-call runbooks",
                                                    "Dependency upgrades")[last]
        rows.append({"id": k + 1, "project_id": projects["ENG"].id, "name": f"ENG Sprint {23 + last}",
                     "goal": goal, "state": state,
                     "start_date": start if state != "future" else None,
                     "end_date": start + timedelta(days=11) if state != "future" else None})
    return rows


def build_tickets(session: Session, spec, seed: int, org: Org, crm: Crm | None) -> Tickets:
    """Generate and insert the tickets app; return the `Tickets` description for chat."""
    rng = Random(f"{seed}:tickets")
    groups, projects = _groups(org), _projects(org)
    components, sprint_rows = _components(org, projects), _sprints(org, projects, spec)
    end = chat_history_end(org.now)
    cases = list(session.execute(select(Case.id, Case.subject, Case.description, Case.account_id, Case.owner_id,
                                        Case.created_at).where(Case.status == "Escalated").order_by(Case.id)))
    maker = TicketMaker(org, crm, spec, rng, groups, projects, sprint_rows, end)
    made = maker.make_all(cases)
    for ticket in made.tickets:
        org.ticket_keys.setdefault(ticket.project.key, []).append((ticket.created_at, ticket.key))
    session.execute(insert(Group), [{"id": g.id, "name": g.name, "description": g.description, "team_id": g.team_id,
                                     "on_call": g.on_call} for g in groups.values()])
    session.execute(insert(GroupMember), [{"group_id": g.id, "person_id": pid} for g in groups.values()
                                          for pid in g.member_ids])
    department_ids = dict(session.execute(select(Department.name, Department.id)).all())
    session.execute(insert(Project), [
        {"id": p.id, "key": p.key, "name": p.name, "kind": p.kind, "description": p.description, "lead_id": p.lead_id,
         "department_id": department_ids[p.dept], "created_at": org.founded,
         "next_number": 1 + sum(1 for t in made.tickets if t.project is p)} for p in projects.values()])
    if components:
        session.execute(insert(Component), components)
    if sprint_rows:
        session.execute(insert(Sprint), sprint_rows)
    _insert_tickets(session, made)
    escalated = [{"id": t.case_id, "ticket_key": t.key} for t in made.tickets if t.case_id is not None]
    if len(escalated) > 50:  # one statement for many cases (the same rows either way)
        session.connection().execute(update(Case.__table__).where(Case.__table__.c.id == bindparam("case_id"))
                                     .values(ticket_key=bindparam("key")),
                                     [{"case_id": e["id"], "key": e["ticket_key"]} for e in escalated])
    else:
        for e in escalated:
            session.execute(update(Case).where(Case.id == e["id"]).values(ticket_key=e["ticket_key"]))
    return made


def _insert_tickets(session: Session, made: Tickets) -> None:
    rows, labels, comps, comments, watchers, history = [], [], [], [], [], []
    for t in made.tickets:
        rows.append({"id": t.id, "project_id": t.project.id, "number": t.number, "key": t.key, "type": t.type,
                     "summary": t.summary, "description": t.description, "status": t.status,
                     "resolution": t.resolution, "priority": t.priority,
                     "priority_rank": {"Highest": 5, "High": 4, "Medium": 3, "Low": 2, "Lowest": 1}[t.priority],
                     "impact": t.impact, "urgency": t.urgency, "reporter_id": t.reporter_id,
                     "assignee_id": t.assignee_id, "group_id": t.group_id,
                     "parent_id": t.parent.id if t.parent else None, "sprint_id": t.sprint_id,
                     "account_id": t.account_id, "story_points": t.story_points, "due_date": t.due_date,
                     "created_at": t.created_at, "updated_at": t.updated_at,
                     "first_response_at": t.first_response_at, "resolved_at": t.resolved_at,
                     "paused_since": t.paused_since, "paused_minutes": 0})
        labels += [{"ticket_id": t.id, "name": name} for name in sorted(set(t.labels))]
        if t.component:
            comps.append({"ticket_id": t.id, "component_id": t.project.components[t.component]})
        comments += [{"ticket_id": t.id, "author_id": a, "body": body, "internal": internal, "created_at": at}
                     for a, body, internal, at in t.comments]
        watchers += [{"ticket_id": t.id, "person_id": pid} for pid in sorted(set(t.watchers))]
        history.append({"ticket_id": t.id, "field": "created", "old_value": "", "new_value": t.key,
                        "changed_by_id": t.reporter_id, "changed_at": t.created_at})
        if t.events:  # the whole story, step by step
            history += [{"ticket_id": t.id, "field": f, "old_value": old, "new_value": new, "changed_by_id": who,
                         "changed_at": at} for f, old, new, who, at in t.events]
        elif t.status not in ("New", "To Do"):
            who = t.assignee_id or t.reporter_id
            history.append({"ticket_id": t.id, "field": "status", "old_value": "New" if t.project.kind == "service_desk"
                            else "To Do", "new_value": t.status, "changed_by_id": who, "changed_at": t.updated_at})
    bulk_insert(session, Ticket, rows)
    comments.sort(key=lambda c: (c["created_at"], c["ticket_id"]))
    history.sort(key=lambda h: (h["changed_at"], h["ticket_id"]))
    links = [{"id": k, "source_id": s.id, "target_id": d.id, "kind": kind, "created_by_id": s.reporter_id,
              "created_at": max(s.created_at, d.created_at)} for k, (s, d, kind) in enumerate(made.links, start=1)]
    for table, batch in ((TicketLabel, labels), (TicketComponent, comps), (Comment, comments), (Watcher, watchers),
                         (Link, links), (HistoryEntry, history)):
        bulk_insert(session, table, batch)
