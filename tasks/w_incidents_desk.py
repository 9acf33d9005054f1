"""The service desk's queue: colleagues have picked up tickets this morning (one only by claiming it in
the team channel), and a teammate asks the agent by DM to take the next three the way the handbook
orders them (the oldest ticket of the highest priority first): each gets a first response saying it is
being worked on (which stops the SLA clock), the team channel hears which three, and so does the
teammate."""

from __future__ import annotations

from datetime import datetime, time, timedelta

from sqlalchemy.orm import Session

from officegym import clock
from officegym.apps.chat import services as chat
from officegym.apps.org.models import Person
from officegym.apps.tickets import services as tickets
from officegym.apps.tickets.models import Project, Ticket
from officegym.graders.checks import check, nothing_else_changed
from officegym.graders.replies import report_reply
from officegym.graders.statements import Candidate, says

from .base import Claim, Declaration, TaskInstance, TaskTemplate, Target, ToolCall
from .common import added_messages, allow_posts, named, spread
from .decisions import reply_checks
from .handbook import read_rule
from .phrasing import request_instruction
from .registry import register
from .split import in_split, person_in
from .tickets_common import (LOOKALIKES, allow_comment, allow_ticket, ending, group_named, group_people, key_pool,
                             new_comments, ticket_by_key, tickets_where)
from .w_incidents import asked_by_dm, report_step, request_reads, requester_replies
from .w_incidents_swap import NAMING, _team_channel

SLA = "Service desk SLA targets"
QUEUES = ("IT Support", "Commercial Legal")
TAKEN = ("taking", "took", "taken", "picked up", "picking up", "grabbed", "grabbing", "assigned", "claimed")
# How a first response says the ticket is being worked on (the state it tells the reporter).
ON_IT = Candidate.text("picking this up", "picked this up", "picking it up", "picked it up", "on it", "looking into",
                       "working on", "started", "starting", "taken", "taking", "assigned to me", "in progress",
                       "investigating", "look into", "work on", "picked up", "picking up", "handling", "i've got",
                       "i have this", "i'm on")


def queue(session: Session, group_id: int) -> list[Ticket]:
    """A group's unassigned new tickets in the order the handbook takes them: highest priority first,
    then oldest first."""
    found = tickets_where(session, Ticket.group_id == group_id, Ticket.status == "New", Ticket.assignee_id.is_(None))
    return sorted(found, key=lambda t: (-t.priority_rank, t.created_at, t.id))


def _tied(ticket: Ticket, others: list[Ticket]) -> bool:
    """Whether another ticket has the same priority and creation time (no order between them)."""
    return any(o.id != ticket.id and (o.priority_rank, o.created_at) == (ticket.priority_rank, ticket.created_at)
               for o in others)


