"""Requests an engineer or a service-desk agent must decline, naming the handbook's rule: bump an
incident straight to Highest (its priority comes from impact and urgency only), and pull a ticket into
the active sprint after planning without the lead's OK and with no customer escalation behind it."""

from __future__ import annotations

from datetime import datetime, time, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from officegym import clock
from officegym.apps.chat import services as chat
from officegym.apps.chat.models import Channel
from officegym.apps.org.models import Person
from officegym.apps.tickets.models import Project, Ticket, TicketLabel
from officegym.apps.tickets.workflow import is_open
from officegym.graders.checks import Allow, nothing_else_changed
from officegym.graders.statements import says

from .base import Declaration, TaskInstance, TaskTemplate, Target, ToolCall
from .common import added_messages, allow_new_conversation, allow_posts, named, spread
from .handbook import read_rule, rule_claim
from .registry import register
from .split import of_split, person_in
from .tickets_common import (LOOKALIKES, active_sprint_of, backlog, group_people, project_id,
                             ticket_by_key, tickets_where)
from .w_incidents import SEVERITY

SPRINTS = "Sprint rules"


def _asked(requester_id: int, actor_id: int, text: str):
    """Setup: the requester asks the actor by DM, twenty minutes ago."""
    def run(session: Session) -> None:
        requester = session.get(Person, requester_id)
        clock.set_time(session, clock.company_now(session) - timedelta(minutes=20))
        dm = chat.open_conversation(session, requester, [actor_id])
        chat.post_message(session, requester, dm.id, text)
    return run


def dm_name(*people: Person) -> str:
    """The stored name of the DM between these people (a channel argument the tools take)."""
    return chat.conversation_name(list(people))


def _dm(session: Session, *people: Person) -> Channel | None:
    """The DM of these people, if it exists."""
    return session.scalar(select(Channel).where(Channel.name == chat.conversation_name(list(people))))


def _refusal_check(ctx, inst, title: str, extra: list[Allow] | None = None):
    """The grade of a refusal: nothing changed but one reply in the requester's DM (the instruction says to
    reply once: a second reply is the near miss of a repeated row), which names the rule."""
    actor, requester = ctx.start.get(Person, ctx.actor_id), ctx.start.get(Person, inst.params["requester"])
    dm = _dm(ctx.start, actor, requester)
    replies = [r["text"] for r in added_messages(ctx, ctx.actor_id) if dm is not None and r["channel_id"] == dm.id]
    claim = rule_claim(ctx.start, title)
    return [*says(replies, claim.right, claim.others, f"Your reply to {requester.name} names the rule ({title})",
                  claim.kind),
            nothing_else_changed(ctx.diff, (allow_posts(ctx, dm.id) if dm else []) + (extra or []))]


@register
class IncidentPriorityBump(TaskTemplate):
    """A reporter asks whoever works their incident to set it to Highest: its priority comes from impact and
    urgency only, and nothing in the request changes either, so it is declined naming the severity article."""

    id, apps, kind, difficulty, scale = ("r.incident_priority_bump", ("chat", "tickets"), "refusal", 3, "medium")
    rules = (SEVERITY,)
    summary = ("Decline a reporter's request to set their incident's priority to Highest: it comes from impact x "
               "urgency.")

    def sample(self, session, rng, instance):
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
        text = (f"Hi {actor.name.split()[0]}! Could you bump {ticket.key} to Highest priority? My manager keeps "
                "asking me when it will be fixed.")
        title = SEVERITY
        return TaskInstance(
            self.id, instance, actor.id,
            f"{named(session, reporter)} sent you a direct message about one of their tickets. "
            "If the handbook allows it, do what they ask; if it does not, change nothing and reply to them once, in "
            "that DM, naming the handbook article that stands in the way.",
            [ToolCall("chat_list_unreads", {}),
             ToolCall("chat_list_messages", {"channel": dm_name(actor, reporter), "limit": 5}),
             ToolCall("tickets_search_tickets", {"query": f"key = {ticket.key}"}),
             *read_rule(session, title, "incident priority"),
             ToolCall("chat_post_message", {"channel": dm_name(actor, reporter), "text": (
                 f"Sorry, I can't do that: per {title} ({ticket.key} is an incident), its priority comes from its "
                 f"impact ({ticket.impact}) and urgency ({ticket.urgency}), so it is {ticket.priority}. If more "
                 "people are affected or your work is stopped now, tell me and I'll update those.")})],
            {"key": ticket.key, "requester": reporter.id},
            setup=_asked(reporter.id, actor.id, text))

    def declare(self, start, inst):
        ticket = ticket_by_key(start, inst.params["key"])
        others = [t.key for t in tickets_where(start, Ticket.project_id == ticket.project_id, Ticket.type == "Incident",
                                               Ticket.id != ticket.id) if is_open(t.status)]
        return Declaration([Target("ticket", ticket.key, others[-LOOKALIKES:])], [rule_claim(start, SEVERITY)])

    def check(self, ctx, inst):
        return _refusal_check(ctx, inst, SEVERITY)


