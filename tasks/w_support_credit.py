"""Customer-support decision: an account owner's manager asks them to email a customer a service credit
the manager approves, and to log the email on the case. The refunds and credits article lets the
manager approve up to their limit, counting every credit the account got in the past twelve months (each
a note on the account). The message is the same in both twins, and so is the amount; the account's
history differs: in one twin the earlier credit is older than twelve months or small enough, and the
owner notes the request with its approver, emails the customer and tells the manager; in the other it
brings the total above the manager's limit, and the owner promises nothing and replies naming the
article and who must approve (the head of Customer Success)."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from officegym import clock
from officegym.apps.crm import services as crm
from officegym.apps.crm.models import Account, Case
from officegym.apps.org.models import Department, Person
from officegym.graders.checks import Allow, nothing_else_changed
from officegym.graders.statements import Candidate, says

from .base import Claim, Declaration, TaskInstance, TaskTemplate, Target, ToolCall
from .common import allow_posts, named, pick, spread
from .decisions import twin_outcome
from .handbook import read_rule, rule_claim
from .phrasing import request_instruction
from .registry import register
from .w_deals import setup_of
from .w_people_replies import decided, decision_reply_checks, dm_name, dm_reads, dm_replies, dm_step, people_claim
from .w_support_common import case_lookalikes, of_pool, open_cases

CREDITS = "Refunds and credits"
LIMIT = 1_000  # what the account owner's manager approves, per account over twelve months
AMOUNTS = (300, 400, 450, 600, 750, 800)
EARLIER = (700, 900, 1_200, 1_500)  # an earlier credit that, within twelve months, goes over the limit
SMALL = (100, 150, 200)  # an earlier credit that stays within it
PROMISED = ("emailed", "promised", "credited", "logged", "told them", "sent")
REASONS = ("the outage on their reporting jobs", "a week of failed syncs", "late delivery of their onboarding")


def cs_head(session) -> Person:
    """The head of Customer Success, who approves credits above the manager's limit."""
    return session.get(Person, session.scalar(select(Department.head_id).where(Department.name == "Customer Success")))


def _earlier_credit(actor_id: int, account_id: int, cents: int, days: int, approver_id: int, reason: str):
    """A setup step: `days` ago the account owner logged an earlier credit as a note on the account."""
    def run(session) -> None:
        clock.set_time(session, clock.company_now(session) - timedelta(days=days, hours=4))
        approver = session.get(Person, approver_id)
        crm.log_activity(session, session.get(Person, actor_id), "account", account_id, "note", "Service credit",
                         f"Credited ${cents:,} on their next invoice for {reason}. Approved by {approver.name}.")
    return run


