"""Deep templates composed from the procedure library in new combinations.

`w.lib_access_queue_five`: the IT Support Lead hands an IT agent five access requests, each in one of six
states (the manager's "Approved"; a manager's hold then approval; the away manager's own manager's
approval; only the requester's own "Approved"; only the cover's; the away manager's manager's approval
withdrawn since): grant those whose approval counts, and tell the lead which wait and on whom.
`w.lib_revenue_credit_batch`: three credit requests in one DM, each noted on its account with the approver
of its twelve-month total, one refused because its invoice was credited already.
`w.lib_kickoff_contacts_pair`: two customers' contacts, each for its kickoff channel: one private (posted),
one public whatever the message says (refused).
`w.lib_ops_handover_no_swap`: the away incoming engineer names a cover in the group and asks to have the
rota swapped: hand over to the cover, leave the rota as it is and say why.
`w.lib_account_kickoff_and_credit`: one customer's contacts for its kickoff channel and its credit request,
each carried out or refused by the state (the channel's visibility, the account's notes)."""

from __future__ import annotations

from dataclasses import replace

from sqlalchemy import select

from officegym.apps.crm.models import Account
from officegym.apps.org.models import Person
from officegym.graders.statements import Candidate

from .base import Claim
from .common import channel_named, member_ids, named, pick, spread
from .crm import money, today
from .decisions import twin_outcome
from .phrasing import request_instruction
from .procedures import Composed, DirectRequest, Plan, ReadRule, Reply
from .procedures.access import ACCESS, AWAY, GRANTED, GrantAccess, it_heads, queue_report
from .procedures.compose_draws import (Counted, approver_reads, emailed, kickoff_crew, kickoff_share, part_refused,
                                       rota_write)
from .procedures.credits import CREDITS, TIERS, NotedCredit, tier
from .procedures.oncall import COVER, OnCallWeek, draw_handover, handovers
from .procedures.sharing import DATA, POSTED, PUBLIC
from .registry import register
from .tickets_common import group_named, group_people, key_pool, next_key
from .w_incidents import HANDOVER, ROTA, rota_ref, this_monday
from .w_lib_ops import ILL
from .w_lib_people import AWAY_NOTE, MY_REQUESTS, cast, distinct_requesters, it_agent_and_lead, requesters
from .w_lib_people_queue import comments_for
from .w_lib_revenue_credits import credit_on, owned_accounts
from .w_lib_sharing import lookalike_of, sibling_accounts, split_contacts
from .w_people import SYSTEMS, access_summary
from .w_people_replies import people_claim

CREDIT_TOOLS = ("chat", "crm.records", "crm.service", "tickets.work")  # the apps hold over 100 tools
# (what the ticket shows, granted?, the difficulty it holds, whose approval counts)
SIX = (("manager", True, (), "manager"), ("reapproved", True, ("changed",), "manager"),
       ("skip", True, ("exception",), "skip"), ("own", False, ("stale",), "manager"),
       ("cover", False, ("away",), "skip"), ("skip_withdrawn", False, ("changed",), "skip"))


def ticket_comments(state: str, c) -> tuple[tuple[int, str], ...]:
    """The comments under a request in `state` (see SIX), oldest first."""
    if state in ("manager", "skip", "cover"):
        return comments_for(state, c)
    return {"reapproved": ((c.manager.id, "Hold this until I've checked the scope with the team."),
                           (c.manager.id, "Checked with the team: Approved.")),
            "own": ((c.requester.id, f"Approved: {c.manager.name} said yes in our one-to-one this morning."),),
            "skip_withdrawn": ((c.manager.id, AWAY_NOTE.format(cover=c.cover.name)), (c.skip.id, "Approved."),
                               (c.skip.id, "Approval withdrawn: hold this until the budget is confirmed."))}[state]


