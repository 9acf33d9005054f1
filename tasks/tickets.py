"""Ticket task templates about single tickets: assign a new IT ticket to a group member, resolve
your ticket with a word to the reporter, raise an incident's impact and urgency, ask the reporter
for information while the ticket waits on them, plan a ticket into the active sprint and start it,
record that one ticket blocks another.

Actors are always allowed to do what they are asked (agents of the project, members of the
ticket's group, its assignee); expected values are recomputed from the start state. The helpers
live in tickets_common; the ones other task modules import from here are re-exported."""

from __future__ import annotations

from sqlalchemy import select

from officegym.apps.org.models import Person
from officegym.apps.tickets import workflow
from officegym.apps.tickets.models import Group, Link, Ticket
from officegym.graders.checks import Allow, check, nothing_else_changed
from officegym.graders.statements import Candidate, says

from . import tickets_vocab as vocab
from .base import Claim, Declaration, TaskInstance, TaskTemplate, Target, ToolCall
from .common import named, pick, spread
from .registry import register
from .split import in_split, person_in
from .tickets_common import (LOOKALIKES, active_sprint_of, allow_comment, allow_ticket, backlog, described,
                             ending, first_response, group_people, key_pool, links_between, new_comments,
                             posted_once, project_id, text_pool, ticket_target, tickets_where, worker, workers)


@register
class AssignNewTicket(TaskTemplate):
    id, apps, difficulty = "tickets.assign_new_ticket", ("tickets",), 1
    summary = "Assign a new IT ticket to a named member of its assignment group."

    def sample(self, session, rng, instance):
        it = project_id(session, "IT")
        fresh = tickets_where(session, Ticket.project_id == it, Ticket.status == "New", Ticket.group_id.is_not(None))
        fresh = [t for t in fresh if in_split(self.split, "ticket", t.key)
                 and any(person_in(self.split, p.id) for p in group_people(session, t.group_id))]
        # Instances step through the tickets and their group's people: a split has few new tickets.
        ticket, assignee = spread([(t, p) for t in fresh for p in group_people(session, t.group_id)], instance)
        group = session.get(Group, ticket.group_id)
        ours = [p for p in group_people(session, group.id) if person_in(self.split, p.id)]
        actor = pick(rng, [p for p in ours if p.id != assignee.id] or ours)
        return TaskInstance(
            self.id, instance, actor.id,
            f"Assign {described(ticket)} to {named(session, assignee)} from the {group.name} group. Change nothing "
            "else.",
            [ToolCall("tickets_assign_ticket", {"key": ticket.key, "assignee": f"@{assignee.handle}"})],
            {"ticket": ticket.id, "assignee": assignee.id})

    def declare(self, start, inst):
        ticket, assignee = start.get(Ticket, inst.params["ticket"]), start.get(Person, inst.params["assignee"])
        others = [f"@{p.handle}" for p in group_people(start, ticket.group_id) if p.id != assignee.id]
        return Declaration([ticket_target(start, ticket, inst.actor_id, first=lambda t: t.status == "New"),
                            Target("person", f"@{assignee.handle}", others)])

    def check(self, ctx, inst):
        p = inst.params
        was, now = ctx.start.get(Ticket, p["ticket"]), ctx.final.get(Ticket, p["ticket"])
        name = ctx.start.get(Person, p["assignee"]).name
        return [check(f"{now.key} is assigned to {name}", now.assignee_id == p["assignee"],
                      f"its assignee is {now.assignee_id}", weight=2),
                check(f"{now.key} is Assigned", now.status == "Assigned", f"it is {now.status}"),
                nothing_else_changed(ctx.diff, [allow_ticket(was.id, values=ending(
                    was, assignee_id=p["assignee"], status="Assigned"))])]


def _ongoing(session, key: str, statuses=("Assigned", "In Progress"), split: str | None = None) -> list[Ticket]:
    """A project's assigned tickets in these statuses, Problems aside (of `split`, assigned to
    someone of the split, when given)."""
    pid = project_id(session, key)
    return [t for t in tickets_where(session, Ticket.project_id == pid, Ticket.status.in_(statuses),
                                     Ticket.assignee_id.is_not(None)) if t.type != "Problem"
            and (split is None or in_split(split, "ticket", t.key) and person_in(split, t.assignee_id))]


