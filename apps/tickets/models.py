"""Tickets tables: projects, components, assignment groups, tickets with labels, components,
comments and work notes, watchers and links, sprints, the field history of every ticket, and the
knowledge base (the company handbook: articles and their versions).

Statuses, transitions and SLA targets are rules, not data: they live in workflow.py and sla.py.
"""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import Boolean, Date, DateTime, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from officegym.apps.org.models import Person
from officegym.db import Base

PROJECT_KINDS = ("software", "service_desk")
SOFTWARE_TYPES = ("Bug", "Task", "Story", "Sub-task")
SERVICE_TYPES = ("Incident", "Service Request", "Problem")
TYPES = SOFTWARE_TYPES + SERVICE_TYPES
# Highest first; `rank` 1..5 orders them (ORDER BY priority DESC puts Highest first).
PRIORITIES = ("Highest", "High", "Medium", "Low", "Lowest")
PRIORITY_RANK = {name: 5 - k for k, name in enumerate(PRIORITIES)}
LEVELS = ("High", "Medium", "Low")  # impact and urgency of incidents
SPRINT_STATES = ("future", "active", "closed")
KB_CATEGORIES = ("Sales", "Customer Support", "IT", "Security", "People", "Finance", "Engineering", "Operations")


class Project(Base):
    """A software project or a service desk, with a key such as IT that prefixes its tickets."""

    __tablename__ = "tickets_project"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    key: Mapped[str] = mapped_column(String(10), unique=True)
    name: Mapped[str] = mapped_column(String(80), unique=True)
    kind: Mapped[str] = mapped_column(String(12))
    description: Mapped[str] = mapped_column(String(500), default="")
    lead_id: Mapped[int] = mapped_column(ForeignKey("org_person.id"), index=True)
    department_id: Mapped[int] = mapped_column(ForeignKey("org_department.id"), index=True)
    next_number: Mapped[int] = mapped_column(Integer, default=1)
    created_at: Mapped[datetime] = mapped_column(DateTime)

    @property
    def is_service_desk(self) -> bool:
        """Service desks keep requests private to their reporters and run SLAs."""
        return self.kind == "service_desk"

    def __repr__(self) -> str:
        return f"<Project {self.key}>"


class Component(Base):
    """A part of a project (a service, a product area) that tickets are filed against."""

    __tablename__ = "tickets_component"
    __table_args__ = (UniqueConstraint("project_id", "name"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("tickets_project.id"), index=True)
    name: Mapped[str] = mapped_column(String(60))
    description: Mapped[str] = mapped_column(String(250), default="")
    lead_id: Mapped[int | None] = mapped_column(ForeignKey("org_person.id"))


class Group(Base):
    """An assignment group: the people who work a queue (IT Support, Platform On-Call, ...)."""

    __tablename__ = "tickets_group"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(80), unique=True)
    description: Mapped[str] = mapped_column(String(250), default="")
    team_id: Mapped[int | None] = mapped_column(ForeignKey("org_team.id"))
    on_call: Mapped[bool] = mapped_column(Boolean, default=False)  # pages people for incidents

    def __repr__(self) -> str:
        return f"<Group {self.name!r}>"


class GroupMember(Base):
    """A person in an assignment group."""

    __tablename__ = "tickets_group_member"
    group_id: Mapped[int] = mapped_column(ForeignKey("tickets_group.id"), primary_key=True)
    person_id: Mapped[int] = mapped_column(ForeignKey("org_person.id"), primary_key=True, index=True)


class Sprint(Base):
    """A time box of a software project's board."""

    __tablename__ = "tickets_sprint"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("tickets_project.id"), index=True)
    name: Mapped[str] = mapped_column(String(80))
    goal: Mapped[str] = mapped_column(String(250), default="")
    state: Mapped[str] = mapped_column(String(8), default="future")
    start_date: Mapped[date | None] = mapped_column(Date)
    end_date: Mapped[date | None] = mapped_column(Date)


