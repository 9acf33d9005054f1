"""Converters from tickets records to the output models of schemas.py.

Presenters only read. They take whole pages at once and load related names (people, groups,
sprints, labels) with one query per kind of relation, never one per row. What an actor may see
(work notes, private requests) is decided by the services they call.
"""

from __future__ import annotations

from typing import Sequence

from sqlalchemy import case, func, select
from sqlalchemy.orm import Session

from officegym import clock
from officegym.apps.crm.models import Account
from officegym.apps.org.models import Department, Person, Team
from officegym.apps.org.presenters import page_out, people_briefs, when

from . import lookups, services, workflow
from .models import (SERVICE_TYPES, SOFTWARE_TYPES, Article, Comment, Component, Group, GroupMember, HistoryEntry,
                     Project, Sprint, Ticket, TicketLabel, Watcher)
from .schemas import (ArticleDetailOut, ArticleOut, ArticleVersionOut, BoardOut, ColumnOut, CommentOut, ComponentOut,
                      GroupDetailOut, GroupOut, HistoryEntryOut, LinkOut, LinksOut, PersonBrief, ProjectDetailOut,
                      ProjectOut, Ref, SlaOut, SprintOut, TicketBrief, TicketDetailOut, TicketOut, TransitionOut,
                      WatchersOut)
from .sla import sla_clocks

__all__ = ["page_out", "people_out", "projects_out", "components_out", "project_detail_out", "groups_out",
           "group_detail_out", "tickets_out", "ticket_detail_out", "links_out", "comments_out", "watchers_out",
           "history_out", "sprints_out", "board_out", "articles_out", "article_detail_out"]


def _names(session: Session, model, ids) -> dict[int, str]:
    ids = {i for i in ids if i}
    return dict(session.execute(select(model.id, model.name).where(model.id.in_(ids))).all()) if ids else {}


def people_out(people: Sequence[Person]) -> list[PersonBrief]:
    """People as id, name and handle."""
    return [PersonBrief(id=p.id, name=p.name, handle=p.handle) for p in people]


def projects_out(session: Session, projects: Sequence[Project]) -> list[ProjectOut]:
    """Projects with their leads and departments."""
    leads = people_briefs(session, {p.lead_id for p in projects})
    departments = _names(session, Department, {p.department_id for p in projects})
    return [ProjectOut(id=p.id, key=p.key, name=p.name, kind=p.kind, description=p.description,
                       lead=leads[p.lead_id], department=departments.get(p.department_id, ""),
                       created_at=p.created_at.isoformat()) for p in projects]


def components_out(session: Session, components: Sequence[Component]) -> list[ComponentOut]:
    """Components with their leads."""
    leads = people_briefs(session, {c.lead_id for c in components})
    keys = dict(session.execute(select(Project.id, Project.key).where(
        Project.id.in_({c.project_id for c in components}))).all()) if components else {}
    return [ComponentOut(id=c.id, project=keys[c.project_id], name=c.name, description=c.description,
                         lead=leads.get(c.lead_id)) for c in components]


def project_detail_out(session: Session, actor: Person, project: Project) -> ProjectDetailOut:
    """One project with its components, types, statuses and the open tickets the actor sees."""
    counts = services.open_counts(session, actor, project)
    kinds = workflow.SERVICE_STATUSES if project.is_service_desk else workflow.SOFTWARE_STATUSES
    ordered = {status: counts[status] for status in kinds if status in counts}
    return ProjectDetailOut(**projects_out(session, [project])[0].model_dump(),
                            types=list(SERVICE_TYPES if project.is_service_desk else SOFTWARE_TYPES),
                            statuses=list(kinds),
                            components=components_out(session, services.list_components(session, actor, project.id)),
                            open_counts=ordered, open_total=sum(ordered.values()))


def groups_out(session: Session, groups: Sequence[Group]) -> list[GroupOut]:
    """Assignment groups with their teams and member counts."""
    ids = [g.id for g in groups]
    sizes = dict(session.execute(select(GroupMember.group_id, func.count()).where(GroupMember.group_id.in_(ids))
                                 .group_by(GroupMember.group_id)).all()) if ids else {}
    teams = _names(session, Team, {g.team_id for g in groups})
    return [GroupOut(id=g.id, name=g.name, description=g.description, team=teams.get(g.team_id), on_call=g.on_call,
                     member_count=sizes.get(g.id, 0)) for g in groups]


def group_detail_out(session: Session, actor: Person, group: Group) -> GroupDetailOut:
    """One assignment group with its members."""
    members = people_out(services.group_members(session, actor, group.id))
    return GroupDetailOut(**groups_out(session, [group])[0].model_dump(), members=members)


