"""Cross-app tasks, CRM and chat: act on a deal a manager announced in #deals, answer a thread with
the owner of the account with the most open cases, convert a lead a colleague asked about by DM,
announce the biggest deal closing this month, read an amount a rep announced."""

from __future__ import annotations

import re
from collections import Counter

from sqlalchemy import select

from officegym.apps.chat import services as chat
from officegym.apps.chat.models import Message
from officegym.apps.crm.access import scope_of
from officegym.apps.crm.activities import OPEN_CASE_STATUSES
from officegym.apps.crm.models import OPEN_STAGES, Account, Case, Opportunity
from officegym.apps.org.models import Person
from officegym.graders.checks import answer_is_number, check, nothing_else_changed

from .base import Ref, TaskInstance, TaskTemplate, ToolCall
from .chat import _post, _steps
from .common import (added_messages, allow_posts, channel_named, channels_of, contains_text,
                     everyone, find_message, member_ids, mentions_of, pick)
from .crm import (allow_activity, allow_deal, amounts_in, money, moves_to_won, new_activities, open_deals,
                  sales_managers, sales_people, today)
from .crm_sales import conversion_checks, conversion_sample, conversion_steps, conversion_text
from .registry import register

_AMOUNT = re.compile(r"\$\d{1,3}(?:,\d{3})*(?:\.\d{2})?")


@register
class CloseWonAnnouncedDeal(TaskTemplate):
    id, apps, difficulty = "x.close_won_announced_deal", ("crm", "chat"), 3
    summary = "Close as won, at the amount a manager gave in #deals, the deal they announced; log a note on it."

    def sample(self, session, rng, instance):
        deals_channel = channel_named(session, "deals")
        inside = member_ids(session, deals_channel.id)
        open_by_account = Counter(d.account_id for d in session.scalars(
            select(Opportunity).where(Opportunity.stage.in_(OPEN_STAGES))))

        def bosses(deal):  # managers of the owner in #deals (Sales ones first)
            owner = session.get(Person, deal.owner_id)
            chain, current = [], owner
            while current.manager_id is not None and len(chain) < 3:
                current = session.get(Person, current.manager_id)
                chain.append(current)
            return [m for m in sales_managers(session, owner) if m.id in inside] or \
                [m for m in chain if m.id in inside][:1]

        options = [d for d in open_deals(session, with_items=False) if d.owner_id in inside and bosses(d)]
        unique = [d for d in options if open_by_account[d.account_id] == 1]
        deal = pick(rng, unique or options)
        owner = session.get(Person, deal.owner_id)
        boss = pick(rng, bosses(deal))
        what = deal.account.name if open_by_account[deal.account_id] == 1 else f"{deal.name} (deal)"
        amount = max(10, round(deal.amount_cents / 100 * rng.uniform(0.8, 1.2) / 500)) * 500 * 100
        if amount == deal.amount_cents:
            amount += 50_000
        other = pick(rng, [d for d in open_deals(session) if d.owner_id != owner.id and d.owner_id in inside
                           and d.account_id != deal.account_id])
        text = (f"@{owner.handle} great news: {what} gave us a verbal yes at {money(amount)}. Please "
                "close the deal as won in the CRM.")
        decoy = f"{other.account.name} is asking for {money(other.amount_cents + 250_000)} of extras, still talking."
        return TaskInstance(
            self.id, instance, owner.id,
            f"{boss.name} posted in #deals about one of your deals. Close that opportunity as won at the amount "
            "they gave (update the amount first if it differs) and log a note on the opportunity that the "
            "customer gave a verbal yes.",
            [ToolCall("crm_update_opportunity", {"opportunity": deal.id, "amount": amount / 100}),
             *moves_to_won(deal.id, deal.stage),
             ToolCall("crm_log_activity", {"record_type": "opportunity", "record_id": deal.id, "kind": "note",
                                           "subject": "Verbal yes from the customer"})],
            {"deal": deal.id, "amount": amount, "boss": boss.id, "text": text},
            setup=_steps(_post(boss.id, deals_channel.id, text), _post(other.owner_id, deals_channel.id, decoy)))

    def check(self, ctx, inst):
        p = inst.params
        now = ctx.final.get(Opportunity, p["deal"])
        notes = new_activities(ctx, "opportunity", p["deal"], "note")
        return [check("The opportunity is Closed Won", now.stage == "Closed Won", f"it is {now.stage}", weight=2),
                check(f"Its amount is {money(p['amount'])}", now.amount_cents == p["amount"],
                      f"it is {money(now.amount_cents)}", weight=2),
                check("You logged a note on the opportunity", notes, "no new note of yours on it"),
                nothing_else_changed(ctx.diff, [allow_deal(p["deal"], "stage", "probability", "closed_at",
                                                           "amount_cents", "close_date", "next_step"),
                                                allow_activity("opportunity", p["deal"])])]


