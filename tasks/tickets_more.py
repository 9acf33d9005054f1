"""Ticket task templates that take several steps: break a story into assigned sub-tasks, find and
close the duplicates of an incident filed this morning, close the sprint and start the next one,
hand a production incident to the right on-call group."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from officegym import clock
from officegym.apps.org.models import Person, Team
from officegym.apps.tickets import services as tickets
from officegym.apps.tickets import workflow
from officegym.apps.tickets.models import Component, Group, Project, Sprint, Ticket, TicketComponent
from officegym.graders.checks import Allow, check, nothing_else_changed

from .base import TaskInstance, TaskTemplate, ToolCall
from .common import pick
from .registry import register
from .tickets import (NOTES, active_sprint_of, allow_comments, allow_ticket, described, group_people, links_between,
                      new_comments, project_id, tickets_where, worker)

SUBTASKS = ["Write the design note", "Implement the change", "Add tests", "Update the runbook",
            "Roll out behind a flag", "Load-test the change", "Clean up the old code path"]
DUPLICATE_WORDS = ["Same problem here: {s}", "{s} - anyone else?", "{s} again today", "Urgent: {s}"]


def _team_of(session: Session, ticket: Ticket) -> list[Person]:
    """The engineers of the team named by the ticket's component (ENG components are teams)."""
    name = session.scalar(select(Component.name).join(TicketComponent, TicketComponent.component_id == Component.id)
                          .where(TicketComponent.ticket_id == ticket.id))
    team = session.scalar(select(Team).where(Team.name == name)) if name else None
    return list(session.scalars(select(Person).where(Person.team_id == team.id).order_by(Person.id))) if team else []


@register
class BreakIntoSubtasks(TaskTemplate):
    id, apps, difficulty = "tickets.break_into_subtasks", ("tickets",), 2
    summary = "Create named sub-tasks under a story and assign each to a named teammate."

    def sample(self, session, rng, instance):
        pid = project_id(session, "ENG")
        stories = [t for t in tickets_where(session, Ticket.project_id == pid, Ticket.type == "Story")
                   if workflow.is_open(t.status) and len(_team_of(session, t)) >= 2]
        story = pick(rng, stories)
        team = _team_of(session, story)
        actor = pick(rng, team)
        chosen = rng.sample(SUBTASKS, rng.choice((2, 3)))
        people = [pick(rng, team) for _ in chosen]
        listing = "; ".join(f"\"{s}\" for {p.name}" for s, p in zip(chosen, people))
        return TaskInstance(
            self.id, instance, actor.id,
            f"Break {described(story)} into sub-tasks, each assigned: {listing}.",
            [ToolCall("tickets_create_ticket", {"project": "ENG", "type": "Sub-task", "summary": s,
                                                "parent": story.key, "assignee": f"@{p.handle}"})
             for s, p in zip(chosen, people)],
            {"story": story.id, "subtasks": [[s, p.id] for s, p in zip(chosen, people)]})

    def check(self, ctx, inst):
        p = inst.params
        story = ctx.start.get(Ticket, p["story"])
        added = [r for r in ctx.diff.table("tickets_ticket").added if r["parent_id"] == story.id]
        results = []
        for summary, person_id in p["subtasks"]:
            name = ctx.start.get(Person, person_id).name
            found = [r for r in added if r["summary"].strip().casefold() == summary.casefold()
                     and r["type"] == "Sub-task" and r["assignee_id"] == person_id]
            results.append(check(f"Sub-task \"{summary}\" of {story.key} is assigned to {name}", len(found) == 1,
                                 f"found {len(found)} such sub-tasks"))
        results.append(check(f"Exactly {len(p['subtasks'])} sub-tasks were added", len(added) == len(p["subtasks"]),
                             f"{len(added)} were added"))
        results.append(nothing_else_changed(ctx.diff, [
            Allow("tickets_ticket", ("added",), lambda row: row["parent_id"] == story.id),
            Allow("tickets_project", ("updated",), lambda row: row["key"] == "ENG", ("next_number",))]))
        return results


def _file_duplicates(original_id: int, reporters: list[int], summaries: list[str], decoy: tuple[int, str]):
    """Setup: colleagues file the same problem again this morning, and someone files a different one."""
    def run(session: Session) -> None:
        original = session.get(Ticket, original_id)
        for person_id, summary in zip(reporters, summaries):
            tickets.create_ticket(session, session.get(Person, person_id), original.project.key, original.type,
                                  summary, original.description, impact=original.impact or None,
                                  urgency=original.urgency or None)
        tickets.create_ticket(session, session.get(Person, decoy[0]), original.project.key, "Incident", decoy[1],
                              "Not the same issue.", impact="Low", urgency="Low")
    return run


