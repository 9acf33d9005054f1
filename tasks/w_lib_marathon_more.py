"""More marathons (difficulty 6) composed from the procedure library, each a different job:

- `w.lib_marathon_access_backlog`: twelve access requests piled up after an outage (GrantAccess), two in
  each state of their comments: the manager's "Approved", the away manager's own manager's, only the
  cover's, one withdrawn, only the requester's word, one held then approved; the IT Support Lead hears
  which wait and on whose approval;
- `w.lib_marathon_credits_backlog`: eleven credit requests on the team's accounts (LogCredit, each note
  naming its approver by the account's twelve-month total), two to four on an invoice credited already;
  one reply to Customer Success names those invoices;
- `w.lib_marathon_both_books_for_manager`: the manager asks by DM for the month end of both workbooks the
  actor edits (ReconcileTab on the pipeline's Deals tab and on the forecast's Closed Won rows), one post in
  #deals with the won total, then the manager is told;
- `w.lib_marathon_busy_week_handover`: the Monday handover after a busy week (HandOverIncident for seven
  or more open incidents) to the cover the away incoming engineer named, or to their team lead when the
  cover is outside the on-call group."""

from __future__ import annotations

from dataclasses import replace

from officegym.apps.org.models import Person, Team
from officegym.graders.statements import Candidate

from .base import Claim, ToolCall
from .common import channel_named, member_ids, named, pick, spread
from .crm import money, today
from .decisions import twin_outcome
from .phrasing import goal_instruction, request_instruction
from .procedures import Composed, DirectRequest, Plan, ReadRule, Reads, Reply
from .procedures.access import ACCESS, AWAY, GRANTED, GrantAccess, it_heads, queue_report
from .procedures.credits import CREDITS, TIERS, NotedCredit
from .procedures.marathon_draws import busier, team_accounts
from .procedures.oncall import COVER, draw_handover
from .procedures.revenue import CORRECTED, RECONCILE, ReconcilePost
from .procedures.revenue_draws import forecast_options, month_closed, open_pages, reconcile, won_pages, won_total
from .registry import register
from .tickets_common import group_named, group_people, key_pool, next_key
from .w_incidents import HANDOVER
from .w_lib_marathon_won import OPEN, WON
from .w_lib_ops import cover_plan
from .w_lib_people import MY_REQUESTS, cast, distinct_requesters, it_agent_and_lead, requesters
from .w_lib_people_queue import comments_for
from .w_lib_revenue_credits import credit_on
from .w_people import SYSTEMS, access_summary
from .w_people_replies import people_claim
from .w_revenue_credits import BANDS, approver_of
from .w_support_refusals import customer_success_askers

COUNT = 11  # a credits backlog's requests


class Marathon(Composed):
    """A marathon of this module: a workflow of difficulty 6 on the medium world (not registered itself)."""

    difficulty, kind, scale = 6, "workflow", "medium"


# An access backlog's requests, twice each: (what the ticket shows, granted?, the difficulty it holds).
BACKLOG = (("manager", True, ()), ("skip", True, ("exception",)), ("cover", False, ("away",)),
           ("withdrawn", False, ("changed",)), ("word", False, ("stale",)), ("rechecked", True, ("changed",)))


def backlog_comments(state: str, c) -> tuple[tuple[int, str], ...]:
    """The comments under a backlog request in `state` (see BACKLOG), oldest first."""
    if state == "word":  # only the requester says it was approved
        return ((c.requester.id, "My manager approved this when we spoke this morning, so it's good to go."),)
    if state == "rechecked":  # the manager held it, then approved it
        return ((c.manager.id, "Hold this until I've checked the scope with the team."),
                (c.manager.id, "Checked with the team: Approved."))
    return comments_for(state, c)


def why_waiting(state: str, c, key: str) -> str:
    """The reply's words on a request left open: on whose approval it waits, and why (names, not mentions: the
    reply may mention two people at most)."""
    return {"cover": f"{key} waits on {c.skip.name}'s approval: {c.manager.name} is away, and only their own manager "
                     f"approves in their place, not {c.cover.name} as a cover",
            "withdrawn": f"{key} waits on {c.manager.name}'s approval: their latest comment withdrew it",
            "word": f"{key} waits on {c.manager.name}'s approval: only {c.requester.name}'s word is on the ticket"
            }[state]


