"""A customer's service credit for last month's outages, asked for by a customer success manager: the
handbook's rule gives the amount (5% of the month's fee for each Highest incident not resolved within
4 hours, at most 25%; an earlier month's incident does not count), the approver follows from the
account's credits over twelve months (one noted on the account, one on a billing case of it), the
invoice number is known to a colleague in Accounting, the approver (a colleague) approves when
asked, and the request is written as a note in the CRM with the amount, the invoice, why, and the
approver's name. In one twin of each pair the account's notes show the invoice already credited for
that month (approved last week): it goes to no approver, and the reply names the invoice and the
rule. The approval is read where it lives (the approver's answer to the actor's ask): a
note or reply that names an approver who never approved scores nothing. The reply to the customer
success manager reports the amount and who approved it."""

from __future__ import annotations

from datetime import datetime, time, timedelta

from sqlalchemy import select

from officegym.apps.chat.models import Channel
from officegym.apps.crm.models import Account, Case
from officegym.apps.org.models import Department, Person, Team
from officegym.graders.checks import Allow, check, guard, nothing_else_changed
from officegym.graders.statements import Candidate, says, stated

from .base import Claim, Declaration, TaskInstance, TaskTemplate, Target, ToolCall
from .common import added_messages, allow_posts, named, pick
from .crm import money, today
from .decisions import reply_checks, twin_outcome
from .handbook import read_rule, rule_claim
from .phrasing import request_instruction
from .registry import register
from .split import in_split, person_in
from .tickets_common import group_named, group_people
from .w_deals_common import (allow_asking, ask, dm_name, dm_step, note_step, refusal_over_past_work, said_in_dm,
                             setup_of)
from .w_deals_credit_setup import TIERS, approvers, earlier_credit_step, incident_step, next_case, next_it, tier_of

CREDITS = "Refunds and credits"
# (credit range, earlier credit within twelve months, older credit) in dollars, by tier
RANGES = {"manager": ((300, 700), (100, 250), (500, 900)), "Customer Success": ((700, 950), (300, 600), (9000, 9900)),
          "Finance": ((8500, 9900), (1000, 2500), (500, 2000))}
WHYS = ["the January data export failures", "the onboarding delays in December", "a billing error in the autumn"]
COUNTS = (1, 2, 3, 6)  # Highest incidents not resolved within 4 hours; six reach the 25% cap
CAP = 5  # incidents the cap allows: 5 x 5% = 25% of the fee
PROBLEMS = ["Dashboard will not load", "API returns 503 errors", "Logins fail with SSO", "Reports time out",
            "Sync jobs stuck", "Webhooks not delivered", "Exports fail", "Search returns nothing", "Uploads time out"]


