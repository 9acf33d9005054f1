"""A support owner's week, composed from the case and credit procedures (imported by tasks.w_lib_week):

- `r.lib_week_support_monday` (a decision): Customer Success passes on the weekend inbox of an owner's
  customers: two customers' duplicate cases to merge, one customer who wrote again about a closed problem,
  and two goodwill credits asked by the customers with duplicates. Both credits are logged for approval
  (naming the approver of each account's twelve-month total), or, in the twin, both are refused because
  the accounts' notes show those invoices credited already. The words of the request are the same;
- `w.lib_week_support_credits_to_come`: the owner merges three customers' duplicate cases while the
  Customer Success colleague gathers the customers' credit requests, which they send later in the same
  conversation (an event); the credits are then noted on the accounts with their approvers;
- `r.lib_week_kickoff_monday` (a decision): a new customer's contacts for its kickoff channel, said to be
  private (posted when its details show it private, refused when public), beside two customers' duplicate
  cases and one customer who wrote again about a closed problem."""

from __future__ import annotations

from dataclasses import replace

from sqlalchemy import select

from officegym.apps.crm.models import Account, Contact
from officegym.apps.org.models import Person

from .base import Claim, ToolCall
from .common import named, spread, world_scan
from .crm import money, today
from .decisions import twin_outcome
from .phrasing import request_instruction
from .procedures import Composed, DirectRequest, Plan, ReadRule, Reads, Reply
from .procedures.compose_draws import approver_reads, emailed, kickoff_crew, kickoff_share, part_refused
from .procedures.core import trajectory
from .procedures.credits import CREDITS, TIERS
from .procedures.long_events import LaterWord, time_to_come
from .procedures.sharing import DATA, POSTED, PUBLIC
from .procedures.support import DUPLICATES, REOPENING, CaseIds
from .procedures.support_draws import (WrittenCredit, asker_for, clean_accounts, closed_problem, merge_groups,
                                       tracking_claims)
from .registry import register
from .w_lib_revenue_credits import credit_on, owned_accounts
from .w_lib_sharing import lookalike_of, sibling_accounts

SUPPORT_TOOLS = ("chat", "crm.records", "crm.service", "tickets.work")


def owners_with_old_clean_accounts(session, split: str, least: int) -> list[tuple[Person, list]]:
    """(owner, accounts) for owners whose clean accounts (support_draws.clean_accounts) include `least`
    accounts opened long enough ago to have credits a year back (w_lib_revenue_credits.owned_accounts)."""
    old = {a.id for a in owned_accounts(session, split)}
    return [(o, [a for a in theirs if a.id in old]) for o, theirs, _ in clean_accounts(session, split, least)
            if sum(a.id in old for a in theirs) >= least]


def credits_for(session, rng, owner: Person, accounts: list, credited: bool, kind=WrittenCredit) -> list:
    """A credit request on each of `accounts`, each approver tier drawn once at most, on invoices credited
    already (within the twelve months) when `credited`."""
    bands = rng.sample(TIERS, len(accounts))
    invoices = [f"INV-{today(session).year}-{n:04d}" for n in rng.sample(range(100, 700), len(accounts))]
    return [credit_on(session, rng, owner, a, credited, invoices[k], kind, bands[k]) for k, a in enumerate(accounts)]


def open_cases(owner: Person) -> Reads:
    """The owner's look at their open cases, newest first."""
    return Reads((ToolCall("crm_list_cases", {"status": "open", "owner": f"@{owner.handle}"}),))


def tracking_text(groups, again) -> str:
    """What a reply says of each customer's case: the merged ones and the one who wrote again."""
    said = "; ".join(f"{g.account_name}'s duplicates are merged into case {g.survivor().id}" for g in groups)
    return said + f"; {again.account_name}: " + (f"I reopened case {again.closed[0].id}" if again.reopens else
                                                 f"case {again.closed[0].id} was closed too long ago, so I opened a "
                                                 "new case that follows it")


