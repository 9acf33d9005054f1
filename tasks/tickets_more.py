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
from officegym.graders.checks import Allow, check, listed_once, nothing_else_changed
from officegym.graders.statements import Candidate

from . import tickets_vocab as vocab
from .base import Claim, Declaration, TaskInstance, TaskTemplate, Target, ToolCall
from .common import named, pick
from .registry import register
from .split import in_split, person_in
from .tickets_common import (LOOKALIKES, active_sprint_of, allow_comment, allow_ticket, backlog, described, ending,
                             first_response, group_people, links_between, posted_once, project_id, same_text,
                             text_pool, ticket_target, tickets_where)


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
                   if workflow.is_open(t.status) and len(_team_of(session, t)) >= 2
                   and in_split(self.split, "ticket", t.key)
                   and any(person_in(self.split, p.id) for p in _team_of(session, t))]
        story = pick(rng, stories)
        team = _team_of(session, story)
        actor = pick(rng, [p for p in team if person_in(self.split, p.id)])
        chosen = rng.sample(vocab.SUBTASKS, rng.choice((2, 3)))
        people = [pick(rng, team) for _ in chosen]
        listing = "; ".join(f"\"{s}\" for {named(session, p)}" for s, p in zip(chosen, people))
        return TaskInstance(
            self.id, instance, actor.id,
            f"Break {described(story)} into these {len(chosen)} sub-tasks, with exactly these summaries, each "
            f"assigned: {listing}. Add no other sub-tasks and change nothing else.",
            [ToolCall("tickets_create_ticket", {"project": "ENG", "type": "Sub-task", "summary": s,
                                                "parent": story.key, "assignee": f"@{p.handle}"})
             for s, p in zip(chosen, people)],
            {"story": story.id, "subtasks": [[s, p.id] for s, p in zip(chosen, people)]})

    def declare(self, start, inst):
        story = start.get(Ticket, inst.params["story"])
        chosen = [s for s, _ in inst.params["subtasks"]]
        unasked = [Candidate.text(s) for s in vocab.SUBTASKS if s not in chosen]
        return Declaration([ticket_target(start, story, inst.actor_id, Ticket.type != "Sub-task",
                                          first=lambda t: t.type == "Story")],
                           [Claim(Candidate.text(s), unasked, "summary", "sub-task") for s in chosen])

    def check(self, ctx, inst):
        p = inst.params
        story = ctx.start.get(Ticket, p["story"])
        added = [r for r in ctx.diff.table("tickets_ticket").added if r["parent_id"] == story.id]
        wanted = [s for s, _ in p["subtasks"]]
        results = []
        for summary, person_id in p["subtasks"]:
            name = ctx.start.get(Person, person_id).name
            found = [r for r in added if same_text(r["summary"], summary) and r["assignee_id"] == person_id]
            results.append(check(f"Sub-task \"{summary}\" of {story.key} is assigned to {name}", len(found) == 1,
                                 f"found {len(found)} such sub-tasks"))
        results.append(listed_once([r["summary"].strip().casefold() for r in added], "sub-task"))
        results.append(nothing_else_changed(ctx.diff, [
            Allow("tickets_ticket", ("added",), lambda row: row["parent_id"] == story.id and row["type"] == "Sub-task"
                  and any(same_text(row["summary"], s) for s in wanted), limit=len(wanted)),
            Allow("tickets_project", ("updated",), lambda row: row["id"] == story.project_id, ("next_number",))]))
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
        summaries = [w.format(s=phrase) for w in rng.sample(vocab.DUPLICATE_WORDS, count)]
        decoy = (reporters[-1], pick(rng, vocab.UNRELATED))
        # The new tickets have no assignment group yet: only the project's own agents (its department)
        # can see and close them, so the actor is one of those who also work the incident, if any do.
        department = original.project.department_id
        actor = pick(rng, [p for p in group_people(session, original.group_id) if p.department_id == department
                           and person_in(self.split, p.id)]
                     or [p for p in session.scalars(select(Person).where(Person.department_id == department)
                                                    .order_by(Person.id)) if person_in(self.split, p.id)])
        first = original.project.next_number
        keys = [f"IT-{first + k}" for k in range(count)]
        steps = []
        for key in keys:
            steps += [ToolCall("tickets_add_comment", {"key": key,
                                                       "body": f"Closing as a duplicate of {original.key}."}),
                      ToolCall("tickets_link_tickets", {"key": key, "kind": "duplicates", "other": original.key}),
                      ToolCall("tickets_transition_ticket", {"key": key, "transition": "Cancel",
                                                             "resolution": "Duplicate"})]
        return TaskInstance(
            self.id, instance, actor.id,
            f"This morning colleagues filed new tickets in IT about the same problem as {described(original)}. "
            f"Find them, link each one as a duplicate of {original.key} and close it with the resolution Duplicate "
            "(a short public comment to its reporter is fine). Leave every other ticket alone, the older ones "
            f"about the same problem and {original.key} itself included, and change nothing else.",
            [ToolCall("tickets_search_tickets", {"query": "project = IT AND created >= startOfDay() ORDER BY key"}),
             *steps],
            {"original": original.id, "reporters": reporters[:count], "summaries": summaries, "decoy": decoy[1]},
            setup=_file_duplicates(original.id, reporters[:count], summaries, decoy))

    def _copies(self, start, inst) -> tuple[Ticket, list[Ticket]]:
        p = inst.params
        original = start.get(Ticket, p["original"])
        copies = tickets_where(start, Ticket.summary.in_(p["summaries"]), Ticket.project_id == original.project_id,
                               Ticket.created_at >= clock.today(start))
        if len(copies) != len(p["summaries"]):
            raise RuntimeError(f"the setup filed {len(copies)} of {len(p['summaries'])} copies")  # a grader fault
        return original, copies

    def declare(self, start, inst):
        original, copies = self._copies(start, inst)
        keep = {original.key} | {c.key for c in copies}
        today = clock.today(start)
        return Declaration([ticket_target(start, c, inst.actor_id, exclude=keep, first=lambda t: t.created_at >= today)
                            for c in copies])

    def check(self, ctx, inst):
        original, copies = self._copies(ctx.start, inst)
        results = []
        for copy in copies:
            now = ctx.final.get(Ticket, copy.id)
            results.append(check(f"{copy.key} duplicates {original.key} and is closed as Duplicate",
                                 links_between(ctx.final, copy.id, original.id, "duplicates")
                                 and now.resolution == "Duplicate" and not workflow.is_open(now.status),
                                 f"{copy.key} is {now.status} ({now.resolution or 'unresolved'})", weight=2))
        ids = {c.id for c in copies}
        closed = {"status": ("New", "Resolved", "Closed"), "resolution": ("", "Duplicate")}
        results.append(nothing_else_changed(ctx.diff, [
            Allow("tickets_link", ("added",), lambda row: row["source_id"] in ids and row["target_id"] == original.id
                  and row["kind"] == "duplicates", limit=len(ids)),
            *[allow_ticket(c.id, "resolved_at", *first_response(c, ctx.actor_id), values=closed) for c in copies],
            allow_ticket(original.id), *[allow_comment(ctx, i, None, internal=False) for i in sorted(ids)]]))
        return results


