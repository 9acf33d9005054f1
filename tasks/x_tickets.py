"""Cross-app tasks with tickets: triage a problem reported in #it-help into an incident and reply
with its key, escalate a CRM case into an engineering bug and link the two, resolve a production
incident and close its #incidents thread, open a legal review for your biggest deal and tell #deals."""

from __future__ import annotations

from datetime import date, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from officegym import clock
from officegym.apps.chat import services as chat
from officegym.apps.crm.models import Account, Case
from officegym.apps.org.models import Person
from officegym.apps.tickets import services as tickets
from officegym.apps.tickets.models import Component, Group, Project, Ticket, TicketComponent, TicketLabel
from officegym.graders.checks import Allow, check, nothing_else_changed

from .base import Ref, TaskInstance, TaskTemplate, ToolCall
from .chat import _post, _steps
from .common import added_messages, allow_posts, channel_named, contains_text, find_message, member_ids, pick
from .crm import allow_activity, open_deals
from .crm_answers import _periods
from .registry import register
from .tickets import (added_tickets, allow_comments, allow_ticket, group_named, group_people, new_comments,
                      project_id)

# (what the reporter writes, impact, urgency, group: "IT Support" or the engineering team that owns it)
PROBLEMS = [
    ("My laptop won't start at all since this morning, so I can't do any work.", "Low", "High", "IT Support"),
    ("The Wi-Fi on our floor keeps dropping for my whole team; pages are slow but we can still work.", "Medium",
     "Medium", "IT Support"),
    ("Nobody in the company can connect to the VPN; everyone working remotely is stuck.", "High", "High",
     "IT Support"),
    ("The printer next to my desk prints faint pages; I can use the one upstairs meanwhile.", "Low", "Low",
     "IT Support"),
    ("My whole team lost access to our shared drive and we're blocked on the release notes.", "Medium", "High",
     "IT Support"),
    ("Email is slow for everyone in the company: messages arrive a few minutes late.", "High", "Medium",
     "IT Support"),
    ("Customers can't pay: every checkout has failed with an error for ten minutes, for all customers.", "High",
     "High", "Payments"),
    ("All customer invoices show yesterday's date; finance has a manual workaround for now.", "High", "Low",
     "Payments"),
    ("Deploys are failing for our whole engineering team: the CI/CD pipeline is red and nobody can ship.",
     "Medium", "High", "Platform"),
]
RULES = ("Impact is how many people it affects (one person: Low; a team: Medium; a whole office, every customer "
         "or the company: High). Urgency is how much it hurts now (a workaround exists: Low; work is slowed: "
         "Medium; work is stopped: High). Office IT goes to the IT Support group; a problem with a customer-facing "
         "or engineering service goes to the on-call group of the engineering team that owns it.")


def _group_for(owner: str) -> str:
    return owner if owner == "IT Support" else f"{owner} On-Call"


def allow_new_ticket(ctx, project_key: str) -> list[Allow]:
    """Allow the actor's new tickets in one project, with their labels, components and watchers."""
    pid = project_id(ctx.final, project_key)
    ids = {r["id"] for r in ctx.diff.table("tickets_ticket").added
           if r["project_id"] == pid and r["reporter_id"] == ctx.actor_id}
    mine = lambda row: row["ticket_id"] in ids  # noqa: E731
    return [Allow("tickets_ticket", ("added",), lambda row: row["id"] in ids),
            Allow("tickets_project", ("updated",), lambda row: row["id"] == pid, ("next_number",)),
            Allow("tickets_label", ("added",), mine), Allow("tickets_ticket_component", ("added",), mine),
            Allow("tickets_watcher", ("added",), mine)]


