"""Declare a production incident from a customer's report in #it-help, which its reporter asks the
service-desk agent by DM to take: the severity matrix (the impact with the reporter's update in the
thread, the urgency from the customer's account owner, asked in that thread before it is used), the
team that owns the area (the ENG components), the engineer on call this week (the On-call Rota), the
#incidents announcement in the handbook's format, and the key back in the thread (the reply that
reports it declared), tagging the account owner who tells the customer."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from officegym import clock
from officegym.apps.chat.models import Message
from officegym.apps.crm.models import Account
from officegym.apps.org.models import Person
from officegym.apps.tickets.models import Project, TicketComponent
from officegym.apps.tickets.sla import incident_priority
from officegym.colleagues import plant_note
from officegym.graders.checks import Allow, check, guard, nothing_else_changed
from officegym.graders.replies import report_reply
from officegym.graders.statements import Candidate, says, stated

from .base import Claim, Declaration, Ref, TaskInstance, TaskTemplate, Target, ToolCall
from .common import added_messages, allow_posts, channel_named, find_message, member_ids, named, spread
from .handbook import read_rule
from .phrasing import request_instruction
from .registry import register
from .split import of_split, person_in
from .tickets_common import added_tickets, group_named, key_pool, next_key, project_id
from .w_incidents import (COMMUNICATION, HANDOVER, LEVELS, SEVERITY, asked_by_dm, filing_extras,
                          levels_stated, on_call, on_call_groups, posted_at, production_id, read_rota, request_reads,
                          requester_replies, this_monday)

DECLARED = ("declared", "filed", "raised", "opened", "created", "logged", "tracked")
# (the team that owns it, as the ENG components describe it: what the customer sees)
SYMPTOMS = [("Payments", "invoices fail to generate in billing"),
            ("Web", "the customer-facing web app shows an error page right after login"),
            ("Mobile", "the iOS and Android apps crash as soon as they open"),
            ("Data", "the reporting dashboards have shown no data since last night's pipeline run"),
            ("Integrations", "the webhooks to their partner connectors stopped arriving"),
            ("Infrastructure", "requests time out in our cloud networking before they reach the app")]
# How a report says whom it affects, in the severity article's own terms (a first guess, then the update).
IMPACT = {"Low": "Only one person at {account} is affected; their other users are fine.",
          "Medium": "Only one team at {account} is hit (their finance team); everyone else there is fine.",
          "High": "And it's not only them: every customer is hit."}
IMPACT_UPDATE = {"Low": "Update on {account}: it turns out only one person there is affected, not more.",
                 "Medium": "Update on {account}: it is one team there after all (their finance team), nobody else.",
                 "High": "Update on {account}: support now sees it for every customer, not only them."}
SAME = "Update on {account}: still happening, same as above."
# What the account owner knows of how much it hurts the customer now (urgency).
URGENCY = {"Low": "On today's problem: they have a workaround for now, exporting by hand.",
           "Medium": "On today's problem: they can still work, just slowly.",
           "High": "On today's problem: their work is completely stopped until it's fixed."}


@register
class DeclareIncidentFromReport(TaskTemplate):
    """A colleague reports a customer's problem in #it-help and updates it in the thread; a service-desk agent
    asks the customer's account owner (found in the CRM) in that thread how badly it hurts, files the
    production incident (impact and urgency, the owning team's on-call group, this week's engineer from the
    rota), announces it in #incidents and gives the key in the thread, tagging the account owner."""

    id, apps, kind, difficulty, scale = ("w.incident_declare_from_report", ("chat", "tickets", "sheets", "crm"),
                                         "workflow", 4, "medium")
    toolsets = ("chat", "crm.records", "sheets.cells", "tickets.work", "tickets.admin")  # its apps hold over 100 tools
    rules = (SEVERITY, COMMUNICATION, HANDOVER)
    summary = ("Declare the production incident a colleague reported in #it-help: the urgency from the customer's "
               "account owner, owning group and engineer on call, the #incidents post, the key back in the thread.")

    def sample(self, session, rng, instance):
        it_help, incidents = channel_named(session, "it-help"), channel_named(session, "incidents")
        inside = member_ids(session, it_help.id) & member_ids(session, incidents.id)
        it = session.get(Project, project_id(session, "IT"))
        actors = [p for p in session.scalars(select(Person).where(Person.department_id == it.department_id)
                                              .order_by(Person.id)) if p.id in inside and person_in(self.split, p.id)]
        reporters = member_ids(session, it_help.id)
        accounts = [a for a in of_split(self.split, "account", session.scalars(select(Account).order_by(Account.id)),
                                        lambda a: a.name) if a.owner_id in reporters]
        account = spread(accounts, instance)
        actor = rng.choice([p for p in actors if p.id != account.owner_id])
        owner = session.get(Person, account.owner_id)
        reporter = session.get(Person, rng.choice(sorted(reporters - {owner.id, actor.id})))
        symptoms = [(t, s) for t, s in SYMPTOMS if on_call(session, f"{t} On-Call", this_monday(session))]
        team, symptom = symptoms[rng.randrange(len(symptoms))]
        group = f"{team} On-Call"
        impact, urgency = rng.choice(LEVELS), rng.choice(LEVELS)
        guess = rng.choice([lv for lv in LEVELS if lv != impact]) if rng.random() < 0.6 else impact
        report = (f"Heads-up: {account.name} called in: {symptom}. {IMPACT[guess].format(account=account.name)} "
                  "No idea how badly it blocks them. Can someone take it?")
        update = (IMPACT_UPDATE[impact] if guess != impact else SAME).format(account=account.name)
        engineer = on_call(session, group, this_monday(session))
        priority = incident_priority(impact, urgency)
        key = next_key(session, "IT")
        summary = f"{account.name}: {symptom}"[:120]
        post = (f":rotating_light: {key} · {summary}. Impact {impact}, urgency {urgency}, so priority {priority}. "
                f"{group} is on it (@{engineer.handle}). First reported by {account.name}.")
        return TaskInstance(
            self.id, instance, actor.id,
            request_instruction(rng, named(session, reporter)),
            [*request_reads(actor.id, reporter.id),
             ToolCall("chat_list_messages", {"channel": "it-help", "limit": 10}),
             ToolCall("chat_search_messages", {"query": account.name, "channel": "it-help",
                                               "author": f"@{reporter.handle}"}),
             ToolCall("chat_get_thread", {"message_id": Ref(3, "items.0.id")}),
             *read_rule(session, SEVERITY, "incident impact urgency"),
             *read_rule(session, COMMUNICATION, "incident communication"),
             ToolCall("crm_list_accounts", {"query": account.name}),
             ToolCall("chat_post_message", {"channel": "it-help", "thread_parent_id": Ref(4, "parent.id"),
                                            "text": f"@{owner.handle} how badly does this hit {account.name} right "
                                                    "now: is their work stopped, slowed, or do they have a "
                                                    "workaround?"}, role="ask"),
             ToolCall("chat_get_thread", {"message_id": Ref(4, "parent.id")}),
             ToolCall("tickets_get_project", {"project": "ENG"}),
             *read_rule(session, HANDOVER, "on-call rota"),
             *read_rota(),
             ToolCall("tickets_get_group", {"group": group}),
             ToolCall("tickets_search_tickets", {"query": "project = IT AND type = Incident AND component = Production"
                                                          " AND statusCategory != Done"}),
             ToolCall("tickets_create_ticket", {"project": "IT", "type": "Incident", "summary": summary,
                                                "description": f"{report}\n{update}\n{URGENCY[urgency]}",
                                                "impact": impact, "urgency": urgency, "group": group,
                                                "assignee": f"@{engineer.handle}", "components": ["Production"],
                                                "account": account.name}),
             ToolCall("chat_post_message", {"channel": "incidents", "text": post}, role="note"),
             ToolCall("chat_post_message", {"channel": "it-help", "thread_parent_id": Ref(4, "parent.id"),
                                            "text": f"Declared as {key}: {group} (@{engineer.handle}) is on it. "
                                                    f"Updates in #incidents. @{owner.handle}, over to you to tell "
                                                    f"{account.name}."}, role="report")],
            {"account": account.id, "owner": owner.id, "reporter": reporter.id, "group": group, "impact": impact,
             "urgency": urgency, "report": report, "update": update, "it_help": it_help.id,
             "incidents": incidents.id},
            setup=asked_by_dm(reporter.id, actor.id, (
                f"Hi! I just posted {account.name}'s problem in #it-help. You're on the service desk: could you "
                "declare it as an incident the way the handbook wants it done and get it to the engineer who is on "
                "call for it this week? My report doesn't say how badly it hurts them: their account owner knows, so "
                "ask them (once) where the handbook allows incident talk. Then give me the ticket key in my thread, "
                "tagging whoever the handbook says tells the customer."),
                _report(reporter.id, actor.id, it_help.id, report, update, (owner.id, account.id, URGENCY[urgency]))))

    def declare(self, start, inst):
        p = inst.params
        account = start.get(Account, p["account"])
        others = [a.name for a in start.scalars(select(Account).where(Account.id != account.id)
                                                .order_by(Account.owner_id != account.owner_id, Account.id).limit(40))]
        report = find_message(start, p["reporter"], p["it_help"], p["report"])
        report = report.id if report else 0  # 0 on the world without the setup (the suite's tests read that)
        key = next_key(start, "IT")
        groups = [g.name for g in on_call_groups(start) if g.name != p["group"]]
        engineer = on_call(start, p["group"], this_monday(start))
        # Whom the key's reply could tag instead: other accounts' owners (not the people it may also tag).
        skip = {p["owner"], p["reporter"], inst.actor_id, engineer.id if engineer else None}
        owners = [start.get(Person, i) for i in dict.fromkeys(start.scalars(
            select(Account.owner_id).where(Account.owner_id.not_in([i for i in skip if i])).order_by(Account.id)))]
        return Declaration([Target("account", account.name, others),
                            Target("message", report, _top_level(start, p["it_help"], report),
                                   {"channel": "it-help"})],
                           [Claim(Candidate.text(key), key_pool(start, "IT", key), "text", "ticket key"),
                            Claim(Candidate.text(account.name), [Candidate.text(n) for n in others], "text",
                                  "customer"),
                            Claim(Candidate.text(p["group"]), [Candidate.text(g) for g in groups], "text", "group"),
                            Claim(Candidate.person(start.get(Person, p["owner"])),
                                  [Candidate.person(o) for o in owners[:40]], "text", "account owner")])

    def check(self, ctx, inst):
        p = inst.params
        declared = self.declare(ctx.start, inst)
        key_claim, account_claim, group_claim, owner_claim = declared.claims
        report = declared.targets[1].ref
        group = group_named(ctx.start, p["group"])
        engineer = on_call(ctx.start, p["group"], this_monday(ctx.start))
        pid, production = project_id(ctx.start, "IT"), production_id(ctx.start)
        filed = [r for r in added_tickets(ctx, "IT") if r["type"] == "Incident"]
        ticket = filed[0] if filed else {}
        components = set(ctx.final.scalars(select(TicketComponent.component_id).where(
            TicketComponent.ticket_id == ticket.get("id", 0))))
        key = ticket.get("key") or key_claim.right.label
        posts = [r["text"] for r in added_messages(ctx, ctx.actor_id)
                 if r["channel_id"] == p["incidents"] and r["thread_parent_id"] is None and filed]
        replies = [r["text"] for r in added_messages(ctx, ctx.actor_id) if r["thread_parent_id"] == report and filed]
        told = [t for t in replies if stated(t, [Candidate.text(key)])]
        wanted = {"impact": p["impact"].lower(), "urgency": p["urgency"].lower(),
                  "priority": incident_priority(p["impact"], p["urgency"]).lower()}
        mine = lambda r: (r["project_id"] == pid and r["reporter_id"] == ctx.actor_id  # noqa: E731
                          and r["type"] == "Incident" and r["account_id"] in (None, p["account"]))
        owner, reporter = ctx.start.get(Person, p["owner"]), ctx.start.get(Person, p["reporter"])
        direct, to_reporter = requester_replies(ctx, reporter.id)  # the thread reply may be all the reply there is
        asked = [t for t in (r["text"] for r in added_messages(ctx, ctx.actor_id) if r["thread_parent_id"] == report)
                 if stated(t, [owner_claim.right]) and not stated(t, [Candidate.text(key)])]
        return [check("One Incident was filed in IT", len(filed) == 1, f"{len(filed)} incidents of yours in IT"),
                check(f"It is a Production incident of {p['group']}, assigned to {engineer.name} (on call this week)",
                      ticket and production in components and ticket["group_id"] == group.id
                      and ticket["assignee_id"] == engineer.id,
                      f"group {ticket.get('group_id')}, assignee {ticket.get('assignee_id')}, "
                      f"components {sorted(components)}"),
                check(f"Its impact is {p['impact']} and its urgency {p['urgency']} (the thread's update, the owner's "
                      "answer)",
                      (ticket.get("impact"), ticket.get("urgency")) == (p["impact"], p["urgency"]),
                      f"found {ticket.get('impact')} / {ticket.get('urgency')}"),
                guard(f"The urgency comes from {owner.name}'s answer: you asked them in the report's thread",
                      bool(asked), "no reply in the thread asks them before the key is given"),
                *says(posts, Candidate.text(key), key_pool(ctx.start, "IT", key),
                      f"A top-level #incidents post gives the key {key}", "ticket key", weight=2, deniable=False),
                *says(posts, account_claim.right, account_claim.others, "It names the customer who reported it",
                      "customer", weight=1, deniable=False),
                *says(posts, group_claim.right, group_claim.others, f"It says {p['group']} is on it", "group",
                      weight=2),
                check("It states the impact, urgency and priority the ticket shows",
                      any(levels_stated(t) == wanted for t in posts), f"posts: {[t[:100] for t in posts]}", weight=2),
                *says(replies, Candidate.text(key), key_pool(ctx.start, "IT", key),
                      f"Your reply in the report's thread gives the key {key}", "ticket key", weight=2,
                      deniable=False),
                *report_reply(told + direct, f"Your reply to {reporter.name} says the incident is declared", DECLARED,
                              weight=2),
                *says(told, owner_claim.right, owner_claim.others, f"That reply tags {owner_claim.right.label}, the "
                      "account owner, who tells the customer", owner_claim.kind, weight=2),
                nothing_else_changed(ctx.diff, [
                    Allow("tickets_ticket", ("added",), mine),
                    Allow("tickets_project", ("updated",), lambda row: row["id"] == pid, ("next_number",)),
                    Allow("tickets_ticket_component", ("added",), lambda row: row["component_id"] == production),
                    *filing_extras(ticket.get("id")),
                    *allow_posts(ctx, p["incidents"], None),
                    *allow_posts(ctx, p["it_help"], report, limit=2, mentions=3),  # the question, the key
                    *to_reporter])]