@register
class SprintAddWithoutLeadOk(TaskTemplate):
    """An engineer asks a teammate to pull a backlog ticket into the active sprint after planning, with no
    customer escalation and no OK from the lead: declined naming the sprint rules."""

    id, apps, kind, difficulty, scale = ("r.incident_sprint_add_after_planning", ("chat", "tickets"), "refusal", 3,
                                         "medium")
    rules = (SPRINTS,)
    split = "test"
    summary = ("Decline pulling a backlog ticket into the active sprint after planning: it needs the lead's OK and "
               "it is no customer escalation.")

    def sample(self, session, rng, instance):
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
        mates = [p for p in engineers.values() if p.team_id == requester.team_id and p.id not in
                 (requester.id, eng.lead_id) and person_in(self.split, p.id)]
        actor = rng.choice(mates or [p for p in engineers.values() if person_in(self.split, p.id)
                                     and p.id not in (requester.id, eng.lead_id)])
        planned = datetime.combine(sprint.start_date, time(10, 0))
        text = (f"Hey, can you pull {ticket.key} into {sprint.name}? No customer is waiting on it, I'd just like it "
                f"done before the review. Planning was on {planned.date().isoformat()}, but it's a small one.")
        return TaskInstance(
            self.id, instance, actor.id,
            f"{named(session, requester)} sent you a direct message about the sprint. "
            "If the handbook allows it, do what they ask; if it does not, change nothing and reply to them once, in "
            "that DM, naming the handbook article that stands in the way.",
            [ToolCall("chat_list_unreads", {}),
             ToolCall("chat_list_messages", {"channel": dm_name(actor, requester), "limit": 5}),
             ToolCall("tickets_search_tickets", {"query": f"key = {ticket.key}"}),
             ToolCall("tickets_list_sprints", {"project": "ENG"}),
             *read_rule(session, SPRINTS, "sprint"),
             ToolCall("chat_post_message", {"channel": dm_name(actor, requester), "text": (
                 f"I can't add it myself: our {SPRINTS} say that adding work to the active sprint after planning "
                 f"needs the lead's OK (only customer escalations go in directly). Ask the CTO for {ticket.key}.")})],
            {"key": ticket.key, "requester": requester.id, "lead": eng.lead_id},
            setup=_asked(requester.id, actor.id, text))

    def declare(self, start, inst):
        ticket = ticket_by_key(start, inst.params["key"])
        others = [t.key for t in backlog(start, ticket.project_id) if t.id != ticket.id]
        return Declaration([Target("ticket", ticket.key, others[-LOOKALIKES:])], [rule_claim(start, SPRINTS)])

    def check(self, ctx, inst):
        lead = ctx.start.get(Person, inst.params["lead"])
        dm, opened = allow_new_conversation(ctx, [ctx.start.get(Person, ctx.actor_id), lead])
        return _refusal_check(ctx, inst, SPRINTS, opened + (allow_posts(ctx, dm.id, limit=1) if dm else []))
