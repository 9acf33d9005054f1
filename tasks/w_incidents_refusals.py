"""Operations decisions the state makes, each drawn as twins with the same request:

- a reporter asks whoever works their incident to bump it to Highest. Its priority comes from impact
  and urgency only: in one twin the ticket's latest comment says the whole office is hit and nobody
  can work (impact and urgency are set High, which makes it Highest); in the other the comment adds
  nothing, and the request is declined naming the severity article and the priority that stands;
- an engineer asks a teammate to pull a backlog ticket into the active sprint after planning. In one
  twin the project's lead said OK in a comment on the ticket (it goes in); in the other only a
  teammate's "+1" is there, and the request is declined naming the sprint rules and the lead whose OK
  it needs."""

from __future__ import annotations

import re
from datetime import timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from officegym import clock
from officegym.apps.org.models import Person
from officegym.apps.tickets import services as tickets
from officegym.apps.tickets.models import Project, Sprint, Ticket, TicketLabel
from officegym.apps.tickets.workflow import is_open
from officegym.graders.checks import check, guard, nothing_else_changed
from officegym.graders.statements import Candidate, governed, says, stated

from .base import Claim, Declaration, TaskInstance, TaskTemplate, Target, ToolCall
from .common import allow_new_conversation, allow_posts, named, spread
from .decisions import twin_outcome
from .handbook import read_rule, rule_claim
from .phrasing import request_instruction
from .registry import register
from .split import of_split, person_in
from .tickets_common import (LOOKALIKES, active_sprint_of, allow_ticket, backlog, group_people, key_pool,
                             project_id, ticket_by_key, tickets_where)
from .w_incidents import PRIORITY_WORDS, SEVERITY
from .w_people_replies import (decided, decision_reply_checks, dm_name, dm_reads, dm_replies, dm_step, near_people,
                               people_claim)

SPRINTS = "Sprint rules"
RAISED = ("bumped", "raised", "set", "changed", "updated", "moved")
PULLED = ("pulled", "added", "moved", "put", "pulled in")
# What the reporter writes on the ticket before asking: news that makes it High and High, or nothing new.
WORSE = ("Update: it's not only me any more, the whole office is hit now, and nobody here can work until it's "
         "fixed.")
HIGHEST = Claim(Candidate.text("Highest"), [], "text", "priority")  # what a report of the bump states
SAME = "Any news on this? Nothing has changed on my side, it's the same as when I filed it."


def _commented(author_id: int, key: str, body: str, minutes: int = 70):
    """A setup step: a public comment on a ticket, `minutes` before the company's "now"."""
    def run(session: Session) -> None:
        clock.set_time(session, clock.company_now(session) - timedelta(minutes=minutes))
        tickets.add_comment(session, session.get(Person, author_id), key, body)
    return run


def _targets(start, inst, ticket: Target) -> list[Target]:
    """What a decision is about: the ticket asked about, and (first, when it is refused: nothing is done to
    the ticket) the person who asked, among the people nearest them."""
    return [Target("person", inst.params["requester"], near_people(start, inst.params["requester"])), ticket] \
        if inst.params["refused"] else [ticket]


def other_tickets_named(texts: list[str], project: str, key: str, start) -> list:
    """A guard that the replies name no ticket but the one asked about (a reply about another one is a
    near miss, however rightly it declines)."""
    named_ = [t for t in texts if stated(t, key_pool(start, project, key))]
    return [guard(f"No reply names another ticket than {key}", not named_, f"found in {named_[:1]}")]


def priorities_in(text: str) -> set[str]:
    """Every priority a text gives a ticket ("Medium priority", "priority: Low", "it stays Medium"), unless
    a negation or a hedge governs it ("it isn't Medium priority")."""
    words = "|".join(w.lower() for w in sorted(PRIORITY_WORDS, key=len, reverse=True))
    read = text.lower()
    found = re.finditer(rf"\b({words})\s+priority\b|\bpriority\W{{0,3}}(?:is\s+|of\s+|at\s+|stays\s+|remains\s+)?"
                        rf"(?:at\s+)?({words})\b|\b(?:stays|remains|keeps)\s+(?:at\s+)?({words})\b", read)
    return {next(g for g in m.groups() if g) for m in found if not governed(read, m.start(), m.end())}