def _report(reporter_id: int, actor_id: int, channel_id: int, report: str, update: str, knows: tuple[int, int, str]):
    """Setup: a colleague reports the customer's problem in #it-help and, a few minutes later, updates it in
    the thread; someone else asks about something unrelated meanwhile. The account owner knows how badly
    it hurts the customer (`knows`: owner, account, what they say)."""
    def run(session: Session) -> None:
        reporter = session.get(Person, reporter_id)
        start = clock.company_now(session) - timedelta(minutes=25)
        top = posted_at(session, reporter, channel_id, report, start)
        posted_at(session, reporter, channel_id, update, start + timedelta(minutes=9), thread=top.id)
        other = session.scalars(select(Person).where(Person.id > reporter_id, Person.id != actor_id,
                                                     Person.department_id != reporter.department_id)
                                .order_by(Person.id)).first() or reporter
        posted_at(session, other, channel_id, "Does anyone know where the guest Wi-Fi password is posted?",
                  start + timedelta(minutes=14))
        owner, account, said = knows
        plant_note(session, session.get(Person, owner), "account", account, said)
    return run


def _top_level(session: Session, channel_id: int, exclude: int) -> list[int]:
    """The channel's other top-level messages, newest first (look-alikes of the report)."""
    return list(session.scalars(select(Message.id).where(Message.channel_id == channel_id,
                                                         Message.thread_parent_id.is_(None), Message.id != exclude)
                                .order_by(Message.id.desc()).limit(20)))
