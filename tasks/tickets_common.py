"""Helpers the tickets task modules share: finding tickets, people and sprints in a world, the
look-alike tickets and candidate pools a declaration names, and the allowances of ticket writes.

A ticket may change only in the fields its task changes and in those the service sets as a
consequence; a consequence that depends on the case (an assignment moves a New ticket to Assigned,
a first public comment by a worker records the first response) is allowed only to the value the
service sets. Quoted texts are compared word for word."""

from __future__ import annotations

import re

from sqlalchemy import select
from sqlalchemy.orm import Session

from officegym.apps.org.models import Person
from officegym.apps.tickets import workflow
from officegym.apps.tickets.access import is_worker
from officegym.apps.tickets.models import Group, GroupMember, Link, Project, Sprint, Ticket
from officegym.graders.checks import Allow
from officegym.graders.statements import Candidate

from .base import Lookalikes, Target
from .common import pick
from .split import person_in

LOOKALIKES = 20  # look-alike tickets a declaration names at most


def tickets_where(session: Session, *conditions) -> list[Ticket]:
    """Tickets matching the conditions, by id."""
    return list(session.scalars(select(Ticket).where(*conditions).order_by(Ticket.id)))


def project_id(session: Session, key: str) -> int | None:
    """The id of a project by key (None when the world has no such project)."""
    return session.scalar(select(Project.id).where(Project.key == key))


def group_people(session: Session, group_id: int) -> list[Person]:
    """An assignment group's people, by id."""
    return list(session.scalars(select(Person).join(GroupMember, GroupMember.person_id == Person.id)
                                .where(GroupMember.group_id == group_id).order_by(Person.id)))


def group_named(session: Session, name: str) -> Group | None:
    """An assignment group by exact name."""
    return session.scalar(select(Group).where(Group.name == name))


def worker(session: Session, rng, ticket: Ticket, exclude: tuple[int, ...] = (), also=None,
           split: str | None = None) -> Person:
    """Someone who works the ticket: its assignee, a member of its group or an agent of the project
    (when `also` lists other tickets, someone who works one of them too; of `split` only, when given)."""
    return pick(rng, workers(session, ticket, exclude, also, split))


def workers(session: Session, ticket: Ticket, exclude: tuple[int, ...] = (), also=None,
            split: str | None = None) -> list[Person]:
    """Who `worker` draws from (none when the split has nobody to work the ticket)."""
    ours = lambda p: p.id not in exclude and (split is None or person_in(split, p.id))  # noqa: E731
    pool = ([session.get(Person, ticket.assignee_id)] if ticket.assignee_id else []) + (
        group_people(session, ticket.group_id) if ticket.group_id else [])
    pool = [p for p in pool if ours(p) and is_worker(session, p, ticket)
            and (also is None or any(is_worker(session, p, t) for t in also if t.id != ticket.id))]
    if not pool:
        pool = [p for p in session.scalars(select(Person).where(Person.department_id == ticket.project.department_id)
                                           .order_by(Person.id)) if ours(p)]
    return pool


def ticket_target(session: Session, ticket: Ticket, actor_id: int, *conditions, first=None, exclude=()) -> Target:
    """A ticket as a task's target, with its look-alikes: the other open tickets of its project
    matching the conditions, those `first` accepts before the others, then those the actor works, newest
    first."""
    def find() -> list[str]:
        actor = session.get(Person, actor_id)
        found = [t for t in tickets_where(session, Ticket.project_id == ticket.project_id, Ticket.id != ticket.id,
                                          *conditions) if workflow.is_open(t.status) and t.key not in exclude]
        found.sort(key=lambda t: (first is not None and not first(t), not is_worker(session, actor, t), -t.id))
        return [t.key for t in found[:LOOKALIKES]]
    return Target("ticket", ticket.key, Lookalikes(find))


def key_pool(session: Session, project_key: str, right: str, allowed: tuple[str, ...] = (), ahead: int = 3,
             near: int = 4) -> list[Candidate]:
    """The ticket keys a message could name instead of `right` (and of the `allowed` keys it may
    also name): the project's keys nearest to it and the next few it will give, one by one (for near
    misses), then every other key of the project as one pattern."""
    following = session.get(Project, project_id(session, project_key)).next_number
    skip = {int(key.rsplit("-", 1)[1]) for key in (right, *allowed) if key.startswith(f"{project_key}-")}
    number = int(right.rsplit("-", 1)[1])
    numbers = {n for n in range(number - near, number + near + 1) if 0 < n < following}
    numbers |= {following + k for k in range(ahead)}
    nearest = sorted(numbers - skip, key=lambda n: (abs(n - number), n))
    others = rf"{re.escape(project_key.casefold())}-(?!(?:{'|'.join(map(str, sorted(skip)))})(?!\d))\d+"
    return ([Candidate.text(f"{project_key}-{n}") for n in nearest]
            + [Candidate.pattern_of(f"another {project_key} key", others)])


def text_pool(vocabulary: list[str], right: str) -> list[Candidate]:
    """The other entries of a vocabulary of quoted texts, as candidates."""
    return [Candidate.text(v) for v in vocabulary if v != right]


def same_text(written: str | None, wanted: str) -> bool:
    """Whether a text is the wanted one word for word (case, spacing and surrounding quotes aside)."""
    fold = lambda s: " ".join((s or "").split()).strip("\"'“”‘’ ").casefold()  # noqa: E731
    return written is not None and fold(written) == fold(wanted)