def asked_credits(credits) -> str:
    """The credit requests as a colleague lists them."""
    return "; ".join(f"{c.account_name} asked for {money(c.dollars * 100)} on {c.invoice} for {c.why}"
                     for c in credits)


@register
class SupportMonday(Composed):
    """The weekend inbox of an owner's customers: merge two customers' duplicates, answer one who wrote again
    about a closed problem, and log the two goodwill credits, unless the invoices were credited already."""

    id, kind, difficulty, split, scale = "r.lib_week_support_monday", "decision", 5, "train", "medium"
    apps, toolsets = ("chat", "crm", "tickets", "org"), SUPPORT_TOOLS
    rules, hard = (DUPLICATES, REOPENING, CREDITS), ("exception", "lookalike", "summed")
    summary = ("Customer Success passes on the weekend inbox: merge two customers' duplicate cases, reopen (or follow "
               "with a new case) a closed problem a customer wrote again about, and log the two customers' goodwill "
               "credits naming each approver; when the accounts' notes show those invoices credited already, log "
               "neither and say why.")

    def plan(self, session, rng, instance):
        refused = bool(twin_outcome(self.id, instance).refuse)
        owner, accounts = spread(owners_with_old_clean_accounts(session, self.split, 4), instance)
        asker, ids = asker_for(session, rng, owner), CaseIds(session)
        chosen = rng.sample(accounts, 4)
        groups = merge_groups(session, rng, ids, owner, chosen[:3], 1, 1, sizes=(3,))
        again = closed_problem(session, rng, ids, owner, chosen[3], rng.random() < 0.5, True,
                               tuple(g.cases[0].subject for g in groups))
        credits = credits_for(session, rng, owner, [a for a in chosen if a.id in {g.account for g in groups}],
                              refused)
        text = (f"Morning @{owner.handle}, the weekend inbox for your customers: " + " and ".join(
            g.account_name for g in groups) + " wrote in several times about the same problem, so they have duplicate "
            f"cases, and each asked for a goodwill credit for the trouble ({asked_credits(credits)}). "
            f"{again.account_name} wrote again about \"{again.subject}\" ({again.report}). Could you handle all of it "
            "as the handbook says, log the credits for approval with who approves each in the note, and tell me "
            "which case tracks each customer's problem now?")
        tracked = tracking_text(groups, again)
        if refused:
            reply = part_refused(asker, owner.id, (
                f"@{asker.handle} {tracked}. I can't log the credits, though: the accounts' notes show "
                + " and ".join(f"{c.invoice} ({c.account_name})" for c in credits) + " credited already, and the "
                f"handbook's {CREDITS} credits an invoice once."), CREDITS,
                [f for c in credits for f in c.facts()], tracking_claims(groups, [again]),
                [c.note() for c in credits])
            reads = []
        else:
            reply = Reply(asker.id, asker.name, owner.id, f"@{asker.handle} done: {tracked}. The credits are noted "
                          "on the accounts: " + "; ".join(f"{c.approver()} approves {c.account_name}'s "
                                                          f"{money(c.dollars * 100)}" for c in credits) + ".",
                          False, ("merged", "logged"), facts=tracking_claims(groups, [again]), fact_weight=2)
            reads = [approver_reads(owner, [_band(c) for c in credits])]
        return Plan(owner.id, request_instruction(rng, named(session, asker)),
                    [DirectRequest(asker.id, owner.id, text), ReadRule.of(session, DUPLICATES, "duplicate cases"),
                     ReadRule.of(session, REOPENING, "reopen a closed case"),
                     ReadRule.of(session, CREDITS, "credit approval"), open_cases(owner), *groups, again, *reads,
                     *credits, reply],
                    {"refused": refused})


def _band(credit) -> str:
    """The tier whose approver approves `credit` (by its twelve-month total)."""
    return next(band for band, name in credit.approvers if name == credit.approver())


