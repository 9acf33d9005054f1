"""Incident follow-up, asked for by a teammate in a DM: a resolved production incident whose root cause
was never recorded. The engineer who worked it knows the cause and that a later incident had the same
one; the agent asks them in the incident's #incidents thread (never a DM), records the cause on both
incidents (work notes, and a public comment for each reporter), files the Problem for this week's
on-call engineer (or uses the one that tracks the cause already), links them, names it in both
threads and tells the teammate."""

from __future__ import annotations

from datetime import datetime, time, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from officegym import clock
from officegym.apps.chat import services as chat
from officegym.apps.org.models import Person
from officegym.apps.tickets import services as tickets
from officegym.apps.tickets.models import Group, Link, Ticket
from officegym.colleagues import plant_note
from officegym.graders.checks import Allow, check, guard, nothing_else_changed
from officegym.graders.replies import report_reply
from officegym.graders.statements import Candidate, says, stated

from .base import Claim, Declaration, Ref, TaskInstance, TaskTemplate, Target, ToolCall
from .common import added_messages, allow_posts, channel_named, member_ids, named, spread, top_level_messages
from .decisions import reply_checks
from .handbook import read_rule
from .phrasing import request_instruction
from .procedures.oncall_week import SERVICES, SYMPTOMS
from .registry import register
from .split import of_split, person_in
from .tickets_common import (LOOKALIKES, added_tickets, allow_comment, allow_ticket, group_people, key_pool,
                             new_comments, next_key, project_id, ticket_by_key)
from .w_incidents import (COMMUNICATION, HANDOVER, asked_by_dm, filing_extras, incident_thread, on_call,
                          production_id, production_incidents, read_rota, report_step, request_reads,
                          requester_replies, this_monday)

# (what the engineer says caused it, the words a note or comment must keep)
CAUSES = [("a connection pool leak in the database client", "connection pool leak"),
          ("an expired TLS certificate on the internal load balancer", "expired TLS certificate"),
          ("a retry storm after a bad config push", "retry storm"),
          ("a full disk on the primary message broker", "full disk"),
          ("a missing index on the events table", "missing index"),
          ("clock skew between the nodes breaking token checks", "clock skew"),
          ("an unbounded queue consumer shipped in the last deploy", "unbounded queue consumer"),
          ("a cache stampede when the cache nodes restarted", "cache stampede")]
RECORDED = ("recorded", "tracked", "filed", "linked", "logged", "noted", "written up", "documented")
NEEDS_WORK = "What we shipped only hid it: the cause is still there and needs proper engineering work."


def _problem_of(session: Session, ticket: Ticket) -> Ticket | None:
    """The Problem an incident is linked to (is caused by), if any."""
    target = session.scalar(select(Link.target_id).where(Link.source_id == ticket.id, Link.kind == "caused_by"))
    return session.get(Ticket, target) if target else None


def _followups(session: Session, split: str) -> tuple[list, list]:
    """Resolved production incidents of the split announced in #incidents by their assignee and reported by
    someone else: those no Problem tracks, and those linked to a Problem of their group, with that Problem."""
    free, linked = [], []
    for ticket in of_split(split, "ticket", production_incidents(session), lambda t: t.key):
        top = incident_thread(session, ticket.key)
        if (ticket.status in ("Resolved", "Closed") and top is not None and top.author_id == ticket.assignee_id
                and ticket.reporter_id != ticket.assignee_id):
            problem = _problem_of(session, ticket)
            if problem is None:
                free.append((ticket, None))
            elif problem.group_id == ticket.group_id:
                linked.append((ticket, problem))
    return free, linked