@register
class TakeNextFromQueue(TaskTemplate):
    """A desk agent takes the next three tickets of the queue in the handbook's order (colleagues took some
    earlier ones this morning, one of them only by claiming it in the team channel), starts them with a
    first response and tells the team channel which."""

    id, apps, kind, difficulty, scale = ("w.incident_queue_next_three", ("tickets", "chat", "org"), "workflow", 4,
                                         "medium")
    rules = (SLA, NAMING)
    summary = ("Take the next three tickets of your desk's queue in the handbook's order, leaving those colleagues "
               "took or claimed in the team channel: assign, start, first response; tell the team channel which.")

    def sample(self, session, rng, instance):
        choices = []
        for name in QUEUES:
            group = group_named(session, name)
            if group is None:
                continue
            line = queue(session, group.id)
            for start in range(len(line)):
                # The claimed ticket is the one just before the first taken, or one between those taken.
                for claimed in (c for c in (start - 1, start + 1, start + 2) if 0 <= c < len(line)):
                    taken = [t for t in line[start:start + 4] if t is not line[claimed]][:3]
                    end = line.index(taken[-1]) if taken else 0
                    if len(taken) < 3 or _tied(line[claimed], line) or not in_split(self.split, "ticket",
                                                                                     taken[0].key):
                        continue
                    # the three are the next ones without doubt: no ticket left behind ties with the last one
                    if end + 1 < len(line) and _tied(line[end], [line[end], line[end + 1]]):
                        continue
                    choices.append((group, line, taken, line[claimed]))
        # The instance picks the first ticket to take (spread over them all), the RNG where the claim is.
        firsts = list(dict.fromkeys(c[2][0].key for c in choices))
        first = spread(firsts, instance)
        group, line, taken, claimed = rng.choice([c for c in choices if c[2][0].key == first])
        last = line.index(taken[-1])
        members = [p for p in group_people(session, group.id) if _team_channel(session, p)]
        actors = [p for p in members if person_in(self.split, p.id)
                  and any(m.id != p.id and _team_channel(session, m) == _team_channel(session, p) for m in members)]
        actor = rng.choice(actors)
        team = _team_channel(session, actor)
        claimer = rng.choice([m for m in members if m.id != actor.id and _team_channel(session, m) == team])
        mates = [p for p in group_people(session, group.id) if p.id != actor.id]
        pickups = [(t.key, rng.choice(mates).id) for t in line[:last] if t not in taken and t is not claimed]
        project = session.get(Project, taken[0].project_id).key
        requester = rng.choice([m for m in mates if m.id != claimer.id] or mates)
        steps = [*request_reads(actor.id, requester.id), *read_rule(session, SLA, "oldest ticket"),
                 ToolCall("tickets_search_tickets", {"query": f"group = \"{group.name}\" AND status = New ORDER BY "
                                                              "priority DESC, created ASC", "limit": 10}),
                 ToolCall("org_get_person", {"person": f"@{actor.handle}"}),
                 *read_rule(session, NAMING, "team channel"),
                 ToolCall("chat_list_messages", {"channel": team.name, "limit": 10})]
        for ticket in taken:
            steps += [ToolCall("tickets_get_ticket", {"key": ticket.key}),
                      ToolCall("tickets_assign_ticket", {"key": ticket.key, "assignee": f"@{actor.handle}"}),
                      ToolCall("tickets_transition_ticket", {"key": ticket.key, "transition": "Start work"}),
                      ToolCall("tickets_add_comment", {"key": ticket.key, "body": "Hi, I'm picking this up now and "
                                                                                  "will keep you posted here."},
                               role="note")]
        keys = [t.key for t in taken]
        steps.append(ToolCall("chat_post_message", {"channel": team.name,
                                                    "text": f"Taking {', '.join(keys)} from the queue."},
                              role="report"))
        steps.append(report_step(actor.id, requester.id, f"Done: {', '.join(keys)} are mine and started, each "
                                                         "with a first response, and the team knows."))
        return TaskInstance(
            self.id, instance, actor.id,
            request_instruction(rng, named(session, requester)),
            steps,
            {"keys": keys, "claimed": claimed.key, "project": project, "team": team.id, "group": group.name,
             "requester": requester.id},
            setup=asked_by_dm(requester.id, actor.id, (
                f"Morning! You're on the {group.name} desk today and colleagues have already picked up a few tickets "
                "(assigned to themselves, or claimed in your team channel). Could you take the next three from the "
                "queue in the order the handbook says? Make them yours, start work on them and give each reporter a "
                "first response on the ticket, then post once in your team channel which three you took, naming only "
                "their keys."), _pickups(pickups, (claimer.id, team.id, claimed.key))))

    def declare(self, start, inst):
        p = inst.params
        group = group_named(start, p["group"])
        everyone = tickets_where(start, Ticket.group_id == group.id, Ticket.status.in_(("New", "Assigned")))
        # The ticket a colleague claimed in the team channel comes first: taking it is the near miss.
        near = [p["claimed"]] + [t.key for t in everyone if t.key not in p["keys"] and t.key != p["claimed"]]
        targets = [Target("ticket", key, near[:1] + near[1:][-LOOKALIKES + 1:]) for key in p["keys"]]
        claims = [Claim(Candidate.text(key), key_pool(start, p["project"], key, tuple(p["keys"])), "text",
                        "ticket key") for key in p["keys"]]
        return Declaration(targets, claims)

    def check(self, ctx, inst):
        p = inst.params
        declared = self.declare(ctx.start, inst)
        posts = [r["text"] for r in added_messages(ctx, ctx.actor_id)
                 if r["channel_id"] == p["team"] and r["thread_parent_id"] is None]
        requester = ctx.start.get(Person, p["requester"])
        texts, allowed = requester_replies(ctx, requester.id)
        results = [*report_reply(posts, "Your team channel post says you took them", TAKEN, weight=2),
                   *reply_checks(texts, False, requester.name, declared.claims, actions=TAKEN, weight=2)]
        allowed += allow_posts(ctx, p["team"], None, mentions=1)
        for key, claim in zip(p["keys"], declared.claims):
            was = ticket_by_key(ctx.start, key)
            now = ctx.final.get(Ticket, was.id)
            responses = [r["body"] for r in new_comments(ctx, was.id, internal=False)]
            results += [check(f"{key} is yours and In Progress", now.assignee_id == ctx.actor_id
                              and now.status == "In Progress", f"{now.status}, assigned to {now.assignee_id}"),
                        *says(responses, ON_IT, [], f"{key} has your first response (a public comment) saying it is "
                              "being worked on", "state", weight=2),
                        *says(posts, claim.right, claim.others, f"Your team channel post says you took {key}",
                              claim.kind, weight=2)]
            allowed += [allow_ticket(was.id, "first_response_at", values=ending(
                            was, assignee_id=ctx.actor_id, status="In Progress") | {
                            "status": (was.status, "Assigned", "In Progress")}),
                        allow_comment(ctx, was.id, None, internal=False)]
        return results + [nothing_else_changed(ctx.diff, allowed)]


def _pickups(pickups: list[tuple[str, int]], claim: tuple[int, int, str]):
    """Setup: desk colleagues assign themselves tickets from the front of the queue this morning, and one
    claims another in the team channel without assigning it yet."""
    def run(session: Session) -> None:
        start = datetime.combine(clock.company_now(session).date(), time(7, 40))
        for k, (key, person_id) in enumerate(pickups):
            clock.set_time(session, start + timedelta(minutes=3 * k))
            person = session.get(Person, person_id)
            tickets.assign_ticket(session, person, key, assignee=person.id)
        claimer, channel, key = claim
        clock.set_time(session, start + timedelta(minutes=3 * len(pickups) + 5))
        chat.post_message(session, session.get(Person, claimer), channel,
                          f"I'm taking {key} as soon as I'm out of my call, leave that one to me.")
    return run