def _case_counts(session, actor: Person, region: str | None) -> Counter:
    """Open cases per account among those the actor can see (optionally in one region)."""
    scope = scope_of(session, actor)
    stmt = select(Case.account_id).join(Account, Account.id == Case.account_id).where(
        Case.status.in_(OPEN_CASE_STATUSES), scope.read_filter(Case.owner_id))
    if region:
        stmt = stmt.where(Account.region == region)
    return Counter(session.scalars(stmt))


def _leader(counts: Counter) -> int | None:
    top = counts.most_common(2)
    return top[0][0] if top and (len(top) == 1 or top[0][1] > top[1][1]) else None


@register
class MostOpenCasesOwnerThread(TaskTemplate):
    id, apps, difficulty = "x.most_open_cases_owner_thread", ("crm", "chat"), 3
    summary = "Answer in a thread which account has the most open cases and who owns it."

    def sample(self, session, rng, instance):
        readers = [p for p in everyone(session) if (lambda s: s.is_admin or s.is_sales)(scope_of(session, p))]
        regions = sorted(set(session.scalars(select(Account.region))))
        for _ in range(500):
            actor, region = pick(rng, readers), pick(rng, [None, None] + regions)
            places = [c for c in channels_of(session, actor.id) if len(member_ids(session, c.id)) >= 3]
            if _leader(_case_counts(session, actor, region)) is not None and places:
                break
        channel = pick(rng, places)
        asker = session.get(Person, pick(rng, sorted(member_ids(session, channel.id) - {actor.id})))
        where = f" in {region}" if region else ""
        text = (f"@{actor.handle} which customer account{where} has the most open cases right now, and who owns "
                "that account? I want to loop them in.")
        leader = session.get(Account, _leader(_case_counts(session, actor, region)))
        return TaskInstance(
            self.id, instance, actor.id,
            f"{asker.name} asked you a question in #{channel.name} about customer cases. Look it up in the CRM and "
            "reply in the thread of their question with the account's name and its owner.",
            [ToolCall("chat_list_mentions", {"limit": 1}),
             ToolCall("chat_post_message", {"channel": channel.name, "thread_parent_id": Ref(0, "items.0.id"),
                                            "text": f"{leader.name}, owned by "
                                                    f"{session.get(Person, leader.owner_id).name}."})],
            {"asker": asker.id, "channel": channel.id, "text": text, "region": region},
            setup=_post(asker.id, channel.id, text))

    def check(self, ctx, inst):
        p = inst.params
        question = find_message(ctx.start, p["asker"], p["channel"], p["text"])
        account = ctx.start.get(Account, _leader(_case_counts(ctx.start, ctx.start.get(Person, ctx.actor_id),
                                                              p["region"])))
        owner = ctx.start.get(Person, account.owner_id)
        replies = [r for r in added_messages(ctx, ctx.actor_id) if r["thread_parent_id"] == question.id]
        named = [r for r in replies if contains_text(r["text"], account.name)]
        owned = [r for r in named
                 if contains_text(r["text"], owner.name) or owner.id in mentions_of(ctx.final, r["id"])]
        return [check("You replied in the thread of the question", replies, "no reply of yours in that thread"),
                check(f"The reply names the account {account.name}", named,
                      f"replies: {[r['text'] for r in replies][:3]}", weight=2),
                check(f"The reply names its owner, {owner.name}", owned, "the owner is not named", weight=2),
                nothing_else_changed(ctx.diff, allow_posts(ctx, p["channel"], question.id))]


def _dm(author_id: int, other_id: int, text: str):
    def run(session):
        author = session.get(Person, author_id)
        channel = chat.open_conversation(session, author, [other_id])
        chat.post_message(session, author, channel.id, text)
    return run


@register
class ConvertDmLead(TaskTemplate):
    id, apps, difficulty = "x.convert_dm_lead", ("crm", "chat"), 2
    split = "test"
    summary = "A colleague asks by direct message to convert a lead; do it as described."

    def sample(self, session, rng, instance):
        lead, into, p = conversion_sample(session, rng)
        owner = session.get(Person, lead.owner_id)
        colleague = pick(rng, sales_managers(session, owner) or [q for q in sales_people(session) if q.id != owner.id])
        text = f"Hi @{owner.handle}, good news: please {conversion_text(lead, into, p)}. Thanks!"
        return TaskInstance(
            self.id, instance, owner.id,
            f"{colleague.name} sent you a direct message about one of your leads. Do what they ask in the CRM.",
            conversion_steps(p), {**p, "colleague": colleague.id}, setup=_dm(colleague.id, owner.id, text))

    def check(self, ctx, inst):
        return conversion_checks(ctx, {k: v for k, v in inst.params.items() if k != "colleague"})


