"""Customer-support workflow: a problem a customer reported through several cases, put on the one bug
engineering already has, with the teammates who own the other cases told its key (helpers in
w_support; `dm_texts` and `teammates` are shared with the other support modules)."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import func, select

from officegym import clock, colleagues
from officegym.apps.crm import services as crm
from officegym.apps.crm.access import reports_of
from officegym.apps.crm.models import Account, Case
from officegym.apps.org.models import Person, Team
from officegym.apps.tickets import services as tickets
from officegym.apps.tickets.models import Ticket, Watcher
from officegym.graders.checks import Allow, check, nothing_else_changed
from officegym.graders.statements import Candidate, says

from .base import Claim, Declaration, Ref, TaskInstance, TaskTemplate, Target, ToolCall
from .common import allow_posts, dm_allowances, named, spread
from .handbook import read_rule
from .phrasing import request_instruction
from .registry import register
from .tickets_common import key_pool, next_key
from .w_deals import setup_of
from .w_people_replies import decision_reply_checks, dm_name, dm_reads, dm_replies, dm_step
from .w_support_common import (AREAS, ESCALATION, LABEL, allow_escalation, area_team, boss_of, case_lookalikes,
                               dm_channel, escalated, of_pool, open_cases, told_customer)


def dm_texts(ctx, other_id: int) -> list[str]:
    """What the actor wrote in the DM with one colleague during the episode."""
    channel = dm_channel(ctx.final, ctx.actor_id, other_id)
    return [r["text"] for r in ctx.diff.table("chat_message").added
            if channel is not None and r["channel_id"] == channel.id and r["author_id"] == ctx.actor_id]


def teammates(session, person: Person) -> list[Person]:
    """The people of someone's team whose CRM records they may read but not change (not their reports)."""
    below = reports_of(session, person)
    return [p for p in session.scalars(select(Person).where(Person.team_id == person.team_id, Person.id != person.id)
                                       .order_by(Person.id)) if p.id not in below] if person.team_id else []


def _report_twice(account_id: int, subject: str, filer: int, others: list[int], team: str, key: str):
    """The setup: a teammate opened a case about the problem two days ago, filed the bug and escalated
    it; other teammates opened cases about the same problem since."""
    def run(session) -> None:
        now = clock.company_now(session)
        account = session.get(Account, account_id)
        clock.set_time(session, now - timedelta(days=2, hours=2))
        who = session.get(Person, filer)
        first = crm.create_case(session, who, account.id, subject, "Their IT team reported it again by phone.",
                                "High", "Phone")
        bug = tickets.create_ticket(session, who, "ENG", "Bug", f"{account.name}: {subject}",
                                    f"Reported by {account.name} in several CRM cases.", "High", labels=[LABEL],
                                    components=[team], due_date=(now + timedelta(days=5)).date().isoformat(),
                                    account=account.name)
        if bug.key != key:
            raise RuntimeError(f"the setup filed {bug.key}, not {key}")
        crm.escalate_case(session, who, first.id, "Engineering must fix it.", bug.key)
        for hours, other in zip((27, 20, 14), others):
            clock.set_time(session, now - timedelta(hours=hours))
            crm.create_case(session, session.get(Person, other), account.id, subject,
                            "Another user at the customer hit it.", "Medium", "Email")
            colleagues.plant_note(session, session.get(Person, other), "ticket", key,
                                  "Thanks, I'll escalate my case to it today.")
    return run


