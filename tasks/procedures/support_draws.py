"""Draws of the customer-case procedures (tasks.procedures.support): account owners and their accounts
with no duplicate cases of their own, subjects a customer has never had a case about, a group of
duplicates (`duplicate_group`), a closed problem the customer writes again about (`closed_problem`),
who asks, the reply that reports which case tracks each customer's problem, and a credit request whose note
is the agent's own words (`WrittenCredit`)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace

from sqlalchemy import select

from officegym.apps.crm.models import CASE_PRIORITIES, Account, Case
from officegym.apps.org.models import Person

from ..base import Claim, ToolCall
from ..common import pick, world_scan
from ..crm import sales_people
from ..split import in_split, person_in
from ..w_support_common import AREAS, OPEN
from ..w_support_refusals import customer_success_askers
from .credits import NotedCredit
from .messages import Reply
from .support import CaseIds, MergeDuplicates, PlantedCase, ReopenCase, case_ids

REPORTS = ("it happens again since this morning", "two more of their users hit it today",
           "it came back after their last release", "their admin sees it again on every attempt")


def clean_accounts(session, split: str, least: int, clean: int | None = None) -> list[tuple[Person, list, list]]:
    """Sales owners of the split with at least `least` accounts of the split (with three problems or more
    they never had a case about), `clean` of them (all, when None) with no duplicate open cases (two open
    cases of one subject): (owner, those clean accounts, the others), by owner id."""
    def scan() -> tuple:
        groups = Counter(session.execute(select(Case.account_id, Case.subject).where(Case.status.in_(OPEN + (
            "Escalated",)))))
        doubled = {account for (account, _), n in groups.items() if n > 1}
        found = []
        for person in sales_people(session):
            if not person_in(split, person.id):
                continue
            theirs = [a.id for a in session.scalars(select(Account).where(Account.owner_id == person.id)
                                                    .order_by(Account.id))
                      if in_split(split, "account", a.id) and len(fresh_subjects(session, a)) >= 3]
            tidy = tuple(a for a in theirs if a not in doubled)
            if len(theirs) >= least and len(tidy) >= (least if clean is None else clean):
                found.append((person.id, tidy, tuple(a for a in theirs if a in doubled)))
        return tuple(found)
    def accounts(ids) -> list[Account]:
        return [session.get(Account, a) for a in ids]
    return [(session.get(Person, p), accounts(tidy), accounts(doubled))
            for p, tidy, doubled in world_scan(session, ("clean accounts", split, least, clean), scan)]


def fresh_subjects(session, account: Account) -> list[str]:
    """The problems (AREAS) the account never had a case about."""
    had = set(session.scalars(select(Case.subject).where(Case.account_id == account.id)))
    return [s for s in AREAS if s not in had]


def duplicate_group(session, rng, ids: CaseIds, owner: Person, account: Account, size: int, escalated: bool,
                    beside: Account | None = None) -> MergeDuplicates:
    """`size` open cases of one fresh subject on `account`, opened days apart (one opened later Escalated
    when `escalated`), and an open case of the subject on `beside` when given."""
    subject = pick(rng, [s for s in fresh_subjects(session, account)
                         if beside is None or s in fresh_subjects(session, beside)])
    hours = sorted(rng.sample(range(20, 400, 7), size), reverse=True)  # oldest first: ids follow
    late = rng.randrange(1, size) if escalated else -1
    cases = tuple(PlantedCase(ids.take(), account.id, subject, h, pick(rng, CASE_PRIORITIES),
                              "Escalated" if k == late else pick(rng, ("New", "Working")))
                  for k, h in enumerate(hours))
    lookalike = (PlantedCase(ids.take(), beside.id, subject, rng.randrange(20, 400), pick(rng, CASE_PRIORITIES))
                 if beside is not None else None)
    return MergeDuplicates(owner.id, account.id, account.name, cases, lookalike)


def closed_problem(session, rng, ids: CaseIds, owner: Person, account: Account, recent: bool, older: bool,
                   avoid: tuple[str, ...] = ()) -> ReopenCase:
    """A fresh subject's case on `account` (none of `avoid`) closed 3-10 days ago (`recent`) or 20-45, and
    before it an older Closed case of the subject when `older`; the customer writes again about it."""
    subject = pick(rng, [s for s in fresh_subjects(session, account) if s not in avoid])
    days = rng.randrange(3, 11) if recent else rng.randrange(20, 46)
    before = days + rng.randrange(30, 90)
    old = (PlantedCase(ids.take(), account.id, subject, (before + 9) * 24, pick(rng, CASE_PRIORITIES), "Closed",
                       before),) if older else ()
    last = PlantedCase(ids.take(), account.id, subject, (days + rng.randrange(2, 8)) * 24,
                       pick(rng, CASE_PRIORITIES), "Closed", days)
    return ReopenCase(owner.id, account.id, account.name, subject, pick(rng, REPORTS), (last, *old))


def asker_for(session, rng, owner: Person) -> Person:
    """Who passes the customers' messages on: someone in Customer Success."""
    return pick(rng, [p for p in customer_success_askers(session) if p.id != owner.id])