class Ticket(Base):
    """An issue, task, incident or request. `key` is the project key and a number (IT-142)."""

    __tablename__ = "tickets_ticket"
    __table_args__ = (UniqueConstraint("project_id", "number"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("tickets_project.id"))
    number: Mapped[int] = mapped_column(Integer)
    key: Mapped[str] = mapped_column(String(20), unique=True)
    type: Mapped[str] = mapped_column(String(20))
    summary: Mapped[str] = mapped_column(String(255))
    description: Mapped[str] = mapped_column(Text, default="")
    status: Mapped[str] = mapped_column(String(24))
    resolution: Mapped[str] = mapped_column(String(24), default="")
    priority: Mapped[str] = mapped_column(String(8), default="Medium")
    priority_rank: Mapped[int] = mapped_column(Integer, default=3)
    impact: Mapped[str] = mapped_column(String(8), default="")
    urgency: Mapped[str] = mapped_column(String(8), default="")
    reporter_id: Mapped[int] = mapped_column(ForeignKey("org_person.id"), index=True)
    assignee_id: Mapped[int | None] = mapped_column(ForeignKey("org_person.id"), index=True)
    group_id: Mapped[int | None] = mapped_column(ForeignKey("tickets_group.id"), index=True)
    parent_id: Mapped[int | None] = mapped_column(ForeignKey("tickets_ticket.id"), index=True)
    sprint_id: Mapped[int | None] = mapped_column(ForeignKey("tickets_sprint.id"))  # indexed below
    account_id: Mapped[int | None] = mapped_column(ForeignKey("crm_account.id"), index=True)
    story_points: Mapped[int | None] = mapped_column(Integer)
    due_date: Mapped[date | None] = mapped_column(Date)
    created_at: Mapped[datetime] = mapped_column(DateTime)
    updated_at: Mapped[datetime] = mapped_column(DateTime)
    first_response_at: Mapped[datetime | None] = mapped_column(DateTime)
    resolved_at: Mapped[datetime | None] = mapped_column(DateTime)
    paused_since: Mapped[datetime | None] = mapped_column(DateTime)  # set while waiting on the customer
    paused_minutes: Mapped[int] = mapped_column(Integer, default=0)  # SLA time spent paused before

    project: Mapped[Project] = relationship()
    # Loaded with the tickets of a query in one more query (pages and boards show the names).
    assignee: Mapped[Person | None] = relationship(foreign_keys=[assignee_id], lazy="selectin")
    reporter: Mapped[Person] = relationship(foreign_keys=[reporter_id], lazy="selectin")

    def __repr__(self) -> str:
        return f"<Ticket {self.key}>"


# Boards and queues: a project's tickets in one status, highest priority first (then by number).
Index("ix_tickets_ticket_project_status_rank", Ticket.project_id, Ticket.status, Ticket.priority_rank.desc(),
      Ticket.number)
# A sprint's board: its tickets in one status, highest priority first, and its counts per status,
# read from the index alone (a project-wide index would walk every sprint's done tickets).
Index("ix_tickets_ticket_sprint_status", Ticket.sprint_id, Ticket.status, Ticket.priority_rank.desc(), Ticket.number,
      Ticket.project_id)


class TicketLabel(Base):
    """A free-form label on a ticket."""

    __tablename__ = "tickets_label"
    ticket_id: Mapped[int] = mapped_column(ForeignKey("tickets_ticket.id"), primary_key=True)
    name: Mapped[str] = mapped_column(String(40), primary_key=True, index=True)


class TicketComponent(Base):
    """A component a ticket is filed against."""

    __tablename__ = "tickets_ticket_component"
    ticket_id: Mapped[int] = mapped_column(ForeignKey("tickets_ticket.id"), primary_key=True)
    component_id: Mapped[int] = mapped_column(ForeignKey("tickets_component.id"), primary_key=True, index=True)


class Comment(Base):
    """A comment (seen by the reporter) or an internal work note (agents only)."""

    __tablename__ = "tickets_comment"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    ticket_id: Mapped[int] = mapped_column(ForeignKey("tickets_ticket.id"), index=True)
    author_id: Mapped[int] = mapped_column(ForeignKey("org_person.id"))
    body: Mapped[str] = mapped_column(Text)
    internal: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(DateTime)


class Watcher(Base):
    """Someone notified of a ticket's changes."""

    __tablename__ = "tickets_watcher"
    ticket_id: Mapped[int] = mapped_column(ForeignKey("tickets_ticket.id"), primary_key=True)
    person_id: Mapped[int] = mapped_column(ForeignKey("org_person.id"), primary_key=True, index=True)


class Link(Base):
    """A directed link: `source` blocks / duplicates / relates to / is caused by `target`."""

    __tablename__ = "tickets_link"
    __table_args__ = (UniqueConstraint("source_id", "target_id", "kind"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    source_id: Mapped[int] = mapped_column(ForeignKey("tickets_ticket.id"), index=True)
    target_id: Mapped[int] = mapped_column(ForeignKey("tickets_ticket.id"), index=True)
    kind: Mapped[str] = mapped_column(String(12))
    created_by_id: Mapped[int] = mapped_column(ForeignKey("org_person.id"))
    created_at: Mapped[datetime] = mapped_column(DateTime)


class HistoryEntry(Base):
    """Who changed which field of a ticket, when, from what to what. Bookkeeping for graders (it
    mirrors changes they already see in the ticket rows)."""

    __tablename__ = "tickets_history"
    __table_args__ = (Index("ix_tickets_history_ticket", "ticket_id", "id"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    ticket_id: Mapped[int] = mapped_column(ForeignKey("tickets_ticket.id"))
    field: Mapped[str] = mapped_column(String(40))
    old_value: Mapped[str] = mapped_column(String(500), default="")
    new_value: Mapped[str] = mapped_column(String(500), default="")
    changed_by_id: Mapped[int] = mapped_column(ForeignKey("org_person.id"))
    changed_at: Mapped[datetime] = mapped_column(DateTime)

# Link kinds: how the link reads from its source and from its target.
LINK_KINDS = {"blocks": ("blocks", "is blocked by"), "duplicates": ("duplicates", "is duplicated by"),
              "relates": ("relates to", "relates to"), "caused_by": ("is caused by", "causes")}


class Article(Base):
    """A knowledge base article (a policy or a runbook of the company handbook), numbered like
    KB0010001. Its title, category and body are those of its newest version."""

    __tablename__ = "tickets_article"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    number: Mapped[str] = mapped_column(String(12), unique=True)
    title: Mapped[str] = mapped_column(String(120), unique=True)
    category: Mapped[str] = mapped_column(String(30), index=True)
    owner_id: Mapped[int] = mapped_column(ForeignKey("org_person.id"), index=True)
    body: Mapped[str] = mapped_column(Text)
    version: Mapped[int] = mapped_column(Integer, default=1)
    created_at: Mapped[datetime] = mapped_column(DateTime)
    updated_at: Mapped[datetime] = mapped_column(DateTime)

    def __repr__(self) -> str:
        return f"<Article {self.number}>"


class ArticleVersion(Base):
    """One version of an article as it was written: who wrote it, when, and why."""

    __tablename__ = "tickets_article_version"
    __table_args__ = (UniqueConstraint("article_id", "version"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    article_id: Mapped[int] = mapped_column(ForeignKey("tickets_article.id"))
    version: Mapped[int] = mapped_column(Integer)
    title: Mapped[str] = mapped_column(String(120))
    category: Mapped[str] = mapped_column(String(30))
    body: Mapped[str] = mapped_column(Text)
    author_id: Mapped[int] = mapped_column(ForeignKey("org_person.id"))
    note: Mapped[str] = mapped_column(String(200), default="")
    created_at: Mapped[datetime] = mapped_column(DateTime)
