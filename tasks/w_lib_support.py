"""Deep customer-support templates composed from the case procedures (tasks.procedures.support):

- `w.lib_support_duplicate_cases`: Customer Success names five of the owner's customers who wrote in
  several times; merge each one's duplicate open cases into the one that stays open (the first opened, or
  the Escalated one), leaving another customer's case of the same problem alone;
- `w.lib_support_case_triage`: the Monday triage of six customers' messages: two customers' duplicates
  merged, and four customers who wrote again about a closed problem (the case reopened, or a new case
  that names it when it was closed over two weeks ago);
- `w.lib_support_merge_as_told`: five customers' duplicates, the request naming which case to keep for
  each, two of them wrongly (the first opened where a later case is Escalated, the newest where none is):
  the handbook decides which stays.

The marathon and the templates that also log a credit are in tasks.w_lib_support_more."""

from __future__ import annotations

from dataclasses import replace

from .common import named, spread
from .phrasing import request_instruction
from .procedures import Composed, DirectRequest, Plan, ReadRule
from .procedures.support import DUPLICATES, REOPENING, CaseIds
from .procedures.support_draws import (asker_for, clean_accounts, closed_problem, merge_ask, merge_groups,
                                       report)
from .registry import register
from .w_lib_support_more import CaseCleanupMarathon, CustomersWroteAgain, DuplicatesAndCredits


@register
class DuplicateCases(Composed):
    """Merge five customers' duplicate open cases into the one that stays open, as Duplicate customer cases
    says, and tell Customer Success which case stays open for each."""

    id, kind, difficulty, split, scale = "w.lib_support_duplicate_cases", "workflow", 5, "train", "medium"
    apps, toolsets = ("chat", "crm", "tickets"), ("chat", "crm.service", "tickets.work")
    rules, hard = (DUPLICATES,), ("exception", "lookalike")
    summary = ("Customer Success names five customers who wrote in several times: merge each one's duplicate open "
               "cases (a Duplicate note naming the case that stays open, then Closed; the first opened stays, or the "
               "Escalated one; it keeps the highest priority), leave other customers' cases alone, and reply.")

    def plan(self, session, rng, instance):
        owner, accounts, _ = spread(clean_accounts(session, self.split, 8), instance)
        asker, ids = asker_for(session, rng, owner), CaseIds(session)
        groups = merge_groups(session, rng, ids, owner, rng.sample(accounts, 7), 2, 2)
        return Plan(owner.id, request_instruction(rng, named(session, asker)),
                    [DirectRequest(asker.id, owner.id, merge_ask(owner, groups)),
                     ReadRule.of(session, DUPLICATES, "duplicate cases"), *groups, report(asker, owner, groups, [])])


@register
class CaseTriage(Composed):
    """The Monday triage of six customers' messages: two customers' duplicates merged, four customers who
    wrote again about a closed problem answered by reopening its case or opening one that follows it."""

    id, kind, difficulty, split, scale = "w.lib_support_case_triage", "workflow", 5, "test", "medium"
    apps, toolsets = ("chat", "crm", "tickets"), ("chat", "crm.service", "tickets.work")
    rules, hard = (DUPLICATES, REOPENING), ("exception", "lookalike")
    summary = ("Customer Success passes on six customers' messages: merge two customers' duplicate cases, and for "
               "four who wrote again about a closed problem reopen the case closed in the last two weeks (the most "
               "recently closed counts) or open a new one naming it; reply with each customer's case.")

    def plan(self, session, rng, instance):
        owner, tidy, _ = spread(clean_accounts(session, self.split, 6), instance)
        asker, ids = asker_for(session, rng, owner), CaseIds(session)
        chosen = rng.sample(tidy, 3)
        groups = merge_groups(session, rng, ids, owner, chosen, 1, 1, sizes=(3,))
        others = rng.sample([a for a in tidy if a not in chosen], 3) + [chosen[-1]]  # the spare one too
        recent = rng.sample((True, True, False, rng.random() < 0.5), 4)
        again = [closed_problem(session, rng, ids, owner, a, r, k % 2 == 0, (groups[-1].lookalike.subject,))
                 for k, (a, r) in enumerate(zip(others, recent))]
        text = (f"Morning @{owner.handle}, the weekend inbox for your customers: " + " and ".join(
            g.account_name for g in groups) + " wrote in several times, so please merge their duplicate cases. "
            "And these wrote again about problems we had closed: " + "; ".join(
                f"{r.account_name} about \"{r.subject}\" ({r.report})" for r in again) + ". Could you handle each "
            "as the handbook says and tell me, customer by customer, which case tracks it now?")
        return Plan(owner.id, request_instruction(rng, named(session, asker)),
                    [DirectRequest(asker.id, owner.id, text), ReadRule.of(session, DUPLICATES, "duplicate cases"),
                     ReadRule.of(session, REOPENING, "reopen a closed case"), *groups, *again,
                     report(asker, owner, groups, again)])


@register
class MergeAsTold(Composed):
    """Merge five customers' duplicate cases; the request names which case to keep for each, two of them
    wrongly: the case that stays is the one Duplicate customer cases says, whatever the request names."""

    id, kind, difficulty, split, scale = "w.lib_support_merge_as_told", "workflow", 5, "train", "medium"
    apps, toolsets = ("chat", "crm", "tickets"), ("chat", "crm.service", "tickets.work")
    rules, hard = (DUPLICATES,), ("exception", "lookalike", "stale")
    summary = ("A colleague lists five customers' duplicate cases and which one to keep for each, two of them wrong "
               "(the first opened beside an Escalated one, the newest): keep the one the handbook says, close the "
               "others with a Duplicate note naming it, raise its priority, leave the look-alike, and reply.")

    def plan(self, session, rng, instance):
        owner, accounts, _ = spread(clean_accounts(session, self.split, 6), instance)
        asker, ids = asker_for(session, rng, owner), CaseIds(session)
        groups = merge_groups(session, rng, ids, owner, rng.sample(accounts, 6), 1, 2, sizes=(3,))
        newest = rng.randrange(2, 5)  # the group whose newest case the request names
        groups = [replace(g, said=g.first().id if k == 0 else g.cases[-1].id if k == newest else g.survivor().id)
                  for k, g in enumerate(groups)]
        shown = rng.sample(groups, 5)  # the order the message names them in (the setup plants them in order)
        text = (f"Hi @{owner.handle}, I went through your inbox: these customers wrote in several times, so they have "
                "duplicate cases. " + " ".join(f"{g.account_name}: keep case {g.said} and close the other"
                                               f"{'s' * (len(g.cases) > 2)}." for g in shown)
                + " Could you merge them as the handbook says and tell me which case stays open for each?")
        return Plan(owner.id, request_instruction(rng, named(session, asker)),
                    [DirectRequest(asker.id, owner.id, text), ReadRule.of(session, DUPLICATES, "duplicate cases"),
                     *groups, report(asker, owner, groups, [])])


# w_lib_support_more registers its templates when imported here
__all__ = ["CaseCleanupMarathon", "CaseTriage", "CustomersWroteAgain", "DuplicateCases", "DuplicatesAndCredits",
           "MergeAsTold"]
