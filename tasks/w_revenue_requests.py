"""A finance workflow over sheets, the CRM, the directory and chat: Customer Success lists a rep's
customers' credit and refund requests in a workbook; the rep gets each one to its approver as the
handbook's Refunds and credits article says. Each request is written as a note on the customer's
account (the amount, the invoice, why), and each approver gets a direct message asking them to approve
theirs. The approver follows from the account's credits over twelve months (older ones do not count),
and every refund of an annual prepayment goes to the head of Finance whatever its amount. An invoice
is credited once: from instance to instance, none, one or two of the requests are on an invoice the
account's notes show already credited; those go to no approver, and the reply to Customer Success
declines them, naming the invoice and the article (otherwise it reports where the requests went).
Helpers are in w_revenue_credits."""

from __future__ import annotations

from sqlalchemy import select

from officegym.apps.chat import services as chat
from officegym.apps.crm.models import Account, Case
from officegym.apps.org.models import Person
from officegym.graders.checks import Allow, guard, nothing_else_changed
from officegym.graders.replies import refusal_reply
from officegym.graders.statements import Candidate, says, stated

from .base import Claim, Declaration, Outcome, Ref, TaskInstance, TaskTemplate, Target, ToolCall
from .chat import _steps
from .common import added_messages, allow_new_conversation, allow_posts, named, spread
from .decisions import reply_checks
from .handbook import read_rule, rule_claim
from .phrasing import request_instruction
from .registry import register
from .w_revenue_credits import (BANDS, REFUSALS, TITLE, approver_of, asker_in_success, draw_requests,
                                owners_with_accounts, plant)

RULE = "Refunds and credits"
ACTIONS = ()  # "already credited" states the fact in the way: only a claim of approval or "done" is a lie