@register
class ResolveWithReply(TaskTemplate):
    id, apps, difficulty = "tickets.resolve_with_reply", ("tickets",), 1
    summary = "Resolve a ticket assigned to you with a given resolution and a public reply to the reporter."

    def sample(self, session, rng, instance):
        # Instances step through the tickets and resolutions: a split has few tickets in progress.
        ticket, resolution = spread([(t, r) for t in _ongoing(session, "IT", split=self.split)
                                     for r in ("Fixed", "Workaround")], instance)
        actor = session.get(Person, ticket.assignee_id)
        reply = pick(rng, vocab.REPLIES)
        return TaskInstance(
            self.id, instance, actor.id,
            f"Resolve {described(ticket)} as {resolution}, telling the reporter in one public comment, word for "
            f"word: \"{reply}\" Change nothing else.",
            [ToolCall("tickets_add_comment", {"key": ticket.key, "body": reply}),
             ToolCall("tickets_transition_ticket", {"key": ticket.key, "transition": "Resolve",
                                                    "resolution": resolution})],
            {"ticket": ticket.id, "resolution": resolution, "reply": reply})

    def declare(self, start, inst):
        reply = inst.params["reply"]
        return Declaration([ticket_target(start, start.get(Ticket, inst.params["ticket"]), inst.actor_id)],
                           [Claim(Candidate.text(reply), text_pool(vocab.REPLIES, reply), "body", "reply")])

    def check(self, ctx, inst):
        p = inst.params
        was, now = ctx.start.get(Ticket, p["ticket"]), ctx.final.get(Ticket, p["ticket"])
        return [check(f"{now.key} is Resolved", now.status == "Resolved", f"it is {now.status}", weight=2),
                check(f"Its resolution is {p['resolution']}", now.resolution == p["resolution"],
                      f"it is {now.resolution or 'empty'}"),
                check("The reporter got the reply, word for word, in one public comment",
                      posted_once(ctx, was.id, p["reply"], internal=False), "no public comment of yours says it"),
                nothing_else_changed(ctx.diff, [
                    allow_ticket(was.id, "resolved_at", *first_response(was, ctx.actor_id),
                                 values=ending(was, status="Resolved", resolution=p["resolution"])),
                    allow_comment(ctx, was.id, p["reply"], internal=False)])]


@register
class RaiseIncidentImpact(TaskTemplate):
    id, apps, difficulty = "tickets.raise_incident_impact", ("tickets",), 1
    summary = "Change an open incident's impact and urgency (its priority follows)."

    def sample(self, session, rng, instance):
        pid = project_id(session, "IT")
        incidents = [t for t in tickets_where(session, Ticket.project_id == pid, Ticket.type == "Incident")
                     if workflow.is_open(t.status)]
        crew = {t.id: workers(session, t, also=incidents, split=self.split) for t in incidents
                if in_split(self.split, "ticket", t.key)}
        # the instance draws the incident (neighbouring instances differ), then one of the people who work it
        ticket = spread([t for t in incidents if crew.get(t.id)], instance)
        actor = pick(rng, sorted(crew[ticket.id], key=lambda p: p.id))
        impact, urgency = pick(rng, [(i, u) for i in ("High", "Medium", "Low") for u in ("High", "Medium", "Low")
                                     if (i, u) != (ticket.impact, ticket.urgency)])
        return TaskInstance(
            self.id, instance, actor.id,
            f"New information on {described(ticket)}: set its impact to {impact} and its urgency to {urgency}. "
            "Change nothing else.",
            [ToolCall("tickets_update_ticket", {"key": ticket.key, "impact": impact, "urgency": urgency})],
            {"ticket": ticket.id, "impact": impact, "urgency": urgency})

    def declare(self, start, inst):
        ticket = start.get(Ticket, inst.params["ticket"])
        return Declaration([ticket_target(start, ticket, inst.actor_id, Ticket.type == "Incident")])

    def check(self, ctx, inst):
        from officegym.apps.tickets.sla import incident_priority

        p = inst.params
        was, now = ctx.start.get(Ticket, p["ticket"]), ctx.final.get(Ticket, p["ticket"])
        expected = incident_priority(p["impact"], p["urgency"])
        return [check(f"Impact is {p['impact']} and urgency {p['urgency']}",
                      (now.impact, now.urgency) == (p["impact"], p["urgency"]),
                      f"impact {now.impact}, urgency {now.urgency}", weight=2),
                nothing_else_changed(ctx.diff, [allow_ticket(was.id, "priority_rank", values=ending(
                    was, impact=p["impact"], urgency=p["urgency"], priority=expected))])]


