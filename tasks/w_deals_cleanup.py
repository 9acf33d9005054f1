"""Quarter-end cleanup of a rep's past-due deals: the rep's latest note on each says what happened.
Lost deals close as Closed Lost with the loss reason the handbook defines (a competitor's name from
the colleague who was on the call; a follow-up task on the account for Timing; the missing capability
in the description for Product Fit), each loss is posted in #deals with its reason, and a deal still
alive gets its real close date. The rep's manager asked for the cleanup by DM and hears which deal
stays open and its new close date; the posts and the Product Fit description are notes read for
their facts."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from officegym import clock
from officegym.apps.crm import services as crm
from officegym.apps.crm.models import LOSS_REASONS, OPEN_STAGES, Opportunity
from officegym.apps.org.models import Person
from officegym.graders.checks import check, nothing_else_changed
from officegym.graders.statements import Candidate, normalise, says, stated

from .base import Claim, Declaration, TaskInstance, TaskTemplate, Target, ToolCall
from .common import added_messages, allow_posts, channel_named, member_ids, named, pick, spread
from .crm import COMPETITORS, allow_activity, allow_deal, deal_lookalikes, new_activities, today
from .decisions import reply_checks
from .handbook import read_rule
from .phrasing import request_instruction
from .registry import register
from .w_deals_common import (allow_asking, ask, colleague_of, date_said, dm_id, dm_name, dm_step, managed_deals,
                             note_step, said_in_dm, setup_of)
from .w_people_replies import dm_reads

LOSSES = "Loss reasons for Closed Lost deals"
GAPS = ["on-premise deployment", "a HIPAA-compliant data region", "offline mobile access", "a native SAP connector",
        "data residency in Brazil"]


def _note(reason: str, when: str, gap: str, colleague: str) -> str:
    """What the rep wrote on a deal after the customer's answer."""
    return {"Competitor": f"They signed with another vendor. @{colleague} was on their final call and knows which one.",
            "Price": "Procurement said no: even at the best discount we could get approved, our price is too high "
                     "for them.",
            "No Budget": "Their budget for this was frozen for the rest of the year. They like the product and would "
                         "buy at our price if they had the money.",
            "No Decision": "Their champion left; nobody there will make the call, and they are staying with what they "
                           "have.",
            "Timing": f"They want it, but not before {when}. Call them back then.",
            "Product Fit": f"They need {gap}, which we don't offer.",
            "": f"Verbal yes: they sign on {when}; the paperwork is with their CFO."}[reason]


def _past_due(session: Session, split: str) -> list[tuple[Person, list[Opportunity]]]:
    """Reps of the split in #deals with five open deals on five accounts (of the split, without pending
    discount requests) that include every past-due deal of theirs: the past-due ones, then the others."""
    inside = member_ids(session, channel_named(session, "deals").id)
    by_owner: dict[int, list[Opportunity]] = {}
    for deal in managed_deals(session, split):
        by_owner.setdefault(deal.owner_id, []).append(deal)
    found = []
    for owner_id, deals in sorted(by_owner.items()):
        overdue = set(session.scalars(select(Opportunity.id).where(
            Opportunity.owner_id == owner_id, Opportunity.stage.in_(OPEN_STAGES),
            Opportunity.close_date < today(session))))
        seen, distinct = set(), []
        for deal in sorted(deals, key=lambda d: (d.id not in overdue, d.id)):
            if deal.account_id not in seen:
                seen.add(deal.account_id)
                distinct.append(deal)
        if owner_id in inside and len(distinct) >= 5 and overdue <= {d.id for d in distinct[:5]}:
            found.append((session.get(Person, owner_id), distinct[:5]))
    return found


def _overdue_step(owner_id: int, deal_ids: list[int], days: list[int]):
    """A setup step: weeks ago, the owner set close dates that have passed since."""
    def run(session: Session) -> None:
        owner = session.get(Person, owner_id)
        for deal_id, ago in zip(deal_ids, days):
            clock.set_time(session, datetime.combine(today(session) - timedelta(days=40), time(11, 5)))
            crm.update_opportunity(session, owner, deal_id, close_date=(today(session) - timedelta(days=ago)).isoformat())
    return run


def _notes_step(owner_id: int, notes: list[tuple[int, str]]):
    """A setup step: this morning the rep logged what each customer said."""
    def run(session: Session) -> None:
        owner = session.get(Person, owner_id)
        clock.set_time(session, datetime.combine(today(session), time(8, 5)))
        for deal_id, text in notes:
            crm.log_activity(session, owner, "opportunity", deal_id, "note", "Customer update", text)
    return run


