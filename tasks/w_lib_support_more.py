"""More customer-support templates composed from the case procedures and the credit procedure:

- `w.lib_support_duplicates_and_credits`: three customers who wrote in several times about a problem also
  asked for a goodwill credit: merge each one's duplicate cases and note each credit on its account naming
  the approver of its twelve-month total (Refunds and credits);
- `w.lib_support_customers_wrote_again`: eight customers wrote again about a closed problem, the message
  that passes them on giving when each case was closed, three of them wrongly: the case's closed date
  decides between reopening it and opening a new case that names it;
- `w.lib_support_case_cleanup_marathon` (difficulty 6): the quarter's case clean-up of one owner's book:
  eight customers' duplicates (three cases each) merged and four customers who wrote again about a closed
  problem answered, over thirty cases."""

from __future__ import annotations

from dataclasses import replace

from .common import named, spread
from .crm import money, today
from .phrasing import request_instruction
from .procedures import Composed, DirectRequest, Plan, ReadRule
from .procedures.compose_draws import approver_reads
from .procedures.credits import CREDITS, TIERS
from .procedures.messages import Reply
from .procedures.support import DUPLICATES, REOPENING, CaseIds
from .procedures.support_draws import (WrittenCredit, asker_for, clean_accounts, closed_problem, merge_groups,
                                       report, tracking_claims)
from .registry import register
from .w_lib_revenue_credits import credit_on, owned_accounts


@register
class DuplicatesAndCredits(Composed):
    """Three customers wrote in several times and asked for a goodwill credit: merge each one's duplicate
    cases and note each credit on its account, naming who approves it by the twelve-month total."""

    id, kind, difficulty, split, scale = "w.lib_support_duplicates_and_credits", "workflow", 5, "test", "medium"
    apps, toolsets = ("chat", "crm", "tickets", "org"), ("chat", "crm.records", "crm.service", "tickets.work")
    rules, hard = (DUPLICATES, CREDITS), ("exception", "lookalike", "summed")
    summary = ("Three customers wrote in several times about a problem and asked for a goodwill credit: merge each "
               "one's duplicate cases into the one that stays open, note each credit on its account naming the "
               "approver of the account's twelve-month total, and reply with the cases kept and the approvers.")

    def plan(self, session, rng, instance):
        old = {a.id for a in owned_accounts(session, self.split)}
        owner, accounts = spread([(o, [a for a in theirs if a.id in old]) for o, theirs, _ in
                                  clean_accounts(session, self.split, 4) if sum(a.id in old for a in theirs) >= 4],
                                 instance)
        asker, ids = asker_for(session, rng, owner), CaseIds(session)
        chosen = rng.sample(accounts, 4)
        groups = merge_groups(session, rng, ids, owner, chosen, 1, 1)
        bands = rng.sample(TIERS, 3)
        invoices = [f"INV-{today(session).year}-{n:04d}" for n in rng.sample(range(100, 700), 3)]
        credits = [credit_on(session, rng, owner, next(a for a in chosen if a.id == g.account), False, invoices[k],
                             WrittenCredit, bands[k]) for k, g in enumerate(groups)]
        asked = "; ".join(f"{c.account_name} asked for {money(c.dollars * 100)} on {c.invoice} for {c.why}"
                          for c in credits)
        text = (f"Hi @{owner.handle}, three of your customers wrote in several times about the same problem, so they "
                "have duplicate cases, and each asked for a goodwill credit for the trouble: " + asked + ". Could you "
                "merge each one's duplicate cases as the handbook says and log each credit on its account for "
                "approval, with who approves it in the note? Then tell me which case stays open and who approves "
                "each credit.")
        reply = Reply(asker.id, asker.name, owner.id, f"@{asker.handle} done: " + "; ".join(
            f"{g.account_name}'s duplicates are merged into case {g.survivor().id}, and {c.approver()} approves its "
            f"{money(c.dollars * 100)} credit" for g, c in zip(groups, credits)) + ".", False, ("merged", "logged"),
            facts=tracking_claims(groups, []), fact_weight=2)
        return Plan(owner.id, request_instruction(rng, named(session, asker)),
                    [DirectRequest(asker.id, owner.id, text), ReadRule.of(session, DUPLICATES, "duplicate cases"),
                     ReadRule.of(session, CREDITS, "credit approval"), *groups, approver_reads(owner, bands), *credits,
                     reply])


