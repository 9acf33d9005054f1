"""A credit request composed from the procedure library (tasks.procedures.credits): a Customer Success
colleague asks an account owner to log a customer's goodwill credit on an invoice for approval and to
say who approves it. The approver follows from the account's credits over twelve months, the new one
included, and a credit noted fifteen months ago does not count (in each instance the new credit alone,
or the old one counted, would name another approver; the approver is each of the three in turn). In one twin of each pair the account's notes show that invoice credited already: the
owner logs nothing and replies naming the article and the invoice. The request is the same in both.
Also the draws of credit requests the other templates share (`credit_on`): an approver of any of the
three tiers, whose credits hold the difficulties they hold."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from sqlalchemy import select

from officegym.apps.crm.models import Account
from officegym.apps.org.models import Person

from .common import named, pick, spread
from .crm import money, sales_people, today
from .decisions import twin_outcome
from .phrasing import request_instruction
from .procedures import Composed, DirectRequest, Plan, ReadRule, Reply
from .procedures.credits import CREDITS, CS_UP_TO, MANAGER_UP_TO, TIERS, Credit, TieredCredit, tier
from .registry import register
from .split import in_split, person_in
from .w_revenue_credits import BANDS, approver_of
from .w_support_refusals import customer_success_askers

NEW = (300, 450, 650, 800, 1_200, 2_500, 4_800, 7_200)
EARLIER = (250, 600, 3_000, 9_500)
STALE = (700, 2_000, 8_000)
WHY = ("the delayed onboarding", "a billing error on their last invoice", "the February outages",
       "the data export failures in January")


def amounts_for(rng, band: str) -> tuple[int, int, int]:
    """(new, earlier, stale) credits in dollars whose twelve-month total is approved by `band`, where the
    new credit alone or the stale one counted too would go to another approver, and no total sits on a
    band's edge."""
    while True:
        new, earlier, stale = pick(rng, NEW), pick(rng, EARLIER), pick(rng, STALE)
        totals = (new, new + earlier, new + earlier + stale)
        edges = {MANAGER_UP_TO, CS_UP_TO} & set(totals)
        if tier(totals[1]) == band and len({tier(t) for t in totals}) > 1 and not edges:
            return new, earlier, stale


def credit_on(session, rng, owner: Person, account: Account, credited: bool, invoice: str, kind=TieredCredit,
              band: str = ""):
    """A credit request of `kind` on `account` whose approver is `band`'s (one of TIERS, drawn when not
    given): a new amount, an earlier credit within twelve months (on the same invoice when `credited`)
    and one noted some fifteen months ago (`amounts_for`)."""
    new, earlier, stale = amounts_for(rng, band or pick(rng, TIERS))
    day, names = today(session), {tier_: approver_of(session, tier_, owner).name for tier_ in BANDS}
    other = invoice
    while other == invoice:  # the earlier credit's own invoice, when it is not the one asked about
        other = f"INV-{day.year}-{rng.randrange(700, 990):04d}"
    within = Credit(earlier, invoice if credited else other, pick(rng, WHY),
                    day - timedelta(days=rng.randrange(60, 200)), names[tier(earlier)])
    older = Credit(stale, f"INV-{day.year - 1}-{rng.randrange(100, 700):04d}", pick(rng, WHY),
                   day - timedelta(days=rng.randrange(430, 500)), names[tier(stale)])
    return kind(owner.id, account.id, account.name, new, invoice, pick(rng, WHY), (within,), older,
                tuple(names.items()))


def owned_accounts(session, split: str) -> list[Account]:
    """Accounts of the split, opened over 17 months ago, owned by a salesperson of the split with a manager."""
    sales = {p.id for p in sales_people(session) if p.manager_id and person_in(split, p.id)}
    before = today(session) - timedelta(days=520)
    return [a for a in session.scalars(select(Account).where(Account.owner_id.in_(sales)).order_by(Account.id))
            if in_split(split, "account", a.id) and a.created_at.date() < before]


@register
class CreditRequest(Composed):
    """Log a customer's credit request and name its approver by the twelve-month total; refuse a second
    credit on an invoice already credited."""

    id, apps, difficulty, kind = "r.lib_revenue_credit_request", ("crm", "chat", "tickets"), 4, "decision"
    toolsets = ("chat", "crm.records", "crm.service", "tickets.work")  # its apps hold over 100 tools
    scale, split, rules, hard = "medium", "test", (CREDITS,), ("summed", "lookalike", "exception")
    summary = ("A Customer Success colleague asks you to log a customer's credit for approval and say who approves "
               "it: note it on the account and name the approver of the account's twelve-month total; when the notes "
               "show that invoice credited already, log nothing and reply naming the article and the invoice.")

    def plan(self, session, rng, instance):
        refused = bool(twin_outcome(self.id, instance).refuse)
        account = spread(owned_accounts(session, self.split), instance)
        owner = session.get(Person, account.owner_id)
        asker = pick(rng, [p for p in customer_success_askers(session) if p.id != owner.id])
        invoice = f"INV-{today(session).year}-{rng.randrange(100, 400):04d}"
        band = TIERS[instance // 2 % len(TIERS)]  # its approver: each of the three in turn, over the twins
        credit = credit_on(session, rng, owner, account, refused, invoice, band=band)
        credit, text = asked_credit(asker, owner, account, credit, refused)
        return Plan(owner.id, request_instruction(rng, named(session, asker)),
                    [DirectRequest(asker.id, owner.id, text), ReadRule.of(session, CREDITS, "credit approval"),
                     credit], {"refused": refused})


def asked_credit(asker: Person, owner: Person, account: Account, credit, refused: bool, after: str = ""):
    """The colleague's request for `credit` (its words the same in both twins, `after` added) and the credit
    with the owner's reply: logged naming the approver of the twelve-month total, or refused when `refused`
    (the notes show the invoice credited already)."""
    new, why, total = credit.dollars, credit.why, credit.dollars + sum(c.dollars for c in credit.earlier)
    invoice = credit.invoice
    text = (f"Hi @{owner.handle}, {account.name} asks for a goodwill credit of {money(new * 100)} on invoice "
            f"{invoice} for {why}. Could you log it for approval as the handbook says, and tell me who approves "
            "it?" + after)
    reply = Reply(asker.id, asker.name, owner.id, (
        f"@{asker.handle} I can't log it: {account.name}'s notes show invoice {invoice} credited already, and the "
        f"handbook's {CREDITS} credits an invoice once." if refused else
        f"@{asker.handle} logged on {account.name}: {money(new * 100)} on {invoice} for {why}. With the account's "
        f"credits of the past twelve months it comes to {money(total * 100)}, so {credit.approver()} approves it."),
        refused, ("logged",), CREDITS, credit.facts(), (credit.note(),) if refused else (),
        weight=1 if refused else 5, fact_weight=5)
    return replace(credit, reply=reply), text
