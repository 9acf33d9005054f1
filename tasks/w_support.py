"""Customer-support workflow: a manager asks the account owner to take a customer's case down the
handbook's escalation path; the team whose area it is comes from the engineer who triaged it, asked
by direct message (nobody else knows it). The escalation's reason names that team, the customer hears
the bug's key (an email or call logged) and the manager is told it.

The other support workflows: a problem reported through several cases (w_support_more), a review of
your escalations (w_support_review), an engineer's workaround (w_support_workaround), a customer's
waiting legal requests (w_support_queue); the decisions are in w_support_refusals and w_support_credit;
the helpers they share in w_support_common."""

from __future__ import annotations

from sqlalchemy import select

from officegym.apps.crm.models import Account, Case
from officegym.apps.org.models import Person
from officegym.apps.tickets.models import Component
from officegym.colleagues import plant_note
from officegym.graders.checks import Allow, check, guard, nothing_else_changed
from officegym.graders.statements import Candidate, says

from .base import Claim, Declaration, TaskInstance, TaskTemplate, Target, ToolCall
from .common import allow_posts, dm_allowances, named, spread
from .crm import today
from .handbook import read_rule
from .phrasing import request_instruction
from .registry import register
from .tickets_common import key_pool, next_key, project_id
from .w_deals import setup_of
from .w_people_replies import decision_reply_checks, dm_name, dm_reads, dm_replies, dm_step
from .w_support_common import (AREAS, ESCALATION, allow_escalation, area_team, ask_steps, boss_of, bug_allowances,
                               bug_call, bug_checks, bug_exists, case_lookalikes, component_id, customer_bugs,
                               escalated, escalation_bug, open_cases, told_customer, of_pool)
from .w_support_more import dm_texts

FILED = ("escalated", "filed", "raised", "logged", "opened", "created")


def team_claim(session, team: str) -> Claim:
    """The team whose area it is, among the other ENG components' teams."""
    names = session.scalars(select(Component.name).where(Component.project_id == project_id(session, "ENG"),
                                                         Component.name != team).order_by(Component.id))
    return Claim(Candidate.text(team, f"{team} team"), [Candidate.text(n) for n in names], "reason", "team")


def key_claim(session, key: str) -> Claim:
    """A bug's key among ENG's other keys."""
    return Claim(Candidate.text(key), key_pool(session, "ENG", key), "text", "bug's key")