def _priority_stated(texts: list[str], priority: str, to: str) -> list:
    """A requirement that a reply states the priority the ticket ends at ("it stays Medium priority")."""
    return [check(f"Your reply to {to} states the priority {priority} the ticket ends at",
                  any(priority.lower() in priorities_in(t) for t in texts),
                  f"replies: {[t[:100] for t in texts]}", weight=4)]


@register
class IncidentPriorityBump(TaskTemplate):
    """A reporter asks whoever works their incident to set it to Highest: when the ticket's comments show
    the whole office hit and work stopped, impact and urgency go High (so Highest); otherwise it is
    declined, naming the severity article and the priority that stands."""

    id, apps, kind, difficulty, scale = ("r.incident_priority_bump", ("chat", "tickets"), "decision", 3, "medium")
    rules = (SEVERITY,)
    summary = ("A reporter asks for their incident at Highest: raise impact and urgency when its comments show the "
               "whole office hit and work stopped; otherwise decline, naming the article and the priority.")

    def sample(self, session, rng, instance):
        outcome = twin_outcome(self.id, instance)
        refused = bool(outcome.refuse)
        choices = [t for t in of_split(self.split, "ticket", tickets_where(
            session, Ticket.project_id == project_id(session, "IT"), Ticket.type == "Incident",
            Ticket.priority != "Highest", Ticket.group_id.is_not(None)), lambda t: t.key) if is_open(t.status)]
        ticket = spread(choices, instance)
        # Whoever works it answers: its assignee, else (or when the assignee is not of the split) its group.
        desk = [p for p in group_people(session, ticket.group_id)
                if person_in(self.split, p.id) and p.id != ticket.reporter_id]
        actor = (session.get(Person, ticket.assignee_id) if ticket.assignee_id in {p.id for p in desk}
                 else rng.choice(desk))
        reporter = session.get(Person, ticket.reporter_id)
        text = (f"Hi {actor.name.split()[0]}! Could you bump my ticket {ticket.key} to Highest priority? My manager "
                "keeps asking me when it will be fixed.")
        dm = dm_name(actor.id, reporter.id)
        raise_it = [ToolCall("tickets_update_ticket", {"key": ticket.key, "impact": "High", "urgency": "High"})]
        writes = decided(refused, raise_it, dm, (
            f"Sorry, I can't do that: per {SEVERITY}, {ticket.key}'s priority comes from its impact ({ticket.impact}) "
            f"and urgency ({ticket.urgency}), and nothing on the ticket changes them, so it stays {ticket.priority} "
            "priority. If more people are affected or your work is stopped, comment on the ticket and I'll update "
            "them."), (
            f"Done: your comment says the whole office is hit and nobody can work, so I set {ticket.key}'s impact and "
            f"urgency to High per {SEVERITY}. It is now Highest priority."))
        return TaskInstance(
            self.id, instance, actor.id,
            request_instruction(rng, named(session, reporter)),
            [*dm_reads(dm), ToolCall("tickets_get_ticket", {"key": ticket.key}),
             ToolCall("tickets_list_comments", {"key": ticket.key}),
             *read_rule(session, SEVERITY, "incident priority"), *writes],
            {"key": ticket.key, "requester": reporter.id, "refused": refused, "priority": ticket.priority},
            setup=dm_step(reporter.id, actor.id, text, _commented(reporter.id, ticket.key, SAME if refused else WORSE)),
            outcome=outcome)

    def declare(self, start, inst):
        ticket = ticket_by_key(start, inst.params["key"])
        others = [t.key for t in tickets_where(start, Ticket.project_id == ticket.project_id, Ticket.type == "Incident",
                                               Ticket.id != ticket.id) if is_open(t.status)]
        claims = [rule_claim(start, SEVERITY) if inst.params["refused"] else HIGHEST]
        return Declaration(_targets(start, inst, Target("ticket", ticket.key, others[-LOOKALIKES:])), claims)

    def check(self, ctx, inst):
        p = inst.params
        requester = ctx.start.get(Person, p["requester"])
        dm, replies = dm_replies(ctx, requester.id)
        allowed = allow_posts(ctx, dm, limit=1) if dm else []
        if p["refused"]:
            results = decision_reply_checks(replies, True, requester.name, rule=rule_claim(ctx.start, SEVERITY),
                                            actions=RAISED)
            return results + _priority_stated(replies, p["priority"], requester.name) + other_tickets_named(
                replies, "IT", p["key"], ctx.start) + [nothing_else_changed(ctx.diff, allowed)]
        was = ticket_by_key(ctx.start, p["key"])
        now = ctx.final.get(Ticket, was.id)
        results = [check(f"{p['key']}'s impact and urgency are High (so its priority is Highest)",
                         (now.impact, now.urgency) == ("High", "High"), f"found {now.impact} / {now.urgency}"),
                   *decision_reply_checks(replies, False, requester.name, actions=RAISED),
                   *says(replies, HIGHEST.right, [], f"Your reply to {requester.name} says it is now Highest",
                         HIGHEST.kind, weight=4)]
        return results + [nothing_else_changed(ctx.diff, allowed + [
            allow_ticket(was.id, "impact", "urgency", "priority", "priority_rank")])]