@register
class IncidentRootCauseFollowup(TaskTemplate):
    """A teammate does a resolved incident's follow-up: asks the engineer who worked it in the incident's
    thread, records the cause on it and on the later incident the engineer names (work notes, a public
    comment for each reporter), and files the Problem for this week's on-call engineer or uses the one that
    tracks the cause already: both incidents linked, the cause on the Problem, its key in both threads."""

    id, apps, kind, difficulty, scale = ("w.postmortem_root_cause", ("tickets", "chat", "sheets"), "workflow", 5,
                                         "medium")
    toolsets = ("chat", "sheets", "tickets.work")  # its apps hold over 100 tools
    rules = (COMMUNICATION, HANDOVER)
    summary = ("Record a resolved incident's root cause, learned from its engineer in the incident's thread, on it "
               "and on the later incident with the same cause; file or reuse the Problem, link both, tell reporters.")

    def sample(self, session, rng, instance):
        free, linked = _followups(session, self.split)
        # One instance in three reuses the Problem that tracks the cause already; the others file it.
        if instance % 3 == 2 and linked:
            ticket, problem = spread(linked, instance // 3)
        else:
            ticket, problem = spread(free or linked, 2 * (instance // 3) + instance % 3)
        incidents = channel_named(session, "incidents")
        inside = member_ids(session, incidents.id)
        engineer = session.get(Person, ticket.assignee_id)
        group = session.get(Group, ticket.group_id)
        members = group_people(session, group.id)
        actor = rng.choice([p for p in members if p.id not in (engineer.id, ticket.reporter_id)
                            and p.id in inside and person_in(self.split, p.id)])
        text, words = CAUSES[rng.randrange(len(CAUSES))]
        later_key = next_key(session, "IT")
        problem_key = problem.key if problem else f"IT-{int(later_key.split('-')[1]) + 1}"
        tail = f"That is what {problem.key} tracks." if problem else NEEDS_WORK
        note = (f"The root cause of {ticket.key} was {text}. {later_key}, last week, had the same cause: its "
                f"follow-up is the same. {tail}")
        later = _later(session, rng, ticket, actor, engineer, problem is None)
        owner = on_call(session, group.name, this_monday(session)) or engineer
        requester = rng.choice([p for p in members if p.id not in (actor.id, engineer.id)] or [owner])
        steps = [*request_reads(actor.id, requester.id), ToolCall("tickets_get_ticket", {"key": ticket.key}),
                 ToolCall("tickets_list_comments", {"key": ticket.key}),
                 *read_rule(session, COMMUNICATION, "incident root cause"),
                 ToolCall("chat_search_messages", {"query": f"{ticket.key} {ticket.summary}", "channel": "incidents"}),
                 ToolCall("chat_get_thread", {"message_id": Ref(6, "items.0.id")}),
                 ToolCall("chat_post_message", {"channel": "incidents", "thread_parent_id": Ref(7, "parent.id"),
                                                "text": f"@{engineer.handle} I'm doing the follow-up of "
                                                        f"{ticket.key}: what was its root cause?"}, role="ask"),
                 ToolCall("chat_get_thread", {"message_id": Ref(7, "parent.id")}),
                 ToolCall("tickets_add_work_note", {"key": ticket.key,
                                                    "body": f"Root cause (per @{engineer.handle}): {text}."},
                          role="note"),
                 ToolCall("tickets_get_ticket", {"key": later_key}),
                 ToolCall("tickets_list_comments", {"key": later_key}),
                 ToolCall("tickets_add_work_note", {"key": later_key, "body": f"Root cause (per @{engineer.handle}, "
                                                                              f"same as {ticket.key}): {text}."},
                          role="note")]
        if problem is None:
            steps += [ToolCall("tickets_search_tickets", {"query": "project = IT AND type = Problem AND "
                                                                   "statusCategory != Done"}),
                      *read_rule(session, HANDOVER, "on-call rota"), *read_rota(),
                      ToolCall("tickets_get_group", {"group": group.name}),
                      ToolCall("tickets_create_ticket", {"project": "IT", "type": "Problem",
                                                         "summary": f"Root cause of {ticket.key} and {later_key}: "
                                                                    f"{text}",
                                                         "description": note, "group": group.name,
                                                         "assignee": f"@{owner.handle}",
                                                         "components": ["Production"]}),
                      ToolCall("tickets_link_tickets", {"key": ticket.key, "kind": "is caused by",
                                                        "other": problem_key})]
        else:
            steps += [ToolCall("tickets_get_ticket", {"key": problem_key}),
                      ToolCall("tickets_add_work_note", {"key": problem_key,
                                                         "body": f"Root cause confirmed by @{engineer.handle}: {text}. "
                                                                 f"It caused {ticket.key} and {later_key}."},
                               role="note")]
        at = len(steps) + 1
        steps += [ToolCall("tickets_link_tickets", {"key": later_key, "kind": "is caused by", "other": problem_key}),
                  ToolCall("chat_search_messages", {"query": f"{later_key} {later['summary']}",
                                                    "channel": "incidents"}),
                  ToolCall("chat_get_thread", {"message_id": Ref(at, "items.0.id")})]
        for key, parent in ((ticket.key, Ref(7, "parent.id")), (later_key, Ref(at + 1, "parent.id"))):
            steps.append(ToolCall("chat_post_message", {"channel": "incidents", "thread_parent_id": parent,
                                                        "text": f"Root cause of {key} recorded; it is tracked in "
                                                                f"{problem_key}."}, role="report"))
        for key in (ticket.key, later_key):
            steps.append(ToolCall("tickets_add_comment", {"key": key, "body": f"Follow-up: the root cause was {text}. "
                                                                            f"The lasting fix is tracked in "
                                                                            f"{problem_key}."}, role="note"))
        steps.append(report_step(actor.id, requester.id, f"Done: the root cause of {ticket.key} and {later_key} "
                                                         f"({text}) is recorded, and {problem_key} tracks it."))
        return TaskInstance(
            self.id, instance, actor.id,
            request_instruction(rng, named(session, requester)),
            steps,
            {"key": ticket.key, "later": later_key, "engineer": engineer.id, "cause": text, "words": words,
             "problem": problem.key if problem else None, "channel": incidents.id,
             "thread": incident_thread(session, ticket.key).id, "group": group.name, "requester": requester.id},
            setup=asked_by_dm(requester.id, actor.id, (
                f"Hi! {ticket.key} (\"{ticket.summary}\") was resolved, but its root cause never got recorded. Could "
                f"you do its follow-up the way the handbook says? @{engineer.handle}, who worked it, knows what caused "
                "it and whether another incident had the same cause (ask them once; follow that one up the same way). "
                f"Any work the follow-up creates goes to whoever is on call for {group.name} this week. Also: the "
                "Problem that tracks the cause must state it, each incident's #incidents thread must end up naming "
                "that Problem, and each incident's reporter should learn the cause from a public comment on their "
                "ticket."), _story(engineer.id, ticket.key, note, later)))

    def declare(self, start, inst):
        p = inst.params
        ticket = ticket_by_key(start, p["key"])
        near = [t for t in production_incidents(start) if t.id != ticket.id and t.status in ("Resolved", "Closed")
                and t.group_id == ticket.group_id and t.key != p["later"]]
        near.sort(key=lambda t: abs(t.id - ticket.id))
        others = [w for _, w in CAUSES if w != p["words"]]
        key = p["problem"] or next_key(start, "IT")
        return Declaration([Target("ticket", ticket.key, [t.key for t in near[:LOOKALIKES]]),
                            Target("message", p["thread"], top_level_messages(start, p["channel"], [p["thread"]]),
                                   {"channel": "incidents"})],
                           [Claim(Candidate.text(p["words"]), [Candidate.text(w) for w in others], "body",
                                  "root cause"),
                            Claim(Candidate.text(key), key_pool(start, "IT", key, (p["key"], p["later"])), "text",
                                  "problem key")])

    def check(self, ctx, inst):
        p = inst.params
        cause, key_claim = self.declare(ctx.start, inst).claims
        pid = project_id(ctx.start, "IT")
        filed = [r for r in added_tickets(ctx, "IT") if r["type"] == "Problem"]
        problem = (ticket_by_key(ctx.start, p["problem"]) if p["problem"] else None)
        problem_id = problem.id if problem else (filed[0]["id"] if filed else None)
        key = p["problem"] or (filed[0]["key"] if filed else key_claim.right.label)
        pool = key_pool(ctx.start, "IT", key, (p["key"], p["later"]))
        results, allowed = [], []
        for incident_key in (p["key"], p["later"]):
            ticket = ticket_by_key(ctx.start, incident_key)
            top = incident_thread(ctx.start, incident_key)
            replies = [r["text"] for r in added_messages(ctx, ctx.actor_id)
                       if top is not None and r["thread_parent_id"] == top.id]
            linked = problem_id is not None and ctx.final.scalar(select(Link.id).where(
                Link.source_id == ticket.id, Link.target_id == problem_id, Link.kind == "caused_by")) is not None
            results += [*says([r["body"] for r in new_comments(ctx, ticket.id, internal=True)], cause.right,
                              cause.others, f"A work note on {incident_key} records the root cause ({p['cause']})",
                              cause.kind, weight=3),
                        *says([r["body"] for r in new_comments(ctx, ticket.id, internal=False)], cause.right,
                              cause.others, f"A public comment on {incident_key} tells its reporter the cause",
                              cause.kind),
                        *([] if problem is not None and incident_key == p["key"] else  # linked already
                          [check(f"{incident_key} is linked to the Problem {key} (is caused by)", linked,
                                 "no such link")]),
                        *says(replies, Candidate.text(key), pool, f"A reply in {incident_key}'s #incidents thread "
                              f"names the Problem {key}", key_claim.kind, deniable=False),
                        *report_reply([t for t in replies if stated(t, [Candidate.text(key)])], f"That reply says "
                                      f"{incident_key}'s root cause is recorded", RECORDED, weight=2)]
            if incident_key == p["key"]:
                engineer = Candidate.person(ctx.start.get(Person, p["engineer"]))
                results.append(guard(f"The cause is {engineer.label}'s: you asked them in {incident_key}'s thread",
                                     any(stated(t, [engineer]) for t in replies), "no reply there asks them"))
            allowed += [allow_comment(ctx, ticket.id, None, internal=True),
                        allow_comment(ctx, ticket.id, None, internal=False),
                        allow_ticket(ticket.id, "first_response_at"),
                        Allow("tickets_link", ("added",), lambda r, t=ticket.id: r["source_id"] == t and linked
                              and r["target_id"] == problem_id and r["kind"] == "caused_by")]
            if top is not None:
                # the first thread holds the question and the Problem's key; the second, the key (and a word more)
                allowed += allow_posts(ctx, p["channel"], top.id, limit=2, mentions=2)
        if problem is None:
            owner = on_call(ctx.start, p["group"], this_monday(ctx.start)) or ctx.start.get(Person, p["engineer"])
            row = filed[0] if filed else {}
            production = production_id(ctx.start)
            results += [check("One Problem was filed in IT", len(filed) == 1, f"{len(filed)} problems of yours"),
                        check(f"It is {owner.name}'s, on call for {p['group']} this week",
                              row.get("assignee_id") == owner.id, f"assigned to {row.get('assignee_id')}"),
                        *says([f"{row.get('summary', '')}\n{row.get('description', '')}"] if row else [],
                              cause.right, cause.others, f"The Problem states the cause ({p['cause']})", cause.kind,
                              weight=1)]
            allowed += [Allow("tickets_ticket", ("added",), lambda r: r["project_id"] == pid and r["type"] == "Problem"
                              and r["reporter_id"] == ctx.actor_id),
                        Allow("tickets_project", ("updated",), lambda r: r["id"] == pid, ("next_number",)),
                        Allow("tickets_ticket_component", ("added",), lambda r: r["component_id"] == production),
                        *filing_extras(problem_id)]
        else:
            notes = [r["body"] for r in new_comments(ctx, problem.id)]
            results += [guard(f"No new Problem was filed: {problem.key} tracks the cause", not filed,
                              f"{len(filed)} problems filed"),
                        *says(notes, cause.right, cause.others, f"A note on {problem.key} states the cause",
                              cause.kind, weight=1)]
            allowed += [allow_comment(ctx, problem.id, None, internal=True),
                        allow_comment(ctx, problem.id, None, internal=False), allow_ticket(problem.id)]
        texts, told = requester_replies(ctx, p["requester"])
        facts = [cause, Claim(Candidate.text(key), pool, "text", key_claim.kind)]
        results += reply_checks(texts, False, ctx.start.get(Person, p["requester"]).name, facts, actions=RECORDED)
        return results + [nothing_else_changed(ctx.diff, allowed + told)]


def _later(session: Session, rng, ticket: Ticket, actor: Person, engineer: Person, workaround: bool) -> dict:
    """The story of the later incident with the same cause: filed last week by someone of the service
    desk, worked by an engineer of the same group, resolved (with a workaround while the cause is there)."""
    it = session.get(Person, ticket.reporter_id)
    desk = [p for p in session.scalars(select(Person).where(Person.department_id == ticket.project.department_id)
                                       .order_by(Person.id)) if p.id not in (actor.id, engineer.id)]
    mates = [p for p in group_people(session, ticket.group_id) if p.id != actor.id]
    busy = " ".join(session.scalars(select(Ticket.summary).where(Ticket.type == "Incident")))
    summary = rng.choice([f"{s} {y}" for s in SERVICES for y in SYMPTOMS if f"{s} {y}" not in busy])
    return {"reporter": rng.choice(desk or [it]).id, "engineer": rng.choice(mates).id, "summary": summary,
            "impact": rng.choice(("High", "Medium")), "urgency": rng.choice(("High", "Medium", "Low")),
            "resolution": "Workaround" if workaround or rng.random() < 0.5 else "Fixed",
            "group": session.get(Group, ticket.group_id).name}


def _story(engineer_id: int, key: str, note: str, later: dict):
    """Setup: the later incident (filed, announced in #incidents, worked and resolved last week), and what
    the engineer who worked the first one knows."""
    def run(session: Session) -> None:
        reporter, engineer = session.get(Person, later["reporter"]), session.get(Person, later["engineer"])
        when = datetime.combine(this_monday(session) - timedelta(days=5), time(10, 20))
        clock.set_time(session, when)
        found = tickets.create_ticket(session, reporter, "IT", "Incident", later["summary"], "Alert from monitoring.",
                                      impact=later["impact"], urgency=later["urgency"], group=later["group"],
                                      assignee=engineer.id, components=["Production"])
        clock.set_time(session, when + timedelta(minutes=12))
        tickets.transition_ticket(session, engineer, found.key, "Start work")
        top = chat.post_message(session, engineer, channel_named(session, "incidents").id,
                                f":rotating_light: {found.key} · {later['summary']}. Impact {found.impact}, urgency "
                                f"{found.urgency}, so priority {found.priority}. {later['group']} is on it.")
        clock.set_time(session, when + timedelta(hours=3))
        tickets.transition_ticket(session, engineer, found.key, "Resolve", later["resolution"])
        chat.post_message(session, engineer, top.channel_id, f"{found.key} is resolved ({later['resolution']}).",
                          thread_parent_id=top.id)
        plant_note(session, session.get(Person, engineer_id), "ticket", key, note)
    return run