def _month_deals(session, actor: Person, owner_id: int | None) -> list[Opportunity]:
    """Open deals closing this month that the actor sees (only `owner_id`'s when given)."""
    day = today(session)
    first = day.replace(day=1)
    last = first.replace(year=first.year + first.month // 12, month=first.month % 12 + 1)
    stmt = select(Opportunity).where(Opportunity.stage.in_(OPEN_STAGES), Opportunity.close_date >= first,
                                     Opportunity.close_date < last,
                                     scope_of(session, actor).read_filter(Opportunity.owner_id))
    if owner_id is not None:
        stmt = stmt.where(Opportunity.owner_id == owner_id)
    return list(session.scalars(stmt.order_by(Opportunity.id)))


@register
class AnnounceBiggestDeal(TaskTemplate):
    id, apps, difficulty = "x.announce_biggest_deal", ("crm", "chat"), 2
    summary = "Post in #deals the account and amount of the biggest open deal closing this month."

    def sample(self, session, rng, instance):
        inside = member_ids(session, channel_named(session, "deals").id)
        people = [p for p in sales_people(session) if p.id in inside]
        for _ in range(500):
            actor = pick(rng, people)
            owner = pick(rng, [None, actor] + [q for q in people if q.id != actor.id])
            if _month_deals(session, actor, owner.id if owner else None):
                break
        best = max(_month_deals(session, actor, owner.id if owner else None), key=lambda d: d.amount_cents)
        whose = ("of all the deals you can see" if owner is None else "of yours" if owner.id == actor.id
                 else f"owned by {owner.name}")
        return TaskInstance(
            self.id, instance, actor.id,
            f"Find the biggest open opportunity {whose} that closes this month, and post its account name and "
            "amount in #deals.",
            [ToolCall("chat_post_message", {"channel": "deals", "text": f"Biggest deal closing this month: "
                                            f"{best.account.name}, {money(best.amount_cents)}."})],
            {"owner": owner.id if owner else None})

    def check(self, ctx, inst):
        deals_id = channel_named(ctx.start, "deals").id
        best = max(_month_deals(ctx.start, ctx.start.get(Person, ctx.actor_id), inst.params["owner"]),
                   key=lambda d: d.amount_cents)
        posts = [r for r in added_messages(ctx, ctx.actor_id) if r["channel_id"] == deals_id]
        right = [r for r in posts if contains_text(r["text"], best.account.name)
                 and best.amount_cents in amounts_in(r["text"])]
        return [check("You posted in #deals", posts, "no new message of yours in #deals"),
                check(f"The post names {best.account.name} and {money(best.amount_cents)}", right,
                      f"posts: {[r['text'] for r in posts][:3]}", weight=2),
                nothing_else_changed(ctx.diff, allow_posts(ctx, deals_id))]


def _announcements(session) -> list[tuple[Message, str]]:
    """Top-level #deals posts by a deal owner naming one of their accounts with exactly one amount,
    where that owner posted about that account only once."""
    deals_id = channel_named(session, "deals").id
    owned = {}
    for deal in session.scalars(select(Opportunity)):
        owned.setdefault(deal.owner_id, set()).add(deal.account.name)
    found = []
    for message in session.scalars(select(Message).where(Message.channel_id == deals_id, Message.deleted_at.is_(None),
                                                         Message.thread_parent_id.is_(None)).order_by(Message.id)):
        names = [n for n in owned.get(message.author_id, ()) if n in message.text]
        if len(names) == 1 and len(_AMOUNT.findall(message.text)) == 1:
            found.append((message, names[0]))
    pairs = Counter((m.author_id, n) for m, n in found)
    return [(m, n) for m, n in found if pairs[(m.author_id, n)] == 1]


@register
class DealQuestionAnswer(TaskTemplate):
    id, apps, difficulty = "x.deal_question_answer", ("crm", "chat"), 1
    summary = "Read the amount a rep announced in #deals for an account."

    def sample(self, session, rng, instance):
        message, account = pick(rng, _announcements(session))
        author = session.get(Person, message.author_id)
        actor = session.get(Person, pick(rng, sorted(member_ids(session, message.channel_id) - {author.id})))
        return TaskInstance(
            self.id, instance, actor.id,
            f"{author.name} posted an update about {account} in #deals. What amount did they give for it? "
            "Submit the amount in dollars with submit_answer.",
            [ToolCall("submit_answer", {"answer": _AMOUNT.findall(message.text)[0]})],
            {"message": message.id, "account": account}, is_answer_task=True)

    def check(self, ctx, inst):
        message = ctx.start.get(Message, inst.params["message"])
        expected = float(_AMOUNT.findall(message.text)[0].lstrip("$").replace(",", ""))
        return [answer_is_number(ctx.answer, expected, 0.005, weight=2), nothing_else_changed(ctx.diff, [])]
