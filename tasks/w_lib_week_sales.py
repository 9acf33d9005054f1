"""A sales rep's Friday, composed from the renewal and loss procedures (imported by tasks.w_lib_week):

- `w.lib_week_rep_friday`: the rep's manager asks, in one DM, for the week's two loose ends: the renewals of
  the deals the rep closed last week (a renewal a year ahead for each win, the Upsell's amount added to its
  account's open renewal, nothing for the deals lost, as Renewals says) and three deals that looked dead at the
  pipeline review, closed out by the rep's own notes (Closed Lost with the reason that decided it, posted in
  #deals; the one whose note says the customer is signing stays open). The reply names the deal still alive
  and what the Upsell's renewal now comes to;
- `r.lib_week_rep_friday_credit` (a decision): a Customer Success colleague asks the rep to log a customer's
  goodwill credit for approval and, for Sales Ops, to open last week's renewals: the credit is noted with the
  approver of the account's twelve-month total, or, in the twin, not at all (its invoice credited already)."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from sqlalchemy import select

from officegym.apps.crm.models import OPEN_STAGES, Opportunity
from officegym.apps.org.models import Person
from officegym.graders.statements import Candidate

from .base import Claim, ToolCall
from .common import channel_named, member_ids, named, pick, spread, world_scan
from .crm import money, today
from .decisions import twin_outcome
from .phrasing import request_instruction
from .procedures import Composed, DirectRequest, Plan, ReadRule, Reads, Reply
from .procedures.compose_draws import approver_reads, part_refused
from .procedures.credits import CREDITS
from .procedures.deals_draws import visible_rivals
from .procedures.deals_losses import LOSSES, CloseLost, StillAlive
from .procedures.deals_renewal_draws import ClosedWeek, closed_weeks, renewal_week
from .procedures.deals_renewals import RENEWALS, AddUpsell
from .registry import register
from .w_deals_cleanup import GAPS
from .w_deals_common import managed_deals
from .w_lib_deals_losses import LOSS_TOOLS, REASONS
from .w_lib_revenue_credits import credit_on, owned_accounts
from .w_revenue_credits import BANDS, approver_of
from .w_support_refusals import customer_success_askers

DEAD = 3  # deals the review thought dead: two lost, one still signing


def fridays(session, split: str) -> list[tuple[ClosedWeek, list[Opportunity]]]:
    """Reps (in #deals) with a renewal week of two wins and one Upsell (closed_weeks) and DEAD more open deals
    of the split on other accounts, one per account: (the week, those deals), by rep id."""
    def scan() -> tuple:
        inside = member_ids(session, channel_named(session, "deals").id)
        open_of: dict[int, dict[int, Opportunity]] = {}
        for deal in managed_deals(session, split):
            open_of.setdefault(deal.owner_id, {}).setdefault(deal.account_id, deal)
        found = []
        for k, week in enumerate(closed_weeks(session, split, 2, 1)):
            busy = {d.account_id for d in (*week.wins, *week.upsells, *week.lost)}
            dead = [d for a, d in open_of.get(week.rep.id, {}).items() if a not in busy]
            if week.rep.id in inside and len(dead) >= DEAD:
                found.append((k, tuple(d.id for d in dead)))
        return tuple(found)
    weeks = closed_weeks(session, split, 2, 1)
    return [(weeks[k], [session.get(Opportunity, d) for d in dead])
            for k, dead in world_scan(session, ("fridays", split), scan)]


@register
class RepFriday(Composed):
    """Open the renewals of last week's closings and close out the deals that look dead, in one Friday."""

    id, kind, difficulty, split, scale = "w.lib_week_rep_friday", "workflow", 5, "train", "medium"
    apps, toolsets = ("chat", "crm", "tickets"), LOSS_TOOLS
    rules, hard = (RENEWALS, LOSSES), ("summed", "exception", "lookalike")
    summary = ("Your manager asks for the week's loose ends: open the renewals of the deals you closed last week (a "
               "year ahead for wins, the Upsell added to its account's open renewal, none for the lost), close out "
               "the deals that look dead by your notes (Closed Lost with its reason, posted in #deals; one is "
               "signing), and reply.")

    def plan(self, session, rng, instance):
        week, dead = spread(fridays(session, self.split), instance)
        rep, day = week.rep, today(session)
        manager = session.get(Person, rep.manager_id)
        renewals = renewal_week(session, rng, week, self.split, 2, 1)
        dead = rng.sample(dead, DEAD)
        others = [d.id for d in session.scalars(select(Opportunity).where(
            Opportunity.owner_id == rep.id, Opportunity.stage.in_(OPEN_STAGES),
            Opportunity.id.not_in([d.id for d in dead])).order_by(Opportunity.id))]
        reasons = rng.sample(REASONS, DEAD - 1)
        work = []
        for k, (deal, reason) in enumerate(zip(dead, reasons)):
            work.append(CloseLost(deal.id, deal.name, deal.account_id, deal.account.name, rep.id, reason, 3 + k,
                                  pick(rng, visible_rivals(session, rep)) if reason == "Competitor" else "",
                                  pick(rng, GAPS) if reason == "Product Fit" else "",
                                  day + timedelta(days=rng.randrange(190, 260)) if reason == "Timing" else None,
                                  tuple(sorted(others, key=lambda i: abs(i - deal.id))[:6])))
        alive = dead[-1]
        signing = StillAlive(alive.id, alive.name, alive.account_id, alive.account.name, rep.id, "", 2,
                             when=day + timedelta(days=rng.randrange(5, 20)))
        work.insert(rng.randrange(DEAD), signing)
        up = next(p for p in renewals if isinstance(p, AddUpsell))
        text = (f"Hi @{rep.handle}, two loose ends before the weekend. Sales Ops says the pipeline shows no renewals yet "
                "for the deals you closed last week: could you sort them out as the handbook's Renewals article says? "
                "And after the pipeline review these look dead: " + ", ".join(sorted(d.name for d in dead)) + ". "
                "Please close out the ones that are lost as the handbook says (your notes on each say what happened). "
                "Then tell me if any of those is still alive, and what the renewal that took an Upsell comes to now.")
        reply = Reply(manager.id, manager.name, rep.id, (
            f"@{manager.handle} done: the renewals are open and {up.renewal_name} now comes to "
            f"{money(up.before + up.cents)} with the Upsell. I closed the lost deals and posted them in #deals. "
            f"{alive.name} is still alive: {signing.text}"), False, ("opened", "closed", "posted", "done"), weight=12,
            fact_weight=10, facts=(Claim(Candidate.text(alive.name, alive.account.name), [], "text", "deal still alive"),
                                  up.total_claim()))
        closed = Reads((ToolCall("crm_list_opportunities", {"owner": f"@{rep.handle}", "stage": "closed",
                                                            "sort": "close_date", "descending": True}),))
        still = Reads((ToolCall("crm_list_opportunities", {"owner": f"@{rep.handle}", "stage": "open"}),))
        return Plan(rep.id, request_instruction(rng, named(session, manager)),
                    [DirectRequest(manager.id, rep.id, text), ReadRule.of(session, RENEWALS, "renewal upsell"),
                     ReadRule.of(session, LOSSES, "loss reason closed lost"), closed, *renewals, still, *work, reply])


@register
class RepFridayCredit(Composed):
    """Open the renewals of last week's closings and log a customer's goodwill credit for approval, unless the
    account's notes show its invoice credited already."""

    id, kind, difficulty, split, scale = "r.lib_week_rep_friday_credit", "decision", 5, "test", "medium"
    apps, toolsets = ("chat", "crm", "tickets", "org"), ("chat", "crm.records", "crm.sales", "crm.service", "tickets.work")
    rules, hard = (RENEWALS, CREDITS), ("summed", "exception", "lookalike")
    summary = ("A Customer Success colleague asks you to log a customer's goodwill credit for approval (naming the "
               "approver of its twelve-month total; nothing when the account's notes show the invoice credited "
               "already) and to open the renewals of the deals you closed last week; reply with the approver or why "
               "not, and the Upsell's renewal.")

    def plan(self, session, rng, instance):
        refused = bool(twin_outcome(self.id, instance).refuse)
        old = owned_accounts(session, self.split)
        weeks = [w for w in closed_weeks(session, self.split, 2, 1) if any(
            a.owner_id == w.rep.id and a.id not in {d.account_id for d in (*w.wins, *w.upsells, *w.lost)} for a in old)]
        week = spread(weeks, instance)
        rep = week.rep
        busy = {d.account_id for d in (*week.wins, *week.upsells, *week.lost)}
        account = pick(rng, [a for a in old if a.owner_id == rep.id and a.id not in busy])
        renewals = renewal_week(session, rng, week, self.split, 2, 1)
        credit = credit_on(session, rng, rep, account, refused, f"INV-{today(session).year}-{rng.randrange(100, 700):04d}")
        approvers = {approver_of(session, band, rep).id for band in BANDS}
        asker = pick(rng, [p for p in customer_success_askers(session) if p.id not in approvers | {rep.id}])
        up = next(p for p in renewals if isinstance(p, AddUpsell))
        text = (f"Hi @{rep.handle}, {account.name} asked for a goodwill credit of {money(credit.dollars * 100)} on "
                f"invoice {credit.invoice} for {credit.why}: could you log it for approval as the handbook says and "
                "tell me who approves it? And Sales Ops asked me to chase this: the pipeline shows no renewals yet for "
                "the deals you closed last week. Could you sort those out as the Renewals article says and tell me "
                "what the renewal that took an Upsell comes to now?")
        upsell = up.total_claim()
        renewed = (f"the renewals of last week's deals are open, and {up.renewal_name} now comes to "
                   f"{money(up.before + up.cents)} with the Upsell")
        if refused:
            reply = replace(part_refused(asker, rep.id, (
                f"@{asker.handle} {renewed}. I can't log {account.name}'s credit, though: the account's notes show "
                f"{credit.invoice} credited already, and the handbook's {CREDITS} credits an invoice once."), CREDITS,
                credit.facts(), [upsell], [credit.note()], also=RENEWALS), weight=8, fact_weight=10)  # the renewals weigh
        else:
            reply = Reply(asker.id, asker.name, rep.id, (
                f"@{asker.handle} done: I logged the {money(credit.dollars * 100)} credit on {credit.invoice}; with the "
                f"account's credits of the past twelve months, {credit.approver()} approves it. And {renewed}."),
                False, ("logged", "opened", "done"), facts=credit.facts() + (upsell,), weight=12, fact_weight=10)
        closed = Reads((ToolCall("crm_list_opportunities", {"owner": f"@{rep.handle}", "stage": "closed",
                                                            "sort": "close_date", "descending": True}),))
        check = Reads((ToolCall("crm_list_opportunities", {"owner": f"@{rep.handle}", "stage": "open",
                                                           "sort": "created", "descending": True}),))
        band = next(b for b, name in credit.approvers if name == credit.approver())
        return Plan(rep.id, request_instruction(rng, named(session, asker)),
                    [DirectRequest(asker.id, rep.id, text), ReadRule.of(session, CREDITS, "credit approval"),
                     ReadRule.of(session, RENEWALS, "renewal upsell"), closed, *renewals, check,
                     approver_reads(rep, [] if refused else [band]), replace(credit, reply=reply)],
                    {"refused": refused})
