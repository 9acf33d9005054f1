"""Cross-app questions answered in chat from the CRM: reply in a thread with the account that has
the most open cases (in a region, an industry or a size band) and its owner; post in #deals the
biggest open deal of someone closing in a period. Each instance draws its question so that no
answer comes up much more often than another over the instances."""

from __future__ import annotations

from collections import Counter
from datetime import date

from sqlalchemy import select

from officegym.apps.chat.models import Channel
from officegym.apps.crm.access import scope_of
from officegym.apps.crm.activities import OPEN_CASE_STATUSES
from officegym.apps.crm.models import OPEN_STAGES, Account, Case, Opportunity
from officegym.apps.org.models import Person
from officegym.graders.checks import check, nothing_else_changed
from officegym.graders.statements import Candidate, says

from .base import Claim, Declaration, Ref, TaskInstance, TaskTemplate, Target, ToolCall
from .chat import _background, _post, _steps, later_chatter
from .common import (added_messages, allow_posts, channel_named, channels_of, everyone, find_message, member_ids,
                     named, people_except, pick, spread, top_level_messages)
from .crm import amounts_but, money, sales_people
from .crm_answers import _periods, accounts_but, biggest, deals_seen
from .registry import register
from .split import person_in

CASE_SCOPES = [("region",), ("industry",), ("size",), ("region", "industry")]


def scope_words(scope: dict) -> str:
    """Which accounts a question is about, in words: "in EMEA", "in the Retail industry in APAC"."""
    words = [f"in the {scope['industry']} industry" if "industry" in scope else "",
             f"with {scope['size']} employees" if "size" in scope else "",
             f"in {scope['region']}" if "region" in scope else ""]
    return " ".join(w for w in words if w)


def _open_cases(session, actor: Person) -> list[tuple[int, dict]]:
    """The open cases the actor can see, as (account id, the account's region, industry and size)."""
    scope = scope_of(session, actor)
    rows = session.execute(select(Case.account_id, Account.region, Account.industry, Account.size)
                           .join(Account, Account.id == Case.account_id)
                           .where(Case.status.in_(OPEN_CASE_STATUSES), scope.read_filter(Case.owner_id)))
    return [(account, {"region": region, "industry": industry, "size": size})
            for account, region, industry, size in rows]


def _case_counts(session, actor: Person, scope: dict) -> Counter:
    """Open cases per account among those the actor can see, of the accounts in `scope`."""
    return Counter(account for account, fields in _open_cases(session, actor)
                   if all(fields[k] == v for k, v in scope.items()))


def _leader(counts: Counter) -> int | None:
    top = counts.most_common(2)
    return top[0][0] if top and (len(top) == 1 or top[0][1] > top[1][1]) else None


def scopes_by_leader(session, actor: Person) -> dict[int, list[dict]]:
    """Every scope of CASE_SCOPES with one account ahead of all others, by that account's id."""
    cases = _open_cases(session, actor)
    found: dict[int, list[dict]] = {}
    for keys in CASE_SCOPES:
        for scope in sorted({tuple((k, fields[k]) for k in keys) for _, fields in cases}):
            leader = _leader(Counter(a for a, fields in cases if all(fields[k] == v for k, v in scope)))
            if leader is not None:
                found.setdefault(leader, []).append(dict(scope))
    return found


@register
class MostOpenCasesOwnerThread(TaskTemplate):
    id, apps, difficulty = "x.most_open_cases_owner_thread", ("crm", "chat"), 3
    summary = "Answer in a thread which account has the most open cases and who owns it."

    def sample(self, session, rng, instance):
        readers = [p for p in everyone(session) if (lambda s: s.is_admin or s.is_sales)(scope_of(session, p))
                   and person_in(self.split, p.id)]
        for _ in range(500):
            actor = pick(rng, readers)
            places = [c for c in channels_of(session, actor.id) if len(member_ids(session, c.id)) >= 3]
            options = scopes_by_leader(session, actor)
            if options and places:
                break
        leader = session.get(Account, spread(sorted(options), instance))  # each leader as likely as another
        scope = pick(rng, options[leader.id])
        channel = pick(rng, places)
        asker = session.get(Person, pick(rng, sorted(member_ids(session, channel.id) - {actor.id})))
        text = (f"@{actor.handle} which customer account {scope_words(scope)} has the most open cases right now, "
                "and who owns that account? I want to loop them in.")
        return TaskInstance(
            self.id, instance, actor.id,
            f"{named(session, asker)} asked you a question in #{channel.name} about customer cases. Look it "
            "up in the CRM and reply once in the thread of their question with just the account's name and its "
            "owner. Change nothing else.",
            [ToolCall("chat_list_mentions", {"limit": 1}),
             ToolCall("crm_list_accounts", {k: v for k, v in scope.items() if k in ("region", "industry")}
                      | {"limit": 100}),
             ToolCall("crm_list_cases", {"status": "open", "limit": 100}),
             ToolCall("chat_post_message", {"channel": channel.name, "thread_parent_id": Ref(0, "items.0.id"),
                                            "text": f"{leader.name}, owned by "
                                                    f"{session.get(Person, leader.owner_id).name}."})],
            {"asker": asker.id, "channel": channel.id, "text": text, "scope": scope},
            setup=_steps(_background(session, rng, self.split, 0, (actor, asker)), _post(asker.id, channel.id, text),
                         later_chatter(session, rng, channel.id, (actor, asker))))

    def declare(self, start, inst):
        p = inst.params
        question = find_message(start, p["asker"], p["channel"], p["text"])
        account = start.get(Account, _leader(_case_counts(start, start.get(Person, inst.actor_id), p["scope"])))
        owner = start.get(Person, account.owner_id)
        return Declaration(
            [Target("message", question.id, top_level_messages(start, p["channel"], [question.id]),
                    {"channel": start.get(Channel, p["channel"]).name})],
            [Claim(Candidate.text(account.name), accounts_but(start, account.id), "text", "account"),
             Claim(Candidate.person(owner), people_except(start, owner, p["asker"], inst.actor_id), "text", "person")])

    def check(self, ctx, inst):
        p = inst.params
        declared = self.declare(ctx.start, inst)
        question, (account, owner) = declared.targets[0].ref, declared.claims
        replies = [r["text"] for r in added_messages(ctx, ctx.actor_id) if r["thread_parent_id"] == question]
        names, names_only = says(replies, account.right, account.others, "", account.kind)
        owns, owner_only = says(replies, owner.right, owner.others, "", owner.kind)
        # One requirement for both: a few people own most accounts, so the owner alone is a fair guess.
        return [check("You replied in the thread of the question", replies, "no reply of yours in that thread"),
                check(f"The reply names the account {account.right.label} and its owner, {owner.right.label}",
                      names.passed and owns.passed, f"{names.detail}; {owns.detail}", weight=4),
                names_only, owner_only, nothing_else_changed(ctx.diff, allow_posts(ctx, p["channel"], question))]