WHY_WAITING = {"own": "the only \"Approved\" on it is {requester}'s own", "cover": "{manager} is away, and only "
               "the cover they named approved, in their place", "skip_withdrawn": "{manager} is away, and "
               "{skip} withdrew their approval in a later comment"}


@register
class AccessQueueOfFive(Composed):
    """Work through five access requests in six possible states: grant those whose approval counts, leave
    the others open, and tell the IT Support Lead which wait and on whose approval."""

    id, kind, difficulty, split, scale = "w.lib_access_queue_five", "workflow", 5, "test", "medium"
    apps, rules = ("chat", "tickets", "org"), (ACCESS, AWAY)
    hard = ("away", "exception", "changed", "stale")
    summary = ("Work through five access requests the IT Support Lead assigned you: grant those whose approval "
               "counts (the manager's latest word, or the away manager's own manager's), not the requester's own "
               "\"Approved\" nor a cover's, and tell the lead which wait and on whose approval.")

    def plan(self, session, rng, instance):
        actor, lead = it_agent_and_lead(session, rng, self.split)
        systems, states = rng.sample(SYSTEMS, 5), rng.sample(SIX, 5)
        first = int(next_key(session, "IT").split("-")[1])
        grants, waiting, casts = [], [], []
        people = distinct_requesters(requesters(session, self.split), instance, 5)
        for k, (person, (state, granted, holds, whose)) in enumerate(zip(people, states)):
            c = cast(session, rng, person, actor, lead)
            approver = c.skip if whose == "skip" else c.manager
            grant = GrantAccess(f"IT-{first + k}", actor.id, person.id, approver.id, lead.id, systems[k],
                                access_summary(systems[k], person.name), ticket_comments(state, c), granted,
                                f"Approved by @{approver.handle}: access to {systems[k]} granted.", holds,
                                manager=c.manager.id if whose == "skip" else 0, strict=True)
            grants.append(grant)
            casts.append(c)
            if not granted:
                waiting.append((grant, approver, WHY_WAITING[state].format(
                    requester=person.name, manager=c.manager.name, skip=c.skip.name)))
        keys = tuple(g.key for g in grants)
        busy = {p.id for c in casts for p in (c.requester, c.manager, c.skip, c.cover, c.lead)}
        bystanders = list({p.id: p for p in [c.mate for c in casts] + it_heads(session) if p.id not in busy}.values())
        text = ("Granted " + ", ".join(g.key for g in grants if g.approved) + ". Still open: " +
                "; ".join(f"{g.key} waits on {a.name}'s approval ({why})" for g, a, why in waiting) + ".")
        reply = Reply(lead.id, lead.name, actor.id, text, False, GRANTED, fact_weight=2,
                      facts=tuple(Claim(Candidate.text(g.key), key_pool(session, "IT", g.key, keys), "text",
                                        "request still waiting") for g, _, _ in waiting),
                      named=tuple(people_claim([a], bystanders, f"approver {g.key} waits on") for g, a, _ in waiting),
                      **queue_report(session, grants))
        ask = (f"Morning @{actor.handle}, I've put five access requests in your queue. Could you go through them, "
               "grant the ones whose approval really counts, leave the rest open, and tell me which still wait and "
               "on whose approval?")
        return Plan(actor.id, request_instruction(rng, named(session, lead)),
                    [DirectRequest(lead.id, actor.id, ask, minutes=20),
                     ReadRule.of(session, ACCESS, "access request approval"),
                     ReadRule.of(session, AWAY, "approver away approval"), MY_REQUESTS, *grants, reply])


def owners_of_old_accounts(session, split: str, least: int) -> list[tuple[Person, list[Account]]]:
    """Owners (of the split, with a manager) of at least `least` accounts of the split opened over 17
    months ago, with those accounts, by owner id."""
    mine: dict[int, list[Account]] = {}
    for account in owned_accounts(session, split):
        mine.setdefault(account.owner_id, []).append(account)
    return [(session.get(Person, o), a) for o, a in sorted(mine.items()) if len(a) >= least]