@register
class PipelineCleanup(TaskTemplate):
    """A rep's past-due deals closed as lost, or given their real close date, from their notes."""

    id, apps, difficulty = "w.deal_pipeline_cleanup", ("chat", "crm", "tickets"), 4
    toolsets = ("chat", "crm", "tickets.work")  # its apps hold over 100 tools
    kind, scale, split = "workflow", "medium", "train"
    rules = (LOSSES,)
    summary = ("A manager asks a rep to close out their past-due deals from their notes: loss reasons as the handbook "
               "defines them, the competitor from a colleague, Timing and Product Fit follow-ups, each loss posted in "
               "#deals, and the manager told which deal stays open and its new close date.")

    def sample(self, session, rng, instance):
        reps = _past_due(session, self.split)
        owner, deals = spread(reps, instance)
        rival_deal = pick(rng, deals)
        chosen = [rival_deal] + [d for d in deals if d.id != rival_deal.id]
        # Four losses, one of them with a follow-up the handbook asks for (Timing or Product Fit), and a deal
        # still alive.
        follow = pick(rng, ["Timing", "Product Fit"])
        reasons = ["Competitor", follow, *rng.sample([r for r in LOSS_REASONS if r not in ("Competitor", follow)], 2), ""]
        rival, gap, colleague = pick(rng, COMPETITORS), pick(rng, GAPS), colleague_of(session, rng, owner)
        when = {str(d.id): (today(session) + timedelta(days=rng.randint(200, 300) if r else rng.randint(10, 40)))
                .isoformat() for d, r in zip(chosen, reasons) if r in ("Timing", "")}
        heard = f"They went with {rival}; they told us on the final call."
        late = [d for d in chosen if d.close_date >= today(session)]
        outcome = dict(zip([d.id for d in chosen], reasons))
        p = {"deals": [d.id for d in chosen], "reasons": reasons, "rival": rival, "gap": gap, "when": when,
             "colleague": colleague.id, "boss": owner.manager_id}
        boss = session.get(Person, owner.manager_id)
        dm = dm_name(owner.id, boss.id)
        steps = [*dm_reads(dm), *read_rule(session, LOSSES, "Closed Lost"),
                 ToolCall("crm_list_opportunities", {"owner": f"@{owner.handle}", "stage": "open",
                                                     "close_to": (today(session) - timedelta(days=1)).isoformat()})]
        steps += [ToolCall("crm_list_activities", {"record_type": "opportunity", "record_id": d.id, "limit": 5})
                  for d in chosen]
        for deal, reason in [*zip(chosen, reasons)][1:] + [(rival_deal, "Competitor")]:
            if reason == "Competitor":
                steps += ask(colleague.handle, f"Hi @{colleague.handle}, which vendor did {deal.account.name} sign with "
                                               f"instead of us on {deal.name}?", len(steps))
            if not reason:
                steps.append(ToolCall("crm_update_opportunity", {"opportunity": deal.id, "close_date": when[str(deal.id)]}))
                continue
            if reason == "Product Fit":  # before it closes: a closed deal is read-only
                steps.append(ToolCall("crm_update_opportunity", {"opportunity": deal.id, "description": (
                    f"Lost on product fit: they need {gap}, which we don't offer.")}, role="note",
                    text_arg="description"))
            steps.append(ToolCall("crm_move_opportunity_stage", {"opportunity": deal.id, "stage": "Closed Lost",
                                                                 "loss_reason": reason,
                                                                 "competitor": rival if reason == "Competitor" else ""}))
            if reason == "Timing":
                steps.append(ToolCall("crm_log_activity", {"record_type": "account", "record_id": deal.account_id,
                                                           "kind": "task", "subject": f"Call {deal.account.name} back",
                                                           "due_date": when[str(deal.id)]}))
            steps.append(ToolCall("chat_post_message", {"channel": "deals", "text": (
                f"Closed Lost: {deal.name}. Loss reason: {reason}" + (f" ({rival})." if reason == "Competitor" else
                                                                     "."))}, role="note"))
        alive = next(d for d, r in zip(chosen, reasons) if not r)
        steps.append(ToolCall("chat_post_message", {"channel": dm, "text": (
            f"@{boss.handle} Done: {len(chosen) - 1} past-due deals are Closed Lost, each posted in #deals with its loss "
            f"reason, and {alive.name} stays open with its new close date, {when[str(alive.id)]}.")}, role="report"))
        return TaskInstance(
            self.id, instance, owner.id,
            request_instruction(rng, named(session, boss)),
            steps, p,
            setup=setup_of(_overdue_step(owner.id, [d.id for d in late], [rng.randint(3, 30) for _ in late]),
                           note_step(colleague.id, "opportunity", rival_deal.id, heard),
                           note_step(colleague.id, "account", rival_deal.account_id, heard),
                           _notes_step(owner.id, [(d.id, _note(outcome[d.id], when.get(str(d.id), ""), gap,
                                                               colleague.handle)) for d in chosen]),
                           dm_step(boss.id, owner.id, (f"@{owner.handle} quarter end is coming: please clean up your "
                                                       "open deals whose close date has passed, today. Each one either "
                                                       "closes as lost or gets the close date it really has now, and "
                                                       "your latest note on each deal says which. Tell me when it's "
                                                       "done."))))

    def _deals(self, start, inst) -> list[Opportunity]:
        """The past-due deals, the one lost to a competitor first."""
        return [start.get(Opportunity, i) for i in inst.params["deals"]]

    def declare(self, start, inst):
        p = inst.params
        deals = self._deals(start, inst)
        accounts = {d.account_id for d in deals}
        theirs = start.scalars(select(Opportunity).where(Opportunity.owner_id == deals[0].owner_id,
                                                         Opportunity.stage.in_(OPEN_STAGES),
                                                         Opportunity.account_id.not_in(accounts)).order_by(Opportunity.id))
        others = [Candidate.text(d.name) for d in theirs]
        # The reasons no loss of this cleanup has; "Price" and "Timing" are common words a post may use in passing.
        unused = [Candidate.text(r) for r in LOSS_REASONS if r not in p["reasons"] and r not in ("Price", "Timing")]
        claims = [Claim(Candidate.text(p["rival"]), [Candidate.text(c) for c in COMPETITORS if c != p["rival"]],
                        "competitor", "competitor")]
        for deal, reason in zip(deals, p["reasons"]):
            if reason:
                claims += [Claim(Candidate.text(reason), unused, "text", "loss reason"),
                           Claim(Candidate.text(deal.name, deal.account.name), others, "text", "deal")]
        return Declaration([Target("opportunity", deals[0].id, deal_lookalikes(start, deals[0], inst.actor_id))],
                           claims)

    def check(self, ctx, inst):
        p = inst.params
        claims = self.declare(ctx.start, inst).claims
        deals_id = channel_named(ctx.start, "deals").id
        posts = [m["text"] for m in added_messages(ctx, ctx.actor_id) if m["channel_id"] == deals_id]
        results, allowed = [], allow_asking(ctx, [ctx.start.get(Person, ctx.actor_id),
                                                  ctx.start.get(Person, p["colleague"])], limit=2)
        pairs = iter(claims[1:])
        for deal, reason in zip(self._deals(ctx.start, inst), p["reasons"]):
            now = ctx.final.get(Opportunity, deal.id)
            if not reason:
                day = p["when"][str(deal.id)]
                results.append(check(f"{deal.name} is still open and closes on {day}",
                                     now.stage == deal.stage and now.close_date.isoformat() == day,
                                     f"it is {now.stage}, closing {now.close_date}", weight=2))
                allowed.append(allow_deal(deal.id, "close_date"))
                continue
            rival = reason != "Competitor" or (now.competitor or "").casefold() == p["rival"].casefold()
            results.append(check(f"{deal.name} is Closed Lost for {reason}" + (f" to {p['rival']}" if reason ==
                                                                              "Competitor" else ""),
                                 now.stage == "Closed Lost" and now.loss_reason == reason and rival,
                                 f"it is {now.stage} ({now.loss_reason or 'no reason'}, {now.competitor!r})", weight=2))
            fields = ["stage", "probability", "closed_at", "loss_reason", "close_date"]
            if reason == "Competitor":
                fields.append("competitor")
                results += says([now.competitor], claims[0].right, claims[0].others,
                                f"The competitor who won it is recorded as {p['rival']}", "competitor", weight=1)
            if reason == "Timing":
                tasks = [t for t in new_activities(ctx, "account", deal.account_id, "task")
                         if str(t["due_date"]) == p["when"][str(deal.id)]]
                results.append(check(f"A follow-up task on {deal.account.name} is due {p['when'][str(deal.id)]}", tasks,
                                     "no such task on the account"))
                allowed.append(allow_activity("account", deal.account_id, "task", ctx.actor_id))
            if reason == "Product Fit":
                fields.append("description")
                results += says([now.description], Candidate.text(p["gap"]), [Candidate.text(g) for g in GAPS
                                                                             if g != p["gap"]],
                                f"{deal.name}'s description names the gap: {p['gap']}", "gap", weight=2)
            allowed.append(allow_deal(deal.id, *fields))
            said, named = next(pairs), next(pairs)
            about = [t for t in posts if 0 in stated(normalise(t), [named.right])]
            results += says(about, said.right, said.others, f"A #deals post gives {deal.name}'s loss reason, {reason}",
                            "loss reason", weight=5)
        results.append(says(posts, named.right, named.others, "", "deal")[1])
        losses = len([r for r in p["reasons"] if r])
        alive = next(d for d, r in zip(self._deals(ctx.start, inst), p["reasons"]) if not r)
        day = date.fromisoformat(p["when"][str(alive.id)])
        wrong = [alive.close_date, *(day + timedelta(days=k) for k in (-7, -2, -1, 1, 2, 7))]
        new_date = Claim(date_said(day), [date_said(d) for d in wrong if d != day], "text", "new close date")
        boss = ctx.start.get(Person, p["boss"])
        results += reply_checks(said_in_dm(ctx, ctx.actor_id, boss.id), False, boss.name, [new_date],
                                actions=("closed", "closed lost", "cleaned up", "updated"), weight=14)
        allowed += allow_posts(ctx, dm_id(ctx.start, ctx.actor_id, boss.id), limit=1, mentions=2)
        return [*results, nothing_else_changed(ctx.diff, allowed + allow_posts(ctx, deals_id, limit=losses, mentions=2))]