def tickets_out(session: Session, tickets: Sequence[Ticket]) -> list[TicketOut]:
    """Tickets with people, group, sprint, parent and labels (one query per relation)."""
    people = people_briefs(session, {t.reporter_id for t in tickets} | {t.assignee_id for t in tickets})
    groups = _names(session, Group, {t.group_id for t in tickets})
    sprints = _names(session, Sprint, {t.sprint_id for t in tickets})
    projects = dict(session.execute(select(Project.id, Project.key).where(
        Project.id.in_({t.project_id for t in tickets}))).all()) if tickets else {}
    parent_ids = {t.parent_id for t in tickets if t.parent_id}
    parents = dict(session.execute(select(Ticket.id, Ticket.key).where(Ticket.id.in_(parent_ids))).all()) \
        if parent_ids else {}
    labels: dict[int, list[str]] = {}
    if tickets:
        for ticket_id, name in session.execute(select(TicketLabel.ticket_id, TicketLabel.name).where(
                TicketLabel.ticket_id.in_([t.id for t in tickets])).order_by(TicketLabel.name)):
            labels.setdefault(ticket_id, []).append(name)
    return [TicketOut(id=t.id, key=t.key, project=projects[t.project_id], type=t.type, summary=t.summary,
                      status=t.status, resolution=t.resolution, priority=t.priority, reporter=people[t.reporter_id],
                      assignee=people.get(t.assignee_id), group=groups.get(t.group_id), sprint=sprints.get(t.sprint_id),
                      parent=parents.get(t.parent_id), labels=labels.get(t.id, []), story_points=t.story_points,
                      due_date=when(t.due_date), created_at=t.created_at.isoformat(),
                      updated_at=t.updated_at.isoformat()) for t in tickets]


def _brief(ticket: Ticket) -> TicketBrief:
    return TicketBrief(key=ticket.key, type=ticket.type, summary=ticket.summary, status=ticket.status)


def _links(session: Session, ticket: Ticket, actor: Person) -> list[LinkOut]:
    return [LinkOut(kind=reading, ticket=_brief(other), created_at=link.created_at.isoformat())
            for reading, other, link in services.links_of(session, ticket, actor)]


def _written(session: Session, key: str) -> Ticket:
    """The ticket a write just named by `key`. The write already checked access; it may have taken the
    ticket out of the actor's sight (a hand-over to another group, unwatching a private request), and
    presenting its result must not undo it."""
    prefix, number = lookups.parse_key(key)
    return session.scalar(select(Ticket).where(Ticket.key == f"{prefix}-{number}"))


def _watchers(session: Session, ticket: Ticket) -> list[PersonBrief]:
    return people_out(session.scalars(select(Person).join(Watcher, Watcher.person_id == Person.id)
                                      .where(Watcher.ticket_id == ticket.id).order_by(Person.name)))


def links_out(session: Session, actor: Person, key: str) -> LinksOut:
    """The links of the ticket `key` just linked or unlinked, as they stand now."""
    ticket = _written(session, key)
    return LinksOut(ticket=_brief(ticket), links=_links(session, ticket, actor))


def ticket_detail_out(session: Session, actor: Person, ticket: Ticket) -> TicketDetailOut:
    """One ticket with components, sub-tasks, links, watchers, transitions and SLA clocks; the comment
    count leaves out work notes unless the actor may read them."""
    account = session.get(Account, ticket.account_id) if ticket.account_id else None
    transitions = [TransitionOut(name=t.name, to=t.target, resolutions=list(t.resolutions),
                                 needs_assignee=t.needs_assignee)
                   for t in workflow.available(ticket.type, ticket.status)]
    sla = [SlaOut(name=c.name, state=c.state, target_minutes=c.target_minutes, elapsed_minutes=c.elapsed_minutes,
                  remaining_minutes=c.remaining_minutes, breached=c.breached, due_at=when(c.due_at))
           for c in sla_clocks(ticket, clock.now(session))]
    comments = select(func.count()).where(Comment.ticket_id == ticket.id)
    if not services.can_see_notes(session, actor, ticket):
        comments = comments.where(Comment.internal.is_(False))
    return TicketDetailOut(
        **tickets_out(session, [ticket])[0].model_dump(), description=ticket.description, impact=ticket.impact,
        urgency=ticket.urgency, account=Ref(id=account.id, name=account.name) if account else None,
        components=services.components_of(session, ticket),
        sub_tasks=[_brief(t) for t in services.sub_tasks(session, ticket)], links=_links(session, ticket, actor),
        watchers=_watchers(session, ticket), transitions=transitions, sla=sla,
        can_work=services.is_worker(session, actor, ticket), comment_count=session.scalar(comments) or 0,
        first_response_at=when(ticket.first_response_at), resolved_at=when(ticket.resolved_at))


