"""Cross-app tasks between chat and the tickets app: triage a problem reported in #it-help into an
incident and reply with its key, resolve a production incident and close its #incidents thread."""

from __future__ import annotations


from sqlalchemy import select
from sqlalchemy.orm import Session

from officegym.apps.chat import services as chat
from officegym.apps.org.models import Person
from officegym.apps.tickets import services as tickets
from officegym.apps.tickets.models import Group, Ticket
from officegym.graders.checks import check, nothing_else_changed
from officegym.graders.statements import Candidate, says

from .base import Claim, Declaration, Ref, TaskInstance, TaskTemplate, Target, ToolCall
from . import tickets_vocab as vocab
from .common import added_messages, named, allow_posts, channel_named, find_message, member_ids, pick, top_level_messages
from .chat import _background, _steps, later_chatter
from .registry import register
from .split import person_in
from .tickets_common import (added_tickets, allow_comment, allow_new_ticket, allow_ticket, ending, group_named,
                             group_people, key_pool, next_key, posted_once, text_pool, ticket_by_key, ticket_target)


def _group_for(owner: str) -> str:
    return owner if owner == "IT Support" else f"{owner} On-Call"


def _posts(channel_id: int, *messages: tuple[int, str]):
    """Setup: colleagues post these (author id, text) messages in a channel, in turn."""
    def run(session: Session) -> None:
        for author_id, text in messages:
            chat.post_message(session, session.get(Person, author_id), channel_id, text)
    return run


FILED = Candidate.text(*vocab.FILED)


@register
class TriageReportedIncident(TaskTemplate):
    id, apps, difficulty = "x.triage_reported_incident", ("tickets", "chat"), 3
    rules = ("Incident severity: impact, urgency and priority",)
    summary = ("File the incident a colleague reported in #it-help with the right impact, urgency and group; "
               "reply with the key.")

    def sample(self, session, rng, instance):
        it_help = channel_named(session, "it-help")
        inside = member_ids(session, it_help.id)
        problems = [p for p in vocab.PROBLEMS if group_named(session, _group_for(p[3])) is not None]
        text, impact, urgency, owner = pick(rng, problems)
        support = group_named(session, "IT Support")
        actor = pick(rng, [p for p in group_people(session, support.id)
                           if p.id in inside and person_in(self.split, p.id)])
        it_dept = actor.department_id
        reporter, other = rng.sample([p for p in session.scalars(select(Person).order_by(Person.id))
                                      if p.id in inside and p.department_id != it_dept], 2)
        decoy = "Quick question: where do I find the guest Wi-Fi password?"
        group = _group_for(owner)
        decoy_after = rng.random() < 0.5
        posts = [(reporter.id, text), (other.id, decoy)] if decoy_after else [(other.id, decoy), (reporter.id, text)]
        return TaskInstance(
            self.id, instance, actor.id,
            f"{named(session, reporter)} reported a problem in #it-help. Triage it: file one Incident in the IT "
            "project with a short summary, the impact and urgency it calls for, and the right assignment group, then "
            "reply once in the thread of their message saying that you filed it, with the new ticket's key. Change "
            "nothing else. The handbook's article on incident severity says how to rate and route it.",
            [ToolCall("chat_search_messages", {"channel": "it-help", "author": f"@{reporter.handle}"}),
             ToolCall("tickets_search_articles", {"query": "incident severity"}),
             ToolCall("tickets_get_article", {"article": "Incident severity: impact, urgency and priority"}),
             ToolCall("tickets_list_groups", {}),
             ToolCall("tickets_create_ticket", {"project": "IT", "type": "Incident", "summary": text[:80],
                                                "impact": impact, "urgency": urgency, "group": group}),
             ToolCall("chat_post_message", {"channel": "it-help", "thread_parent_id": Ref(0, "items.0.id"),
                                            "text": f"Filed as {next_key(session, 'IT')}, thanks!"})],
            {"reporter": reporter.id, "channel": it_help.id, "text": text, "impact": impact, "urgency": urgency,
             "group": group},
            setup=_steps(_background(session, rng, self.split, 0 if decoy_after else 1, (actor, reporter, other)),
                         _posts(it_help.id, *posts), later_chatter(session, rng, it_help.id, (actor, reporter), 1)))

    def declare(self, start, inst):
        p = inst.params
        report = find_message(start, p["reporter"], p["channel"], p["text"])
        key = next_key(start, "IT")
        return Declaration([Target("message", report.id, top_level_messages(start, p["channel"], [report.id]),
                                   {"channel": "it-help"})],
                           [Claim(Candidate.text(key), key_pool(start, "IT", key), "text", "ticket key"),
                            Claim(FILED, [], "text", "filing")])

    def check(self, ctx, inst):
        p = inst.params
        report = self.declare(ctx.start, inst).targets[0].ref
        filed = [r for r in added_tickets(ctx, "IT") if r["type"] == "Incident"]
        ticket = filed[0] if filed else {}
        key = ticket.get("key") or next_key(ctx.start, "IT")
        replies = [r["text"] for r in added_messages(ctx, ctx.actor_id) if r["thread_parent_id"] == report and filed]
        return [check("An incident was filed in IT", filed, "no incident of yours in IT"),
                check(f"Its impact is {p['impact']} and its urgency {p['urgency']}",
                      (ticket.get("impact"), ticket.get("urgency")) == (p["impact"], p["urgency"]),
                      f"found {ticket.get('impact')} / {ticket.get('urgency')}", weight=2),
                check(f"It is assigned to the {p['group']} group",
                      filed and ticket["group_id"] == group_named(ctx.start, p["group"]).id, "another group or none"),
                *says(replies, Candidate.text(key), key_pool(ctx.start, "IT", key),
                      f"Your reply in the report's thread gives the key {key}", "ticket key", deniable=False),
                *says(replies, FILED, [], "It says that you filed it", "filing", weight=1),
                nothing_else_changed(ctx.diff, allow_new_ticket(ctx, "IT", "Incident")
                                     + allow_posts(ctx, p["channel"], report))]


