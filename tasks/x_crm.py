"""Cross-app tasks, CRM and chat: act on a deal a manager announced in #deals, convert a lead a
colleague asked about by DM, read an amount a rep announced (questions answered in chat from the
CRM: x_crm_questions)."""

from __future__ import annotations

from collections import Counter

from sqlalchemy import select

from officegym.apps.chat import services as chat
from officegym.apps.chat.models import Message
from officegym.apps.crm.models import OPEN_STAGES, Account, Opportunity
from officegym.apps.org.models import Person
from officegym.graders.answers import answer_is_number
from officegym.graders.checks import check, nothing_else_changed
from officegym.graders.statements import Candidate, amounts_written, stated

from .base import Claim, Declaration, TaskInstance, TaskTemplate, Target, ToolCall
from .chat import _background, _post, _steps
from .common import channel_named, find_message, member_ids, named, pick, top_level_messages
from .crm import (allow_activity, allow_deal, amounts_but, deal_lookalikes, money, new_activities, open_deals,
                  quoted, reads_exactly, sales_managers, sales_people)
from .crm_closing import moves_to_won, won_along_the_path
from .crm_conversion import (conversion_checks, conversion_declaration, conversion_sample, conversion_steps,
                             conversion_text)
from .registry import register
from .split import in_split, person_in

VERBAL_YES = "Verbal yes from the customer"
NOTE_SUBJECTS = [VERBAL_YES, "Order form signed", "Customer asked for more time", "Pricing approved by finance",
                 "Legal review finished", "Customer went quiet"]


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

        options = [d for d in open_deals(session, with_items=False) if d.owner_id in inside and bosses(d)
                   and in_split(self.split, "opportunity", d.id) and person_in(self.split, d.owner_id)]
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
            f"{named(session, boss)} posted in #deals about one of your deals. Close that opportunity as won "
            "at the amount they gave (update the amount first if it differs; move it along the sales path, never "
            f"closing it as lost or reopening it) and log one note on it with the subject \"{VERBAL_YES}\". Change "
            "nothing else.",
            [ToolCall("chat_list_messages", {"channel": "deals", "limit": 20}),
             ToolCall("crm_list_opportunities", {"owner": f"@{owner.handle}", "stage": "open", "limit": 100}),
             ToolCall("crm_update_opportunity", {"opportunity": deal.id, "amount": amount / 100}),
             *moves_to_won(deal.id, deal.stage),
             ToolCall("crm_log_activity", {"record_type": "opportunity", "record_id": deal.id, "kind": "note",
                                           "subject": VERBAL_YES})],
            {"deal": deal.id, "amount": amount, "boss": boss.id, "text": text},
            setup=_steps(_background(session, rng, self.split, 0, (owner, boss, other.owner_id)),
                         _post(boss.id, deals_channel.id, text), _post(other.owner_id, deals_channel.id, decoy)))

    def declare(self, start, inst):
        p = inst.params
        deal = start.get(Opportunity, p["deal"])
        post = find_message(start, p["boss"], channel_named(start, "deals").id, p["text"])
        return Declaration([Target("message", post.id, [], {"channel": "deals"}),
                            Target("opportunity", deal.id, deal_lookalikes(start, deal, inst.actor_id))],
                           [quoted(NOTE_SUBJECTS, VERBAL_YES, "subject", "note subject")])

    def check(self, ctx, inst):
        p = inst.params
        declared = self.declare(ctx.start, inst)
        deal = declared.targets[1].ref
        now = ctx.final.get(Opportunity, deal)
        notes = [a["subject"] for a in new_activities(ctx, "opportunity", deal, "note")]
        return [check("The opportunity is Closed Won", now.stage == "Closed Won", f"it is {now.stage}", weight=2),
                check(f"Its amount is {money(p['amount'])}", now.amount_cents == p["amount"],
                      f"it is {money(now.amount_cents)}", weight=2),
                *reads_exactly(notes, declared.claims[0], f"You logged a note \"{VERBAL_YES}\" on it"),
                won_along_the_path(ctx, deal),
                nothing_else_changed(ctx.diff, [allow_deal(deal, "stage", "probability", "closed_at", "amount_cents"),
                                                allow_activity("opportunity", deal, "note", ctx.actor_id)])]


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
    scale = "medium"  # the small company's test split holds two open leads: one of them is always its owner's newest
    summary = "A colleague asks by direct message to convert a lead; do it as described."

    def sample(self, session, rng, instance):
        lead, into, p = conversion_sample(session, rng, instance, self.split)
        owner = session.get(Person, lead.owner_id)
        colleague = pick(rng, sales_managers(session, owner) or [q for q in sales_people(session) if q.id != owner.id])
        text = f"Hi @{owner.handle}, good news: please {conversion_text(lead, into, p)}. Thanks!"
        return TaskInstance(
            self.id, instance, owner.id,
            f"{named(session, colleague)} sent you a direct message about one of your leads. Do what they "
            "ask in the CRM, and change nothing else (no reply is needed).",
            [ToolCall("chat_search_messages", {"query": "please", "author": f"@{colleague.handle}"}),
             ToolCall("crm_list_leads", {"query": lead.last_name, "owner": f"@{owner.handle}"}),
             *conversion_steps(p)], {**p, "colleague": colleague.id, "text": text},
            setup=_steps(_background(session, rng, self.split, 0, (owner, colleague)),
                         _dm(colleague.id, owner.id, text)))

    def declare(self, start, inst):
        return conversion_declaration(start, inst.params)

    def check(self, ctx, inst):
        return conversion_checks(ctx, inst.params)


