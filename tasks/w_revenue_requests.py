"""A finance workflow over sheets, the CRM, the directory and chat: Customer Success lists a rep's
customers' credit and refund requests in a workbook; the rep gets each one to its approver as the
handbook's Refunds and credits article says. Each request is written as a note on the customer's
account (the amount, the invoice, why), and each approver gets a direct message with their
requests. The approver follows from the account's credits over twelve months (older ones do not
count), and every refund of an annual prepayment goes to the head of Finance whatever its amount."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from officegym import clock
from officegym.apps.chat import services as chat
from officegym.apps.crm import services as crm
from officegym.apps.crm.models import Account, Case
from officegym.apps.org.models import Department, Person
from officegym.apps.sheets import services as sheets
from officegym.graders.checks import Allow, nothing_else_changed
from officegym.graders.statements import Candidate, says

from .base import Claim, Declaration, Ref, TaskInstance, TaskTemplate, Target, ToolCall
from .chat import _steps
from .common import added_messages, allow_new_conversation, allow_posts, pick, spread
from .handbook import read_rule
from .registry import register
from .split import in_split, person_in

TITLE = "Credit and refund requests 2026"
REFUND = "Refund of annual prepayment"
KINDS = ("Service credit", "Goodwill credit", REFUND)
REASONS = {"Service credit": ["the February outages", "the data export failures in January"],
           "Goodwill credit": ["the delayed onboarding", "a billing error on their last invoice"],
           REFUND: ["seats they cancelled within the trial period", "a duplicate annual payment"]}
AMOUNTS = {"Service credit": [300, 450, 650, 800, 1_200, 2_500, 4_800, 7_200, 12_500],
           "Goodwill credit": [250, 400, 700, 1_500, 3_000],
           REFUND: [400, 900, 3_600, 8_000]}
PRIORS = [0, 0, 250, 600, 3_000, 9_500]  # credits approved on the account within twelve months
MANAGER_UP_TO, CS_UP_TO = 1_000, 10_000


def tier(kind: str, amount: int, prior: int) -> str:
    """Who approves a request: every refund of an annual prepayment goes to Finance; otherwise the
    account's twelve-month total decides (the owner's manager, Customer Success, Finance). A total
    on a band's edge is never drawn."""
    total = prior + amount
    if kind == REFUND or total > CS_UP_TO:
        return "Finance"
    return "manager" if total < MANAGER_UP_TO else "Customer Success"


def approver_of(session, band: str, owner: Person) -> Person:
    """The person who approves a band: the owner's manager, or the head of the department."""
    found = owner.manager_id if band == "manager" else \
        session.scalar(select(Department.head_id).where(Department.name == band))
    if found is None:
        raise RuntimeError(f"the world has no {band} approver for this task")
    return session.get(Person, found)


def _requests(rng, accounts: list[Account]) -> list[dict]:
    """One request per account, with the account's earlier credits, drawn until they go to at least
    two approvers, no total sits on a band's edge, and no two share an amount or an invoice."""
    for _ in range(500):
        drawn = []
        for account in accounts:
            kind = pick(rng, KINDS)
            row = {"account": account.id, "kind": kind, "amount": pick(rng, AMOUNTS[kind]), "prior": pick(rng, PRIORS),
                   "old": pick(rng, [0, 2_000, 8_000]), "reason": pick(rng, REASONS[kind]),
                   "invoice": f"INV-2026-{rng.randrange(100, 400):04d}"}
            row["tier"] = tier(kind, row["amount"], row["prior"])
            drawn.append(row)
        totals = {r["prior"] + r["amount"] for r in drawn}
        invoices = {r["invoice"] for r in drawn}
        if len({r["tier"] for r in drawn}) >= 2 and not totals & {MANAGER_UP_TO, CS_UP_TO} \
                and len(invoices) == len({r["amount"] for r in drawn}) == len(drawn):  # each told apart by both
            return drawn
    raise RuntimeError("no requests go to two approvers")