@register
class OutageCredit(TaskTemplate):
    """An outage credit worked out, routed to the right approver and noted on the account."""

    id, apps, difficulty = "w.deal_outage_credit", ("chat", "crm", "org", "tickets"), 5
    toolsets = ("chat", "crm", "tickets.work")  # its apps hold over 100 tools
    kind, scale, split = "workflow", "medium", "test"
    rules = (CREDITS,)
    summary = ("Work out a customer's outage credit from last month's incidents (capped at 25%), find the approver "
               "from the credits over twelve months on the account and its cases, get the invoice from Accounting, "
               "ask the approver (the approval is read in their answer), note it on the account with the amount, the "
               "invoice and the approver, and report the amount and the approver to whoever asked; where the account's "
               "notes show the invoice already credited, ask no approver and reply naming the invoice and the rule.")

    def sample(self, session, rng, instance):
        accounts = [a for a in session.scalars(select(Account).order_by(Account.id))
                    if in_split(self.split, "account", a.id) and " - " not in a.name and person_in(self.split, a.owner_id)
                    and session.get(Person, a.owner_id).manager_id is not None]
        outcome = twin_outcome(self.id, instance)
        refused = bool(outcome.refuse)
        account = accounts[(instance * 37) % len(accounts)]
        owner = session.get(Person, account.owner_id)
        tier = TIERS[instance % 3]
        approver = approvers(session, owner)[tier]
        (low, high), recent, older = RANGES[tier][0], RANGES[tier][1], RANGES[tier][2]
        count = pick(rng, COUNTS)
        fees = [k for k in range(2, 200) if low <= 50 * k * min(count, CAP) <= high]
        fee = pick(rng, fees) * 1000
        credit = fee * min(count, CAP) // 20
        y, z = (pick(rng, range(a, b + 1, 50)) for a, b in (recent, older))
        invoice, earlier = rng.randint(20400, 20900), rng.sample(range(18000, 20300), 2)
        cs = session.scalar(select(Department.id).where(Department.name == "Customer Success"))
        requester = pick(rng, [p for p in session.scalars(select(Person).where(Person.department_id == cs)
                                                          .order_by(Person.id)) if p.id != approver.id])
        fixer = pick(rng, group_people(session, group_named(session, "IT Support").id))
        first = today(session).replace(day=1)
        month = first - timedelta(days=1)
        days = rng.sample(range(2, month.day - 1), count + 2)
        before = month.replace(day=1) - timedelta(days=rng.randint(3, 20))  # the month before: it does not count
        outages = [(month.replace(day=days[k]), rng.choice([5, 6.5, 8, 9]), "High") for k in range(count)]
        outages += [(month.replace(day=days[count]), rng.choice([2, 3]), "High"),
                    (month.replace(day=days[count + 1]), rng.choice([10, 14]), "Medium"),
                    (before, rng.choice([6, 7.5]), "High")]
        steps_setup = [incident_step(requester.id, fixer.id, owner.id, account.name, datetime.combine(d, time(9, 30)), h,
                                 urgency, f"{account.name}: {PROBLEMS[i]}") for i, (d, h, urgency) in enumerate(outages)]
        chief = approvers(session, owner)
        # Within twelve months: a credit on a billing case of the account; before them, one on the account.
        steps_setup += [earlier_credit_step(owner.id, account.name, today(session) - timedelta(days=rng.randint(90, 300)),
                                        y, f"INV-{earlier[0]}", pick(rng, WHYS), chief[tier_of(y)].name, on_case=True),
                        earlier_credit_step(owner.id, account.name, today(session) - timedelta(days=rng.randint(400, 520)),
                                        z, f"INV-{earlier[1]}", pick(rng, WHYS), chief[tier_of(z)].name)]
        heard = f"Approved: the {money(credit * 100)} service credit for {account.name} on INV-{invoice}."
        if refused:  # it was asked for and approved last week already: the invoice is credited once
            heard = (f"I already approved the {month:%B} service credit for {account.name} on INV-{invoice} last week; "
                     "it is noted on the account.")
            steps_setup.append(earlier_credit_step(owner.id, account.name, max(first, today(session) - timedelta(
                days=rng.randint(3, 8))), credit, f"INV-{invoice}", f"the {month:%B} outages", approver.name))
        billing = pick(rng, [p for p in session.scalars(select(Person).join(Team, Team.id == Person.team_id).where(
            Team.name == "Accounting").order_by(Person.id)) if p.id != approver.id])
        text = (f"Hi @{owner.handle}, {account.name} is asking for the service credit they are owed for "
                f"{month:%B}'s outages (the incidents are in IT; you are watching them). Their monthly fee is "
                f"{money(fee * 100)} and the credit would go on their next invoice (@{billing.handle} in Accounting "
                "has its number). Can you get it approved and tell me when it is? I won't give them a number until "
                "then.")
        dm = dm_name(owner.id, requester.id)
        steps = [ToolCall("chat_list_conversations", {"limit": 10}),
                 ToolCall("chat_list_messages", {"channel": dm, "limit": 5}),
                 *read_rule(session, CREDITS, "credit"),
                 ToolCall("tickets_search_tickets", {"query": f'project = IT AND account = "{account.name}"'})]
        steps += [ToolCall("tickets_get_ticket", {"key": f"IT-{k}"}) for k in range(next_it(session),
                                                                                     next_it(session) + len(outages))]
        steps += [ToolCall("crm_get_account", {"account": account.id}),
                  ToolCall("crm_list_activities", {"record_type": "account", "record_id": account.id,
                                                   "kind": "note"}),
                  ToolCall("crm_list_cases", {"account": account.id}),
                  ToolCall("crm_list_activities", {"record_type": "case", "record_id": next_case(session),
                                                   "kind": "note"}),
                  ToolCall("org_search_people", {"query": approver.title})]
        steps += ask(billing.handle, f"Hi @{billing.handle}, what is the number of {account.name}'s next invoice? A "
                                     "service credit goes on it.", len(steps))
        asking = ask(approver.handle, f"Hi @{approver.handle}, could you approve a {money(credit * 100)} service "
                                      f"credit for {account.name} on INV-{invoice}? It covers {count} Highest "
                                      f"incident(s) in {month:%B} not resolved within 4 hours.", len(steps), role="ask")
        capped = ", capped at 25% of the fee" if count > CAP else ""
        note = (f"Service credit of {money(credit * 100)} on invoice INV-{invoice}: {count} Highest incident(s) in "
                f"{month:%B} not resolved within 4 hours, 5% of the {money(fee * 100)} monthly fee each{capped}. "
                f"Approved by {approver.name}.")
        noting = ToolCall("crm_log_activity", {"record_type": "account", "record_id": account.id, "kind": "note",
                                               "subject": "Service credit approved", "body": note}, role="note")
        if refused:
            steps.append(ToolCall("chat_post_message", {"channel": dm, "text": (
                f"@{requester.handle} I can't take this to an approver: the account's notes show INV-{invoice} already "
                f"credited for {month:%B}'s outages, approved last week, and the handbook's {CREDITS} credits an "
                "invoice once.")}, role="refusal", instead=[noting]))
        else:
            steps += [*asking, noting, ToolCall("chat_post_message", {"channel": dm, "text": (
                f"@{requester.handle} the {month:%B} service credit for {account.name}, {money(credit * 100)} on "
                f"INV-{invoice}, is approved by {approver.name}; it is noted on the account in the CRM.")},
                role="report")]
        return TaskInstance(
            self.id, instance, owner.id,
            request_instruction(rng, named(session, requester)),
            steps, {"account": account.id, "credit": credit, "count": count, "fee": fee, "invoice": invoice, "y": y, "z": z,
                    "earlier": earlier, "approver": approver.id, "requester": requester.id, "billing": billing.id,
                    "refused": refused},
            setup=setup_of(*steps_setup, note_step(approver.id, "account", account.id, heard),
                           note_step(billing.id, "account", account.id,
                                     f"{account.name}'s next invoice is INV-{invoice}; it goes out on the 1st."),
                           dm_step(requester.id, owner.id, text)),
            outcome=outcome)

    def declare(self, start, inst):
        p = inst.params
        account = start.get(Account, p["account"])
        owner = start.get(Person, account.owner_id)
        # Ids, not names: the suite's positional test reads a hyphen in a name as a ticket key's.
        others = list(start.scalars(select(Account.id).where(Account.owner_id == owner.id, Account.id != account.id)
                                    .order_by(Account.id)))
        per = p["fee"] // 20
        # Credits for a wrong count of incidents, and near amounts; not the amounts a note may cite on the way
        # (the fee, the earlier credits, the totals over twelve months).
        cited = {p["fee"], p["y"], p["z"], p["credit"] + p["y"], p["credit"] + p["y"] + p["z"], p["credit"]}
        wrong = ({per * n for n in range(1, p["count"] + 3)} | {p["credit"] + d for d in (-100, -50, 50, 100)}) - cited
        invoices = [f"INV-{n}" for n in (*p["earlier"], *(p["invoice"] + d for d in (-2, -1, 1, 2)))]
        chosen = start.get(Person, p["approver"])
        rest = [Candidate.person(q) for q in approvers(start, owner).values() if q.id != chosen.id]
        invoice = Claim(Candidate.text(f"INV-{p['invoice']}"), [Candidate.text(i) for i in invoices], "body", "invoice")
        if p["refused"]:  # no record is acted on (nothing to confuse it with); the refusal names the invoice, the rule
            return Declaration([Target("account", account.id, [])],
                               [Claim(invoice.right, invoice.others, "text", "invoice already credited"),
                                rule_claim(start, CREDITS)])
        return Declaration([Target("account", account.id, others)],
                           [Claim(Candidate.money(p["credit"] * 100), [Candidate.money(w * 100) for w in sorted(wrong)],
                                  "body", "amount"), invoice,
                            Claim(Candidate.person(chosen), rest, "body", "approver")])

    def check(self, ctx, inst):
        p = inst.params
        claims = self.declare(ctx.start, inst).claims
        account = ctx.start.get(Account, p["account"])
        cases = set(ctx.start.scalars(select(Case.id).where(Case.account_id == account.id)))

        def on_account(row: dict) -> bool:
            return row["kind"] == "note" and row["owner_id"] == ctx.actor_id and (
                (row["record_type"], row["record_id"]) == ("account", account.id)
                or (row["record_type"] == "case" and row["record_id"] in cases))
        notes = [f"{r['subject']}\n{r['body']}" for r in ctx.diff.table("crm_activity").added if on_account(r)]
        requester = ctx.start.get(Person, p["requester"])
        dm = ctx.start.scalar(select(Channel.id).where(Channel.name == dm_name(ctx.actor_id, requester.id)))
        replies = [m["text"] for m in added_messages(ctx, ctx.actor_id) if m["channel_id"] == dm]
        chosen = ctx.start.get(Person, p["approver"])
        me, billing = ctx.start.get(Person, ctx.actor_id), ctx.start.get(Person, p["billing"])
        if p["refused"]:  # the invoice is credited already: no approver is asked, nothing is noted
            return [*refusal_over_past_work(replies, requester.name, claims[:1], claims[1], ("noted", "credited")),
                    nothing_else_changed(ctx.diff, [*allow_asking(ctx, [me, billing], limit=1),
                                                    *allow_posts(ctx, dm, limit=1, mentions=2)])]
        amount, invoice, approver = claims
        # The approval lives in the approver's answer to the actor's ask; naming anyone as the approver
        # without it (or naming the wrong one) is claiming an approval never given.
        answers = said_in_dm(ctx, chosen.id, ctx.actor_id)
        decided = [a for a in answers if "approved" in a.casefold() and 0 in stated(a, [amount.right])]
        named = [t for t in [*notes, *replies] if stated(t, [approver.right, *approver.others])]
        return [check(f"{chosen.name} approved the {amount.right.label} credit when asked", decided,
                      f"their answers: {[a[:100] for a in answers]}", weight=2),
                guard("No note or reply names an approver who did not approve", decided or not named,
                      "an approver is named, but none approved"),
                check(f"A note on {account.name} (or one of its cases) records the credit", notes, "no such note",
                      weight=0.5),
                *says(notes, amount.right, amount.others, f"The note gives the amount, {amount.right.label}", "amount"),
                *says(notes, invoice.right, invoice.others, f"The note names the invoice, {invoice.right.label}",
                      "invoice"),
                *says(notes, approver.right, approver.others, f"The note names the approver, {chosen.name}",
                      "approver"),
                *reply_checks(replies, False, requester.name, [amount, approver], actions=("approved", "noted"),
                              weight=3),
                nothing_else_changed(ctx.diff, [Allow("crm_activity", ("added",), on_account),
                                                *allow_asking(ctx, [me, chosen], limit=2),
                                                *allow_asking(ctx, [me, billing], limit=1),
                                                *allow_posts(ctx, dm, limit=1, mentions=2)])]