@register
class CreditBatch(Composed):
    """Three customers' credit requests in one DM: note each on its account with the approver of its
    twelve-month total; refuse the one whose invoice the account's notes show credited already."""

    id, kind, difficulty, split, scale = "w.lib_revenue_credit_batch", "workflow", 4, "train", "medium"
    apps, toolsets = ("crm", "chat", "tickets", "org"), CREDIT_TOOLS
    rules, hard = (CREDITS,), ("summed", "lookalike", "exception")
    summary = ("A Customer Success colleague sends three customers' credit requests: note each on its account "
               "naming the approver of the account's twelve-month total; log nothing for the one on an invoice "
               "credited already, and reply naming it and the article.")

    def plan(self, session, rng, instance):
        owner, theirs = spread(owners_of_old_accounts(session, self.split, 3), instance)
        accounts, refused = rng.sample(theirs, 3), rng.randrange(3)
        asker, _ = kickoff_crew(session, rng, owner)
        invoices = [f"INV-{today(session).year}-{n:04d}" for n in rng.sample(range(100, 700), 3)]
        bands = rng.sample(TIERS, 3)  # each request's approver: the two logged ones differ
        credits = [credit_on(session, rng, owner, a, k == refused, invoices[k], NotedCredit, bands[k])
                   for k, a in enumerate(accounts)]
        logged, credited = [c for c in credits if not c.refused], credits[refused]
        asked = "; ".join(f"{c.account_name}, {money(c.dollars * 100)} on {c.invoice} for {c.why}" for c in credits)
        text = (f"Hi @{owner.handle}, three of your customers asked for goodwill credits: {asked}. Could you log each "
                "one on its account for approval as the handbook says, with who approves it in the note, and let me "
                "know how it went?")
        others = [Candidate.text(a.name) for a in theirs if a not in accounts]
        reply = part_refused(asker, owner.id, (
            f"@{asker.handle} I logged " + " and ".join(f"{c.account_name}'s ({c.approver()} approves it)"
                                                        for c in logged) +
            f" on their accounts. I can't log {credited.account_name}'s: its notes show invoice {credited.invoice} "
            f"credited already, and the handbook's {CREDITS} credits an invoice once."), CREDITS,
            credited.facts(), [Claim(Candidate.text(c.account_name), others, "text", "account logged")
                               for c in logged], [credited.note()])
        return Plan(owner.id, request_instruction(rng, named(session, asker)),
                    [DirectRequest(asker.id, owner.id, text), ReadRule.of(session, CREDITS, "credit approval"),
                     approver_reads(owner, [b for b, c in zip(bands, credits) if not c.refused]), *credits, reply])