@register
class AccessBacklog(Marathon):
    """Work through twelve access requests after an outage: grant the six whose approval counts, leave the
    six others open, and tell the IT Support Lead which wait and on whose approval."""

    id, split = "w.lib_marathon_access_backlog", "test"
    apps, rules, hard = ("chat", "tickets", "org"), (ACCESS, AWAY), ("away", "exception", "changed", "stale")
    summary = ("Work through the twelve access requests the IT Support Lead assigned you: grant those whose approval "
               "counts (the manager's latest word, or the away manager's own manager's), leave the others open (a "
               "cover's approval, a withdrawn one, the requester's word), and tell the lead which wait and on whom.")

    def plan(self, session, rng, instance):
        people = distinct_requesters(requesters(session, self.split), instance, 2 * len(BACKLOG))
        actor, lead = it_agent_and_lead(session, rng, self.split)
        states = rng.sample(BACKLOG * 2, len(people))
        first, systems = int(next_key(session, "IT").split("-")[1]), [rng.choice(SYSTEMS) for _ in people]
        grants, waiting, casts = [], [], []
        for k, (person, (state, granted, holds)) in enumerate(zip(people, states)):
            c, key = cast(session, rng, person, actor, lead), f"IT-{first + k}"
            approver = c.skip if state in ("skip", "cover") else c.manager
            grants.append(GrantAccess(key, actor.id, person.id, approver.id, lead.id, systems[k],
                                      access_summary(systems[k], person.name), backlog_comments(state, c), granted,
                                      f"Approved by @{approver.handle}: access to {systems[k]} granted.", holds,
                                      manager=c.manager.id if state in ("skip", "cover") else 0, strict=True))
            casts.append(c)
            if not granted:
                waiting.append((key, approver, why_waiting(state, c, key)))
        keys = tuple(g.key for g in grants)
        involved = {p.id for c in casts for p in (c.requester, c.manager, c.skip, c.cover)} | {lead.id}
        blamed = [p for p in [*(c.mate for c in casts), *it_heads(session)] if p.id not in involved]
        facts = tuple(Claim(Candidate.text(key), key_pool(session, "IT", key, keys), "text", "request still waiting")
                      for key, _, _ in waiting)
        said = tuple(people_claim([a], blamed, f"approver {key} waits on") for key, a, _ in waiting)
        text = (f"@{lead.handle} done: granted {', '.join(g.key for g in grants if g.approved)}. Still open: "
                + "; ".join(why for _, _, why in waiting) + ".")
        reply = Reply(lead.id, lead.name, actor.id, text, False, GRANTED, facts=facts, named=said, fact_weight=2,
                      **queue_report(session, grants))
        request = DirectRequest(lead.id, actor.id, f"Morning @{actor.handle}, the access requests piled up while the "
                                "portal was down, and I've assigned you twelve of them. Could you work through them "
                                "all today? Grant the ones whose approval counts, leave the others open, and tell me "
                                "which still wait and on whose approval.", minutes=20)
        return Plan(actor.id, request_instruction(rng, named(session, lead)),
                    [request, ReadRule.of(session, ACCESS, "access request approval"),
                     ReadRule.of(session, AWAY, "approver away approval"), MY_REQUESTS, *grants, reply])