def _plant(owner_id: int, asker_id: int, rows: list[dict], ask: str):
    """The setup: the owner's earlier credit notes on the accounts (one within twelve months, one
    older); yesterday Customer Success listed the requests in a workbook shared with the owner and
    told them by direct message."""
    def run(session) -> None:
        owner, asker = session.get(Person, owner_id), session.get(Person, asker_id)
        base = clock.company_now(session).replace(hour=11, minute=0, second=0, microsecond=0)
        for row in rows:
            for days, amount, invoice in ((400, row["old"], "INV-2024-0871"), (150, row["prior"], "INV-2025-0932")):
                if amount:
                    clock.set_time(session, base - timedelta(days=days))
                    crm.log_activity(session, owner, "account", row["account"], "note", "Service credit approved",
                                     f"${amount:,} on {invoice} for an outage. Approved as the handbook says.")
        clock.set_time(session, base.replace(hour=15, minute=20) - timedelta(days=1))
        book = sheets.create_workbook(session, asker, TITLE, ["Requests"], "Customers' credit and refund requests")
        table = [["Account", "Invoice", "Request", "Amount", "Reason"]] + [
            [session.get(Account, r["account"]).name, r["invoice"], r["kind"], r["amount"], r["reason"]] for r in rows]
        sheets.write_range(session, asker, book.id, "Requests!A1", table)
        sheets.share_workbook(session, asker, book.id, owner.id, "viewer")
        chat.post_message(session, asker, chat.open_conversation(session, asker, [owner.id]).id, ask)
    return run


def _options(session, split: str) -> list[tuple[Person, list[Account]]]:
    """Sales people of `split` with a manager who own at least four accounts of the split (by id)
    whose names the workbook can hold as they are."""
    sales = session.scalar(select(Department.id).where(Department.name == "Sales"))
    found = []
    for owner in session.scalars(select(Person).where(Person.department_id == sales, Person.manager_id.is_not(None))
                                 .order_by(Person.id)):
        accounts = [a for a in session.scalars(select(Account).where(Account.owner_id == owner.id).order_by(Account.id))
                    if in_split(split, "account", a.id) and '"' not in a.name]
        if person_in(split, owner.id) and len(accounts) >= 4:
            found.append((owner, accounts))
    return found


def _asker(session, rng, *besides: int) -> Person:
    """Someone in Customer Success (not its head) who lists the requests."""
    success = session.scalar(select(Department.id).where(Department.name == "Customer Success"))
    people = [p for p in session.scalars(select(Person).where(Person.department_id == success).order_by(Person.id))
              if p.id not in besides and p.manager_id is not None]
    return pick(rng, people)