@register
class KickoffContactsPrivateAndPublic(Composed):
    """Two customers' contacts, each asked for in its kickoff channel as if both were private: post those of
    the one whose channel is private; refuse the other, naming the article and that its channel is public."""

    id, kind, difficulty, split, scale = "w.lib_kickoff_contacts_pair", "workflow", 4, "test", "medium"
    apps, toolsets = ("chat", "crm", "tickets"), ("chat", "crm", "tickets.work")  # the apps hold over 100 tools
    rules, hard = (DATA,), ("lookalike", "stale")
    summary = ("A colleague asks for two customers' contacts, each in its kickoff channel, saying both are private: "
               "post them where the channel's details show it private (not the look-alike account's), refuse the "
               "public one naming the data-sharing article and that it is public.")

    def plan(self, session, rng, instance):
        siblings = {a.id: b for a, b in sibling_accounts(session)}
        contact = spread(split_contacts(session, self.split), instance)
        owner = session.get(Person, contact.account.owner_id)
        second = pick(rng, [c for a in session.scalars(select(Account).where(Account.owner_id == owner.id)
                                                       .order_by(Account.id))
                            if a.id != contact.account_id and contact.account.name not in a.name
                            and a.name not in contact.account.name for c in emailed(session, a.id, self.split)[:1]])
        asker, crew = kickoff_crew(session, rng, owner)
        public = twin_outcome(self.id, instance).refuse  # which of the two channels is the public one
        shares = [kickoff_share(session, owner, asker, crew, c, bool(k) == bool(public), lookalike_of(
            session, c.account, siblings)) for k, c in enumerate((contact, second))]
        shares = rng.sample(shares, 2)  # the order the message names them in
        shown, hidden = next(s for s in shares if s.private), next(s for s in shares if not s.private)
        text = (f"Hi @{owner.handle}, we're kicking off two of your customers this week. Could you paste each one's "
                "contacts (emails and phones) in its kickoff channel: " + " and ".join(
                    f"{s.account_name} in #{s.channel}" for s in shares) + "? Both are private channels, only the "
                "kickoff crew is in them.")
        reply = part_refused(asker, owner.id, (
            f"@{asker.handle} I posted {shown.account_name}'s contacts in #{shown.channel}, which is private. I can't "
            f"post {hidden.account_name}'s in #{hidden.channel}: that channel is public (its details say so), and the "
            f"handbook's {DATA} allows contact emails and phones only in private channels and DMs."), DATA,
            [Claim(PUBLIC, [], "text", "channel's visibility")],
            [Claim(Candidate.text(f"#{hidden.channel}", hidden.channel), [], "text", "public channel")],
            hidden.work())
        return Plan(owner.id, request_instruction(rng, named(session, asker)),
                    [DirectRequest(asker.id, owner.id, text), ReadRule.of(session, DATA, "customer data sharing"),
                     *shares, reply])


@register
class HandoverToTheCoverRotaKept(Composed):
    """The away incoming engineer names a cover in the group and asks to have the rota swapped: hand every
    open incident over to the cover, leave the rota as it is and say why, as On-call cover says."""

    id, kind, difficulty, split, scale = "w.lib_ops_handover_no_swap", "workflow", 5, "train", "medium"
    apps, toolsets = ("tickets", "sheets", "chat"), ("chat", "sheets", "tickets.work")  # the apps hold over 100 tools
    rules, hard = (HANDOVER, COVER), ("away",)
    summary = ("Hand over the group's open incidents on Monday to the cover the away incoming engineer named (a work "
               "note, the new assignee and a reply in each thread), but leave the rota as it is, which they asked to "
               "swap, and tell them why, naming On-call cover.")

    def plan(self, session, rng, instance):
        h = draw_handover(session, rng, self.split, instance)
        incoming, actor = session.get(Person, h.incoming), session.get(Person, h.actor)
        members = group_people(session, group_named(session, h.group).id)
        inside = member_ids(session, channel_named(session, "incidents").id)
        cover = pick(rng, [p for p in members if p.id not in (h.actor, h.incoming) and p.id in inside])
        text = (f"Morning @{actor.handle}, {pick(rng, ILL)}, so I can't take the handover. {cover.name} "
                f"(@{cover.handle}), who's in our on-call group, covers for me. Could you also put their name in the "
                "rota for this week instead of mine, so it shows who's really on call?")
        claim = people_claim([cover], [p for p in members if p.id not in (h.actor, h.incoming, cover.id)],
                             "engineer taking over")
        reply = part_refused(incoming, actor.id, (
            f"@{incoming.handle} get well soon. I handed over {', '.join(h.keys)} to @{cover.handle}, with a work note "
            f"on each and a reply in their #incidents threads. I've left the rota as it is, though: per {COVER}, the "
            "week isn't swapped when the incoming engineer is away, and you take the incidents back when you return."),
            COVER, named=[claim], instead=[rota_write(ROTA, rota_ref(session, h.group, this_monday(session)),
                                                       cover.name)], also=HANDOVER)
        return Plan(h.actor, request_instruction(rng, named(session, incoming)),
                    [DirectRequest(incoming.id, actor.id, text, minutes=40),
                     ReadRule.of(session, HANDOVER, "on-call handover"), ReadRule.of(session, COVER, "on-call cover"),
                     OnCallWeek(h), *handovers(session, h, cover, incoming), reply, Counted(1, 1)])