@register
class CreditsToCome(Composed):
    """Merge three customers' duplicate cases; the customers' credit requests come later in the same DM (an
    event): wait for them, and note each on its account naming the approver of its twelve-month total."""

    id, kind, difficulty, split, scale = "w.lib_week_support_credits_to_come", "workflow", 5, "test", "medium"
    apps, toolsets = ("chat", "crm", "tickets", "org"), SUPPORT_TOOLS
    rules, hard = (DUPLICATES, CREDITS), ("exception", "lookalike", "summed")
    summary = ("Customer Success asks you to merge three customers' duplicate cases and says the credits those "
               "customers asked for will follow by a stated time: merge them, wait for the message, note each credit "
               "on its account naming the approver of the twelve-month total, and reply with cases and approvers.")

    def plan(self, session, rng, instance):
        owner, accounts = spread(owners_with_old_clean_accounts(session, self.split, 4), instance)
        asker, ids = asker_for(session, rng, owner), CaseIds(session)
        chosen = rng.sample(accounts, 4)
        groups = merge_groups(session, rng, ids, owner, chosen[:4], 1, 1)
        asked = [a for a in chosen if a.id in {g.account for g in groups}]
        credits = credits_for(session, rng, owner, asked, False)
        deadline, comes, wait = time_to_come(session, rng)
        first = (f"Morning @{owner.handle}, " + ", ".join(g.account_name for g in groups[:-1]) +
                 f" and {groups[-1].account_name} each wrote in several times about the same problem, so your queue has "
                 "duplicate cases for them. Could you merge each customer's duplicates as the handbook says? They also "
                 f"asked for goodwill credits: I'm collecting the details from their emails and will send them here by "
                 f"{deadline}. Please log those for approval as the handbook says, with who approves each in the note, "
                 "and then tell me which case stays open and who approves each credit.")
        later = (f"@{owner.handle} here are the credits: {asked_credits(credits)}.")
        reply = Reply(asker.id, asker.name, owner.id, f"@{asker.handle} done: " + "; ".join(
            f"{g.account_name}'s duplicates are merged into case {g.survivor().id}, and {c.approver()} approves its "
            f"{money(c.dollars * 100)} credit" for g, c in zip(groups, credits)) + ".", False, ("merged", "logged"),
            facts=tracking_claims(groups, []), fact_weight=2)
        unaware = [DirectRequest(asker.id, owner.id, first, 25), *groups, replace(reply, text=(
            f"@{asker.handle} merged: " + "; ".join(f"{g.account_name} into case {g.survivor().id}" for g in groups)
            + ". I haven't seen the credits yet."))]
        return Plan(owner.id, request_instruction(rng, named(session, asker)),
                    [LaterWord(asker.id, owner.id, first, 25, later, comes, wait),
                     ReadRule.of(session, DUPLICATES, "duplicate cases"), *groups,
                     ReadRule.of(session, CREDITS, "credit approval"),
                     approver_reads(owner, [_band(c) for c in credits]), *credits, reply], {"unaware": unaware})

    def sample(self, session, rng, instance):
        inst = super().sample(session, rng, instance)  # the agent that never sees the credits logs none
        return replace(inst, unaware=trajectory(inst.params["unaware"]))