@register
class TriageReportedIncident(TaskTemplate):
    id, apps, difficulty = "x.triage_reported_incident", ("tickets", "chat"), 3
    summary = "File the incident a colleague reported in #it-help with the right impact, urgency and group; reply with the key."

    def sample(self, session, rng, instance):
        it_help = channel_named(session, "it-help")
        inside = member_ids(session, it_help.id)
        problems = [p for p in PROBLEMS if group_named(session, _group_for(p[3])) is not None]
        text, impact, urgency, owner = pick(rng, problems)
        support = group_named(session, "IT Support")
        actor = pick(rng, [p for p in group_people(session, support.id) if p.id in inside])
        it_dept = actor.department_id
        reporter, other = rng.sample([p for p in session.scalars(select(Person).order_by(Person.id))
                                      if p.id in inside and p.department_id != it_dept], 2)
        decoy = "Quick question: where do I find the guest Wi-Fi password?"
        group = _group_for(owner)
        key = f"IT-{session.scalar(select(Project.next_number).where(Project.key == 'IT'))}"
        return TaskInstance(
            self.id, instance, actor.id,
            f"{reporter.name} reported a problem in #it-help. Triage it: file an Incident in the IT project with a "
            f"short summary, the impact and urgency it calls for, and the right assignment group, then reply in the "
            f"thread of their message with the new ticket's key. {RULES}",
            [ToolCall("tickets_create_ticket", {"project": "IT", "type": "Incident", "summary": text[:80],
                                                "impact": impact, "urgency": urgency, "group": group}),
             ToolCall("chat_list_messages", {"channel": "it-help", "limit": 1}),
             ToolCall("chat_post_message", {"channel": "it-help", "text": f"Filed as {key}, thanks!",
                                            "thread_parent_id": Ref(1, "items.0.id")})],
            {"reporter": reporter.id, "channel": it_help.id, "text": text, "impact": impact, "urgency": urgency,
             "group": group},
            setup=_steps(_post(other.id, it_help.id, decoy), _post(reporter.id, it_help.id, text)))

    def check(self, ctx, inst):
        p = inst.params
        report = find_message(ctx.start, p["reporter"], p["channel"], p["text"])
        filed = [r for r in added_tickets(ctx, "IT") if r["type"] == "Incident"]
        group = group_named(ctx.start, p["group"])
        ticket = filed[0] if len(filed) == 1 else None
        key = ticket["key"] if ticket else "?"
        replies = [r for r in added_messages(ctx, ctx.actor_id) if r["thread_parent_id"] == report.id]
        return [check("Exactly one incident was filed in IT", len(filed) == 1, f"{len(filed)} incidents were filed"),
                check(f"Its impact is {p['impact']} and its urgency {p['urgency']}",
                      ticket is not None and (ticket["impact"], ticket["urgency"]) == (p["impact"], p["urgency"]),
                      f"found {(ticket or {}).get('impact')} / {(ticket or {}).get('urgency')}", weight=2),
                check(f"It is assigned to the {p['group']} group", ticket is not None and ticket["group_id"] == group.id,
                      "another group or none"),
                check("You replied in the report's thread with the ticket key",
                      ticket is not None and any(contains_text(r["text"], key) for r in replies),
                      f"replies: {[r['text'] for r in replies][:2]}"),
                nothing_else_changed(ctx.diff, allow_new_ticket(ctx, "IT") + allow_posts(ctx, p["channel"], report.id))]


@register
class EscalateCaseToTicket(TaskTemplate):
    id, apps, difficulty = "x.escalate_case_to_ticket", ("crm", "tickets"), 3
    summary = "Escalate an open CRM case into an engineering bug for the account, and record the ticket on the case."

    def sample(self, session, rng, instance):
        cases = list(session.scalars(select(Case).where(Case.status.in_(("New", "Working"))).order_by(Case.id)))
        case = pick(rng, cases)
        owner = session.get(Person, case.owner_id)
        account = session.get(Account, case.account_id)
        summary = f"{account.name}: {case.subject}"
        key = f"ENG-{session.scalar(select(Project.next_number).where(Project.key == 'ENG'))}"
        reason = pick(rng, ["Engineering is investigating", "Needs a code fix", "Reproduced, handed to engineering",
                            "Customer blocked, engineering needed"])
        return TaskInstance(
            self.id, instance, owner.id,
            f"Your CRM case \"{case.subject}\" for {account.name} needs engineering. File a Bug in the ENG project "
            f"with the summary \"{summary}\", the account {account.name} and the label customer-escalation, then "
            f"escalate the case in the CRM with the reason \"{reason}\" and the new ticket's key.",
            [ToolCall("tickets_create_ticket", {"project": "ENG", "type": "Bug", "summary": summary,
                                                "account": account.name, "labels": ["customer-escalation"],
                                                "description": case.description}),
             ToolCall("crm_escalate_case", {"case": case.id, "reason": reason, "ticket": key})],
            {"case": case.id, "summary": summary, "reason": reason})

    def check(self, ctx, inst):
        p = inst.params
        case = ctx.start.get(Case, p["case"])
        bugs = [r for r in added_tickets(ctx, "ENG") if r["type"] == "Bug"
                and r["summary"].strip().casefold() == p["summary"].casefold()]
        bug = bugs[0] if len(bugs) == 1 else None
        labels = set(ctx.final.scalars(select(TicketLabel.name).where(TicketLabel.ticket_id == bug["id"]))) if bug else set()
        now = ctx.final.get(Case, case.id)
        return [check(f"One ENG bug \"{p['summary']}\" was filed", bug is not None, f"{len(bugs)} such bugs"),
                check("It names the account and has the label customer-escalation",
                      bug is not None and bug["account_id"] == case.account_id and "customer-escalation" in labels,
                      f"account {(bug or {}).get('account_id')}, labels {sorted(labels)}"),
                check("The case is Escalated and records the ticket key",
                      now.status == "Escalated" and bug is not None and now.ticket_key == bug["key"],
                      f"case is {now.status} with ticket {now.ticket_key}", weight=2),
                nothing_else_changed(ctx.diff, allow_new_ticket(ctx, "ENG") + [
                    Allow("crm_case", ("updated",), lambda row: row["id"] == case.id,
                          ("status", "priority", "ticket_key")), allow_activity("case", case.id)])]