@register
class SupportEscalateCase(TaskTemplate):
    """Escalate one customer case the handbook's way, at a manager's request; the team whose area it
    is comes from the engineer, the reason names it, the customer and the manager hear the bug's key."""

    id, apps, difficulty, kind = "w.support_escalate_case", ("crm", "tickets", "chat", "org"), 4, "workflow"
    toolsets = ("chat", "crm", "tickets.work")  # its apps hold over 100 tools
    scale, rules = "medium", (ESCALATION,)
    summary = ("A manager asks the account owner to take a case down the escalation path: ask the engineer who "
               "triaged it which team owns it, file the bug as the handbook wants, watch it, escalate the case with "
               "a reason naming the team, tell the customer the key and the manager too.")

    def sample(self, session, rng, instance):
        accounts, bugs = {a.id: a for a in session.scalars(select(Account))}, customer_bugs(session)
        cases = [c for c in open_cases(session, Case.subject.in_(list(AREAS)))
                 if c.owner_id == accounts[c.account_id].owner_id and c.contact_id
                 and session.get(Person, c.owner_id).manager_id
                 and len(open_cases(session, Case.account_id == c.account_id, Case.subject == c.subject)) == 1
                 and not bug_exists(session, accounts[c.account_id], c.subject, bugs)]
        case = spread(of_pool(cases, self.split, "case"), instance)
        account, owner = accounts[case.account_id], session.get(Person, case.owner_id)
        boss = boss_of(session, owner)
        team, engineer = area_team(session, rng, case.subject)
        note = (f"I triaged {account.name}'s \"{case.subject}\" report this morning: the fault is in code the {team} "
                "team owns, so it's theirs to fix.")
        day, key = today(session), next_key(session, "ENG")
        text = (f"Hi @{owner.handle}, {account.name} keeps running into \"{case.subject}\" (your case) and only "
                f"engineering can fix it. @{engineer.handle} triaged it this morning and knows whose area it is. "
                "Can you take it down the customer escalation path today? The escalation's reason should name the "
                "team whose area it is, and the customer should be told the bug's key (log that in the CRM as an "
                "email or a call). Then tell me the bug's key.")
        dm = dm_name(owner.id, boss.id)
        ask = f"Hi @{engineer.handle}, which team's area is {account.name}'s \"{case.subject}\" problem?"
        steps = [*dm_reads(dm), *read_rule(session, ESCALATION, "customer escalation"),
                 ToolCall("crm_get_case", {"case": case.id}),
                 ToolCall("tickets_search_tickets", {"query": f'project = ENG AND account ~ "{account.name}"'}),
                 *ask_steps(engineer.handle, ask, 6)]
        steps[7].role = "ask"
        steps += [bug_call(account, case.subject, team, day),
                  ToolCall("tickets_watch_ticket", {"key": key}),
                  ToolCall("crm_escalate_case", {"case": case.id, "ticket": key, "reason": (
                      f"Engineering must fix it: {engineer.name} found the fault in the {team} team's area.")},
                      role="note"),  # a justification whose fact is read, like a note (no request to approve)
                  ToolCall("crm_log_activity", {"record_type": "contact", "record_id": case.contact_id,
                                                "kind": "email", "subject": f"{case.subject}: engineering is on it",
                                                "body": f"Told them engineering is fixing it, tracked in {key}; "
                                                        "I'll update them."}, role="note"),
                  ToolCall("chat_post_message", {"channel": dm, "text": (
                      f"@{boss.handle} done: I filed {key} for the {team} team and escalated the case to it; "
                      f"{account.name} knows engineering has it.")}, role="report")]
        return TaskInstance(
            self.id, instance, owner.id,
            request_instruction(rng, named(session, boss), whom=named(session, boss)),
            steps, {"case": case.id, "team": team, "engineer": engineer.id, "boss": boss.id},
            setup=setup_of(lambda s: plant_note(s, s.get(Person, engineer.id), "account", account.id, note),
                           dm_step(boss.id, owner.id, text)))

    def declare(self, start, inst):
        case = start.get(Case, inst.params["case"])
        account = start.get(Account, case.account_id)
        theirs = list(start.scalars(select(Account.name).where(Account.owner_id == inst.actor_id,
                                                               Account.id != account.id).order_by(Account.id)))
        return Declaration([Target("case", case.id, case_lookalikes(start, case, inst.actor_id)),
                            Target("account", account.name, theirs[:20])], [team_claim(start, inst.params["team"])])

    def check(self, ctx, inst):
        p = inst.params
        case = ctx.start.get(Case, p["case"])
        account = ctx.start.get(Account, case.account_id)
        component = component_id(ctx.start, p["team"])
        bug = escalation_bug(ctx, account.id)
        key = key_claim(ctx.start, bug.get("key") or next_key(ctx.start, "ENG"))
        told = told_customer(ctx, case)
        engineer, boss = ctx.start.get(Person, p["engineer"]), ctx.start.get(Person, p["boss"])
        asked = says(dm_texts(ctx, engineer.id), Candidate.text(account.name, case.subject), [], "", "account",
                     deniable=False)[0].passed
        added = ctx.diff.table("crm_activity").added
        reasons = [r["body"] for r in added if r["record_type"] == "case" and r["record_id"] == case.id
                   and r["kind"] == "note" and r["subject"] == "Escalated"]
        team = team_claim(ctx.start, p["team"])
        dm, replies = dm_replies(ctx, boss.id)
        return [guard(f"Only {engineer.name} knows whose area it is: you asked them about {account.name}", asked,
                      f"no message of yours to {engineer.name} names {account.name} or the problem"),
                *bug_checks(ctx, bug, account, component, weight=0.5),
                check("The case is escalated with the bug's key", escalated(ctx, case, bug.get("key")),
                      f"case is {getattr(ctx.final.get(Case, case.id), 'status', None)}", 2),
                *says(reasons, team.right, team.others, f"The escalation's reason names the team, {p['team']}", "team",
                      weight=5),
                *says([r["body"] + " " + r["subject"] for r in added if told(r)], key.right, key.others,
                      "You told the customer the bug's key (an email or a call logged)", "bug's key", weight=5),
                *decision_reply_checks(replies, False, boss.name, facts=[key], actions=FILED, weight=8),
                nothing_else_changed(ctx.diff, bug_allowances(ctx, account.id, component) + allow_escalation(case)
                                     + dm_allowances(ctx, p["engineer"]) + [Allow("crm_activity", ("added",), told)]
                                     + (allow_posts(ctx, dm, limit=1, mentions=2) if dm else []))]