def tracking_claims(merges: list[MergeDuplicates], reopens: list[ReopenCase]) -> tuple[Claim, ...]:
    """What the reply states: each merged customer's case that stays open, each reopened or followed case
    (among no others: a reply may well name the cases it closed, or an older case it left alone)."""
    claims = [Claim(case_ids([m.survivor().id])[0], [], "text", f"case kept open for {m.account_name}")
              for m in merges]
    return tuple(claims + [Claim(case_ids([r.closed[0].id])[0], [], "text", f"old case of {r.account_name}")
                           for r in reopens])


def report(asker: Person, owner: Person, merges: list[MergeDuplicates], reopens: list[ReopenCase],
           lead: str = "Done.") -> Reply:
    """The owner's one reply: for each customer, the case that stays open or the old case and what was
    done with it."""
    said = [f"{m.account_name}: merged into case {m.survivor().id}, which stays open" for m in merges]
    said += [f"{r.account_name}: " + (f"reopened case {r.closed[0].id}" if r.reopens else
                                      f"case {r.closed[0].id} was closed too long ago, so I opened a new case "
                                      "that follows it") for r in reopens]
    actions = ("merged",) * bool(merges) + ("reopened",) * any(r.reopens for r in reopens)
    return Reply(asker.id, asker.name, owner.id, f"@{asker.handle} {lead} " + "; ".join(said) + ".", False,
                 actions or ("opened",), facts=tracking_claims(merges, reopens), fact_weight=2)


def merge_groups(session, rng, ids: CaseIds, owner: Person, accounts, lookalikes: int, escalated: int,
                 sizes=(2, 3, 3)) -> list:
    """A MergeDuplicates on each of `accounts` (two or three cases each), the first `escalated` with an
    Escalated case opened later, the last `lookalikes` with an open case of the subject on another of the
    owner's accounts (`accounts` holds one spare account per look-alike, at its end)."""
    spare = list(accounts[len(accounts) - lookalikes:])
    targets = accounts[:len(accounts) - lookalikes]
    out = []
    for k, account in enumerate(targets):
        beside = spare.pop() if k >= len(targets) - lookalikes else None
        out.append(duplicate_group(session, rng, ids, owner, account, rng.choice(sizes), k < escalated, beside))
    return out


def merge_ask(owner: Person, groups) -> str:
    """The request: the customers whose duplicates need merging."""
    return (f"Hi @{owner.handle}, " + ", ".join(g.account_name for g in groups[:-1]) + f" and {groups[-1].account_name}"
            + " each wrote in several times about the same problem, so your queue has duplicate cases for them. "
            "Could you merge each customer's duplicates as the handbook says, and tell me which case stays open "
            "for each?")


@dataclass(frozen=True)
class WrittenCredit(NotedCredit):
    """A `NotedCredit` whose note is free text the agent writes (its amount and approver are words of the
    note, not the tool's fields)."""

    def note(self) -> ToolCall:
        return replace(super().note(), role="note")
