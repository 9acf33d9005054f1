"""Customer-support workflow: the engineer on the bugs behind your escalated cases about one problem
(two customers, a bug each) has a workaround; get it from them, record it on each case and bug, and
have each customer hear it from their one contact, the account owner (helpers in w_support)."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import func, select

from officegym import clock, colleagues
from officegym.apps.crm import services as crm
from officegym.apps.crm.models import Account, Case, Contact
from officegym.apps.org.models import Person
from officegym.apps.tickets import services as tickets
from officegym.graders.checks import Allow, guard, nothing_else_changed
from officegym.graders.statements import Candidate, says

from .base import Claim, Declaration, Ref, TaskInstance, TaskTemplate, Target, ToolCall
from .common import allow_posts, dm_allowances, named, pick, spread
from .handbook import read_rule
from .phrasing import request_instruction
from .registry import register
from .split import in_split, person_in
from .tickets_common import key_pool, next_key, ticket_by_key
from .w_deals import setup_of
from .w_people_replies import decision_reply_checks, dm_name, dm_reads, dm_replies, dm_step
from .w_support_common import (AREAS, ESCALATION, LABEL, area_team, ask_steps, boss_of, bug_exists, case_lookalikes,
                        customer_bugs, open_cases, told_customer)
from .w_support_more import dm_texts

RECORDED = ("noted", "recorded", "added", "told", "passed on", "sent")
# What an engineer tells support to do until the fix ships, by the problem it works around.
WORKAROUNDS = {
    "Webhook deliveries delayed": "Resend the failed webhooks from the delivery log",
    "API rate limit errors": "Raise the API client's retry delay to 2 seconds",
    "Invoice shows the wrong tax rate": "Set the tax region on each invoice line by hand",
    "Dashboard not loading in Safari": "Turn off Safari's cross-site tracking prevention for our domain",
    "Slow report generation": "Run the report from the scheduled reports page overnight",
    "Export to CSV times out": "Export one month at a time instead of the whole year",
    "Data sync stuck": "Pause the sync and start it again from the integrations page",
    "Audit log export missing events": "Download the audit log through the API instead of the UI",
    "SSO login fails for some users": "Have those users sign in with the direct login link",
    "Password reset emails not arriving": "Add our no-reply address to the mail server's allow list",
}


def second_accounts(session, accounts: dict, case: Case, bugs: set | None = None) -> list[Account]:
    """The other accounts of the case's owner where the same problem could be escalated too: no case
    about it open or escalated, no bug about it (of `bugs`, when given)."""
    def free(account: Account) -> bool:
        return not bug_exists(session, account, case.subject, bugs) and session.scalar(select(Case.id).where(
            Case.account_id == account.id, Case.subject == case.subject, Case.status != "Closed")) is None
    return [a for a in sorted(accounts.values(), key=lambda a: a.id)
            if a.owner_id == case.owner_id and a.id != case.account_id and free(a)]


def _escalate(actor_id: int, case_id: int, second: dict, team: str, engineer_id: int, keys: list[str],
              workaround: str):
    """The setup: the actor escalated the case four days ago, then a case another of their customers
    opened about the same problem soon after; the engineer took both bugs and found a workaround (they
    say it when asked about either bug)."""
    def run(session) -> None:
        now = clock.company_now(session)
        actor, engineer = session.get(Person, actor_id), session.get(Person, engineer_id)
        at = lambda hours: clock.set_time(session, now - timedelta(hours=hours))  # noqa: E731
        first = session.get(Case, case_id)
        for key, hours in zip(keys, (98, 80)):
            at(hours)
            case = first if key == keys[0] else crm.create_case(
                session, actor, second["account"], first.subject, "The customer's admins reported it.", "Medium",
                "Email", second["contact"])
            account = session.get(Account, case.account_id)
            at(hours - 1)  # due 7 days after it is filed
            bug = tickets.create_ticket(session, actor, "ENG", "Bug", f"{account.name}: {case.subject}",
                                        "Reported through the CRM case.", "High", labels=[LABEL], components=[team],
                                        due_date=(now + timedelta(hours=7 * 24 - hours + 1)).date().isoformat(),
                                        account=account.name)
            if bug.key != key:
                raise RuntimeError(f"the setup filed {bug.key}, not {key}")
            crm.escalate_case(session, actor, case.id, "Engineering must fix it.", bug.key)
            tickets.watch_ticket(session, actor, bug.key)
        for key, hours in zip(keys, (77, 76)):
            at(hours)
            tickets.assign_ticket(session, engineer, key, engineer.id)
            tickets.transition_ticket(session, engineer, key, "Start progress")
            colleagues.plant_note(session, engineer, "ticket", key,
                                  f"Workaround until the fix ships: {workaround}. The customer can do it today.")
    return run


@register
class SupportWorkaround(TaskTemplate):
    """Get an engineer's workaround, record it on each case and bug, and have each customer told."""

    id, apps, difficulty, kind = "w.support_workaround_case", ("crm", "tickets", "chat", "org"), 5, "workflow"
    toolsets = ("chat", "crm", "tickets.work")  # its apps hold over 100 tools
    scale, rules, split = "medium", (ESCALATION,), "test"
    summary = ("A manager asks the account owner to get the workaround from the engineer on the bugs behind their "
               "escalated cases about one problem (asking them: nobody else has it), note it on each case and bug, "
               "have each customer told it, and tell the manager the bugs it covers.")

    def sample(self, session, rng, instance):
        accounts, bugs = {a.id: a for a in session.scalars(select(Account))}, customer_bugs(session)

        def usable(c: Case) -> bool:  # the owner has no escalation about it yet, and another account for one
            return (not bug_exists(session, accounts[c.account_id], c.subject, bugs)
                    and not session.scalar(select(Case.id).where(Case.owner_id == c.owner_id, Case.subject == c.subject,
                                                                 Case.status == "Escalated"))
                    and bool(second_accounts(session, accounts, c, bugs)))
        cases = open_cases(session, Case.subject.in_(list(AREAS)))
        inside = [c for c in cases if in_split(self.split, "case", c.id) and person_in(self.split, c.owner_id)]
        # The split's usable cases (as of_pool keeps them), found without testing every case; all when none is.
        managed = [c for c in cases if session.get(Person, c.owner_id).manager_id]
        case = spread([c for c in inside if c in managed and usable(c)] or [c for c in managed if usable(c)], instance)
        actor = session.get(Person, case.owner_id)
        boss = boss_of(session, actor)
        dm = dm_name(actor.id, boss.id)
        other = pick(rng, second_accounts(session, accounts, case, bugs))
        contact = session.scalar(select(Contact.id).where(Contact.account_id == other.id).order_by(Contact.id))
        second = session.scalar(select(func.max(Case.id))) + 1  # the case the setup opens
        team, engineer = area_team(session, rng, case.subject)
        number, workaround = int(next_key(session, "ENG").split("-")[1]), WORKAROUNDS[case.subject]
        keys = [f"ENG-{number}", f"ENG-{number + 1}"]
        mine = [(case.id, case.account_id, case.contact_id, keys[0]), (second, other.id, contact, keys[1])]
        steps = [*dm_reads(dm), *read_rule(session, ESCALATION, "customer escalation"),
                 ToolCall("crm_list_cases", {"owner": f"@{actor.handle}", "status": "Escalated"})]
        for cid, _, _, key in mine:
            steps += [ToolCall("crm_get_case", {"case": cid}), ToolCall("tickets_get_ticket", {"key": key}),
                      ToolCall("tickets_list_comments", {"key": key})]
        steps += [ToolCall("org_search_people", {"query": engineer.name}),
                  *ask_steps(engineer.handle, f"Hi @{engineer.handle}, what's the workaround on {keys[0]} and "
                             f"{keys[1]}?", len(steps) + 1)]
        steps[-2].role = "ask"
        for cid, _, _, key in mine:
            steps += [ToolCall("crm_log_activity", {"record_type": "case", "record_id": cid, "kind": "note",
                                                    "subject": "Workaround",
                                                    "body": f"Workaround from {key}: {workaround}."}, role="note"),
                      ToolCall("tickets_add_comment", {"key": key, "body": f"Workaround for the customer: "
                                                                           f"{workaround}."}, role="note")]
        owners = []
        for cid, account_id, contact_id, key in mine:
            account = accounts[account_id]
            owners.append(account.owner_id)
            steps.append(ToolCall("crm_get_account", {"account": account.name}))
            if account.owner_id == actor.id:
                steps += [ToolCall("crm_get_contact", {"contact": contact_id}) if contact_id else
                          ToolCall("crm_list_contacts", {"account": account.name}),
                          ToolCall("crm_log_activity", {"record_type": "case", "record_id": cid, "kind": "email",
                                                        "subject": "A workaround until the fix",
                                                        "body": f"Told the customer: {workaround}."}, role="note")]
            else:
                owner = session.get(Person, account.owner_id)
                steps += [ToolCall("chat_open_conversation", {"people": [f"@{owner.handle}"]}),
                          ToolCall("chat_post_message", {"channel": Ref(len(steps), "id"), "text": (
                              f"Hi @{owner.handle}, engineering has a workaround for {account.name} on {key}, "
                              f"please pass it to the customer: {workaround}.")}, role="note")]
        steps += [ToolCall("crm_list_activities", {"record_type": "case", "record_id": case.id}),
                  ToolCall("tickets_list_comments", {"key": keys[0]}),
                  ToolCall("chat_post_message", {"channel": dm, "text": (
                      f"@{boss.handle} done: the workaround is noted on both cases and on {keys[0]} and {keys[1]}, "
                      "and both customers have it.")}, role="report")]
        text = (f"Hi @{actor.handle}, @{engineer.handle} has a workaround for the bugs behind your escalated "
                f"\"{case.subject}\" cases. Could you ask @{engineer.handle} for it in one direct message, record it "
                "word for word as a note on each of those cases and as a comment on each of their bugs, and get it to "
                "each customer the way the customer escalation path wants? Please log what you tell a customer in the "
                "CRM as an email or a call. Then tell me which bugs it covers.")
        return TaskInstance(
            self.id, instance, actor.id,
            request_instruction(rng, named(session, boss), whom=named(session, boss)),
            steps, {"cases": [case.id, second], "keys": keys, "engineer": engineer.id, "owners": owners,
                    "boss": boss.id},
            setup=setup_of(_escalate(actor.id, case.id, {"account": other.id, "contact": contact}, team, engineer.id,
                                     keys, workaround), dm_step(boss.id, actor.id, text)))

    def declare(self, start, inst):
        case = start.get(Case, inst.params["cases"][0])
        right = WORKAROUNDS[case.subject]
        pool = [Candidate.text(w) for w in WORKAROUNDS.values() if w != right]
        claims = [Claim(Candidate.text(right), pool, "body", "workaround")]
        if any(o != inst.actor_id for o in inst.params["owners"]):
            claims.append(Claim(Candidate.text(right), pool, "text", "workaround"))
        like = case_lookalikes(start, case, inst.actor_id)
        return Declaration([Target("case", case.id, like), Target("case", inst.params["cases"][1], like)], claims)

    def check(self, ctx, inst):
        p = inst.params
        claim = self.declare(ctx.start, inst).claims[0]
        added = ctx.diff.table("crm_activity").added
        mine = [r for r in added if r["owner_id"] == ctx.actor_id]
        results, allowed = [], dm_allowances(ctx, p["engineer"])
        for cid, key, owner_id in zip(p["cases"], p["keys"], p["owners"]):
            case, bug = ctx.start.get(Case, cid), ticket_by_key(ctx.start, key)
            bid = getattr(bug, "id", None)

            def noted(row, cid=cid) -> bool:
                return (row["record_type"], row["record_id"], row["kind"]) == ("case", cid, "note") \
                    and row["owner_id"] == ctx.actor_id

            def commented(row, bid=bid) -> bool:
                return row["ticket_id"] == bid and row["author_id"] == ctx.actor_id and not row["internal"]
            results += [*says([r["body"] for r in mine if noted(r)], claim.right, claim.others,
                              f"A note on case {cid} gives the workaround", "workaround"),
                        *says([r["body"] for r in ctx.diff.table("tickets_comment").added if commented(r)],
                              claim.right, claim.others, f"A comment on {key} gives the workaround", "workaround")]
            allowed += [Allow("crm_activity", ("added",), noted), Allow("tickets_comment", ("added",), commented),
                        Allow("tickets_ticket", ("updated",), lambda row, bid=bid: row["id"] == bid, ("updated_at",))]
            if owner_id == ctx.actor_id:
                told = told_customer(ctx, case)
                results += says([r["body"] for r in mine if told(r)], claim.right, claim.others,
                                f"As the account owner, you told case {cid}'s customer the workaround (an email or "
                                "call logged)", "workaround")
                allowed.append(Allow("crm_activity", ("added",), told))
            else:
                owner = ctx.start.get(Person, owner_id)
                results += says(dm_texts(ctx, owner.id), claim.right, claim.others,
                                f"You gave the workaround to case {cid}'s account owner, {owner.name}", "workaround")
                allowed += dm_allowances(ctx, owner.id)
        engineer = ctx.start.get(Person, p["engineer"])
        asked = says(dm_texts(ctx, engineer.id), Candidate.text(*p["keys"], ctx.start.get(Case, p["cases"][0]).subject), [], "", "bug",
                     deniable=False)[0].passed
        boss = ctx.start.get(Person, p["boss"])
        dm, replies = dm_replies(ctx, boss.id)
        facts = [Claim(Candidate.text(k), key_pool(ctx.start, "ENG", k, allowed=tuple(p["keys"])), "text", "bug")
                 for k in p["keys"]]
        results += decision_reply_checks(replies, False, boss.name, facts=facts, actions=RECORDED, weight=2)
        allowed += allow_posts(ctx, dm, limit=1, mentions=2) if dm else []
        return [guard(f"Only {engineer.name} has the workaround: you asked them about the bugs", asked,
                      f"no message of yours to {engineer.name} names the bugs or the problem"),
                *results, nothing_else_changed(ctx.diff, allowed)]