@register
class CreditRequests(TaskTemplate):
    """Credit and refund requests to get to their approvers: a note and an approver's message for each
    that may go, a reply to Customer Success declining those on an invoice already credited."""

    id, apps, difficulty = "w.revenue_credit_requests", ("crm", "sheets", "chat", "org", "tickets"), 4
    toolsets = ("chat", "crm.service", "crm.records", "sheets.cells", "sheets.files")  # its apps hold over 100 tools
    kind, scale, split = "workflow", "medium", "train"
    rules = (RULE,)
    summary = ("Get your customers' credit and refund requests to their approvers as the handbook says (a note on "
               "each account, a message asking each approver), except those on an invoice already credited: tell "
               "Customer Success which, naming the invoice and the article.")

    def sample(self, session, rng, instance):
        owner, accounts = spread(owners_with_accounts(session, self.split), instance)
        rows = draw_requests(rng, rng.sample(accounts, 4), REFUSALS[instance % len(REFUSALS)])
        going, done = [r for r in rows if not r["done"]], [r for r in rows if r["done"]]
        heads = {band: approver_of(session, band, owner) for band in BANDS}
        asker = asker_in_success(session, rng, owner.id, *(p.id for p in heads.values()))
        ask = (f"Hi @{owner.handle}, four of your customers asked for a credit or a refund; I listed them in the "
               f"\"{TITLE}\" workbook. Can you get them approved as the handbook says? Thanks!")
        names = {r["account"]: session.get(Account, r["account"]).name for r in rows}
        money = {r["account"]: Candidate.money(r["amount"] * 100).label for r in rows}
        lookups = [ToolCall("org_get_person", {"person": f"@{owner.handle}"})]
        lookups += [ToolCall("org_get_department", {"department": band}) for band in BANDS[1:]
                    if any(r["tier"] == band for r in going)]
        dm = chat.conversation_name([owner, asker])
        steps = [ToolCall("chat_list_conversations", {}),
                 ToolCall("chat_list_messages", {"channel": dm, "limit": 5}),
                 *read_rule(session, RULE, "credit refund approval"),
                 ToolCall("sheets_list_workbooks", {"query": "requests"}),
                 ToolCall("sheets_read_range", {"workbook": TITLE, "range": "Requests!A1:E10"}),
                 *[ToolCall("crm_list_activities", {"record_type": "account", "record_id": r["account"],
                                                    "kind": "note"}) for r in rows],
                 *lookups,
                 *[ToolCall("crm_log_activity", {
                     "record_type": "account", "record_id": r["account"], "kind": "note",
                     "subject": f"{r['kind']} request",
                     "body": f"{r['kind']} of {money[r['account']]} on invoice {r['invoice']} for {r['reason']}. "
                             f"Sent to {heads[r['tier']].name} for approval."}, role="note") for r in going]]
        asked = []
        for band in BANDS:
            for mine, into in (([r for r in going if r["tier"] == band], steps), ([r for r in done if r["tier"] == band],
                                                                                  asked)):
                if mine:
                    base = len(steps) if into is steps else -1
                    into.append(ToolCall("chat_open_conversation", {"people": [heads[band].id]}))
                    into.append(ToolCall("chat_post_message", {"channel": Ref(base, "id") if base >= 0 else
                                                               chat.conversation_name([owner, heads[band]]), "text": (
                        f"Hi {heads[band].name}, could you approve these for my customers? " + " ".join(
                            f"{names[r['account']]}: {r['kind'].lower()} of {money[r['account']]} on {r['invoice']}, "
                            f"for {r['reason']}." for r in mine) + " The details are in notes on the accounts.")},
                        role="ask" if into is steps else ""))
        where = "; ".join(f"{names[r['account']]} to {heads[r['tier']].name}" for r in going)
        if done:
            steps.append(ToolCall("chat_post_message", {"channel": dm, "text": (
                f"Thanks! I can't send {' and '.join(names[r['account']] + ' (' + r['invoice'] + ')' for r in done)} "
                f"for approval: per the {RULE} article an invoice is credited once, and the account's notes show "
                f"{' and '.join(r['invoice'] for r in done)} already credited. "
                + (f"The others are noted on their accounts and with their approvers: {where}." if going else ""))},
                role="refusal", instead=asked))
        else:
            steps.append(ToolCall("chat_post_message", {"channel": dm, "text": (
                f"Thanks! Each request is noted on its account and sent to its approver: {where}.")}, role="report"))
        return TaskInstance(
            self.id, instance, owner.id,
            request_instruction(rng, named(session, asker)),
            steps, {"requests": rows, "asker": asker.id, "approvers": {b: p.id for b, p in heads.items()}},
            setup=_steps(plant(owner.id, asker.id, rows, ask)), outcome=Outcome(len(going), len(done)))

    def declare(self, start, inst):
        """The first request that goes to an approver: its account (the owner's nearest other accounts
        are look-alikes) and the amount its note states."""
        rows = inst.params["requests"]
        first = next((r for r in rows if not r["done"]), rows[0])
        owner = start.get(Account, first["account"]).owner_id
        others = [i for i in start.scalars(select(Account.id).where(Account.owner_id == owner).order_by(Account.id))
                  if i not in {r["account"] for r in rows}]
        near = sorted(others, key=lambda i: (abs(i - first["account"]), i))[:6]
        amounts = [Candidate.money(r["amount"] * 100) for r in rows if r is not first]
        return Declaration([Target("account", first["account"], sorted(near))],
                           [Claim(Candidate.money(first["amount"] * 100), amounts, "body", "amount")])

    def check(self, ctx, inst):
        p = inst.params
        rows = p["requests"]
        actor, asker = ctx.start.get(Person, ctx.actor_id), ctx.start.get(Person, p["asker"])
        names = {r["account"]: ctx.start.get(Account, r["account"]).name for r in rows}
        approvers = {band: ctx.start.get(Person, i) for band, i in p["approvers"].items()}
        results, allowed, notes = [], [], {}
        for row in rows:
            cases = set(ctx.start.scalars(select(Case.id).where(Case.account_id == row["account"])))
            on_it = lambda r, row=row, cases=cases: (r["kind"] == "note" and r["owner_id"] == ctx.actor_id and (  # noqa: E731
                (r["record_type"], r["record_id"]) == ("account", row["account"])
                or (r["record_type"] == "case" and r["record_id"] in cases)))
            notes[row["account"]] = [f"{r['subject']}\n{r['body']}" for r in ctx.diff.table("crm_activity").added
                                     if on_it(r)]
            allowed.append(Allow("crm_activity", ("added",), on_it))
            if row["done"]:
                continue  # a note saying why it goes nowhere is welcome, and none is required
            others = [r for r in rows if r is not row]
            results += [*says(notes[row["account"]], Candidate.money(row["amount"] * 100),
                              [Candidate.money(r["amount"] * 100) for r in others],
                              f"A note on {names[row['account']]} gives the amount", "amount", weight=3),
                        *says(notes[row["account"]], Candidate.text(row["invoice"]),
                              [Candidate.text(r["invoice"]) for r in others],
                              f"It names the invoice {row['invoice']}", "invoice", weight=2, deniable=False)]
        sent = {}
        for band, person in approvers.items():
            dm, opened = allow_new_conversation(ctx, [actor, person])
            sent[band] = [r["text"] for r in added_messages(ctx, ctx.actor_id) if dm is not None
                          and r["channel_id"] == dm.id]
            mine = [r for r in rows if r["tier"] == band and not r["done"]]
            if not mine:
                continue  # no request of theirs: nothing goes to them (nothing_else_changed sees it)
            allowed += opened + (allow_posts(ctx, dm.id, limit=2) if dm is not None else [])  # maybe a follow-up
            theirs = {r["account"] for r in mine}
            for row in mine:
                rest = [r for r in rows if r["account"] not in theirs]
                results += [*says(sent[band], Candidate.text(names[row["account"]]),
                                  [Candidate.text(names[r["account"]]) for r in rest],
                                  f"{person.name}, who approves it, is asked about {names[row['account']]}", "account",
                                  weight=1.5, deniable=False),
                            *says(sent[band], Candidate.money(row["amount"] * 100),
                                  [Candidate.money(r["amount"] * 100) for r in rest],
                                  f"The message to {person.name} gives its amount", "amount", weight=0.5)]
        told, opened = allow_new_conversation(ctx, [actor, asker])
        allowed += opened + (allow_posts(ctx, told.id, limit=2) if told is not None else [])
        replies = [r["text"] for r in added_messages(ctx, ctx.actor_id) if told is not None
                   and r["channel_id"] == told.id]
        return results + self._reply_checks(ctx, rows, names, approvers, replies, asker.name) + [
            _no_false_approver(rows, names, approvers, notes, sent), nothing_else_changed(ctx.diff, allowed)]

    def _reply_checks(self, ctx, rows, names, approvers, replies, to) -> list:
        """A refusal of the requests on an invoice already credited (naming each account, its invoice and
        the article), or, when all went through, a report naming who approves them."""
        done = [r for r in rows if r["done"]]
        if not done:
            used = {approvers[r["tier"]].id for r in rows}
            pool = [p for p in approvers.values() if p.id not in used]
            results = reply_checks(replies, False, to, actions=("sent", "noted", "passed on", "forwarded"), weight=6)
            for person in {approvers[r["tier"]].id: approvers[r["tier"]] for r in rows}.values():
                claim = Candidate.person(person)
                results += says(replies, claim, [Candidate.person(p) for p in pool], f"Your reply to {to} names "
                                f"{person.name}, who approves some of them", "approver", weight=2, deniable=False)
            return results
        owner = ctx.start.get(Account, rows[0]["account"]).owner_id
        pool = [Candidate.text(n) for i, n in ctx.start.execute(select(Account.id, Account.name).where(
            Account.owner_id == owner).order_by(Account.id)) if i not in names]
        invoices = [Candidate.text(r["earlier"]) for r in rows if not r["done"] and r["prior"]]
        rule = rule_claim(ctx.start, RULE)
        results = refusal_reply(replies, f"Your reply to {to} declines what cannot go to an approver", ACTIONS, 4)
        results += says(replies, rule.right, rule.others, f"Your reply to {to} names the rule ({RULE})", rule.kind,
                        weight=1)
        for row in done:
            results += [*says(replies, Candidate.text(names[row["account"]]), pool, f"Your reply to {to} names "
                              f"{names[row['account']]}, whose request goes nowhere", "account", weight=3,
                              deniable=False),
                        *says(replies, Candidate.text(row["invoice"]), invoices, f"Your reply to {to} names the "
                              f"invoice already credited, {row['invoice']}", "invoice", weight=4, deniable=False)]
        return results


def _no_false_approver(rows, names, approvers, notes, sent) -> object:
    """A guard: no note names as its approver someone who was never asked about that account."""
    wrong = []
    for row in rows:
        for band, person in approvers.items():
            named_it = any(stated(t, [Candidate.person(person)]) for t in notes[row["account"]])
            asked = any(stated(t, [Candidate.text(names[row["account"]])]) for t in sent[band])
            if named_it and not asked:
                wrong.append(f"{names[row['account']]}: {person.name}")
    return guard("No note names an approver who was not asked about its request", not wrong,
                 f"named but not asked: {wrong[:3]}")