@register
class CaseCleanupMarathon(Composed):
    """The quarter's case clean-up of one owner's book: eight customers' duplicate cases merged, four
    customers who wrote again about a closed problem answered (reopened, or a new case naming the old)."""

    id, kind, difficulty, split, scale = "w.lib_support_case_cleanup_marathon", "workflow", 6, "train", "medium"
    apps, toolsets = ("chat", "crm", "tickets"), ("chat", "crm.service", "tickets.work")
    rules, hard = (DUPLICATES, REOPENING), ("exception", "lookalike")
    summary = ("Customer Success asks for the quarter's case clean-up of an owner's book: merge eight "
               "customers' duplicate cases (three each), answer four customers who wrote again about a closed "
               "problem (reopen, or a new case naming the old one), and reply with each customer's case.")

    def plan(self, session, rng, instance):
        owner, tidy, _ = spread(clean_accounts(session, self.split, 14), instance)
        asker, ids = asker_for(session, rng, owner), CaseIds(session)
        chosen = rng.sample(tidy, 10)
        groups = merge_groups(session, rng, ids, owner, chosen, 2, 3, sizes=(3,))
        others = rng.sample([a for a in tidy if a not in chosen], 4)
        recent = rng.sample((True, True, False, rng.random() < 0.5), 4)
        again = [closed_problem(session, rng, ids, owner, a, r, k % 2 == 1) for k, (a, r) in
                 enumerate(zip(others, recent))]
        text = (f"Hi @{owner.handle}, before the quarter closes let's clean up your customers' cases. These wrote in "
                "several times, so each has duplicate cases to merge: " + ", ".join(g.account_name for g in groups)
                + ". And these wrote again about a problem we had closed: " + "; ".join(
                    f"{r.account_name} about \"{r.subject}\" ({r.report})" for r in again) + ". Please handle each "
                "as the handbook says, then tell me customer by customer which case tracks it now.")
        said = [f"{g.account_name}: case {g.survivor().id} stays open" for g in groups]
        said += [f"{r.account_name}: " + ("reopened" if r.reopens else "opened a new case following")
                 + f" case {r.closed[0].id}" for r in again]
        reply = Reply(asker.id, asker.name, owner.id, f"@{asker.handle} all done. " + "; ".join(said) + ".", False,
                      ("merged",), facts=tracking_claims(groups, again), fact_weight=2)
        return Plan(owner.id, request_instruction(rng, named(session, asker)),
                    [DirectRequest(asker.id, owner.id, text), ReadRule.of(session, DUPLICATES, "duplicate cases"),
                     ReadRule.of(session, REOPENING, "reopen a closed case"), *groups, *again, reply])


@register
class CustomersWroteAgain(Composed):
    """Eight customers wrote again about a closed problem; the message says when each case was closed, three
    of them wrongly: reopen the case closed at most two weeks ago by its record, else open a new case."""

    id, kind, difficulty, split, scale = "w.lib_support_customers_wrote_again", "workflow", 5, "train", "medium"
    apps, toolsets = ("chat", "crm", "tickets"), ("chat", "crm.service", "tickets.work")
    rules, hard = (REOPENING,), ("exception", "lookalike", "stale")
    summary = ("Customer Success passes on eight customers who wrote again about a closed problem, with when each "
               "case was closed, three of them wrong: by the case's own closed date, reopen it (two weeks or less, "
               "the most recently closed counts) or open a new case naming it, and reply.")

    def plan(self, session, rng, instance):
        owner, accounts, _ = spread(clean_accounts(session, self.split, 8), instance)
        asker, ids = asker_for(session, rng, owner), CaseIds(session)
        recent, wrong = rng.sample((True,) * 5 + (False,) * 3, 8), set(rng.sample(range(8), 3))
        again = []
        for k, (account, fresh) in enumerate(zip(rng.sample(accounts, 8), recent)):
            problem = closed_problem(session, rng, ids, owner, account, fresh, fresh or k % 2 == 0)
            days = problem.closed[0].closed_days
            said = (rng.randrange(25, 40) if fresh else rng.randrange(4, 10)) if k in wrong else days
            again.append(replace(problem, said_days=said))
        text = (f"Hi @{owner.handle}, these customers of yours wrote again about problems we had closed: " + "; ".join(
            f"{r.account_name} about \"{r.subject}\" ({r.report}; I think we closed it about {r.said_days} days ago)"
            for r in again) + ". Could you handle each one as the handbook says and tell me, customer by customer, "
            "what you did and which old case it was?")
        return Plan(owner.id, request_instruction(rng, named(session, asker)),
                    [DirectRequest(asker.id, owner.id, text), ReadRule.of(session, REOPENING, "reopen a closed case"),
                     *again, report(asker, owner, [], again)])
