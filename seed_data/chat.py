"""The chat part of a world: channels (company-wide, team, project, private, one archived), weeks
of conversations with threads, reactions, mentions and pins, DMs and group DMs, and each
person's unread state. Text comes from seed_data.vocab through seed_data.chat_text."""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from random import Random

from sqlalchemy.orm import Session

from officegym.apps.chat.models import Channel, Membership, Mention, Message, Pin, Reaction
from officegym.apps.chat.services import mentioned_handles

from . import chat_dm_vocab, scale_vocab, vocab
from .bulk import bulk_insert
from .chat_deals import DealTalk, deals_where
from .chat_incidents import incident_lines, incidents_where, it_help_lines
from .chat_replies import chatter, render_exchange
from .chat_text import PLACEHOLDERS, Line, Scene, Where, history_end as end_of_history, render_scene
from .crm_model import Crm
from .org import Org, PersonRec, slugify
from .tickets_model import Tickets

__all__ = ["build_chat", "PLACEHOLDERS"]


@dataclass
class ChannelPlan:
    """A channel to create and the conversations it will hold."""

    name: str
    kind: str
    creator_id: int
    created_at: datetime
    where: Where
    scenes: list[tuple[dict, str | None]]  # (vocab scene, default speaker role)
    rate: float  # scenes per working day, relative to the scale's rate
    topic: str = ""
    purpose: str = ""
    archived: bool = False
    lines: list[Line] = field(default_factory=list)
    id: int = 0