@register
class SupportDuplicateCases(TaskTemplate):
    """Put a customer's repeated reports of one problem on the one bug that tracks it."""

    id, apps, difficulty, kind = "w.support_duplicate_cases", ("crm", "tickets", "chat", "org"), 4, "workflow"
    toolsets = ("chat", "crm", "tickets.work")  # its apps hold over 100 tools
    scale, rules = "medium", (ESCALATION,)
    summary = ("A manager asks to put a customer's reports of one problem on the bug a teammate filed: escalate "
               "your cases to it, watch it as the account owner, give each teammate with a case about it the bug's "
               "key, tell the customer the key and the manager too.")

    def sample(self, session, rng, instance):
        accounts = {a.id: a for a in session.scalars(select(Account))}
        choices, cases, crews = [], open_cases(session, Case.subject.in_(list(AREAS))), {}
        alike: dict[tuple[int, str], list[Case]] = {}
        for case in cases:
            alike.setdefault((case.account_id, case.subject), []).append(case)
        for case in cases:
            same = alike[(case.account_id, case.subject)]
            owner = session.get(Person, case.owner_id)
            if owner.id not in crews:
                crews[owner.id] = [m for m in teammates(session, owner) if m.id != owner.manager_id]
            if (case.owner_id == accounts[case.account_id].owner_id and same[0].id == case.id and owner.manager_id
                    and all(c.owner_id == case.owner_id for c in same) and len(crews[owner.id]) >= 4
                    and not session.scalar(select(Ticket.id).where(Ticket.account_id == case.account_id,
                                                                   Ticket.summary.contains(case.subject)))):
                choices.append(case)
        case = spread(of_pool(choices, self.split, "case"), instance)
        account, actor = accounts[case.account_id], session.get(Person, case.owner_id)
        own = [c.id for c in open_cases(session, Case.account_id == case.account_id, Case.subject == case.subject)]
        mates = [m for m in teammates(session, actor) if m.id != actor.manager_id]
        rng.shuffle(mates)
        filer, others = mates[0], mates[1:4]
        team, _ = area_team(session, rng, case.subject)
        key, boss = next_key(session, "ENG"), boss_of(session, actor)
        dm = dm_name(actor.id, boss.id)
        steps = [*dm_reads(dm), *read_rule(session, ESCALATION, "customer escalation"),
                 ToolCall("crm_list_cases", {"account": account.name, "status": "open"}),
                 ToolCall("crm_get_case", {"case": session.scalar(select(func.max(Case.id))) + 1}),
                 ToolCall("tickets_get_ticket", {"key": key}),
                 ToolCall("crm_get_account", {"account": account.name}),
                 ToolCall("org_get_team", {"team": session.get(Team, actor.team_id).name})]
        for cid in own:
            steps += [ToolCall("crm_get_case", {"case": cid}),
                      ToolCall("crm_escalate_case", {"case": cid, "ticket": key,
                                                     "reason": f"Same problem as {key}, which engineering is on."})]
        steps += [ToolCall("tickets_watch_ticket", {"key": key}),
                  ToolCall("crm_get_contact", {"contact": case.contact_id}),
                  ToolCall("crm_log_activity", {"record_type": "contact", "record_id": case.contact_id, "kind": "email",
                                                "subject": f"{case.subject}: one fix for all your reports",
                                                "body": f"Told them every report of it is now tracked in {key}."},
                            role="note")]
        first_new = session.scalar(select(func.max(Case.id))) + 2  # the teammates' cases the setup opens
        for number, other in enumerate(others):
            steps.append(ToolCall("crm_get_case", {"case": first_new + number}))
            at = len(steps)
            steps += [ToolCall("chat_open_conversation", {"people": [f"@{other.handle}"]}),
                      ToolCall("chat_post_message", {"channel": Ref(at, "id"), "text": (
                          f"Hi @{other.handle}, {account.name}'s \"{case.subject}\" is tracked in {key}: please "
                          "escalate your case about it to that bug.")}, role="note")]
        steps += [ToolCall("crm_list_cases", {"account": account.name, "status": "open"}),
                  ToolCall("chat_post_message", {"channel": dm, "text": (
                      f"@{boss.handle} done: my cases are escalated to {key}, the teammates with cases have the key "
                      f"and {account.name} knows it's all tracked there.")}, role="report")]
        text = (f"Hi @{actor.handle}, {account.name} has reported \"{case.subject}\" through several cases, yours and "
                "your teammates', and engineering already tracks it in one bug. Can you put every case about it on "
                "that bug the way the customer escalation path wants? Escalate the ones that are yours to it, do what "
                "the path asks of the account's owner, send the owner of each case still New or Working that you "
                "can't escalate one direct message with the bug's key, and tell the customer the key (log that in the "
                "CRM as an email or a call). Then tell me the bug's key.")
        return TaskInstance(
            self.id, instance, actor.id,
            request_instruction(rng, named(session, boss), whom=named(session, boss)),
            steps, {"own": own, "key": key, "others": [o.id for o in others], "account": account.id, "boss": boss.id},
            setup=setup_of(_report_twice(account.id, case.subject, filer.id, [o.id for o in others], team, key),
                           dm_step(boss.id, actor.id, text)))

    def declare(self, start, inst):
        p = inst.params
        case = start.get(Case, p["own"][0])
        pool = key_pool(start, "ENG", p["key"])
        return Declaration([Target("case", case.id, case_lookalikes(start, case, inst.actor_id))],
                           [Claim(Candidate.text(p["key"]), pool, "text", "ticket key")])

    def check(self, ctx, inst):
        p = inst.params
        key = p["key"]
        bug = ctx.start.scalar(select(Ticket).where(Ticket.key == key))
        results = [check(f"Your case {cid} is escalated to {key}", escalated(ctx, ctx.start.get(Case, cid), key),
                         f"it is {getattr(ctx.final.get(Case, cid), 'status', None)} with "
                         f"{getattr(ctx.final.get(Case, cid), 'ticket_key', None)}", 2) for cid in p["own"]]
        results.append(check(f"You watch {key}", bug is not None and ctx.final.get(Watcher, (bug.id, ctx.actor_id)),
                             "you are not a watcher"))
        allowed = [Allow("tickets_watcher", ("added",), lambda row: bug is not None and row["ticket_id"] == bug.id
                         and row["person_id"] == ctx.actor_id)]
        pool = self.declare(ctx.start, inst).claims[0].others
        for other in p["others"]:
            person = ctx.start.get(Person, other)
            results += says(dm_texts(ctx, other), Candidate.text(key), pool,
                            f"Your DM to {person.name} gives the key {key}", "ticket key", weight=2)
            allowed += dm_allowances(ctx, other)
        told = [told_customer(ctx, ctx.start.get(Case, cid)) for cid in p["own"]]
        emails = [f"{r['subject']} {r['body']}" for r in ctx.diff.table("crm_activity").added if any(t(r) for t in told)]
        results += says(emails, Candidate.text(key), pool, f"You told the customer the key {key} (an email or a call "
                        "logged)", "ticket key", weight=4)
        boss = ctx.start.get(Person, p["boss"])
        dm, replies = dm_replies(ctx, boss.id)
        results += decision_reply_checks(replies, False, boss.name, facts=[Claim(Candidate.text(key), pool, "text",
                                                                                 "ticket key")],
                                         actions=("escalated", "put", "moved", "linked"), weight=4)
        allowed += allow_posts(ctx, dm, limit=1, mentions=2) if dm else []
        allowed += [Allow("crm_activity", ("added",), t) for t in told]
        for cid in p["own"]:
            allowed += allow_escalation(ctx.start.get(Case, cid))
        return results + [nothing_else_changed(ctx.diff, allowed)]
