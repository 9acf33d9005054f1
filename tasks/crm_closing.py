"""CRM task templates that close deals: as won on its signing day, along the sales path, and as
lost with its reason (and the competitor who won it); and the stage helpers the cross-app tasks
that close deals share."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from officegym.apps.crm.models import CLOSED_STAGES, LOSS_REASONS, OPEN_STAGES, FieldChange, Opportunity
from officegym.apps.org.models import Person
from officegym.graders.checks import CheckResult, check, guard, nothing_else_changed

from .base import Declaration, TaskInstance, TaskTemplate, ToolCall
from .common import pick
from .crm import COMPETITORS, allow_deal, deal_target, deals_of, editor, quoted, reads_exactly, today, your
from .registry import register


def moves_to_won(deal_id: int, stage: str) -> list[ToolCall]:
    """Reference steps: one stage at a time along the path to Negotiation, then Closed Won."""
    path = OPEN_STAGES[OPEN_STAGES.index(stage) + 1:] + ("Closed Won",)
    return [ToolCall("crm_move_opportunity_stage", {"opportunity": deal_id, "stage": s}) for s in path]


def stage_moves(ctx, deal_id: int) -> list[tuple[str, str]]:
    """The stage changes of a deal during the episode, oldest first, as (from, to): its field history
    rows that the final state has and the start has not."""
    history = select(FieldChange.id, FieldChange.old_value, FieldChange.new_value).where(
        FieldChange.record_type == "opportunity", FieldChange.record_id == deal_id, FieldChange.field == "stage")
    known = {row.id for row in ctx.start.execute(history)}
    return [(old, new) for i, old, new in ctx.final.execute(history.order_by(FieldChange.id)) if i not in known]


def won_along_the_path(ctx, deal_id: int) -> CheckResult:
    """A guard: on its way to Closed Won the deal was never closed as lost nor reopened (what its
    field history of the episode shows, though the final state would look the same)."""
    detours = [f"{old} -> {new}" for old, new in stage_moves(ctx, deal_id)
               if new == "Closed Lost" or old in CLOSED_STAGES]
    return guard("The deal went along the sales path to Closed Won, never closed as lost or reopened", not detours,
                 f"its stage went {', '.join(detours)}")



@register
class CloseWonDeal(TaskTemplate):
    id, apps, difficulty = "crm.close_won_deal", ("crm",), 2
    summary = "Close a deal as won on its signing day, moving it along the sales path first."

    def sample(self, session, rng, instance):
        deal = pick(rng, [d for d in deals_of(session, self.split) if d.amount_cents > 0])
        actor, owner = editor(session, rng, deal.owner_id, split=self.split), session.get(Person, deal.owner_id)
        signed = pick(rng, [d for d in (today(session) - timedelta(days=k) for k in range(7)) if d != deal.close_date])
        return TaskInstance(
            self.id, instance, actor.id,
            f"The customer signed {your(session, actor, owner)} opportunity \"{deal.name}\" on "
            f"{signed.isoformat()}. Set its close date to the signing day and move it along the sales path to "
            "Closed Won (never closing it as lost or reopening it); change nothing else.",
            [ToolCall("crm_list_opportunities", {"query": deal.name, "owner": f"@{owner.handle}"}),
             ToolCall("crm_update_opportunity", {"opportunity": deal.id, "close_date": signed.isoformat()}),
             *moves_to_won(deal.id, deal.stage)],
            {"deal": deal.id, "signed": signed.isoformat()})

    def declare(self, start, inst):
        return Declaration([deal_target(start, inst)])

    def check(self, ctx, inst):
        p = inst.params
        deal = self.declare(ctx.start, inst).targets[0].ref
        now = ctx.final.get(Opportunity, deal)
        return [check("The opportunity is Closed Won", now.stage == "Closed Won", f"it is {now.stage}", weight=2),
                check(f"Its close date is {p['signed']}", now.close_date.isoformat() == p["signed"],
                      f"it is {now.close_date}"),
                won_along_the_path(ctx, deal),
                nothing_else_changed(ctx.diff, [allow_deal(deal, "stage", "probability", "closed_at", "close_date")])]


@register
class CloseLostWithReason(TaskTemplate):
    id, apps, difficulty = "crm.close_lost_with_reason", ("crm",), 1
    summary = "Close a deal as lost with the given loss reason (and the competitor who won it)."

    def sample(self, session, rng, instance):
        deal = pick(rng, deals_of(session, self.split))
        actor, owner = editor(session, rng, deal.owner_id, split=self.split), session.get(Person, deal.owner_id)
        reason = pick(rng, LOSS_REASONS)
        rival = pick(rng, [c for c in COMPETITORS if c != deal.competitor]) if reason == "Competitor" else ""
        why = f"Competitor (they chose {rival})" if rival else reason
        step = {"opportunity": deal.id, "stage": "Closed Lost", "loss_reason": reason}
        return TaskInstance(
            self.id, instance, actor.id,
            f"We lost {your(session, actor, owner)} opportunity \"{deal.name}\". Close it as lost with the loss reason "
            f"{why}. Change nothing else.",
            [ToolCall("crm_list_opportunities", {"query": deal.name, "owner": f"@{owner.handle}"}),
             ToolCall("crm_move_opportunity_stage", {**step, "competitor": rival} if rival else step)],
            {"deal": deal.id, "reason": reason, "rival": rival})

    def declare(self, start, inst):
        p = inst.params
        claims = [quoted(LOSS_REASONS, p["reason"], "loss_reason", "loss reason")]
        if p["rival"]:
            claims.append(quoted(COMPETITORS, p["rival"], "competitor", "competitor"))
        return Declaration([deal_target(start, inst)], claims)

    def check(self, ctx, inst):
        p = inst.params
        declared = self.declare(ctx.start, inst)
        deal = declared.targets[0].ref
        now = ctx.final.get(Opportunity, deal)
        checks = [check(f"The opportunity is Closed Lost with the loss reason {p['reason']}",
                        now.stage == "Closed Lost" and now.loss_reason == p["reason"],
                        f"it is {now.stage}, loss reason {now.loss_reason!r}", weight=2)]
        fields = ["stage", "probability", "closed_at", "loss_reason"]
        if p["rival"]:
            checks += reads_exactly([now.competitor], declared.claims[1], f"The competitor is {p['rival']}")
            fields.append("competitor")
        return checks + [nothing_else_changed(ctx.diff, [allow_deal(deal, *fields)])]