def _open_incident(reporter_id: int, actor_id: int, summary: str, group: str, channel_id: int, post: str):
    """Setup: an on-call colleague files a production incident for the group, assigned to the actor, who
    starts work on it and announces it."""
    def run(session: Session) -> None:
        actor = session.get(Person, actor_id)
        ticket = tickets.create_ticket(session, session.get(Person, reporter_id), "IT", "Incident", summary,
                                       "Reported by monitoring.", impact="High", urgency="High", group=group,
                                       assignee=actor.id)
        tickets.transition_ticket(session, actor, ticket.key, "Start work")
        chat.post_message(session, actor, channel_id, post)
    return run


@register
class ResolveAnnouncedIncident(TaskTemplate):
    id, apps, difficulty = "x.resolve_announced_incident", ("tickets", "chat"), 2
    summary = "Resolve your production incident with a root-cause work note and close its #incidents thread."

    def sample(self, session, rng, instance):
        channel = channel_named(session, "incidents")
        inside = member_ids(session, channel.id)
        groups = [g for g in session.scalars(select(Group).where(Group.on_call.is_(True)).order_by(Group.id))]
        group = pick(rng, groups)
        actor = pick(rng, [p for p in group_people(session, group.id) if p.id in inside])
        reporter = pick(rng, [p for p in group_people(session, group.id) if p.id != actor.id] or [actor])
        summary = pick(rng, ["Search results empty for some customers", "API gateway timeouts in EU",
                             "Background jobs stuck in the queue", "Login page returns 500 errors",
                             "File uploads fail above 10 MB", "Notifications sent twice"])
        cause = pick(rng, ["A bad config push; rolled back.", "Database connection pool exhausted; raised the limit.",
                           "An expired certificate on the load balancer; renewed.",
                           "A memory leak in the worker; deployed the fix."])
        key = f"IT-{session.scalar(select(Project.next_number).where(Project.key == 'IT'))}"
        post = f":rotating_light: {key} · {summary}. Impact High, urgency High, so priority Highest. {group.name} is on it."
        return TaskInstance(
            self.id, instance, actor.id,
            f"You fixed {key} (\"{summary}\"). Resolve it as Fixed, with the root cause as an internal work note: "
            f"\"{cause}\" Then reply in its #incidents thread that it is resolved, naming the key.",
            [ToolCall("tickets_add_work_note", {"key": key, "body": cause}),
             ToolCall("tickets_transition_ticket", {"key": key, "transition": "Resolve", "resolution": "Fixed"}),
             ToolCall("chat_list_messages", {"channel": "incidents", "limit": 1}),
             ToolCall("chat_post_message", {"channel": "incidents", "text": f"{key} is resolved.",
                                            "thread_parent_id": Ref(2, "items.0.id")})],
            {"key": key, "cause": cause, "channel": channel.id, "post": post},
            setup=_open_incident(reporter.id, actor.id, summary, group.name, channel.id, post))

    def check(self, ctx, inst):
        p = inst.params
        ticket = ctx.start.scalar(select(Ticket).where(Ticket.key == p["key"]))
        now = ctx.final.get(Ticket, ticket.id)
        top = find_message(ctx.start, ctx.actor_id, p["channel"], p["post"])
        notes = [c for c in new_comments(ctx, ticket.id, internal=True) if contains_text(c["body"], p["cause"])]
        replies = [r for r in added_messages(ctx, ctx.actor_id) if r["thread_parent_id"] == top.id
                   and contains_text(r["text"], p["key"]) and contains_text(r["text"], "resolved")]
        return [check(f"{p['key']} is Resolved as Fixed", now.status == "Resolved" and now.resolution == "Fixed",
                      f"it is {now.status} ({now.resolution or 'unresolved'})", weight=2),
                check("The root cause is an internal work note", notes, "no such work note of yours"),
                check("The #incidents thread says it is resolved, with the key", replies, "no such reply"),
                nothing_else_changed(ctx.diff, [allow_ticket(ticket.id, "status", "resolution"),
                                                allow_comments(ticket.id), *allow_posts(ctx, p["channel"], top.id)])]


