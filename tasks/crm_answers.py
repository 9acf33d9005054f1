"""CRM answer tasks: the agent submits one value read off the pipeline (the biggest open deal of a
rep in a period, a rep's open pipeline in a quarter or stage), and the pipeline queries x_crm
shares (this month's deals, the biggest of some deals, the pool of accounts). Expected values are
recomputed from the start state when grading; answers are strict (one value, no hedge, no list)."""

from __future__ import annotations

from datetime import date

from sqlalchemy import select

from officegym.apps.crm.access import scope_of
from officegym.apps.crm.models import OPEN_STAGES, Account, Opportunity
from officegym.apps.crm.reports import quarter_bounds
from officegym.apps.org.models import Person
from officegym.graders.answers import answer_is_number, answer_is_one_of
from officegym.graders.checks import nothing_else_changed
from officegym.graders.statements import Candidate

from .base import Claim, Declaration, TaskInstance, TaskTemplate, Target, ToolCall
from .common import evenly, named, pick
from .crm import actable, amounts_but, deal_lookalikes, editor, sales_people, today
from .registry import register
from .split import in_split

EVER = (date(2000, 1, 1), date(2100, 12, 31))  # close dates: whatever they are


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
    found.append(("whatever their close date", *EVER))
    return found


def _open_deals(session, owner_id: int, first: date, last: date, stage: str | None = None) -> list[Opportunity]:
    stages = (stage,) if stage else OPEN_STAGES
    return list(session.scalars(select(Opportunity).where(
        Opportunity.owner_id == owner_id, Opportunity.stage.in_(stages), Opportunity.close_date >= first,
        Opportunity.close_date <= last).order_by(Opportunity.id)))


def _whose(session, actor: Person, owner: Person) -> str:
    return "you own" if actor.id == owner.id else f"{named(session, owner)} owns"


def _draw(session, rng, want, split: str):
    """An owner of open deals, a question about them that has an answer, and who asks it (of `split`:
    the owner, or a Sales manager above them)."""
    owners = [p for p in sales_people(session) if _open_deals(session, p.id, *EVER) and actable(session, split, p.id)]
    for _ in range(500):
        owner = pick(rng, owners)
        drawn = want(owner)
        if drawn is not None:
            return owner, editor(session, rng, owner.id, 0.5, split), drawn
    raise RuntimeError("no owner has deals for this question")


def deals_seen(session, actor: Person, owner_id: int | None, first: date, last: date) -> list[Opportunity]:
    """Open deals closing from `first` to `last` (inclusive) that the actor sees (only `owner_id`'s
    when given)."""
    stmt = select(Opportunity).where(Opportunity.stage.in_(OPEN_STAGES), Opportunity.close_date >= first,
                                     Opportunity.close_date <= last,
                                     scope_of(session, actor).read_filter(Opportunity.owner_id))
    if owner_id is not None:
        stmt = stmt.where(Opportunity.owner_id == owner_id)
    return list(session.scalars(stmt.order_by(Opportunity.id)))


def accounts_but(session, *account_ids: int) -> list[Candidate]:
    """Every account but these, as candidates (a pool of look-alike accounts)."""
    names = session.scalars(select(Account.name).where(Account.id.not_in(account_ids)).order_by(Account.name))
    return [Candidate.text(n) for n in names]


def biggest(deals: list[Opportunity]) -> Opportunity | None:
    """The deal with the biggest amount, when one is bigger than every other."""
    ranked = sorted(deals, key=lambda d: -d.amount_cents)
    return ranked[0] if ranked and (len(ranked) == 1 or ranked[0].amount_cents > ranked[1].amount_cents) else None