def allow_ticket(ticket_id: int, *fields: str, values: dict[str, tuple] | None = None) -> Allow:
    """Allow one update of one ticket: the `fields` the task changes and `updated_at`, which every
    change touches. `values` names fields that may only end at one of the given values (a
    consequence the service sets, kept to the value it sets); they are allowed too."""
    pinned = dict(values or {})

    def ok(row: dict) -> bool:
        return row["id"] == ticket_id and all(row[f] in allowed for f, allowed in pinned.items())
    return Allow("tickets_ticket", ("updated",), ok, tuple(dict.fromkeys((*fields, *pinned, "updated_at"))))


def ending(was: Ticket, **values) -> dict[str, tuple]:
    """The values fields of a ticket may end at: as they were, or as given (for `allow_ticket`)."""
    return {field: (getattr(was, field), value) for field, value in values.items()}


def first_response(ticket: Ticket, actor_id: int) -> tuple[str, ...]:
    """`first_response_at` when a public comment of the actor (a worker) is the ticket's first
    response, as the service records it; else nothing."""
    return ("first_response_at",) if ticket.first_response_at is None and ticket.reporter_id != actor_id else ()


def allow_comment(ctx, ticket_id: int, body: str | None, internal: bool, limit: int = 1) -> Allow:
    """Allow `limit` comments (or work notes) of the actor on one ticket that say `body` word for
    word (any text when `body` is None)."""
    return Allow("tickets_comment", ("added",), lambda row: row["ticket_id"] == ticket_id
                 and row["author_id"] == ctx.actor_id and bool(row["internal"]) == internal
                 and (body is None or same_text(row["body"], body)), limit=limit)


def new_comments(ctx, ticket_id: int, internal: bool | None = None) -> list[dict]:
    """Comments the actor added to one ticket (optionally only notes or only public ones)."""
    return [r for r in ctx.diff.table("tickets_comment").added
            if r["ticket_id"] == ticket_id and r["author_id"] == ctx.actor_id
            and (internal is None or bool(r["internal"]) == internal)]


def posted_once(ctx, ticket_id: int, body: str, internal: bool) -> bool:
    """Whether the actor added exactly one comment (or work note) saying `body` to the ticket."""
    return len([c for c in new_comments(ctx, ticket_id, internal) if same_text(c["body"], body)]) == 1


def added_tickets(ctx, project_key: str) -> list[dict]:
    """Tickets the actor filed in a project during the episode."""
    pid = project_id(ctx.final, project_key)
    return [r for r in ctx.diff.table("tickets_ticket").added if r["project_id"] == pid
            and r["reporter_id"] == ctx.actor_id]


def described(ticket: Ticket) -> str:
    """'IT-12 ("Cannot connect to VPN")' for instructions."""
    return f"{ticket.key} (\"{ticket.summary}\")"


def links_between(session: Session, source_id: int, target_id: int, kind: str) -> bool:
    """Whether `source` has a link of `kind` to `target`."""
    return session.scalar(select(Link.id).where(Link.source_id == source_id, Link.target_id == target_id,
                                                Link.kind == kind)) is not None


def ticket_by_key(session: Session, key: str) -> Ticket:
    """A ticket by key."""
    return session.scalar(select(Ticket).where(Ticket.key == key))


def active_sprint_of(session: Session, key: str) -> Sprint | None:
    """The active sprint of a project."""
    return session.scalar(select(Sprint).where(Sprint.project_id == project_id(session, key), Sprint.state == "active"))


def backlog(session: Session, project: int) -> list[Ticket]:
    """A software project's backlog: tickets to do in no sprint, sub-tasks aside."""
    return tickets_where(session, Ticket.project_id == project, Ticket.status == "To Do", Ticket.sprint_id.is_(None),
                         Ticket.type != "Sub-task")


def next_key(session: Session, project_key: str) -> str:
    """The key the project's next ticket will get."""
    return f"{project_key}-{session.scalar(select(Project.next_number).where(Project.key == project_key))}"


def allow_new_ticket(ctx, project_key: str, kind: str, summary: str | None = None, account: int | None = None,
                     labels: tuple[str, ...] = (), component: int | None = None) -> list[Allow]:
    """Allow one new ticket of the actor in a project (of this type; with this summary word for word
    and this account when given), the project's ticket counter, and the labels or the component the
    task asks for."""
    pid = project_id(ctx.final, project_key)

    def asked(row: dict) -> bool:
        return (row["project_id"] == pid and row["reporter_id"] == ctx.actor_id and row["type"] == kind
                and (summary is None or same_text(row["summary"], summary))
                and (account is None or row["account_id"] == account))
    ids = {r["id"] for r in ctx.diff.table("tickets_ticket").added if asked(r)}
    allowed = [Allow("tickets_ticket", ("added",), asked),
               Allow("tickets_project", ("updated",), lambda row: row["id"] == pid, ("next_number",))]
    if labels:
        allowed.append(Allow("tickets_label", ("added",), lambda row: row["ticket_id"] in ids and row["name"] in labels,
                             limit=len(labels)))
    if component is not None:
        allowed.append(Allow("tickets_ticket_component", ("added",),
                             lambda row: row["ticket_id"] in ids and row["component_id"] == component))
    return allowed