def _plan_channels(org: Org, spec, rng: Random) -> tuple[list[ChannelPlan], list[tuple[str, str]]]:
    """Company-wide, team, private and project channels, in creation order."""
    everyone = [p.id for p in org.people]
    ceo, founded = org.ceo.id, org.founded
    it_head = org.heads.get("IT", ceo)
    at = lambda days: founded + timedelta(days=days)  # noqa: E731
    plans = [
        ChannelPlan("general", "public", ceo, at(0), Where(everyone, owner_id=ceo),
                    [(s, None) for s in vocab.GENERAL] + [(s, "ceo") for s in vocab.GENERAL_CEO], 1.0,
                    "Company-wide announcements and news", "Everyone at the company is here."),
        ChannelPlan("random", "public", ceo, at(1), Where(sorted(rng.sample(everyone, max(3, len(everyone) * 17 // 20)))),
                    [(s, None) for s in vocab.RANDOM], 0.8, "Non-work banter and water-cooler talk",
                    "A place for everything that isn't work."),
        ChannelPlan("announcements", "public", ceo, at(2), Where(everyone, owner_id=ceo),
                    [(s, None) for s in vocab.ANNOUNCEMENTS], 0.25, "Official announcements, please keep it tidy",
                    "Policies, office news and deadlines."),
        ChannelPlan("it-help", "public", it_head, at(3), Where(everyone, dept="IT"),
                    [(s, None) for s in vocab.IT_HELP], 0.8, "Ask IT anything: laptops, access, accounts",
                    "Questions for the IT team. For urgent outages, mention the IT support lead."),
    ]
    security_ids = {p.id for p in org.in_dept("IT")} | set(rng.sample(everyone, len(everyone) * 2 // 5))
    plans.append(ChannelPlan("security", "public", it_head, at(30), Where(sorted(security_ids), dept="IT"),
                             [(s, None) for s in vocab.SECURITY], 0.3, "Security news, phishing alerts, access reviews",
                             "Report anything suspicious here."))
    for team in org.teams:
        if len(team.member_ids) < 2:
            continue
        head = org.heads[team.dept]
        lead = org.person(team.lead_id)
        ids = sorted(set(team.member_ids) | {head})
        scenes = vocab.TEAM_COMMON + vocab.TEAM.get(slugify(team.dept), [])
        if spec.chatter:  # a busy company also posts plain status updates
            scenes = scenes + [{"top": text} for text in scale_vocab.UPDATES]
        if team.parent is not None:  # a squad's channel also has the lead's own manager
            ids = sorted(set(ids) | {org.person(team.lead_id).manager_id})
        plans.append(ChannelPlan(f"team-{team.slug}", "public", team.lead_id, max(lead.since, at(10)),
                                 Where(ids, team.dept, team.lead_id, team.lead_id, team=team.name), [(s, None) for s in scenes], 0.7,
                                 f"The {team.name} team: {team.focus}", f"Day-to-day work of the {team.name} team."))
    if "Sales" in org.heads:
        sales_head = org.person(org.heads["Sales"])
        plans.append(ChannelPlan("deals", "public", sales_head.id, max(sales_head.since, at(20)), deals_where(org),
                                 [(s, None) for s in vocab.DEALS], 0.3,
                                 "Wins, deal updates and asks for help on live deals",
                                 "Deal owners post wins, losses and stage moves here; ask for help on live deals."))
    heads = sorted(set(org.heads.values()))
    plans.append(ChannelPlan("leadership", "private", ceo, at(40), Where(heads, "Executive", ceo, ceo),
                             [(s, None) for s in vocab.LEADERSHIP], 0.4, "Leadership team, confidential",
                             "Department heads and the CEO."))
    if "People" in org.heads:
        ids = sorted({p.id for p in org.in_dept("People")} | set(heads))
        plans.append(ChannelPlan("hiring", "private", org.heads["People"], at(45),
                                 Where(ids, "People", org.heads["People"], org.heads["People"]),
                                 [(s, None) for s in vocab.HIRING], 0.4, "Candidates and offers, confidential",
                                 "Hiring pipeline across the company."))
    projects = _plan_projects(org, spec, rng, plans)
    return plans, projects


def _plan_projects(org: Org, spec, rng: Random, plans: list[ChannelPlan]) -> list[tuple[str, str]]:
    """Project channels; the first one is finished and archived, confidential ones are private."""
    fits = [p for p in vocab.PROJECTS if p[1][0] in org.heads]
    open_ones = [p for p in fits if not p[2]]
    secret = [p for p in fits if p[2]]
    chosen = rng.sample(open_ones, min(len(open_ones), spec.projects - 1)) + rng.sample(secret, min(1, len(secret)))
    names = rng.sample(vocab.CODENAMES, len(chosen))
    out = []
    for k, ((desc, depts, confidential), codename) in enumerate(zip(chosen, names)):
        leads = [t.lead_id for t in org.teams if t.dept == depts[0]] + [org.heads[depts[0]]]
        owner = rng.choice(leads)
        pool = [p.id for p in org.people if p.dept in depts and p.id != owner]
        ids = sorted({owner, *rng.sample(pool, min(len(pool), rng.randint(3, 8)))})
        finished = k == 0
        start = org.window_start - timedelta(days=rng.randint(20, 60) if finished else rng.randint(3, 40))
        scenes = [(s, None) for s in (vocab.PRIVATE_PROJECT + vocab.PROJECT if confidential else vocab.PROJECT)]
        plan = ChannelPlan(f"proj-{codename}", "private" if confidential else "public", owner, start,
                           Where(ids, depts[0], owner, owner, (codename, desc)), scenes, 0.6,
                           f"Project {codename.title()}: {desc}", f"Working channel of Project {codename.title()}.",
                           archived=finished)
        plans.append(plan)
        out.append((codename, desc))
    return out


def _working_days(start: datetime, end: datetime) -> list[datetime]:
    days, day = [], start.replace(hour=0, minute=0, second=0)
    while day <= end:
        if day.weekday() < 5:
            days.append(day)
        day += timedelta(days=1)
    return days


def _fill_channel(org: Org, plan: ChannelPlan, spec, rng: Random, projects, history_end: datetime) -> None:
    """Schedule the channel's scenes over the working days of the history window."""
    deck: list[tuple[dict, str | None]] = []
    rate = spec.scenes_per_day * plan.rate
    end = history_end - timedelta(days=rng.randint(12, 18)) if plan.archived else history_end
    first = plan.created_at + timedelta(days=1)
    start = first if plan.archived else max(org.window_start, first)
    for day in _working_days(start, end):
        count = int(rate) + (rng.random() < rate - int(rate))
        for _ in range(count):
            if not deck:
                deck = list(plan.scenes)
                rng.shuffle(deck)
            spec_, default_by = deck.pop()
            when = day.replace(hour=rng.randint(9, 15), minute=rng.randint(0, 59), second=rng.randint(0, 59))
            scene = Scene(org, plan.where, rng, when, projects)
            lines = render_scene(scene, spec_, default_by)
            if spec.chatter:
                chatter(scene, lines, spec.chatter, end)
            plan.lines += lines
    if plan.archived:
        when = end.replace(hour=16, minute=rng.randint(0, 59))
        plan.lines += render_scene(Scene(org, plan.where, rng, when, projects), vocab.WRAPUP, "owner")


def _welcomes(org: Org, general: ChannelPlan, rng: Random, projects) -> None:
    """The CEO welcomes every new hire in #general on their first morning."""
    for pid in org.new_hires:
        person = org.person(pid)
        when = person.since.replace(hour=10, minute=rng.randint(0, 30))
        general.lines += render_scene(Scene(org, general.where, rng, when, projects, person), vocab.WELCOME, None)


def _conversations(org: Org, spec, rng: Random, projects, history_end: datetime) -> list[ChannelPlan]:
    """DMs between managers, teammates and friends, and a few group DMs."""
    people = [p for p in org.people if p.since < org.window_start]
    everyone = Where([p.id for p in org.people])
    days = _working_days(org.window_start, history_end)
    plans: dict[str, ChannelPlan] = {}
    position = {p.id: i for i, p in enumerate(people)}
    by_team: dict[str | None, list[int]] = {}
    for i, p in enumerate(people):
        by_team.setdefault(p.team, []).append(i)

    def others(first: PersonRec) -> list[PersonRec]:  # everyone else, in directory order
        i = position[first.id]
        return people[:i] + people[i + 1:]

    for k in range(spec.dms):
        first = rng.choice(people)
        if k % 4 == 3:
            group = [first, *rng.sample(others(first), 2)]
            templates, kind = chat_dm_vocab.GROUP_DM, "group_dm"
        else:  # teammates and their manager, in directory order
            near = set(by_team[first.team]) | ({position[first.manager_id]} if first.manager_id in position else set())
            mates = [people[i] for i in sorted(near) if people[i].id != first.id]
            group = [first, rng.choice(mates or others(first))]
            templates, kind = chat_dm_vocab.DM, "dm"
        name = "dm-" + "-".join(str(i) for i in sorted(p.id for p in group))
        when = rng.choice(days).replace(hour=rng.randint(9, 17), minute=rng.randint(0, 59), second=rng.randint(0, 59))
        plan = plans.get(name)
        if plan is None:
            plan = plans[name] = ChannelPlan(name, kind, first.id, when - timedelta(minutes=1),
                                             Where(sorted(p.id for p in group)), [], 0)
        scene = Scene(org, everyone, rng, when, projects)
        plan.lines += render_exchange(scene, rng.choice(templates), group)
    for plan in plans.values():
        plan.created_at = min(line.at for line in plan.lines) - timedelta(minutes=1)
    return sorted(plans.values(), key=lambda p: (p.created_at, p.name))


def build_chat(session: Session, spec, seed: int, org: Org, crm: Crm | None = None,
               tickets: Tickets | None = None, progress=None) -> None:
    """Generate and insert every channel, membership, message, reaction, mention and pin; with a
    `crm`, deal owners also talk about their real deals (see seed_data.chat_deals); with `tickets`,
    on-call engineers work production incidents in #incidents (see seed_data.chat_incidents).
    `progress(step, fraction)` hears how far it got (0 to 1)."""
    report = progress or (lambda step, fraction: None)
    rng = Random(f"{seed}:chat")
    history_end = end_of_history(org.now)
    deals_rng = Random(f"{seed}:chat-deals")  # its own stream: #deals does not reshuffle the other channels
    plans, projects = _plan_channels(org, spec, rng)
    for k, plan in enumerate(plans):
        if k % 25 == 0:
            report(f"chat: channel history {k}/{len(plans)}", 0.5 * k / len(plans))
        _fill_channel(org, plan, spec, deals_rng if plan.name == "deals" else rng, projects, history_end)
    _welcomes(org, plans[0], rng, projects)
    by_name = {plan.name: plan for plan in plans}
    if crm is not None and "deals" in by_name:
        DealTalk(org, crm, by_name, deals_rng, projects, history_end).run()
    if tickets is not None:
        _incident_talk(org, tickets, plans, by_name, Random(f"{seed}:chat-incidents"), history_end)
    report("chat: direct messages", 0.5)
    plans += _conversations(org, spec, rng, projects, history_end)
    report("chat: saving messages", 0.75)
    _insert(session, org, plans, rng)
    report("chat: saved", 1.0)


def _incident_talk(org: Org, made: Tickets, plans: list[ChannelPlan], by_name: dict, rng: Random,
                   history_end: datetime) -> None:
    """#incidents, where on-call engineers work production incidents, and ticket mentions in #it-help."""
    if "it-help" in by_name:
        help_plan = by_name["it-help"]
        help_plan.lines += it_help_lines(org, made, rng, history_end, help_plan.where.member_ids)
    where = incidents_where(org)
    lines = incident_lines(org, made, rng, history_end, where.member_ids)
    if lines:
        opened = min(line.at for line in lines) - timedelta(days=rng.randint(20, 40))
        plans.append(ChannelPlan("incidents", "public", where.owner_id, opened, where, [], 0,
                                 "Production incidents: one thread per incident, with its ticket key",
                                 "On-call engineers announce and update production incidents here.", lines=lines))


def _insert(session: Session, org: Org, plans: list[ChannelPlan], rng: Random) -> None:
    """Bulk-insert; message ids follow time, as in a real workspace."""
    for i, plan in enumerate(plans, start=1):
        plan.id = i
    bulk_insert(session, Channel, [
        {"id": p.id, "name": p.name, "kind": p.kind, "topic": p.topic, "purpose": p.purpose, "is_archived": p.archived,
         "created_by_id": p.creator_id, "created_at": p.created_at} for p in plans])
    timeline = sorted(((line.at, seq, plan, line) for plan in plans for seq, line in enumerate(plan.lines)),
                      key=lambda item: (item[0], item[2].id, item[1]))
    ids: dict[int, int] = {}
    messages, reactions, mentions, pins = [], [], [], []
    handles = {p.handle: p.id for p in org.people}
    for mid, (at, _seq, plan, line) in enumerate(timeline, start=1):
        ids[id(line)] = mid
        messages.append({"id": mid, "channel_id": plan.id, "author_id": line.author_id, "text": line.text,
                         "thread_parent_id": ids[id(line.reply_to)] if line.reply_to else None, "created_at": at,
                         "edited_at": None, "deleted_at": None})
        reactions += [{"message_id": mid, "person_id": pid, "emoji": emoji} for pid, emoji in dict.fromkeys(line.reactions)]
        mentions += [{"message_id": mid, "person_id": handles[h]} for h in mentioned_handles(line.text) if h in handles]
        if line.pinned:
            pins.append({"channel_id": plan.id, "message_id": mid, "pinned_by_id": line.author_id,
                         "pinned_at": at + timedelta(minutes=2)})
    memberships, posted_in, posted_at = [], {plan.id: [] for plan in plans}, {plan.id: [] for plan in plans}
    for message in messages:  # in id order, which is time order
        posted_in[message["channel_id"]].append(message["id"])
        posted_at[message["channel_id"]].append(message["created_at"])
    for plan in plans:
        posted, times = posted_in[plan.id], posted_at[plan.id]
        for pid in plan.where.member_ids:
            joined = max(plan.created_at, org.person(pid).since)
            seen = posted[bisect_left(times, joined):] or [0]  # what was posted since they joined
            read = seen[-1] if rng.random() < 0.75 else seen[max(0, len(seen) - 1 - rng.randint(1, 6))]
            memberships.append({"channel_id": plan.id, "person_id": pid, "joined_at": joined,
                                "last_read_message_id": read})
    bulk_insert(session, Membership, memberships)
    for table, rows in ((Message, messages), (Reaction, reactions), (Mention, mentions), (Pin, pins)):
        bulk_insert(session, table, rows)