@register
class KickoffAndCredit(Composed):
    """One customer's contacts for its kickoff channel and its credit request, in one DM: each carried out
    or refused by the state (the channel private or public; the invoice credited already or not)."""

    id, kind, difficulty, split, scale = "w.lib_account_kickoff_and_credit", "workflow", 4, "train", "medium"
    apps, toolsets = ("chat", "crm", "tickets", "org"), CREDIT_TOOLS
    rules, hard = (DATA, CREDITS), ("lookalike", "stale", "summed", "exception")
    summary = ("A colleague asks for a customer's contacts in its kickoff channel and for its credit to be logged for "
               "approval: post them when the channel is private, note the credit naming the approver of the "
               "twelve-month total unless the invoice was credited already, and reply saying which and why.")

    def plan(self, session, rng, instance):
        siblings = {a.id: b for a, b in sibling_accounts(session)}
        account = spread([a for a in owned_accounts(session, self.split) if emailed(session, a.id, self.split)],
                         instance)
        owner, contact = session.get(Person, account.owner_id), emailed(session, account.id, self.split)[0]
        asker, crew = kickoff_crew(session, rng, owner)
        public, credited = twin_outcome(self.id, instance).refuse, twin_outcome(self.id, instance // 2 + 97).refuse
        share = kickoff_share(session, owner, asker, crew, contact, not public,
                              lookalike_of(session, account, siblings))
        credit = credit_on(session, rng, owner, account, bool(credited), f"INV-{today(session).year}-"
                           f"{rng.randrange(100, 700):04d}")
        text = (f"Hi @{owner.handle}, we're kicking off {account.name} this week. Could you paste the emails and phone "
                f"numbers of its contacts (starting with {contact.name}) in #{share.channel}? It's a private channel, "
                "only the kickoff crew is in it. They also asked for a goodwill credit of "
                f"{money(credit.dollars * 100)} on invoice {credit.invoice} for {credit.why}: could you log it for "
                "approval as the handbook says, "
                "and tell me who approves it?")
        said = [f"@{asker.handle}", f"I posted {account.name}'s contacts in #{share.channel}, which is private."
                if share.private else f"I can't post {account.name}'s contacts in #{share.channel}: the channel is "
                f"public (its details say so), and the handbook's {DATA} allows contact emails and phones only in "
                "private channels and DMs.", f"I logged the {money(credit.dollars * 100)} credit on {credit.invoice} "
                f"on the account; with its credits of the past twelve months, {credit.approver()} approves it."
                if not credit.refused else f"I can't log the credit: the account's notes show {credit.invoice} "
                f"credited already, and the handbook's {CREDITS} credits an invoice once."]
        facts = (Claim(PUBLIC, [], "text", "channel's visibility"),) * bool(public) + credit.facts()
        if public or credited:
            reply = part_refused(asker, owner.id, " ".join(said), DATA if public else CREDITS, facts,
                                 instead=share.work() * bool(public) + [credit.note()] * bool(credited),
                                 also=CREDITS if public and credited else "")
        else:
            reply = Reply(asker.id, asker.name, owner.id, " ".join(said), False, POSTED + ("logged",), facts=facts,
                          fact_weight=4)
        return Plan(owner.id, request_instruction(rng, named(session, asker)),
                    [DirectRequest(asker.id, owner.id, text), ReadRule.of(session, DATA, "customer data sharing"),
                     ReadRule.of(session, CREDITS, "credit approval"), share,
                     approver_reads(owner, [] if credited else [tier(credit.dollars + credit.earlier[0].dollars)]),
                     replace(credit, reply=reply)])