def biggest_deals(session, actor: Person) -> dict[int, list[tuple]]:
    """Every question "the biggest open deal of <whom> closing in <period>" with one answer the actor
    can see, by that deal's id: (owner id or None for every deal the actor sees, the period's words,
    first and last day)."""
    periods = _periods(session)[:-1]  # this month and the quarters ahead, not "whatever the date"
    seen = deals_seen(session, actor, None, min(p[1] for p in periods), max(p[2] for p in periods))
    found: dict[int, list[tuple]] = {}
    for owner in [None, *sorted({d.owner_id for d in seen})]:
        for words, first, last in periods:
            best = biggest([d for d in seen if first <= d.close_date <= last and owner in (None, d.owner_id)])
            if best is not None:
                found.setdefault(best.id, []).append((owner, words, first, last))
    return found


@register
class AnnounceBiggestDeal(TaskTemplate):
    id, apps, difficulty = "x.announce_biggest_deal", ("crm", "chat"), 2
    summary = "Post in #deals the account and amount of the biggest open deal of someone closing in a period."

    def sample(self, session, rng, instance):
        inside = member_ids(session, channel_named(session, "deals").id)
        people = [p for p in sales_people(session) if p.id in inside and person_in(self.split, p.id)]
        for _ in range(500):
            actor = pick(rng, people)
            options = biggest_deals(session, actor)
            if options:
                break
        best = session.get(Opportunity, spread(sorted(options), instance))  # each deal as likely as another
        owner_id, words, first, last = pick(rng, options[best.id])
        whose = ("of all the deals you can see" if owner_id is None else "of yours" if owner_id == actor.id
                 else f"owned by {named(session, session.get(Person, owner_id))}")
        return TaskInstance(
            self.id, instance, actor.id,
            f"Find the biggest open opportunity {whose} {words}, and post one message in #deals with just its "
            "account name and its exact amount. Change nothing else.",
            [ToolCall("crm_list_opportunities", {"stage": "open", "close_from": first.isoformat(),
                                                 "close_to": last.isoformat(), "sort": "amount", "descending": True,
                                                 "limit": 5} | ({} if owner_id is None else {
                                                     "owner": f"@{session.get(Person, owner_id).handle}"})),
             ToolCall("chat_post_message", {"channel": "deals", "text": "Our biggest deal in that window: "
                                            f"{best.account.name}, {money(best.amount_cents)}."})],
            {"owner": owner_id, "first": first.isoformat(), "last": last.isoformat()})

    def declare(self, start, inst):
        p = inst.params
        actor = start.get(Person, inst.actor_id)
        best = biggest(deals_seen(start, actor, p["owner"], date.fromisoformat(p["first"]),
                                  date.fromisoformat(p["last"])))
        seen = start.scalars(select(Opportunity.amount_cents).where(  # the open deals the actor sees
            Opportunity.stage.in_(OPEN_STAGES), scope_of(start, actor).read_filter(Opportunity.owner_id)))
        channels = [c.name for c in channels_of(start, actor.id) if c.name != "deals"]
        return Declaration([Target("channel", "deals", channels)],
                           [Claim(Candidate.text(best.account.name), accounts_but(start, best.account_id), "text",
                                  "account"),
                            Claim(Candidate.money(best.amount_cents), amounts_but(seen, best.amount_cents), "text",
                                  "amount")])

    def check(self, ctx, inst):
        account, amount = self.declare(ctx.start, inst).claims
        deals_id = channel_named(ctx.start, "deals").id
        posts = [r["text"] for r in added_messages(ctx, ctx.actor_id) if r["channel_id"] == deals_id]
        return [check("You posted in #deals", posts, "no new message of yours in #deals"),
                *says(posts, account.right, account.others, f"The post names {account.right.label}", account.kind),
                *says(posts, amount.right, amount.others, f"The post gives {amount.right.label}", amount.kind),
                nothing_else_changed(ctx.diff, allow_posts(ctx, deals_id, None))]