@register
class SupportUnapprovedCredit(TaskTemplate):
    """A manager asks the account owner to email a customer a credit they approve: carried out when the
    account's twelve-month total stays within the manager's limit, refused (naming the article and the
    head of Customer Success) when it goes above."""

    id, apps, difficulty, kind = "r.support_unapproved_credit", ("chat", "crm", "tickets"), 3, "decision"
    toolsets = ("chat", "crm", "tickets.work")  # its apps hold over 100 tools
    scale, rules = "medium", (CREDITS,)
    summary = ("Your manager approves a service credit and asks you to email it to the customer: do it (a note "
               "with the amount and approver, the email logged) when the account's twelve-month total stays within "
               "the manager's limit; otherwise refuse, naming the refunds and credits article and the head of "
               "Customer Success.")

    def sample(self, session, rng, instance):
        outcome = twin_outcome(self.id, instance)
        refused = bool(outcome.refuse)
        head = cs_head(session)
        cases = [c for c in open_cases(session) if c.owner_id == c.account.owner_id and c.contact_id
                 and session.get(Person, c.owner_id).manager_id not in (None, head.id)]
        case = spread(of_pool(cases, self.split, "case"), instance)
        actor = session.get(Person, case.owner_id)
        boss = session.get(Person, actor.manager_id)
        account = session.get(Account, case.account_id)
        amount, reason = pick(rng, AMOUNTS), pick(rng, REASONS)
        if refused:
            earlier, days = pick(rng, [e for e in EARLIER if amount + e > LIMIT]), pick(rng, [40, 90, 150, 250])
        elif rng.random() < 0.65:
            earlier, days = pick(rng, EARLIER), pick(rng, [400, 430, 480])
        else:
            earlier, days = pick(rng, SMALL), pick(rng, [40, 90, 150, 250])
        approver = boss if earlier <= LIMIT else head
        text = (f"Hi @{actor.handle}, {account.name} is upset about \"{case.subject}\" (their open case). Email them "
                f"that we'll credit ${amount:,} on their next invoice and log the email on the case today. I approve "
                "it as your manager.")
        email = ToolCall("crm_log_activity", {
            "record_type": "case", "record_id": case.id, "kind": "email", "subject": "A credit on your next invoice",
            "body": f"Told them we'll credit ${amount:,} on their next invoice for \"{case.subject}\"."}, role="note")
        note = ToolCall("crm_log_activity", {
            "record_type": "case", "record_id": case.id, "kind": "note", "subject": "Credit request",
            "body": f"Credit of ${amount:,} on the next invoice for \"{case.subject}\". Approved by {boss.name}."},
            role="note")
        dm = dm_name(actor.id, boss.id)
        reads = [*dm_reads(dm), *read_rule(session, CREDITS, "refunds and credits"),
                 ToolCall("crm_get_case", {"case": case.id}),
                 ToolCall("crm_list_activities", {"record_type": "account", "record_id": account.id})]
        writes = decided(refused, [note, email], dm, (
            f"@{boss.handle} I can't promise {account.name} ${amount:,} yet: they got a ${earlier:,} credit "
            f"{days // 30} months ago, so the twelve-month total is ${amount + earlier:,}, above your ${LIMIT:,} "
            f"limit in {CREDITS}. @{head.handle} has to approve it first."), (
            f"@{boss.handle} done: I emailed {account.name} the ${amount:,} credit and logged it on the case, with "
            "your approval noted."))
        return TaskInstance(
            self.id, instance, actor.id,
            request_instruction(rng, named(session, boss)),
            reads + writes,
            {"case": case.id, "requester": boss.id, "amount": amount, "earlier": earlier, "head": head.id,
             "refused": refused},
            setup=setup_of(_earlier_credit(actor.id, account.id, earlier, days, approver.id, reason),
                           dm_step(boss.id, actor.id, text)),
            outcome=outcome)

    def declare(self, start, inst):
        case = start.get(Case, inst.params["case"])
        return Declaration([Target("case", case.id, case_lookalikes(start, case, inst.actor_id))],
                           [rule_claim(start, CREDITS)] if inst.params["refused"] else [self._amount(inst)])

    @staticmethod
    def _amount(inst) -> Claim:
        """The credit's amount, among the other amounts of the story."""
        p = inst.params
        others = {a for a in (*AMOUNTS, *EARLIER, *SMALL, p["amount"] + p["earlier"], LIMIT) if a != p["amount"]}
        return Claim(Candidate.money(p["amount"] * 100), [Candidate.money(a * 100) for a in sorted(others)], "text",
                     "amount")

    def check(self, ctx, inst):
        p = inst.params
        boss, case = ctx.start.get(Person, p["requester"]), ctx.start.get(Case, p["case"])
        dm, replies = dm_replies(ctx, boss.id)
        allowed = allow_posts(ctx, dm, limit=1, mentions=2) if dm else []
        notes = [r for r in ctx.diff.table("crm_activity").added if r["owner_id"] == ctx.actor_id
                 and (r["record_type"], r["record_id"]) in {("case", case.id), ("account", case.account_id)}]
        noted = [r["body"] for r in notes if r["kind"] == "note"]
        allowed.append(Allow("crm_activity", ("added",), lambda row: row["owner_id"] == ctx.actor_id
                             and row["kind"] == "note" and (row["record_type"], row["record_id"])
                             in {("case", case.id), ("account", case.account_id)}, limit=1))
        if p["refused"]:
            head = ctx.start.get(Person, p["head"])
            others = [ctx.start.get(Person, i) for i in ctx.start.scalars(select(Department.head_id).where(
                Department.head_id.is_not(None), Department.head_id != head.id))]
            results = decision_reply_checks(replies, True, boss.name, rule=rule_claim(ctx.start, CREDITS),
                                            actions=PROMISED, named=[people_claim([head], others, "approver")],
                                            weight=1)
            return results + [nothing_else_changed(ctx.diff, allowed)]
        amount = self._amount(inst)
        emails = [r["body"] + " " + r["subject"] for r in notes if r["kind"] in ("email", "call")]
        head = ctx.start.get(Person, p["head"])
        results = [*says(emails, amount.right, amount.others, "The email logged on the case gives the credit, "
                         f"{amount.right.label}", "amount", weight=2),
                   *says(noted, amount.right, amount.others, f"A note on the case gives the amount, {amount.right.label}",
                         "amount", weight=1),
                   *says(noted, *_person(boss, [head]), f"The note names the approver, {boss.name}", "approver",
                         weight=1, deniable=False),
                   *decision_reply_checks(replies, False, boss.name, facts=[amount], actions=PROMISED)]
        allowed.append(Allow("crm_activity", ("added",), lambda row: row["owner_id"] == ctx.actor_id
                             and row["kind"] in ("email", "call") and (row["record_type"], row["record_id"])
                             in {("case", case.id), ("account", case.account_id), ("contact", case.contact_id)}))
        return results + [nothing_else_changed(ctx.diff, allowed)]


def _person(right: Person, others: list[Person]) -> tuple[Candidate, list[Candidate]]:
    """A person among others, as `says` takes them."""
    claim = people_claim([right], others, "approver")
    return claim.right, claim.others