@register
class RollSprint(TaskTemplate):
    id, apps, difficulty = "tickets.roll_sprint", ("tickets",), 2
    summary = "Complete the active sprint moving unfinished work to the next one, add a ticket, start the next sprint."

    def sample(self, session, rng, instance):
        sprint = active_sprint_of(session, "ENG")
        upcoming = session.scalar(select(Sprint).where(Sprint.project_id == sprint.project_id, Sprint.state == "future")
                                  .order_by(Sprint.id))
        ours = [t for t in backlog(session, sprint.project_id) if in_split(self.split, "ticket", t.key)]
        extras = sorted(rng.sample(ours, rng.choice((1, 2))), key=lambda t: t.id)
        end = clock.now(session).date() + timedelta(days=rng.randint(9, 16))
        lead = session.get(Person, sprint_lead(session, sprint))
        return TaskInstance(
            self.id, instance, lead.id,
            "Close out the active ENG sprint: complete it, moving its unfinished tickets into the next planned "
            f"sprint. Add {' and '.join(described(t) for t in extras)} to that next sprint too, then start it "
            f"today, ending {end.isoformat()}. Change nothing else.",
            [ToolCall("tickets_list_sprints", {"project": "ENG"}),
             ToolCall("tickets_complete_sprint", {"project": "ENG", "sprint": sprint.name, "move_to": upcoming.name}),
             *[ToolCall("tickets_set_sprint", {"key": t.key, "sprint": upcoming.name}) for t in extras],
             ToolCall("tickets_start_sprint", {"project": "ENG", "sprint": upcoming.name,
                                               "end_date": end.isoformat()})],
            {"sprint": sprint.id, "next": upcoming.id, "extras": [t.id for t in extras], "end": end.isoformat()})

    def declare(self, start, inst):
        extras = [start.get(Ticket, i) for i in inst.params["extras"]]
        others = [t.key for t in backlog(start, extras[0].project_id) if t.id not in inst.params["extras"]]
        return Declaration([Target("ticket", t.key, others[:LOOKALIKES]) for t in extras])

    def check(self, ctx, inst):
        p = inst.params
        old, new = ctx.final.get(Sprint, p["sprint"]), ctx.final.get(Sprint, p["next"])
        unfinished = [t.id for t in tickets_where(ctx.start, Ticket.sprint_id == p["sprint"])
                      if t.status not in workflow.DONE_STATUSES]
        moved = [i for i in unfinished if ctx.final.get(Ticket, i).sprint_id == p["next"]]
        today = clock.now(ctx.start).date()
        carried = f" and its {len(unfinished)} unfinished tickets are in {new.name}" if unfinished else ""
        return [check(f"{old.name} is closed{carried}", old.state == "closed" and len(moved) == len(unfinished),
                      f"it is {old.state}; {len(moved)} of {len(unfinished)} unfinished tickets moved", weight=2),
                check(f"The added tickets are in {new.name}",
                      all(ctx.final.get(Ticket, i).sprint_id == p["next"] for i in p["extras"]), "not all of them"),
                check(f"{new.name} is active from {today.isoformat()} to {p['end']}",
                      new.state == "active" and new.start_date == today and new.end_date.isoformat() == p["end"],
                      f"{new.state}, {new.start_date} to {new.end_date}", weight=2),
                nothing_else_changed(ctx.diff, [
                    Allow("tickets_sprint", ("updated",), lambda row: row["id"] == p["sprint"]
                          and row["state"] == "closed", ("state",)),
                    Allow("tickets_sprint", ("updated",), lambda row: (row["id"], row["state"]) == (p["next"], "active")
                          and (str(row["start_date"]), str(row["end_date"])) == (today.isoformat(), p["end"]),
                          ("state", "start_date", "end_date")),
                    *[allow_ticket(i, values={"sprint_id": (p["next"],)})
                      for i in sorted(set(unfinished) | set(p["extras"]))]])]


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
        incidents = [t for t in tickets_where(session, Ticket.project_id == pid, Ticket.type == "Incident",
                                              Ticket.group_id.in_([g.id for g in groups]))
                     if workflow.is_open(t.status) and in_split(self.split, "ticket", t.key)]
        ticket = pick(rng, incidents)
        target = pick(rng, [g for g in groups if g.id != ticket.group_id])
        person = pick(rng, group_people(session, target.id))
        # The service desk (the project's agents) moves tickets between groups; a member of the old group
        # could not touch the ticket once it has left.
        actor = pick(rng, [p for p in session.scalars(select(Person).where(
            Person.department_id == ticket.project.department_id).order_by(Person.id)) if person_in(self.split, p.id)])
        note = pick(rng, vocab.NOTES)
        return TaskInstance(
            self.id, instance, actor.id,
            f"{described(ticket)} belongs to {target.name}, not {session.get(Group, ticket.group_id).name}. Move it "
            f"to that group, assigned to {named(session, person)}, and add one work note, word for word: \"{note}\" "
            "Change nothing else.",
            [ToolCall("tickets_add_work_note", {"key": ticket.key, "body": note}),
             ToolCall("tickets_assign_ticket", {"key": ticket.key, "group": target.name,
                                                "assignee": f"@{person.handle}"})],
            {"ticket": ticket.id, "group": target.id, "assignee": person.id, "note": note})

    def declare(self, start, inst):
        p = inst.params
        ticket = start.get(Ticket, p["ticket"])
        return Declaration([ticket_target(start, ticket, inst.actor_id, Ticket.type == "Incident")],
                           [Claim(Candidate.text(p["note"]), text_pool(vocab.NOTES, p["note"]), "body", "work note")])

    def check(self, ctx, inst):
        p = inst.params
        was, now = ctx.start.get(Ticket, p["ticket"]), ctx.final.get(Ticket, p["ticket"])
        group = ctx.start.get(Group, p["group"])
        # Assigning a New ticket makes it Assigned; no other status change comes with a hand-over.
        status = {"status": "Assigned"} if was.status == "New" else {}
        return [check(f"{now.key} is with {group.name}", now.group_id == p["group"], f"group {now.group_id}", weight=2),
                check(f"{now.key} is assigned to {ctx.start.get(Person, p['assignee']).name}",
                      now.assignee_id == p["assignee"], f"assignee {now.assignee_id}"),
                check("The reason, word for word, is one internal work note",
                      posted_once(ctx, was.id, p["note"], internal=True), "no such work note of yours"),
                nothing_else_changed(ctx.diff, [allow_ticket(was.id, values=ending(
                    was, group_id=p["group"], assignee_id=p["assignee"], **status)),
                                                allow_comment(ctx, was.id, p["note"], internal=True)])]