@register
class CreditRequests(TaskTemplate):
    id, apps, difficulty = "w.revenue_credit_requests", ("crm", "sheets", "chat", "org", "tickets"), 4
    toolsets = ("chat", "crm.service", "crm.records", "sheets.cells", "sheets.files")  # its apps hold over 100 tools
    kind, scale, split = "workflow", "medium", "train"
    rules = ("Refunds and credits",)
    summary = ("Get your customers' credit and refund requests to their approvers as the handbook says: a note on "
               "each account, a direct message to each approver.")

    def sample(self, session, rng, instance):
        owner, accounts = spread(_options(session, self.split), instance)
        picked = rng.sample(accounts, 4)
        rows = _requests(rng, picked)
        heads = {band: approver_of(session, band, owner) for band in ("manager", "Customer Success", "Finance")}
        asker = _asker(session, rng, owner.id, *(p.id for p in heads.values()))
        ask = (f"Hi @{owner.handle}, four of your customers asked for a credit or a refund; I listed them in the "
               f"\"{TITLE}\" workbook. Can you get them approved as the handbook says? Thanks!")
        names = {r["account"]: session.get(Account, r["account"]).name for r in rows}
        money = {r["account"]: Candidate.money(r["amount"] * 100).label for r in rows}
        lookups = [ToolCall("org_get_person", {"person": f"@{owner.handle}"})]
        lookups += [ToolCall("org_get_department", {"department": band}) for band in ("Customer Success", "Finance")
                    if any(r["tier"] == band for r in rows)]
        steps = [ToolCall("chat_list_conversations", {}),
                 ToolCall("chat_list_messages", {"channel": chat.conversation_name([owner, asker]), "limit": 5}),
                 *read_rule(session, "Refunds and credits", "credit refund approval"),
                 ToolCall("sheets_list_workbooks", {"query": "requests"}),
                 ToolCall("sheets_read_range", {"workbook": TITLE, "range": "Requests!A1:E10"}),
                 *[ToolCall("crm_list_activities", {"record_type": "account", "record_id": r["account"],
                                                    "kind": "note"}) for r in rows],
                 *lookups,
                 *[ToolCall("crm_log_activity", {
                     "record_type": "account", "record_id": r["account"], "kind": "note",
                     "subject": f"{r['kind']} request",
                     "body": f"{r['kind']} of {money[r['account']]} on invoice {r['invoice']} for {r['reason']}. "
                             f"Sent to {heads[r['tier']].name} for approval."}) for r in rows]]
        for band in ("manager", "Customer Success", "Finance"):
            mine = [r for r in rows if r["tier"] == band]
            if mine:
                steps.append(ToolCall("chat_open_conversation", {"people": [heads[band].id]}))
                steps.append(ToolCall("chat_post_message", {"channel": Ref(len(steps) - 1, "id"), "text": (
                    f"Hi {heads[band].name}, could you approve these for my customers? " + " ".join(
                        f"{names[r['account']]}: {r['kind'].lower()} of {money[r['account']]} on {r['invoice']}, "
                        f"for {r['reason']}." for r in mine) + " The details are in notes on the accounts.")}))
        steps.append(ToolCall("chat_post_message", {"channel": chat.conversation_name([owner, asker]), "text": (
            "Thanks! Each request is noted on its account and with its approver.")}))
        return TaskInstance(
            self.id, instance, owner.id,
            f"{asker.name} sent you a direct message about some of your customers. Handle it as the handbook says, "
            "and change nothing else.",
            steps, {"requests": rows, "asker": asker.id, "approvers": {b: p.id for b, p in heads.items()}},
            setup=_steps(_plant(owner.id, asker.id, rows, ask)))

    def declare(self, start, inst):
        """The first request's account (the owner's nearest other accounts are look-alikes); the
        amount its note states."""
        rows = inst.params["requests"]
        first = rows[0]
        owner = start.get(Account, first["account"]).owner_id
        others = [i for i in start.scalars(select(Account.id).where(Account.owner_id == owner).order_by(Account.id))
                  if i not in {r["account"] for r in rows}]
        near = sorted(others, key=lambda i: (abs(i - first["account"]), i))[:6]
        amounts = [Candidate.money(r["amount"] * 100) for r in rows[1:]]
        return Declaration([Target("account", first["account"], sorted(near))],
                           [Claim(Candidate.money(first["amount"] * 100), amounts, "body", "amount")])

    def check(self, ctx, inst):
        p = inst.params
        rows = p["requests"]
        actor, asker = ctx.start.get(Person, ctx.actor_id), ctx.start.get(Person, p["asker"])
        names = {r["account"]: ctx.start.get(Account, r["account"]).name for r in rows}
        results, allowed = [], []
        for row in rows:
            cases = set(ctx.start.scalars(select(Case.id).where(Case.account_id == row["account"])))
            on_it = lambda r, row=row, cases=cases: (r["kind"] == "note" and r["owner_id"] == ctx.actor_id and (  # noqa: E731
                (r["record_type"], r["record_id"]) == ("account", row["account"])
                or (r["record_type"] == "case" and r["record_id"] in cases)))
            notes = [f"{r['subject']}\n{r['body']}" for r in ctx.diff.table("crm_activity").added if on_it(r)]
            allowed.append(Allow("crm_activity", ("added",), on_it))
            others = [r for r in rows if r is not row]
            results += [*says(notes, Candidate.money(row["amount"] * 100),
                              [Candidate.money(r["amount"] * 100) for r in others],
                              f"A note on {names[row['account']]} gives the amount", "amount", weight=1),
                        *says(notes, Candidate.text(row["invoice"]), [Candidate.text(r["invoice"]) for r in others],
                              f"It names the invoice {row['invoice']}", "invoice", weight=0.5, deniable=False)]
        for band, person_id in p["approvers"].items():
            mine = [r for r in rows if r["tier"] == band]
            person = ctx.start.get(Person, person_id)
            dm, opened = allow_new_conversation(ctx, [actor, person])
            if not mine:
                continue  # no request of theirs: nothing goes to them (nothing_else_changed sees it)
            allowed += opened + (allow_posts(ctx, dm.id, limit=2) if dm is not None else [])  # maybe a follow-up
            sent = [r["text"] for r in added_messages(ctx, ctx.actor_id) if dm is not None and r["channel_id"] == dm.id]
            theirs = {r["account"] for r in mine}
            for row in mine:
                rest = [r for r in rows if r["account"] not in theirs]
                results += [*says(sent, Candidate.text(names[row["account"]]),
                                  [Candidate.text(names[r["account"]]) for r in rest],
                                  f"{person.name}, who approves it, is asked about {names[row['account']]}", "account",
                                  weight=1.5, deniable=False),
                            *says(sent, Candidate.money(row["amount"] * 100),
                                  [Candidate.money(r["amount"] * 100) for r in rest],
                                  f"The message to {person.name} gives its amount", "amount", weight=0.5)]
        told = allow_new_conversation(ctx, [actor, asker])[0]
        allowed += allow_posts(ctx, told.id) if told is not None else []
        return results + [nothing_else_changed(ctx.diff, allowed)]