def comments_out(session: Session, comments: Sequence[Comment]) -> list[CommentOut]:
    """Comments and work notes (already filtered by the service) with their authors and tickets."""
    authors = people_briefs(session, {c.author_id for c in comments})
    keys = dict(session.execute(select(Ticket.id, Ticket.key).where(
        Ticket.id.in_({c.ticket_id for c in comments}))).all()) if comments else {}
    return [CommentOut(id=c.id, ticket=keys[c.ticket_id], author=authors[c.author_id], body=c.body,
                       internal=c.internal, created_at=c.created_at.isoformat()) for c in comments]


def watchers_out(session: Session, key: str, person: Person) -> WatchersOut:
    """The watchers of the ticket `key` after `person` started or stopped watching it."""
    ticket = _written(session, key)
    watchers = _watchers(session, ticket)
    brief = people_out([person])[0]
    return WatchersOut(ticket=ticket.key, person=brief, watching=brief in watchers, watchers=watchers)


def history_out(session: Session, entries: Sequence[HistoryEntry]) -> list[HistoryEntryOut]:
    """Field changes with who made them."""
    people = people_briefs(session, {e.changed_by_id for e in entries})
    return [HistoryEntryOut(id=e.id, field=e.field, old_value=e.old_value, new_value=e.new_value,
                            changed_by=people[e.changed_by_id], changed_at=e.changed_at.isoformat()) for e in entries]


def sprints_out(session: Session, sprints: Sequence[Sprint]) -> list[SprintOut]:
    """Sprints with how many tickets they hold and how many of those are open."""
    ids = [s.id for s in sprints]
    is_open = case((Ticket.status.in_(workflow.DONE_STATUSES), 0), else_=1)
    counts = {sid: (total, open_) for sid, total, open_ in session.execute(
        select(Ticket.sprint_id, func.count(), func.sum(is_open)).where(Ticket.sprint_id.in_(ids))
        .group_by(Ticket.sprint_id))} if ids else {}
    keys = dict(session.execute(select(Project.id, Project.key).where(
        Project.id.in_({s.project_id for s in sprints}))).all()) if sprints else {}
    return [SprintOut(id=s.id, project=keys[s.project_id], name=s.name, goal=s.goal, state=s.state,
                      start_date=when(s.start_date), end_date=when(s.end_date),
                      ticket_count=counts.get(s.id, (0, 0))[0], open_count=counts.get(s.id, (0, 0))[1] or 0)
            for s in sprints]


def board_out(session: Session, board: services.Board) -> BoardOut:
    """A board's columns with their tickets (every card presented in one pass)."""
    cards = iter(tickets_out(session, [t for c in board.columns for t in c.tickets]))
    return BoardOut(project=board.project.key, sprint=sprints_out(session, [board.sprint])[0] if board.sprint else None,
                    columns=[ColumnOut(status=c.status, total=c.total, tickets=[next(cards) for _ in c.tickets])
                             for c in board.columns], offset=board.offset, next_offset=board.next_offset)


def articles_out(session: Session, articles: Sequence[Article]) -> list[ArticleOut]:
    """Knowledge base articles with their owners (no bodies)."""
    owners = people_briefs(session, {a.owner_id for a in articles})
    return [ArticleOut(number=a.number, title=a.title, category=a.category, owner=owners[a.owner_id],
                       version=a.version, updated_at=when(a.updated_at)) for a in articles]


def article_detail_out(session: Session, actor: Person, article: Article, version: int | None = None
                       ) -> ArticleDetailOut:
    """An article with the body of one version (the newest by default) and its whole history."""
    history = services.list_article_versions(session, actor, article.id)
    shown = services.get_article_version(session, actor, article.id, version) if version is not None else history[0]
    authors = people_briefs(session, {v.author_id for v in history})
    fields = {**articles_out(session, [article])[0].model_dump(), "title": shown.title, "category": shown.category}
    return ArticleDetailOut(**fields, shown_version=shown.version, body=shown.body, created_at=when(article.created_at),
                            versions=[ArticleVersionOut(version=v.version, author=authors[v.author_id], note=v.note,
                                                        created_at=when(v.created_at)) for v in history])