def _open_incident(reporter_id: int, actor_id: int, summary: str, group: str, channel_id: int, post: str,
                   later: str):
    """Setup: an on-call colleague files a production incident for the group, assigned to the actor, who
    starts work on it and announces it; then monitoring raises a `later` incident for the group."""
    def run(session: Session) -> None:
        actor = session.get(Person, actor_id)
        ticket = tickets.create_ticket(session, session.get(Person, reporter_id), "IT", "Incident", summary,
                                       "Reported by monitoring.", impact="High", urgency="High", group=group,
                                       assignee=actor.id)
        tickets.transition_ticket(session, actor, ticket.key, "Start work")
        chat.post_message(session, actor, channel_id, post)
        tickets.create_ticket(session, session.get(Person, reporter_id), "IT", "Incident", later,
                              "Reported by monitoring.", impact="Medium", urgency="High", group=group)
    return run


@register
class ResolveAnnouncedIncident(TaskTemplate):
    id, apps, difficulty = "x.resolve_announced_incident", ("tickets", "chat"), 3
    rules = ("Incident communication",)
    summary = "Resolve your production incident with a root-cause work note and close its #incidents thread."

    def sample(self, session, rng, instance):
        channel = channel_named(session, "incidents")
        inside = member_ids(session, channel.id)
        ours = lambda group: [p for p in group_people(session, group.id) if p.id in inside  # noqa: E731
                              and person_in(self.split, p.id)]
        groups = [g for g in session.scalars(select(Group).where(Group.on_call.is_(True)).order_by(Group.id))
                  if ours(g)]
        group = pick(rng, groups)
        actor = pick(rng, ours(group))
        reporter = pick(rng, [p for p in group_people(session, group.id) if p.id != actor.id] or [actor])
        summary, later = rng.sample(vocab.INCIDENTS, 2)
        cause = pick(rng, vocab.CAUSES)
        key = next_key(session, "IT")
        post = (f":rotating_light: {key} · {summary}. Impact High, urgency High, so priority Highest. "
                f"{group.name} is on it.")
        return TaskInstance(
            self.id, instance, actor.id,
            f"You fixed {key} (\"{summary}\") for good; the root cause, word for word: \"{cause}\" Close the "
            "incident out the way the handbook's Incident communication article says, and change nothing else.",
            [ToolCall("tickets_get_article", {"article": "Incident communication"}),
             ToolCall("tickets_add_work_note", {"key": key, "body": cause}),
             ToolCall("tickets_transition_ticket", {"key": key, "transition": "Resolve", "resolution": "Fixed"}),
             ToolCall("chat_search_messages", {"query": key, "channel": "incidents", "author": f"@{actor.handle}"}),
             ToolCall("chat_post_message", {"channel": "incidents", "text": f"{key} is resolved (Fixed).",
                                            "thread_parent_id": Ref(3, "items.0.id")})],
            {"key": key, "cause": cause, "channel": channel.id, "post": post},
            setup=_steps(_open_incident(reporter.id, actor.id, summary, group.name, channel.id, post, later),
                         later_chatter(session, rng, channel.id, (actor,), 2, vocab.INCIDENT_CHATTER)))

    def declare(self, start, inst):
        p = inst.params
        ticket = ticket_by_key(start, p["key"])
        top = find_message(start, inst.actor_id, p["channel"], p["post"])
        return Declaration([ticket_target(start, ticket, inst.actor_id, Ticket.type == "Incident"),
                            Target("message", top.id, top_level_messages(start, p["channel"], [top.id]),
                                   {"channel": "incidents"})],
                           [Claim(Candidate.text(p["cause"]), text_pool(vocab.CAUSES, p["cause"]), "body",
                                  "root cause"),
                            Claim(Candidate.text(p["key"]), key_pool(start, "IT", p["key"]), "text", "ticket key"),
                            Claim(Candidate.text(*vocab.RESOLVED_WORDS), [Candidate.text(w) for w in vocab.OPEN_WORDS],
                                  "text", "state")])

    def check(self, ctx, inst):
        p = inst.params
        declared = self.declare(ctx.start, inst)
        ticket, top = ticket_by_key(ctx.start, p["key"]), declared.targets[1].ref
        now = ctx.final.get(Ticket, ticket.id)
        replies = [r["text"] for r in added_messages(ctx, ctx.actor_id) if r["thread_parent_id"] == top]
        key, state = declared.claims[1:]
        return [check(f"{p['key']} is Resolved as Fixed", now.status == "Resolved" and now.resolution == "Fixed",
                      f"it is {now.status} ({now.resolution or 'unresolved'})", weight=2),
                check("The root cause, word for word, is one internal work note",
                      posted_once(ctx, ticket.id, p["cause"], internal=True), "no such work note of yours"),
                *says(replies, key.right, key.others, f"Your reply in the #incidents thread names {p['key']}",
                      key.kind, weight=1, deniable=False),
                *says(replies, state.right, state.others, "Your reply says it is resolved", state.kind, weight=1),
                nothing_else_changed(ctx.diff, [allow_ticket(ticket.id, "resolved_at", values=ending(
                                                    ticket, status="Resolved", resolution="Fixed")),
                                                allow_comment(ctx, ticket.id, p["cause"], internal=True),
                                                *allow_posts(ctx, p["channel"], top)])]