@register
class CloseDuplicates(TaskTemplate):
    id, apps, difficulty = "tickets.close_duplicates", ("tickets",), 3
    summary = "Find the tickets filed this morning that repeat an open incident; link and close them as duplicates."

    def sample(self, session, rng, instance):
        pid = project_id(session, "IT")
        originals = [t for t in tickets_where(session, Ticket.project_id == pid, Ticket.type == "Incident",
                                              Ticket.group_id.is_not(None)) if workflow.is_open(t.status)]
        original = pick(rng, originals)
        count = rng.choice((2, 3))
        staff = list(session.scalars(select(Person).where(Person.department_id != original.project.department_id)
                                     .order_by(Person.id)))
        reporters = [p.id for p in rng.sample(staff, count + 1)]
        phrase = original.summary[0].lower() + original.summary[1:] if original.summary[1:2].islower() \
            else original.summary
        summaries = [w.format(s=phrase) for w in rng.sample(DUPLICATE_WORDS, count)]
        decoy = (reporters[-1], pick(rng, ["Keyboard missing keys", "Request: standing desk", "Badge stopped working",
                                           "Calendar invites arrive twice"]))
        # The new tickets have no assignment group yet: only the project's own agents (its department)
        # can see and close them, so the actor is one of those who also work the incident, if any do.
        department = original.project.department_id
        actor = pick(rng, [p for p in group_people(session, original.group_id) if p.department_id == department]
                     or list(session.scalars(select(Person).where(Person.department_id == department)
                                             .order_by(Person.id))))
        first = original.project.next_number
        keys = [f"IT-{first + k}" for k in range(count)]
        steps = []
        for key in keys:
            steps += [ToolCall("tickets_link_tickets", {"key": key, "kind": "duplicates", "other": original.key}),
                      ToolCall("tickets_transition_ticket", {"key": key, "transition": "Cancel",
                                                             "resolution": "Duplicate"})]
        return TaskInstance(
            self.id, instance, actor.id,
            f"This morning colleagues filed new tickets in IT about the same problem as {described(original)}. "
            f"Find them, link each one as a duplicate of {original.key} and close it with the resolution Duplicate. "
            "Leave unrelated tickets alone.",
            [ToolCall("tickets_search_tickets", {"query": "project = IT AND created >= startOfDay() ORDER BY key"}),
             *steps],
            {"original": original.id, "reporters": reporters[:count], "summaries": summaries, "decoy": decoy[1]},
            setup=_file_duplicates(original.id, reporters[:count], summaries, decoy))

    def check(self, ctx, inst):
        p = inst.params
        original = ctx.start.get(Ticket, p["original"])
        copies = tickets_where(ctx.start, Ticket.summary.in_(p["summaries"]), Ticket.project_id == original.project_id)
        results = []
        for copy in copies:
            now = ctx.final.get(Ticket, copy.id)
            results.append(check(f"{copy.key} duplicates {original.key} and is closed as Duplicate",
                                 links_between(ctx.final, copy.id, original.id, "duplicates")
                                 and now.resolution == "Duplicate" and not workflow.is_open(now.status),
                                 f"{copy.key} is {now.status} ({now.resolution or 'unresolved'})", weight=2))
        if len(copies) != len(p["summaries"]):
            raise RuntimeError(f"the setup filed {len(copies)} of {len(p['summaries'])} copies")  # a grader fault
        ids = {c.id for c in copies}
        results.append(nothing_else_changed(ctx.diff, [
            Allow("tickets_link", ("added",), lambda row: row["source_id"] in ids and row["target_id"] == original.id
                  and row["kind"] == "duplicates"),
            *[allow_ticket(i, "status", "resolution") for i in ids], allow_ticket(original.id),
            *[allow_comments(i) for i in ids]]))
        return results


