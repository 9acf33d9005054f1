"""CRM answer tasks: the agent submits a number read off the pipeline (the biggest open deal of a
rep in a period, a rep's open pipeline in a quarter or stage). Expected values are recomputed from
the start state when grading."""

from __future__ import annotations

from datetime import date

from sqlalchemy import select

from officegym.apps.crm.models import OPEN_STAGES, Opportunity
from officegym.apps.crm.reports import quarter_bounds
from officegym.apps.org.models import Person
from officegym.graders.checks import answer_is_number, answer_is_one_of, nothing_else_changed

from .base import TaskInstance, TaskTemplate, ToolCall
from .common import pick
from .crm import editor, sales_people, today
from .registry import register


def _periods(session) -> list[tuple[str, date, date]]:
    """Close-date windows a question may name, in words with their inclusive bounds."""
    day = today(session)
    month_end = date(day.year + day.month // 12, day.month % 12 + 1, 1).toordinal() - 1
    found = [(f"closing in {day.strftime('%B %Y')}", date(day.year, day.month, 1), date.fromordinal(month_end))]
    for quarter in (f"{day.year}-Q{(day.month - 1) // 3 + 1 + k}" for k in range(3)):
        if quarter.endswith(("Q5", "Q6")):
            continue
        first, last = quarter_bounds(quarter)
        found.append((f"closing in {quarter} ({first.isoformat()} to {last.isoformat()})", first, last))
    found.append(("whatever their close date", date(2000, 1, 1), date(2100, 12, 31)))
    return found


def _open_deals(session, owner_id: int, first: date, last: date, stage: str | None = None) -> list[Opportunity]:
    stages = (stage,) if stage else OPEN_STAGES
    return list(session.scalars(select(Opportunity).where(
        Opportunity.owner_id == owner_id, Opportunity.stage.in_(stages), Opportunity.close_date >= first,
        Opportunity.close_date <= last).order_by(Opportunity.id)))


def _whose(actor: Person, owner: Person) -> str:
    return "you own" if actor.id == owner.id else f"{owner.name} owns"


def _draw(session, rng, want):
    """An owner of open deals, a question about them that has an answer, and who asks it."""
    owners = [p for p in sales_people(session) if _open_deals(session, p.id, date(2000, 1, 1), date(2100, 1, 1))]
    for _ in range(500):
        owner = pick(rng, owners)
        drawn = want(owner)
        if drawn is not None:
            return owner, editor(session, rng, owner.id, 0.5), drawn
    raise RuntimeError("no owner has deals for this question")


@register
class BiggestOpenDeal(TaskTemplate):
    id, apps, difficulty = "crm.biggest_open_deal", ("crm",), 1
    summary = "Give the amount (or account) of a rep's biggest open deal closing in a period."

    def sample(self, session, rng, instance):
        periods = _periods(session)

        def want(owner):
            words, first, last = pick(rng, periods)
            deals = _open_deals(session, owner.id, first, last)
            return (words, first, last, max(deals, key=lambda d: d.amount_cents)) if deals else None

        owner, actor, (words, first, last, best) = _draw(session, rng, want)
        kind = pick(rng, ["amount", "account"])
        ask = ("Submit its amount in dollars" if kind == "amount" else
               "Submit the name of its account (the customer company)")
        answer = f"{best.amount_cents / 100:.2f}" if kind == "amount" else best.account.name
        return TaskInstance(
            self.id, instance, actor.id,
            f"Of the open opportunities {_whose(actor, owner)}, {words}, which one has the biggest amount? {ask} "
            "with submit_answer.",
            [ToolCall("crm_list_opportunities", {"owner": owner.id, "stage": "open", "close_from": first.isoformat(),
                                                 "close_to": last.isoformat(), "sort": "amount", "descending": True,
                                                 "limit": 1}),
             ToolCall("submit_answer", {"answer": answer})],
            {"owner": owner.id, "first": first.isoformat(), "last": last.isoformat(), "kind": kind},
            is_answer_task=True)

    def check(self, ctx, inst):
        p = inst.params
        deals = _open_deals(ctx.start, p["owner"], date.fromisoformat(p["first"]), date.fromisoformat(p["last"]))
        best = max(deals, key=lambda d: d.amount_cents)
        if p["kind"] == "account":
            got = answer_is_one_of(ctx.answer, [best.account.name, best.name], best.account.name, weight=2)
        else:
            got = answer_is_number(ctx.answer, best.amount_cents / 100, 0.005, weight=2)
        return [got, nothing_else_changed(ctx.diff, [])]


@register
class PipelineTotal(TaskTemplate):
    id, apps, difficulty = "crm.pipeline_total", ("crm",), 2
    split = "test"
    summary = "Add up a rep's open pipeline in a close-date period or in one stage."

    def sample(self, session, rng, instance):
        periods = _periods(session)

        def want(owner):
            if rng.random() < 0.35:
                stage = pick(rng, OPEN_STAGES)
                deals = _open_deals(session, owner.id, date(2000, 1, 1), date(2100, 12, 31), stage)
                return (f"in the {stage} stage", date(2000, 1, 1), date(2100, 12, 31), stage, deals) if deals else None
            words, first, last = pick(rng, periods[:-1])
            deals = _open_deals(session, owner.id, first, last)
            return (words, first, last, None, deals) if len(deals) >= 2 else None

        owner, actor, (words, first, last, stage, deals) = _draw(session, rng, want)
        total = sum(d.amount_cents for d in deals)
        query = {"owner": owner.id, "stage": stage or "open", "limit": 200}
        if stage is None:
            query.update(close_from=first.isoformat(), close_to=last.isoformat())
        return TaskInstance(
            self.id, instance, actor.id,
            f"What is the total amount of the open opportunities {_whose(actor, owner)} {words}? Submit the total "
            "in dollars with submit_answer.",
            [ToolCall("crm_list_opportunities", query), ToolCall("submit_answer", {"answer": f"{total / 100:.2f}"})],
            {"owner": owner.id, "first": first.isoformat(), "last": last.isoformat(), "stage": stage},
            is_answer_task=True)

    def check(self, ctx, inst):
        p = inst.params
        deals = _open_deals(ctx.start, p["owner"], date.fromisoformat(p["first"]), date.fromisoformat(p["last"]),
                            p["stage"])
        return [answer_is_number(ctx.answer, sum(d.amount_cents for d in deals) / 100, 0.005, weight=2),
                nothing_else_changed(ctx.diff, [])]