@register
class KickoffMonday(Composed):
    """An owner's Monday: a new customer's contacts for its kickoff channel (posted if the channel is private,
    refused if it is public, whatever the message says), two customers' duplicate cases merged and one
    customer who wrote again about a closed problem answered."""

    id, kind, difficulty, split, scale = "r.lib_week_kickoff_monday", "decision", 5, "train", "medium"
    apps, toolsets = ("chat", "crm", "tickets"), ("chat", "crm", "tickets.work")
    rules, hard = (DATA, DUPLICATES, REOPENING), ("lookalike", "stale", "exception")
    summary = ("Customer Success asks for a new customer's contacts in its kickoff channel, said to be private, and "
               "for the weekend's cases: post the contacts only if the channel's details show it private (else refuse, "
               "naming the data-sharing article), merge two customers' duplicates, answer one who wrote again, and "
               "reply with each customer's case.")

    def plan(self, session, rng, instance):
        refused = bool(twin_outcome(self.id, instance).refuse)
        siblings = {a.id: b for a, b in sibling_accounts(session)}
        owner, tidy, contact = spread(kickoff_owners(session, self.split), instance)
        asker, crew = kickoff_crew(session, rng, owner)
        ids = CaseIds(session)
        chosen = rng.sample([a for a in tidy if a.id != contact.account_id], 4)
        groups = merge_groups(session, rng, ids, owner, chosen[:3], 1, 1, sizes=(3,))
        again = closed_problem(session, rng, ids, owner, chosen[3], rng.random() < 0.5, rng.random() < 0.5,
                               tuple(g.cases[0].subject for g in groups))
        share = kickoff_share(session, owner, asker, crew, contact, not refused,
                              lookalike_of(session, contact.account, siblings))
        text = (f"Morning @{owner.handle}, we kick off {share.account_name} this week: could you paste the emails and "
                f"phone numbers of its contacts (starting with {contact.name}) in #{share.channel}? It's a private "
                "channel, only the kickoff crew is in it. And from the weekend inbox: " + " and ".join(
                    g.account_name for g in groups) + " wrote in several times about the same problem, so they have "
                f"duplicate cases to merge, and {again.account_name} wrote again about \"{again.subject}\" "
                f"({again.report}). Could you handle those as the handbook says and tell me which case tracks each "
                "customer's problem now?")
        tracked = tracking_text(groups, again)
        if refused:
            reply = part_refused(asker, owner.id, (
                f"@{asker.handle} {tracked}. I can't post {share.account_name}'s contacts in #{share.channel}, though: "
                f"the channel is public (its details say so), and the handbook's {DATA} allows contact emails and "
                "phones only in private channels and DMs."), DATA, [Claim(PUBLIC, [], "text", "channel's visibility")],
                tracking_claims(groups, [again]), share.work())
        else:
            reply = Reply(asker.id, asker.name, owner.id, f"@{asker.handle} done: I posted {share.account_name}'s "
                          f"contacts in #{share.channel}, which is private. {tracked}.", False, POSTED + ("merged",),
                          facts=tracking_claims(groups, [again]), fact_weight=2)
        return Plan(owner.id, request_instruction(rng, named(session, asker)),
                    [DirectRequest(asker.id, owner.id, text), ReadRule.of(session, DATA, "customer data sharing"),
                     ReadRule.of(session, DUPLICATES, "duplicate cases"),
                     ReadRule.of(session, REOPENING, "reopen a closed case"), share, open_cases(owner), *groups,
                     again, reply], {"refused": refused})


def kickoff_owners(session, split: str) -> list[tuple[Person, list, object]]:
    """(owner, clean accounts, a contact of the split with an email on another of the owner's accounts) for
    owners with five clean accounts (support_draws.clean_accounts), by owner id."""
    def scan() -> tuple:
        found = []
        for k, (owner, tidy, _) in enumerate(clean_accounts(session, split, 5)):
            contacts = [c for a in session.scalars(select(Account).where(Account.owner_id == owner.id)
                                                   .order_by(Account.id)) for c in emailed(session, a.id, split)[:1]]
            contact = next((c for c in contacts if sum(a.id != c.account_id for a in tidy) >= 4), None)
            if contact is not None:
                found.append((k, contact.id))
        return tuple(found)
    owners = clean_accounts(session, split, 5)
    return [(owners[k][0], owners[k][1], session.get(Contact, contact))
            for k, contact in world_scan(session, ("kickoff owners", split), scan)]