@register
class LegalReviewForBiggestDeal(TaskTemplate):
    id, apps, difficulty = "x.legal_review_for_biggest_deal", ("crm", "tickets", "chat"), 2
    summary = "Open a contract review in LEGAL for your biggest open deal and tell #deals the ticket key."

    def sample(self, session, rng, instance):
        deals_channel = channel_named(session, "deals")
        inside = member_ids(session, deals_channel.id)
        choices = []
        for label, first, last in _periods(session):
            by_owner: dict[int, list] = {}
            for deal in _deals_closing(session, first, last):
                by_owner.setdefault(deal.owner_id, []).append(deal)
            choices += [(owner, label, first, last) for owner, deals in sorted(by_owner.items())
                        if owner in inside and _unique_top(deals) is not None]
        owner_id, label, first, last = pick(rng, choices)
        owner = session.get(Person, owner_id)
        deal = _unique_top([d for d in _deals_closing(session, first, last) if d.owner_id == owner_id])
        account = deal.account.name
        key = f"LEGAL-{session.scalar(select(Project.next_number).where(Project.key == 'LEGAL'))}"
        summary = f"Contract review: {account}"
        priority = pick(rng, ["Highest", "High", "Medium"])
        due = (clock.now(session) + timedelta(days=pick(rng, [3, 5, 7, 10]))).date().isoformat()
        return TaskInstance(
            self.id, instance, owner.id,
            f"Legal should review the contract of your biggest open deal (by amount) {label}. File a Service "
            "Request in the LEGAL project with the summary \"Contract review: <account name>\", the account set, "
            f"the component Contracts, the priority {priority} and the due date {due}, then post in #deals the "
            "ticket key and the "
            "account name.",
            [ToolCall("crm_list_opportunities", {"owner": f"@{owner.handle}", "stage": "open", "sort": "amount",
                                                 "descending": True, "close_from": first.isoformat(),
                                                 "close_to": last.isoformat(), "limit": 1}),
             ToolCall("tickets_create_ticket", {"project": "LEGAL", "type": "Service Request", "summary": summary,
                                                "account": account, "components": ["Contracts"],
                                                "priority": priority, "due_date": due}),
             ToolCall("chat_post_message", {"channel": "deals", "text": f"Legal review for {account}: {key}"})],
            {"owner": owner.id, "channel": deals_channel.id, "first": first.isoformat(), "last": last.isoformat(),
             "priority": priority, "due": due})

    def check(self, ctx, inst):
        p = inst.params
        first, last = date.fromisoformat(p["first"]), date.fromisoformat(p["last"])
        deal = _unique_top([d for d in _deals_closing(ctx.start, first, last) if d.owner_id == p["owner"]])
        account = ctx.start.get(Account, deal.account_id)
        filed = [r for r in added_tickets(ctx, "LEGAL") if r["type"] == "Service Request"]
        ticket = filed[0] if len(filed) == 1 else None
        components = set(ctx.final.scalars(select(TicketComponent.component_id).where(
            TicketComponent.ticket_id == ticket["id"]))) if ticket else set()
        contracts = ctx.start.scalar(select(Component.id).where(Component.name == "Contracts",
                                                                Component.project_id == ticket["project_id"])) if ticket else None
        posts = [r for r in added_messages(ctx, ctx.actor_id) if r["channel_id"] == p["channel"]
                 and ticket is not None and contains_text(r["text"], ticket["key"]) and contains_text(r["text"], account.name)]
        return [check("Exactly one request was filed in LEGAL", len(filed) == 1, f"{len(filed)} were filed"),
                check(f"It is about {account.name}: summary, account and the Contracts component",
                      ticket is not None and ticket["account_id"] == account.id
                      and contains_text(ticket["summary"], f"Contract review: {account.name}") and contracts in components,
                      f"found {(ticket or {}).get('summary')!r}", weight=2),
                check(f"Its priority is {p['priority']} and it is due {p['due']}", ticket is not None
                      and ticket["priority"] == p["priority"] and str(ticket["due_date"]) == p["due"],
                      f"found {(ticket or {}).get('priority')}, due {(ticket or {}).get('due_date')}"),
                check("#deals has your post with the key and the account", posts, "no such post"),
                nothing_else_changed(ctx.diff, allow_new_ticket(ctx, "LEGAL") + allow_posts(ctx, p["channel"]))]


def _deals_closing(session, first: date, last: date) -> list:
    """Open deals (with unique names) closing between two days, inclusive."""
    return [d for d in open_deals(session) if first <= d.close_date <= last]


def _unique_top(deals):
    """The deal with the largest amount, when no other deal has the same amount."""
    ranked = sorted(deals, key=lambda d: -d.amount_cents)
    if not ranked or (len(ranked) > 1 and ranked[0].amount_cents == ranked[1].amount_cents):
        return None
    return ranked[0]