@register
class CreditsBacklog(Marathon):
    """Log eleven of the team's customers' credit requests for approval, each note naming its approver by the
    account's twelve-month total, and tell Customer Success which could not be logged: those on an invoice
    the account's notes show credited already."""

    id, split = "w.lib_marathon_credits_backlog", "train"
    apps, rules, hard = ("crm", "chat", "tickets", "org"), (CREDITS,), ("summed", "lookalike", "exception")
    toolsets = ("chat", "crm.records", "crm.service", "tickets.work")  # its apps hold over 100 tools
    summary = ("Customer Success lists eleven of your team's customers' credit requests: log each on its account for "
               "approval, naming its approver by the account's twelve-month total (older credits do not count); log "
               "none on an invoice credited already, and tell Customer Success which, naming the invoices.")

    def plan(self, session, rng, instance):
        actor, accounts = spread(team_accounts(session, self.split, COUNT), instance)
        accounts, day = rng.sample(accounts, COUNT), today(session)
        done = set(rng.sample(range(COUNT), 2 + instance % 3))  # on an invoice credited already
        numbers = [f"INV-{day.year}-{n:04d}" for n in rng.sample(range(100, 900), 2 * COUNT)]
        credits, steps, seen, approvers = [], [], set(), set()
        bands = [TIERS[k % len(TIERS)] for k in range(COUNT)]  # every approver, several times over
        rng.shuffle(bands)
        for k, account in enumerate(accounts):
            owner = session.get(Person, account.owner_id)
            approvers |= {approver_of(session, band, owner).id for band in BANDS}
            credits.append(credit_on(session, rng, owner, account, k in done, numbers[k], NotedCredit, bands[k]))
            whose = () if owner.id in seen else (ToolCall("org_get_person", {"person": owner.id}),)
            steps += [Reads((ToolCall("crm_list_cases", {"account": account.id}), *whose)), credits[-1]]
            seen.add(owner.id)
        asker = pick(rng, [p for p in customer_success_askers(session) if p.id not in approvers | {actor.id}])
        refused = [c for c in credits if c.refused]
        listed = "\n".join(f"- {c.account_name}: {money(c.dollars * 100)} on {c.invoice} for {c.why}" for c in credits)
        text = (f"Hi @{actor.handle}, these customers of your team asked for goodwill credits this week:\n{listed}\n"
                "Could you log each one for approval as the handbook says, naming in its note who approves it, and "
                "tell me which ones you couldn't log and why?")
        reply = Reply(asker.id, asker.name, actor.id, (
            f"@{asker.handle} I can't log " + ", ".join(f"{c.account_name}'s ({c.invoice})" for c in refused) +
            f": the accounts' notes show those invoices credited already, and the handbook's {CREDITS} credits an "
            f"invoice once. The other {len(credits) - len(refused)} are noted on their accounts, each with who "
            "approves it."), True, (), CREDITS, tuple(Claim(Candidate.text(c.invoice), [], "text",
                                                            "invoice credited already") for c in refused),
            tuple(c.note() for c in refused), weight=30, fact_weight=15)
        lookups = Reads(tuple(ToolCall("org_get_department", {"department": band}) for band in BANDS[1:]))
        return Plan(actor.id, request_instruction(rng, named(session, asker)),
                    [DirectRequest(asker.id, actor.id, text), ReadRule.of(session, CREDITS, "credit approval"),
                     lookups, *steps, reply])