@register
class SprintAddWithoutLeadOk(TaskTemplate):
    """An engineer asks a teammate to pull a backlog ticket into the active sprint after planning: it goes in
    when the project's lead said OK in a comment on the ticket; when only a teammate's "+1" is there, it is
    declined, naming the sprint rules and the lead whose OK it needs."""

    id, apps, kind, difficulty, scale = ("r.incident_sprint_add_after_planning", ("chat", "tickets"), "decision", 3,
                                         "medium")
    rules = (SPRINTS,)
    split = "test"
    summary = ("A teammate asks you to pull a backlog ticket into the active sprint after planning: pull it in when "
               "the lead's OK is on the ticket; otherwise decline, naming the sprint rules and the lead.")

    def sample(self, session, rng, instance):
        outcome = twin_outcome(self.id, instance)
        refused = bool(outcome.refuse)
        eng = session.get(Project, project_id(session, "ENG"))
        sprint = active_sprint_of(session, "ENG")
        escalated = set(session.scalars(select(TicketLabel.ticket_id).where(TicketLabel.name == "customer-escalation")))
        engineers = {p.id: p for p in session.scalars(select(Person).where(Person.department_id == eng.department_id)
                                                      .order_by(Person.id))}
        choices = [t for t in of_split(self.split, "ticket", backlog(session, eng.id), lambda t: t.key)
                   if t.id not in escalated and t.reporter_id in engineers and t.reporter_id != eng.lead_id]
        # (a small world may have none: any backlog ticket, asked about by any engineer, will do there)
        ticket = spread(choices or [t for t in backlog(session, eng.id) if t.id not in escalated], instance)
        requester = engineers.get(ticket.reporter_id) or next(p for p in engineers.values() if p.id != eng.lead_id)
        others = [p for p in engineers.values() if p.id not in (requester.id, eng.lead_id)]
        mates = [p for p in others if p.team_id == requester.team_id and person_in(self.split, p.id)]
        actor = rng.choice(mates or [p for p in others if person_in(self.split, p.id)])
        voter = rng.choice([p for p in others if p.id != actor.id])
        text = (f"Hey, can you pull {ticket.key} into {sprint.name}? No customer is waiting on it, I'd just like it "
                f"done before the review. Planning was on {sprint.start_date.isoformat()}, but it's a small one.")
        comment = ((voter.id, f"+1, I'd like to see this in {sprint.name} too.") if refused else
                   (eng.lead_id, f"OK from me to add this to {sprint.name} after planning."))
        lead = session.get(Person, eng.lead_id)
        dm = dm_name(actor.id, requester.id)
        pull = [ToolCall("tickets_set_sprint", {"key": ticket.key, "sprint": sprint.name})]
        writes = decided(refused, pull, dm, (
            f"I can't add it: our {SPRINTS} say that adding work to the active sprint after planning needs the "
            f"project lead's OK on the ticket (only customer escalations go in directly), and the +1 there isn't "
            f"theirs. Ask @{lead.handle} to OK {ticket.key} there."), (
            f"Done: {lead.name} OK'd it on the ticket, so I pulled {ticket.key} into {sprint.name}."))
        return TaskInstance(
            self.id, instance, actor.id,
            request_instruction(rng, named(session, requester)),
            [*dm_reads(dm), ToolCall("tickets_get_ticket", {"key": ticket.key}),
             ToolCall("tickets_list_comments", {"key": ticket.key}),
             ToolCall("tickets_list_sprints", {"project": "ENG"}),
             *read_rule(session, SPRINTS, "sprint"), *writes],
            {"key": ticket.key, "requester": requester.id, "lead": eng.lead_id, "voter": voter.id,
             "sprint": sprint.id, "refused": refused},
            setup=dm_step(requester.id, actor.id, text, _commented(comment[0], ticket.key, comment[1])),
            outcome=outcome)

    def _sprint_claim(self, start, inst) -> Claim:
        sprint = start.get(Sprint, inst.params["sprint"])
        others = start.scalars(select(Sprint.name).where(Sprint.id != sprint.id).order_by(Sprint.id))
        return Claim(Candidate.text(sprint.name), [Candidate.text(n) for n in others], "text", "sprint")

    def _lead_claim(self, start, inst) -> Claim:
        p = inst.params
        skip = {p["lead"], p["voter"], p["requester"], inst.actor_id}
        pool = [x for x in start.scalars(select(Person).where(Person.department_id == start.get(
            Person, p["lead"]).department_id).order_by(Person.id)) if x.id not in skip]
        return people_claim([start.get(Person, p["lead"])], pool, "project lead")

    def declare(self, start, inst):
        ticket = ticket_by_key(start, inst.params["key"])
        others = [t.key for t in backlog(start, ticket.project_id) if t.id != ticket.id]
        claims = [rule_claim(start, SPRINTS) if inst.params["refused"] else self._sprint_claim(start, inst)]
        return Declaration(_targets(start, inst, Target("ticket", ticket.key, others[-LOOKALIKES:])), claims)

    def check(self, ctx, inst):
        p = inst.params
        requester, lead = ctx.start.get(Person, p["requester"]), ctx.start.get(Person, p["lead"])
        dm, replies = dm_replies(ctx, requester.id)
        with_lead, opened = allow_new_conversation(ctx, [ctx.start.get(Person, ctx.actor_id), lead])
        allowed = (allow_posts(ctx, dm, limit=1) if dm else []) + opened + (
            allow_posts(ctx, with_lead.id, limit=1) if with_lead else [])
        if p["refused"]:
            results = decision_reply_checks(replies, True, requester.name, rule=rule_claim(ctx.start, SPRINTS),
                                            actions=PULLED, named=[self._lead_claim(ctx.start, inst)], named_weight=4)
            return results + other_tickets_named(replies, "ENG", p["key"], ctx.start) + [
                nothing_else_changed(ctx.diff, allowed)]
        was = ticket_by_key(ctx.start, p["key"])
        sprint = self._sprint_claim(ctx.start, inst)
        in_sprint = ctx.final.get(Ticket, was.id).sprint_id == p["sprint"]
        results = [check(f"{p['key']} is in {sprint.right.label}", in_sprint, "it is not"),
                   *decision_reply_checks(replies, False, requester.name, [sprint], actions=PULLED, weight=3)]
        return results + [nothing_else_changed(ctx.diff, allowed + [allow_ticket(was.id, "sprint_id")])]