def _announcements(session) -> list[tuple[Message, str, int]]:
    """Top-level #deals posts by a deal owner naming one of their accounts with exactly one amount
    (as (message, account, cents)), where that owner posted about that account only once."""
    deals_id = channel_named(session, "deals").id
    owned: dict[int, set[str]] = {}
    for owner_id, name in session.execute(select(Opportunity.owner_id, Account.name).join(Account).distinct()):
        owned.setdefault(owner_id, set()).add(name)
    found = []
    for message in session.scalars(select(Message).where(Message.channel_id == deals_id, Message.deleted_at.is_(None),
                                                         Message.thread_parent_id.is_(None)).order_by(Message.id)):
        names = [Candidate.text(n) for n in sorted(owned.get(message.author_id, ()))]
        named, amounts = stated(message.text, names), amounts_written(message.text)
        if len(named) == 1 and len(amounts) == 1 and "$" in message.text:
            found.append((message, names[next(iter(named))].label, amounts[0][2]))
    pairs = Counter((m.author_id, n) for m, n, _ in found)
    return [(m, n, c) for m, n, c in found if pairs[(m.author_id, n)] == 1]


@register
class DealQuestionAnswer(TaskTemplate):
    id, apps, difficulty = "x.deal_question_answer", ("crm", "chat"), 1
    summary = "Read the amount a rep announced in #deals for an account."
    answered = True

    def sample(self, session, rng, instance):
        message, account, cents = pick(rng, [a for a in _announcements(session)
                                             if in_split(self.split, "message", a[0].id)])
        author = session.get(Person, message.author_id)
        actor = session.get(Person, pick(rng, sorted(i for i in member_ids(session, message.channel_id) - {author.id}
                                                     if person_in(self.split, i))))
        return TaskInstance(
            self.id, instance, actor.id,
            f"{named(session, author)} posted an update about {account} in #deals. What amount did they "
            "give for it? Submit the amount in dollars with submit_answer.",
            [ToolCall("chat_search_messages", {"query": account, "channel": "deals", "author": f"@{author.handle}"}),
             ToolCall("submit_answer", {"answer": money(cents)})],
            {"message": message.id, "account": account})

    def declare(self, start, inst):
        message = start.get(Message, inst.params["message"])
        cents = amounts_written(message.text)[0][2]
        # The pool: the other announced amounts, and the account's deals as the CRM has them.
        said = [c for _, _, c in _announcements(start)] + list(start.scalars(
            select(Opportunity.amount_cents).join(Account).where(Account.name == inst.params["account"])))
        return Declaration([Target("message", message.id, top_level_messages(start, message.channel_id, [message.id]),
                                   {"channel": "deals"})],
                           [Claim(Candidate.money(cents), amounts_but(said, cents), "answer", "amount")])

    def check(self, ctx, inst):
        cents = self.declare(ctx.start, inst).claims[0].right.amount
        return [answer_is_number(ctx.answer, cents / 100, 0.005, weight=2), nothing_else_changed(ctx.diff, [])]