@register
class AskReporter(TaskTemplate):
    id, apps, difficulty = "tickets.ask_reporter", ("tickets",), 2
    summary = "Ask a ticket's reporter a question, note your suspicion internally, and wait on the customer."

    def sample(self, session, rng, instance):
        ticket = pick(rng, [t for t in _ongoing(session, "IT", ("In Progress",), self.split) + _ongoing(
            session, "LEGAL", ("In Progress",), self.split) if t.reporter_id != t.assignee_id])
        actor = session.get(Person, ticket.assignee_id)
        question, note = pick(rng, vocab.QUESTIONS), pick(rng, vocab.NOTES)
        reporter = session.get(Person, ticket.reporter_id)
        return TaskInstance(
            self.id, instance, actor.id,
            f"On {described(ticket)}, ask {named(session, reporter)} publicly, in one comment, word for word: \"{question}\" "
            f"Add one internal work note (not visible to them), word for word: \"{note}\" Then set the ticket to "
            "wait on the customer. Change nothing else.",
            [ToolCall("tickets_add_comment", {"key": ticket.key, "body": question}),
             ToolCall("tickets_add_work_note", {"key": ticket.key, "body": note}),
             ToolCall("tickets_transition_ticket", {"key": ticket.key, "transition": "Wait for customer"})],
            {"ticket": ticket.id, "question": question, "note": note})

    def declare(self, start, inst):
        question, note = inst.params["question"], inst.params["note"]
        return Declaration([ticket_target(start, start.get(Ticket, inst.params["ticket"]), inst.actor_id)],
                           [Claim(Candidate.text(question), text_pool(vocab.QUESTIONS, question), "body", "question"),
                            Claim(Candidate.text(note), text_pool(vocab.NOTES, note), "body", "work note")])

    def check(self, ctx, inst):
        p = inst.params
        was, now = ctx.start.get(Ticket, p["ticket"]), ctx.final.get(Ticket, p["ticket"])
        return [check("The question, word for word, is one public comment",
                      posted_once(ctx, was.id, p["question"], internal=False), "no public comment of yours asks it"),
                check("The suspicion, word for word, is one internal work note",
                      posted_once(ctx, was.id, p["note"], internal=True), "no work note of yours says it"),
                check(f"{now.key} is Waiting on customer", now.status == "Waiting on customer", f"it is {now.status}",
                      weight=2),
                nothing_else_changed(ctx.diff, [
                    allow_ticket(was.id, "paused_since", *first_response(was, ctx.actor_id),
                                 values=ending(was, status="Waiting on customer")),
                    allow_comment(ctx, was.id, p["question"], internal=False),
                    allow_comment(ctx, was.id, p["note"], internal=True)])]


@register
class PlanAndStart(TaskTemplate):
    id, apps, difficulty = "tickets.plan_and_start", ("tickets",), 2
    summary = "Put a backlog ticket in the active sprint, take it and start progress."

    def sample(self, session, rng, instance):
        sprint = active_sprint_of(session, "ENG")
        people = lambda t: [p for p in session.scalars(select(Person).where(  # noqa: E731
            Person.department_id == t.project.department_id, Person.id != t.assignee_id)
            .order_by(Person.id)) if person_in(self.split, p.id)]
        # Instances step through the tickets and who takes them: a split has few backlog tickets.
        ticket, actor = spread([(t, p) for t in backlog(session, sprint.project_id)
                                if in_split(self.split, "ticket", t.key) for p in people(t)], instance)
        return TaskInstance(
            self.id, instance, actor.id,
            f"Pull {described(ticket)} into the active sprint, assign it to yourself and start progress on it. "
            "Change nothing else.",
            [ToolCall("tickets_set_sprint", {"key": ticket.key, "sprint": sprint.name}),
             ToolCall("tickets_assign_ticket", {"key": ticket.key, "assignee": f"@{actor.handle}"}),
             ToolCall("tickets_transition_ticket", {"key": ticket.key, "transition": "Start progress"})],
            {"ticket": ticket.id, "sprint": sprint.id})

    def declare(self, start, inst):
        ticket = start.get(Ticket, inst.params["ticket"])
        return Declaration([Target("ticket", ticket.key, [t.key for t in backlog(start, ticket.project_id)
                                                          if t.id != ticket.id][:LOOKALIKES])])

    def check(self, ctx, inst):
        p = inst.params
        was, now = ctx.start.get(Ticket, p["ticket"]), ctx.final.get(Ticket, p["ticket"])
        return [check(f"{now.key} is in the active sprint", now.sprint_id == p["sprint"], f"sprint {now.sprint_id}"),
                check(f"{now.key} is assigned to you", now.assignee_id == ctx.actor_id, f"assignee {now.assignee_id}"),
                check(f"{now.key} is In Progress", now.status == "In Progress", f"it is {now.status}", weight=2),
                nothing_else_changed(ctx.diff, [allow_ticket(was.id, values=ending(
                    was, sprint_id=p["sprint"], assignee_id=ctx.actor_id, status="In Progress"))])]


