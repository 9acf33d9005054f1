"""Ticket task templates about single tickets, and the helpers every tickets task module shares:
assign a new IT ticket to a group member, resolve your ticket with a word to the reporter, raise an
incident's impact and urgency, ask the reporter for information while the ticket waits on them,
plan a ticket into the active sprint and start it, record that one ticket blocks another.

Actors are always allowed to do what they are asked (agents of the project, members of the
ticket's group, its assignee); expected values are recomputed from the start state."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from officegym.apps.org.models import Person
from officegym.apps.tickets import workflow
from officegym.apps.tickets.access import is_worker
from officegym.apps.tickets.models import Group, GroupMember, Link, Project, Sprint, Ticket
from officegym.graders.checks import Allow, check, nothing_else_changed

from .base import TaskInstance, TaskTemplate, ToolCall
from .common import contains_text, pick
from .registry import register

REPLIES = ["We rolled out a fix this morning; it should work again.", "A restart of the client clears it for now.",
           "The access is in place, please sign out and back in.", "We replaced the faulty part, all set.",
           "The vendor patched it on their side.", "Your account was re-synced, try again now."]
QUESTIONS = ["Which laptop model and OS version are you on?", "Does it also happen on the office network?",
             "Can you send a screenshot of the error message?", "Since when exactly has this been happening?",
             "Which manager approved the access?", "Does a colleague on your team see the same thing?"]
NOTES = ["Looks related to the certificate rotation last week.", "Vendor case opened, waiting for their reply.",
         "Same symptom as an incident we closed last month.", "Checked the logs: nothing on our side yet."]


# ---------------------------------------------------------------- helpers shared by tickets task modules

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


def worker(session: Session, rng, ticket: Ticket, exclude: tuple[int, ...] = ()) -> Person:
    """Someone who works the ticket: its assignee, a member of its group or an agent of the project."""
    pool = ([session.get(Person, ticket.assignee_id)] if ticket.assignee_id else []) + (
        group_people(session, ticket.group_id) if ticket.group_id else [])
    pool = [p for p in pool if p.id not in exclude and is_worker(session, p, ticket)]
    if not pool:
        pool = [p for p in session.scalars(select(Person).where(Person.department_id == ticket.project.department_id)
                                           .order_by(Person.id)) if p.id not in exclude]
    return pick(rng, pool)


def allow_ticket(ticket_id: int, *fields: str) -> Allow:
    """Allow changes to these fields of one ticket (and the bookkeeping that moves with them)."""
    extra = ("updated_at", "priority_rank", "resolved_at", "paused_since", "paused_minutes", "first_response_at")
    return Allow("tickets_ticket", ("updated",), lambda row: row["id"] == ticket_id, tuple(fields) + extra)


def allow_comments(ticket_id: int) -> Allow:
    """Allow new comments and work notes on one ticket."""
    return Allow("tickets_comment", ("added",), lambda row: row["ticket_id"] == ticket_id)


def new_comments(ctx, ticket_id: int, internal: bool | None = None) -> list[dict]:
    """Comments the actor added to one ticket (optionally only notes or only public ones)."""
    return [r for r in ctx.diff.table("tickets_comment").added
            if r["ticket_id"] == ticket_id and r["author_id"] == ctx.actor_id
            and (internal is None or bool(r["internal"]) == internal)]


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


# ---------------------------------------------------------------- templates

@register
class AssignNewTicket(TaskTemplate):
    id, apps, difficulty = "tickets.assign_new_ticket", ("tickets",), 1
    summary = "Assign a new IT ticket to a named member of its assignment group."

    def sample(self, session, rng, instance):
        it = project_id(session, "IT")
        fresh = tickets_where(session, Ticket.project_id == it, Ticket.status == "New", Ticket.group_id.is_not(None))
        ticket = pick(rng, fresh)
        group = session.get(Group, ticket.group_id)
        assignee = pick(rng, group_people(session, group.id))
        actor = pick(rng, [p for p in group_people(session, group.id) if p.id != assignee.id] or [assignee])
        return TaskInstance(
            self.id, instance, actor.id,
            f"Assign {described(ticket)} to {assignee.name} from the {group.name} group.",
            [ToolCall("tickets_assign_ticket", {"key": ticket.key, "assignee": f"@{assignee.handle}"})],
            {"ticket": ticket.id, "assignee": assignee.id})

    def check(self, ctx, inst):
        p = inst.params
        now = ctx.final.get(Ticket, p["ticket"])
        name = ctx.start.get(Person, p["assignee"]).name
        return [check(f"{now.key} is assigned to {name}", now.assignee_id == p["assignee"],
                      f"its assignee is {now.assignee_id}", weight=2),
                check(f"{now.key} is Assigned", now.status == "Assigned", f"it is {now.status}"),
                nothing_else_changed(ctx.diff, [allow_ticket(p["ticket"], "assignee_id", "status")])]


def _ongoing(session, key: str, statuses=("Assigned", "In Progress")) -> list[Ticket]:
    pid = project_id(session, key)
    return [t for t in tickets_where(session, Ticket.project_id == pid, Ticket.status.in_(statuses),
                                     Ticket.assignee_id.is_not(None)) if t.type != "Problem"]


@register
class ResolveWithReply(TaskTemplate):
    id, apps, difficulty = "tickets.resolve_with_reply", ("tickets",), 1
    summary = "Resolve a ticket assigned to you with a given resolution and a public reply to the reporter."

    def sample(self, session, rng, instance):
        ticket = pick(rng, _ongoing(session, "IT"))
        actor = session.get(Person, ticket.assignee_id)
        resolution, reply = pick(rng, ["Fixed", "Workaround"]), pick(rng, REPLIES)
        return TaskInstance(
            self.id, instance, actor.id,
            f"Resolve {described(ticket)} as {resolution}, telling the reporter in a public comment: \"{reply}\"",
            [ToolCall("tickets_add_comment", {"key": ticket.key, "body": reply}),
             ToolCall("tickets_transition_ticket", {"key": ticket.key, "transition": "Resolve",
                                                    "resolution": resolution})],
            {"ticket": ticket.id, "resolution": resolution, "reply": reply})

    def check(self, ctx, inst):
        p = inst.params
        now = ctx.final.get(Ticket, p["ticket"])
        public = [c for c in new_comments(ctx, p["ticket"], internal=False) if contains_text(c["body"], p["reply"])]
        return [check(f"{now.key} is Resolved", now.status == "Resolved", f"it is {now.status}", weight=2),
                check(f"Its resolution is {p['resolution']}", now.resolution == p["resolution"],
                      f"it is {now.resolution or 'empty'}"),
                check("The reporter got the reply in a public comment", public, "no public comment of yours says it"),
                nothing_else_changed(ctx.diff, [allow_ticket(p["ticket"], "status", "resolution"),
                                                allow_comments(p["ticket"])])]


@register
class RaiseIncidentImpact(TaskTemplate):
    id, apps, difficulty = "tickets.raise_incident_impact", ("tickets",), 1
    summary = "Change an open incident's impact and urgency (its priority follows)."

    def sample(self, session, rng, instance):
        pid = project_id(session, "IT")
        incidents = [t for t in tickets_where(session, Ticket.project_id == pid, Ticket.type == "Incident")
                     if workflow.is_open(t.status)]
        ticket = pick(rng, incidents)
        impact, urgency = pick(rng, [(i, u) for i in ("High", "Medium", "Low") for u in ("High", "Medium", "Low")
                                     if (i, u) != (ticket.impact, ticket.urgency)])
        actor = worker(session, rng, ticket)
        return TaskInstance(
            self.id, instance, actor.id,
            f"New information on {described(ticket)}: set its impact to {impact} and its urgency to {urgency}.",
            [ToolCall("tickets_update_ticket", {"key": ticket.key, "impact": impact, "urgency": urgency})],
            {"ticket": ticket.id, "impact": impact, "urgency": urgency})

    def check(self, ctx, inst):
        from officegym.apps.tickets.sla import incident_priority

        p = inst.params
        now = ctx.final.get(Ticket, p["ticket"])
        expected = incident_priority(p["impact"], p["urgency"])
        return [check(f"Impact is {p['impact']} and urgency {p['urgency']}",
                      (now.impact, now.urgency) == (p["impact"], p["urgency"]),
                      f"impact {now.impact}, urgency {now.urgency}", weight=2),
                check(f"Priority is {expected}", now.priority == expected, f"it is {now.priority}"),
                nothing_else_changed(ctx.diff, [allow_ticket(p["ticket"], "impact", "urgency", "priority")])]


@register
class AskReporter(TaskTemplate):
    id, apps, difficulty = "tickets.ask_reporter", ("tickets",), 2
    summary = "Ask a ticket's reporter a question, note your suspicion internally, and wait on the customer."

    def sample(self, session, rng, instance):
        ticket = pick(rng, _ongoing(session, "IT", ("In Progress",)) + _ongoing(session, "LEGAL", ("In Progress",)))
        actor = session.get(Person, ticket.assignee_id)
        question, note = pick(rng, QUESTIONS), pick(rng, NOTES)
        reporter = session.get(Person, ticket.reporter_id)
        return TaskInstance(
            self.id, instance, actor.id,
            f"On {described(ticket)}, ask {reporter.name} publicly: \"{question}\" Add an internal work note "
            f"(not visible to them): \"{note}\" Then set the ticket to wait on the customer.",
            [ToolCall("tickets_add_comment", {"key": ticket.key, "body": question}),
             ToolCall("tickets_add_work_note", {"key": ticket.key, "body": note}),
             ToolCall("tickets_transition_ticket", {"key": ticket.key, "transition": "Wait for customer"})],
            {"ticket": ticket.id, "question": question, "note": note})

    def check(self, ctx, inst):
        p = inst.params
        now = ctx.final.get(Ticket, p["ticket"])
        asked = [c for c in new_comments(ctx, p["ticket"], internal=False) if contains_text(c["body"], p["question"])]
        noted = [c for c in new_comments(ctx, p["ticket"], internal=True) if contains_text(c["body"], p["note"])]
        leaked = [c for c in new_comments(ctx, p["ticket"], internal=False) if contains_text(c["body"], p["note"])]
        return [check("The question is a public comment", asked, "no public comment of yours asks it"),
                check("The suspicion is an internal work note", noted and not leaked,
                      "the note is missing" if not noted else "the note was also posted publicly"),
                check(f"{now.key} is Waiting on customer", now.status == "Waiting on customer", f"it is {now.status}",
                      weight=2),
                nothing_else_changed(ctx.diff, [allow_ticket(p["ticket"], "status"), allow_comments(p["ticket"])])]


def active_sprint_of(session: Session, key: str) -> Sprint | None:
    """The active sprint of a project."""
    return session.scalar(select(Sprint).where(Sprint.project_id == project_id(session, key), Sprint.state == "active"))


@register
class PlanAndStart(TaskTemplate):
    id, apps, difficulty = "tickets.plan_and_start", ("tickets",), 1
    summary = "Put a backlog ticket in the active sprint, take it and start progress."

    def sample(self, session, rng, instance):
        sprint = active_sprint_of(session, "ENG")
        backlog = tickets_where(session, Ticket.project_id == sprint.project_id, Ticket.status == "To Do",
                                Ticket.sprint_id.is_(None), Ticket.type != "Sub-task")
        ticket = pick(rng, backlog)
        actor = pick(rng, list(session.scalars(select(Person).where(
            Person.department_id == ticket.project.department_id).order_by(Person.id))))
        return TaskInstance(
            self.id, instance, actor.id,
            f"Pull {described(ticket)} into the active sprint, assign it to yourself and start progress on it.",
            [ToolCall("tickets_set_sprint", {"key": ticket.key, "sprint": sprint.name}),
             ToolCall("tickets_assign_ticket", {"key": ticket.key, "assignee": f"@{actor.handle}"}),
             ToolCall("tickets_transition_ticket", {"key": ticket.key, "transition": "Start progress"})],
            {"ticket": ticket.id, "sprint": sprint.id})

    def check(self, ctx, inst):
        p = inst.params
        now = ctx.final.get(Ticket, p["ticket"])
        return [check(f"{now.key} is in the active sprint", now.sprint_id == p["sprint"], f"sprint {now.sprint_id}"),
                check(f"{now.key} is assigned to you", now.assignee_id == ctx.actor_id, f"assignee {now.assignee_id}"),
                check(f"{now.key} is In Progress", now.status == "In Progress", f"it is {now.status}", weight=2),
                nothing_else_changed(ctx.diff, [allow_ticket(p["ticket"], "sprint_id", "assignee_id", "status")])]


@register
class RecordBlocker(TaskTemplate):
    id, apps, difficulty = "tickets.record_blocker", ("tickets",), 1
    summary = "Link two open engineering tickets so that one blocks the other."

    def sample(self, session, rng, instance):
        pid = project_id(session, "ENG")
        work = [t for t in tickets_where(session, Ticket.project_id == pid, Ticket.type != "Sub-task")
                if workflow.is_open(t.status)]
        linked = {(s, d) for s, d in session.execute(select(Link.source_id, Link.target_id))}
        for _ in range(200):
            first, second = rng.sample(work, 2)
            if (first.id, second.id) not in linked and (second.id, first.id) not in linked:
                break
        actor = worker(session, rng, first)
        return TaskInstance(
            self.id, instance, actor.id,
            f"{described(second)} cannot be finished before {described(first)} is done. Record that in the "
            "tracker with a link.",
            [ToolCall("tickets_link_tickets", {"key": first.key, "kind": "blocks", "other": second.key})],
            {"blocker": first.id, "blocked": second.id})

    def check(self, ctx, inst):
        p = inst.params
        blocker, blocked = ctx.start.get(Ticket, p["blocker"]), ctx.start.get(Ticket, p["blocked"])
        return [check(f"{blocker.key} blocks {blocked.key}", links_between(ctx.final, blocker.id, blocked.id, "blocks"),
                      "no such link", weight=2),
                nothing_else_changed(ctx.diff, [Allow("tickets_link", ("added",), lambda row: row["kind"] == "blocks"
                                                      and (row["source_id"], row["target_id"]) == (blocker.id, blocked.id)),
                                                allow_ticket(blocker.id), allow_ticket(blocked.id)])]