@register
class BiggestOpenDeal(TaskTemplate):
    id, apps, difficulty = "crm.biggest_open_deal", ("crm",), 1
    summary = "Give the amount (or account) of a rep's biggest open deal closing in a period."
    answered = True

    def sample(self, session, rng, instance):
        periods = _periods(session)

        def want(owner):
            words, first, last = pick(rng, periods)
            best = biggest(_open_deals(session, owner.id, first, last))
            return (words, first, last, best) if best and in_split(self.split, "opportunity", best.id) else None

        owner, actor, (words, first, last, best) = _draw(session, rng, want, self.split)
        kind = pick(rng, ["amount", "account"])
        ask = ("Submit its amount in dollars" if kind == "amount" else
               "Submit the name of its account (the customer company)")
        answer = f"{best.amount_cents / 100:.2f}" if kind == "amount" else best.account.name
        return TaskInstance(
            self.id, instance, actor.id,
            f"Of the open opportunities {_whose(session, actor, owner)}, {words}, which one has the biggest amount? "
            f"{ask} with submit_answer.",
            [ToolCall("crm_list_opportunities", {"owner": owner.id, "stage": "open", "close_from": first.isoformat(),
                                                 "close_to": last.isoformat(), "sort": "amount", "descending": True,
                                                 "limit": 1}),
             ToolCall("submit_answer", {"answer": answer})],
            {"owner": owner.id, "first": first.isoformat(), "last": last.isoformat(), "kind": kind})

    def declare(self, start, inst):
        p = inst.params
        best = biggest(_open_deals(start, p["owner"], date.fromisoformat(p["first"]), date.fromisoformat(p["last"])))
        if p["kind"] == "account":  # the pool: every other account
            claim = Claim(Candidate.text(best.account.name), accounts_but(start, best.account_id), "answer", "account")
        else:  # the pool: the amounts of the owner's other open deals, whatever their close date
            amounts = [d.amount_cents for d in _open_deals(start, p["owner"], *EVER)]
            claim = Claim(Candidate.money(best.amount_cents), amounts_but(amounts, best.amount_cents), "answer",
                          "amount")
        return Declaration([Target("opportunity", best.id, deal_lookalikes(start, best, inst.actor_id))], [claim])

    def check(self, ctx, inst):
        declared = self.declare(ctx.start, inst)
        best = ctx.start.get(Opportunity, declared.targets[0].ref)
        if inst.params["kind"] == "account":
            got = answer_is_one_of(ctx.answer, [best.account.name], best.account.name, weight=2)
        else:
            got = answer_is_number(ctx.answer, best.amount_cents / 100, 0.005, weight=2)
        return [got, nothing_else_changed(ctx.diff, [])]


@register
class PipelineTotal(TaskTemplate):
    id, apps, difficulty = "crm.pipeline_total", ("crm",), 2
    split = "test"
    summary = "Add up a rep's open pipeline in a close-date period or in one stage."
    answered = True

    def sample(self, session, rng, instance):
        questions = []  # (owner, words, first, last, stage, deals) with a deal of the split
        for owner in [p for p in sales_people(session) if actable(session, self.split, p.id)]:
            for stage in OPEN_STAGES:
                questions.append((owner, f"in the {stage} stage", *EVER, stage,
                                  _open_deals(session, owner.id, *EVER, stage)))
            for words, first, last in _periods(session)[:-1]:
                deals = _open_deals(session, owner.id, first, last)
                if len(deals) >= 2:
                    questions.append((owner, words, first, last, None, deals))
        questions = [q for q in questions if any(in_split(self.split, "opportunity", d.id) for d in q[-1])]
        # Spread over the totals, so that none comes up much more often than another.
        owner, words, first, last, stage, deals = evenly(rng, instance, questions,
                                                         lambda q: sum(d.amount_cents for d in q[-1]))
        actor = editor(session, rng, owner.id, 0.5, self.split)
        total = sum(d.amount_cents for d in deals)
        query = {"owner": owner.id, "stage": stage or "open", "limit": 200}
        if stage is None:
            query.update(close_from=first.isoformat(), close_to=last.isoformat())
        return TaskInstance(
            self.id, instance, actor.id,
            f"What is the total amount of the open opportunities {_whose(session, actor, owner)} {words}? Submit the "
            "total in dollars with submit_answer.",
            [ToolCall("crm_list_opportunities", query), ToolCall("submit_answer", {"answer": f"{total / 100:.2f}"})],
            {"owner": owner.id, "first": first.isoformat(), "last": last.isoformat(), "stage": stage})

    def declare(self, start, inst):
        p = inst.params
        deals = _open_deals(start, p["owner"], date.fromisoformat(p["first"]), date.fromisoformat(p["last"]),
                            p["stage"])
        total = sum(d.amount_cents for d in deals)
        # The pool: the owner's totals over every other window and stage, and this total less one deal.
        windows = [(first, last, None) for _, first, last in _periods(start)]
        windows += [(*EVER, stage) for stage in OPEN_STAGES]
        others = [sum(d.amount_cents for d in _open_deals(start, p["owner"], *window)) for window in windows]
        others += [total - d.amount_cents for d in deals]
        # The deal declared first is one of the template's split (the sum reads deals of both splits).
        deals = sorted(deals, key=lambda d: not in_split(self.split, "opportunity", d.id))
        return Declaration([Target("opportunity", deals[0].id, [d.id for d in deals[1:]])],
                           [Claim(Candidate.money(total), amounts_but(others, total), "answer", "total")])

    def check(self, ctx, inst):
        total = self.declare(ctx.start, inst).claims[0].right.amount
        return [answer_is_number(ctx.answer, total / 100, 0.005, weight=2), nothing_else_changed(ctx.diff, [])]