BLOCKED = Candidate.text(*vocab.BLOCKED)


@register
class RecordBlocker(TaskTemplate):
    id, apps, difficulty = "tickets.record_blocker", ("tickets",), 1
    summary = "Link two open engineering tickets so that one blocks the other."

    def sample(self, session, rng, instance):
        pid = project_id(session, "ENG")
        work = [t for t in tickets_where(session, Ticket.project_id == pid, Ticket.type != "Sub-task")
                if workflow.is_open(t.status)]
        linked = {(s, d) for s, d in session.execute(select(Link.source_id, Link.target_id))}
        blockers = [t for t in work if in_split(self.split, "ticket", t.key) and workers(session, t, split=self.split)]
        for _ in range(200):
            first = pick(rng, blockers)
            second = pick(rng, [t for t in work if t.id != first.id])
            if (first.id, second.id) not in linked and (second.id, first.id) not in linked:
                break
        actor = worker(session, rng, first, split=self.split)
        return TaskInstance(
            self.id, instance, actor.id,
            f"{described(second)} cannot be finished before {described(first)} is done. Record that in the "
            f"tracker with one link, and add one public comment on {second.key} saying that it is blocked by "
            f"{first.key}. Change nothing else.",
            [ToolCall("tickets_add_comment", {"key": second.key,
                                              "body": f"Blocked by {first.key}: it has to be done first."}),
             ToolCall("tickets_link_tickets", {"key": first.key, "kind": "blocks", "other": second.key})],
            {"blocker": first.id, "blocked": second.id})

    def declare(self, start, inst):
        blocker, blocked = start.get(Ticket, inst.params["blocker"]), start.get(Ticket, inst.params["blocked"])
        both, work = {blocker.key, blocked.key}, Ticket.type != "Sub-task"
        keys = key_pool(start, blocker.project.key, blocker.key, allowed=(blocked.key,))
        return Declaration([ticket_target(start, blocker, inst.actor_id, work, exclude=both),
                            ticket_target(start, blocked, inst.actor_id, work, exclude=both)],
                           [Claim(Candidate.text(blocker.key), keys, "body", "ticket key"),
                            Claim(BLOCKED, [], "body", "dependency")])

    def check(self, ctx, inst):
        p = inst.params
        blocker, blocked = ctx.start.get(Ticket, p["blocker"]), ctx.start.get(Ticket, p["blocked"])
        key, dependency = self.declare(ctx.start, inst).claims
        comments = [c["body"] for c in new_comments(ctx, blocked.id, internal=False)]
        return [check(f"{blocker.key} blocks {blocked.key}", links_between(ctx.final, blocker.id, blocked.id, "blocks"),
                      "no such link", weight=2),
                *says(comments, key.right, key.others, f"Your comment on {blocked.key} names {blocker.key}",
                      key.kind, weight=1, deniable=False),
                *says(comments, dependency.right, [], f"It says that {blocked.key} is blocked", dependency.kind,
                      weight=1),
                nothing_else_changed(ctx.diff, [Allow("tickets_link", ("added",), lambda row: (
                                                    row["source_id"], row["target_id"], row["kind"]) == (
                                                    blocker.id, blocked.id, "blocks")),
                                                allow_ticket(blocker.id),
                                                allow_ticket(blocked.id, *first_response(blocked, ctx.actor_id)),
                                                allow_comment(ctx, blocked.id, None, internal=False)])]