@register
class RollSprint(TaskTemplate):
    id, apps, difficulty = "tickets.roll_sprint", ("tickets",), 3
    summary = "Complete the active sprint moving unfinished work to the next one, add a ticket, start the next sprint."

    def sample(self, session, rng, instance):
        sprint = active_sprint_of(session, "ENG")
        upcoming = session.scalar(select(Sprint).where(Sprint.project_id == sprint.project_id, Sprint.state == "future")
                                  .order_by(Sprint.id))
        backlog = tickets_where(session, Ticket.project_id == sprint.project_id, Ticket.status == "To Do",
                                Ticket.sprint_id.is_(None), Ticket.type != "Sub-task")
        extras = sorted(rng.sample(backlog, rng.choice((1, 2))), key=lambda t: t.id)
        end = clock.now(session).date() + timedelta(days=rng.randint(9, 16))
        lead = session.get(Person, sprint_lead(session, sprint))
        return TaskInstance(
            self.id, instance, lead.id,
            f"Close out {sprint.name}: complete it, moving its unfinished tickets into {upcoming.name}. Add "
            f"{' and '.join(described(t) for t in extras)} to {upcoming.name} too, then start {upcoming.name} "
            f"today, ending {end.isoformat()}.",
            [ToolCall("tickets_complete_sprint", {"project": "ENG", "sprint": sprint.name, "move_to": upcoming.name}),
             *[ToolCall("tickets_set_sprint", {"key": t.key, "sprint": upcoming.name}) for t in extras],
             ToolCall("tickets_start_sprint", {"project": "ENG", "sprint": upcoming.name, "end_date": end.isoformat()})],
            {"sprint": sprint.id, "next": upcoming.id, "extras": [t.id for t in extras], "end": end.isoformat()})

    def check(self, ctx, inst):
        p = inst.params
        old, new = ctx.final.get(Sprint, p["sprint"]), ctx.final.get(Sprint, p["next"])
        unfinished = [t.id for t in tickets_where(ctx.start, Ticket.sprint_id == p["sprint"])
                      if t.status not in workflow.DONE_STATUSES]
        moved = [i for i in unfinished if ctx.final.get(Ticket, i).sprint_id == p["next"]]
        today = clock.now(ctx.start).date()
        moving = set(unfinished) | set(p["extras"])
        return [check(f"{old.name} is closed", old.state == "closed", f"it is {old.state}"),
                check(f"Its {len(unfinished)} unfinished tickets moved to {new.name}", len(moved) == len(unfinished),
                      f"{len(moved)} moved"),
                check(f"The added tickets are in {new.name}",
                      all(ctx.final.get(Ticket, i).sprint_id == p["next"] for i in p["extras"]), "not all of them"),
                check(f"{new.name} is active from {today.isoformat()} to {p['end']}",
                      new.state == "active" and new.start_date == today and new.end_date.isoformat() == p["end"],
                      f"{new.state}, {new.start_date} to {new.end_date}", weight=2),
                nothing_else_changed(ctx.diff, [
                    Allow("tickets_sprint", ("updated",), lambda row: row["id"] in (p["sprint"], p["next"]),
                          ("state", "start_date", "end_date")),
                    *[allow_ticket(i, "sprint_id") for i in sorted(moving)]])]


def sprint_lead(session: Session, sprint: Sprint) -> int:
    """The lead of the sprint's project."""
    return session.get(Project, sprint.project_id).lead_id


@register
class HandIncidentOver(TaskTemplate):
    id, apps, difficulty = "tickets.hand_incident_over", ("tickets",), 2
    summary = "Move an open production incident to another on-call group and member, with a work note saying why."

    def sample(self, session, rng, instance):
        groups = list(session.scalars(select(Group).where(Group.on_call.is_(True)).order_by(Group.id)))
        pid = project_id(session, "IT")
        incidents = [t for t in tickets_where(session, Ticket.project_id == pid, Ticket.group_id.in_([g.id for g in groups]),
                                                   Ticket.type == "Incident") if workflow.is_open(t.status)]
        ticket = pick(rng, incidents)
        target = pick(rng, [g for g in groups if g.id != ticket.group_id])
        person = pick(rng, group_people(session, target.id))
        actor = worker(session, rng, ticket)
        note = pick(rng, NOTES)
        return TaskInstance(
            self.id, instance, actor.id,
            f"{described(ticket)} belongs to {target.name}, not {session.get(Group, ticket.group_id).name}. Move it "
            f"to that group, assigned to {person.name}, and add a work note: \"{note}\"",
            [ToolCall("tickets_add_work_note", {"key": ticket.key, "body": note}),
             ToolCall("tickets_assign_ticket", {"key": ticket.key, "group": target.name,
                                                "assignee": f"@{person.handle}"})],
            {"ticket": ticket.id, "group": target.id, "assignee": person.id, "note": note})

    def check(self, ctx, inst):
        p = inst.params
        now = ctx.final.get(Ticket, p["ticket"])
        group = ctx.start.get(Group, p["group"])
        notes = [c for c in new_comments(ctx, p["ticket"], internal=True) if c["body"].strip() == p["note"]]
        return [check(f"{now.key} is with {group.name}", now.group_id == p["group"], f"group {now.group_id}", weight=2),
                check(f"{now.key} is assigned to {ctx.start.get(Person, p['assignee']).name}",
                      now.assignee_id == p["assignee"], f"assignee {now.assignee_id}"),
                check("The reason is an internal work note", notes, "no such work note of yours"),
                nothing_else_changed(ctx.diff, [allow_ticket(p["ticket"], "group_id", "assignee_id", "status"),
                                                allow_comments(p["ticket"])])]