@register
class MonthEndOfBothForTheManager(Marathon):
    """The actor's manager asks them by DM to close the month in both workbooks they edit: their team's
    pipeline (Deals) and their Closed Won rows of the forecast; a deal moves on in the CRM after the ask."""

    id, split = "w.lib_marathon_both_books_for_manager", "train"
    apps, rules = ("crm", "sheets", "tickets", "chat"), (RECONCILE,)
    hard = ("changed", "stale", "exception", "lookalike", "summed")
    toolsets = ("chat", "crm.sales", "sheets.cells", "tickets.work")  # its apps hold over 100 tools
    summary = ("Your manager asks by DM for the month end of both workbooks you edit: reconcile your team's pipeline "
               "and your Closed Won rows of the month with the CRM (a deal moved on after they asked), a SOPS Task per "
               "corrected row, one post in #deals with the won total, then tell them.")

    def plan(self, session, rng, instance):
        forecast, book, actor_id, deals, won = spread(forecast_options(session, self.split, 8, 30), instance)
        month, boss = month_closed(session), session.get(Person, session.get(Person, actor_id).manager_id)
        pipeline, fixed_open, agreed_open = reconcile(session, rng, self.split, book, "Deals", actor_id, deals, OPEN,
                                                      open_pages(deals))
        late = next(d for d in pipeline.drifts if d.how == "crm")
        pipeline = replace(pipeline, drifts=tuple(replace(d, late=d is late) for d in pipeline.drifts))
        closed_won, fixed_won, agreed_won = reconcile(session, rng, self.split, forecast, "Closed Won", actor_id, won,
                                                      WON, won_pages(month), vouch=False)
        total = won_total(won)
        post = ReconcilePost(f"Month-end reconciliation for {boss.name} done. {book.title}: I corrected the rows "
                             f"of {', '.join(fixed_open)}. {forecast.title}, Closed Won for {month:%B}: I corrected "
                             f"{', '.join(fixed_won)}; the {len(won)} deals won in {month:%B} that I reconciled come "
                             f"to {money(total)} in the CRM. A SOPS Task is filed for each corrected row.",
                             (*fixed_open, *fixed_won), (*agreed_open, *agreed_won), total,
                             won_total(won, closed_won.drifts), weight=19.0)
        text = (f"Hi, I present {month:%B}'s numbers on Friday: could you do the month-end reconciliation of both "
                f"{book.title} and your Closed Won rows of {forecast.title} today? Go by the handbook's procedure, "
                "and tell me when it's done.")
        reply = Reply(boss.id, boss.name, actor_id, f"@{boss.handle} done: I reconciled {book.title} and my Closed "
                      f"Won rows of {forecast.title} with the CRM, corrected {len(fixed_open) + len(fixed_won)} rows, "
                      "filed a SOPS Task for each and posted them with the won total in #deals.", False,
                      CORRECTED + ("reconciled", "done"))
        return Plan(actor_id, request_instruction(rng, named(session, boss)),
                    [DirectRequest(boss.id, actor_id, text),
                     ReadRule.of(session, RECONCILE, "month-end reconciliation"), pipeline, closed_won, post, reply])


@register
class BusyWeekHandover(Marathon):
    """After a busy on-call week, hand every open incident of the group over on Monday; the engineer the rota
    puts on call is away and names a cover by DM, in the same words either way: the cover takes over when in
    the on-call group, the incoming engineer's team lead when not."""

    id, split = "w.lib_marathon_busy_week_handover", "test"
    apps, rules, hard = ("tickets", "sheets", "chat", "org"), (HANDOVER, COVER), ("away", "exception")
    toolsets = ("chat", "sheets", "tickets.work", "org")  # its apps hold over 100 tools
    summary = ("Hand over every open incident of your on-call group after a busy week (seven or more): the engineer "
               "the rota puts on call is away and named a cover, who takes over when in the group (else the incoming "
               "engineer's team lead); a work note, the new assignee and a reply in each thread, then tell them.")

    def plan(self, session, rng, instance):
        outside = bool(twin_outcome(self.id, instance).refuse)
        for attempt in range(20):  # outside the group: an incoming engineer whose lead works none of the incidents
            h = busier(session, rng, draw_handover(session, rng, self.split, instance + 97 * attempt), (0, 1, 5, 6))
            lead = session.get(Team, session.get(Person, h.incoming).team_id).lead_id
            if not outside or lead not in {h.actor, h.incoming, None, *(spec[0] for spec in h.specs)}:
                break
        else:
            raise ValueError(f"{self.id} #{instance}: no incoming engineer whose lead is free in 20 draws")
        members = {p.id for p in group_people(session, group_named(session, h.group).id)}
        inside = member_ids(session, channel_named(session, "incidents").id)
        named_ = pick(rng, [p for p in group_people(session, group_named(session, h.decoy_group).id)
                            if p.id not in members] if outside else
                      [p for p in group_people(session, group_named(session, h.group).id)
                       if p.id not in (h.actor, h.incoming) and p.id in inside])
        plan = cover_plan(session, rng, h, named_, session.get(Person, lead) if outside else named_, "covers for me")
        plan.instruction = goal_instruction(rng, f"It's Monday morning and your week on call for {h.group} has just "
                                            "ended, a busy one: do the handover the way the handbook says, and read "
                                            "your messages first.", "whoever wrote to you")
        return plan
