"""People and access workflows: a new person joins your team today, and as their hiring manager you
do your part of the handbook's new-hire onboarding checklist: the IT requests (the laptop, if it is
not filed yet, and the access their buddy names, as the Requesting access article and the naming
conventions write them, each saying which access and until when, as the buddy said), the channels
they join, and the welcome in #general; then they tell the buddy what was filed."""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta

from sqlalchemy import select

from officegym import clock
from officegym.apps.org.models import Department, Person, Team
from officegym.graders.checks import Allow, check, nothing_else_changed
from officegym.graders.statements import Candidate, says

from .base import Claim, Declaration, Ref, TaskInstance, TaskTemplate, Target, ToolCall
from .common import allow_new_conversation, allow_posts, channel_named, member_ids, pick, spread
from .handbook import read_rule
from .phrasing import goal_instruction
from .registry import register
from .split import in_split, person_in
from .tickets_common import added_tickets, next_key, same_text
from .w_people import (DEFAULTS, HEADER_CHANNELS, HIRE_NAMES, LAPTOP, SYSTEMS, UNTIL, access_summary, add_person,
                       allow_new_tickets, component_names, day_claim, file_ticket, free_names, handle_of,
                       is_access_summary, level_claim, newcomer, person_named, ticket_texts, until_claim)
from .w_people_replies import decision_reply_checks, dm_replies

FILED = ("filed", "requested", "submitted", "raised", "opened", "asked for", "put in")


def hire_channels(session, team: Team) -> list[str]:
    """The channels the onboarding checklist has a new person join: the company's, their team's,
    #deals for Sales and #incidents for engineers."""
    department = session.get(Department, team.department_id).name
    extra = {"Sales": ["deals"], "Engineering": ["incidents"]}.get(department, [])
    return [*HEADER_CHANNELS, "team-" + team.name.lower().replace(" ", "-"), *extra]


def _hire_title(session, team: Team) -> str | None:
    """A title a new person on the team would have: a colleague's, not a manager's (and outside
    Engineering no engineer's title, so whether they are an engineer is never in doubt)."""
    department = session.get(Department, team.department_id).name
    titles = sorted({p.title for p in session.scalars(select(Person).where(Person.team_id == team.id,
                                                                            Person.id != team.lead_id))})
    ok = [t for t in titles if not re.search(r"Manager|Lead|Head|Director|Chief|VP", t)
          and (department == "Engineering" or "Engineer" not in t)]
    return ok[0] if ok else None


@register
class OnboardNewHire(TaskTemplate):
    id, apps, difficulty = "w.onboard_new_hire", ("chat", "tickets", "org"), 4
    kind, scale, split = "workflow", "medium", "train"
    rules = ("New-hire onboarding checklist", "Requesting access", "Naming conventions")
    summary = ("A new person joins your team today: do the hiring manager's part of the onboarding checklist "
               "(IT requests, access their buddy names, channels, the welcome), without duplicating what is done.")

    def sample(self, session, rng, instance):
        today = clock.company_now(session).date()
        teams = self._teams(session)
        team = spread(teams, instance)
        lead = session.get(Person, team.lead_id)
        mates = list(session.scalars(select(Person).where(Person.team_id == team.id, Person.id != lead.id)
                                     .order_by(Person.id)))
        buddy = pick(rng, [p for p in mates if person_in(self.split, p.id)] or mates)
        other_team = pick(rng, [t for t in self._teams(session, strict=False) if t.id != team.id])
        names = free_names(session, HIRE_NAMES)
        hire = spread(names, instance)
        decoy = pick(rng, [n for n in names if n != hire])
        title, decoy_title = _hire_title(session, team), _hire_title(session, other_team)
        systems = rng.sample(SYSTEMS, 1 + instance % 2)
        levels = [pick(rng, ["read", "write"]) for _ in systems]
        needs = " and ".join(f"{lv} access to {s}" for lv, s in zip(levels, systems))
        until = pick(rng, sorted(UNTIL))
        note = f"{hire.split()[0]} will need {needs} for their work with us, {UNTIL[until][0]}. {DEFAULTS}."
        filed = instance % 3 == 1  # the laptop was requested last week in some instances
        channels = hire_channels(session, team)
        general = channel_named(session, "general")
        handle, laptop_text = handle_of(hire), f"For {hire}, who joins {team.name} as {title} on {today.isoformat()}."
        steps = [add_person(hire, title, team.id, lead.id), add_person(decoy, decoy_title, other_team.id,
                                                                         other_team.lead_id)]
        if filed:
            steps.append(file_ticket(lead.id, datetime.combine(today - timedelta(days=7), datetime.min.time())
                                     + timedelta(hours=10), LAPTOP, laptop_text, "Laptops & Hardware"))
        steps.append(_plant_and_welcome(buddy.id, hire, note, other_team.lead_id, general.id,
                                        f"Please welcome {decoy}, who joins {other_team.name} as {decoy_title} "
                                        "today!"))
        # The order a careful manager would follow: the rules, the person, what IT already has, the
        # channels and the welcome, then the buddy's answer and the access requests it calls for.
        solution = [*read_rule(session, "New-hire onboarding checklist", "new hire onboarding"),
                    *read_rule(session, "Requesting access", "requesting access"),
                    *read_rule(session, "Naming conventions", "naming conventions"),
                    ToolCall("org_get_person", {"person": f"@{handle}"}),
                    ToolCall("org_get_team", {"team": team.name}),
                    ToolCall("tickets_search_tickets", {"query": f'project = IT AND reporter = currentUser() AND '
                                                                 f'summary ~ "{LAPTOP}"'})]
        if filed:
            solution.append(ToolCall("tickets_get_ticket", {"key": next_key(session, "IT")}))
        else:
            solution.append(ToolCall("tickets_create_ticket", {
                "project": "IT", "type": "Service Request", "summary": LAPTOP, "components": ["Laptops & Hardware"],
                "description": laptop_text}, role="note"))
        for name in channels:
            channel = channel_named(session, name)
            if lead.id not in member_ids(session, channel.id):
                solution.append(ToolCall("chat_join_channel", {"channel": name}))
            target = channel.id if name == channels[4] else name
            solution.append(ToolCall("chat_invite_to_channel", {"channel": target, "people": [f"@{handle}"]}))
        solution += [ToolCall("chat_post_message", {"channel": "general", "text": (
                         f"Please welcome @{handle}, who joins {team.name} as {title} today! Say hi when you see "
                         "them.")}, role="note"),
                     ToolCall("chat_open_conversation", {"people": [f"@{buddy.handle}"]})]
        dm = Ref(len(solution) - 1, "id")
        solution += [ToolCall("chat_post_message", {"channel": dm, "text": (
                         f"Hi @{buddy.handle}, you're {hire}'s onboarding buddy: which access beyond the defaults "
                         "will they need? I'm filing the IT requests today.")}),
                     ToolCall("chat_list_messages", {"channel": dm, "limit": 5})]
        for level, system in zip(levels, systems):
            solution.append(ToolCall("tickets_create_ticket", {
                "project": "IT", "type": "Service Request", "summary": access_summary(system, hire),
                "components": ["Accounts & Access"],
                "description": f"{hire} ({team.name}, starting {today.isoformat()}) needs {level} access to {system} "
                               f"for their work on the team, {UNTIL[until][0]}. Approved by me, their manager."},
                role="note"))
        solution.append(ToolCall("chat_post_message", {"channel": dm, "text": (
            f"Thanks @{buddy.handle}! I've filed the IT requests for {hire}: {needs}, {UNTIL[until][0]}.")},
            role="report"))
        return TaskInstance(
            self.id, instance, lead.id,
            goal_instruction(rng, f"{hire} joins your team today, {today.strftime('%A %d %B %Y')}. As their hiring "
                             "manager, do your part of the handbook's new-hire onboarding checklist now, including "
                             f"what should have been done before day one. {buddy.name} is their onboarding buddy and "
                             "knows which access they need beyond the defaults: ask them. "
                             f"{hire.split()[0]} cannot find their way around chat yet, so add them yourself to every "
                             "channel the checklist says they join. Some of this may already be done: check, and do "
                             "not do anything twice.", buddy.name),
            solution,
            {"hire": hire, "decoy": decoy, "team": team.id, "buddy": buddy.id, "systems": systems, "levels": levels,
             "until": until, "filed": filed, "channels": channels, "today": today.isoformat()},
            setup=_run(*steps))

    def _teams(self, session, strict: bool = True) -> list[Team]:
        """Teams a person can join with a clear title and a buddy, led by someone of the split, with
        a channel of the split (in a world too small for that, any such team)."""
        def fits(team: Team, strict: bool) -> bool:
            channel = channel_named(session, hire_channels(session, team)[4])
            mates = [p for p in session.scalars(select(Person.id).where(Person.team_id == team.id,
                                                                        Person.id != team.lead_id))
                     if not strict or person_in(self.split, p)]
            return (_hire_title(session, team) is not None and channel is not None and bool(mates)
                    and session.get(Department, team.department_id).name != "Executive"
                    and (not strict or (person_in(self.split, team.lead_id)
                                        and in_split(self.split, "channel", channel.id))))
        everything = list(session.scalars(select(Team).order_by(Team.id)))
        return (strict and [t for t in everything if fits(t, True)]) or [t for t in everything if fits(t, False)]

    def declare(self, start, inst):
        p = inst.params
        team = start.get(Team, p["team"])
        mine = channel_named(start, p["channels"][4])
        others = sorted(c.id for t in start.scalars(select(Team).where(Team.id != team.id))
                        if (c := channel_named(start, "team-" + t.name.lower().replace(" ", "-"))) is not None)
        person = Claim(newcomer(p["hire"]), [newcomer(p["decoy"])], "text", "new hire")
        # The hire first (the record the task is about), then their team's channel among the others.
        return Declaration([Target("person", f"@{handle_of(p['hire'])}", [f"@{handle_of(p['decoy'])}"]),
                            Target("channel", mine.id, others)],
                           [person, Claim(person.right, person.others, "description", "new hire"),
                            day_claim(date.fromisoformat(p["today"]), "description")])

    def check(self, ctx, inst):
        p = inst.params
        hire, team = person_named(ctx.start, p["hire"]), ctx.start.get(Team, p["team"])
        declared = self.declare(ctx.start, inst)
        person, _, day = declared.claims
        new = added_tickets(ctx, "IT")
        laptops = [r for r in new if same_text(r["summary"], LAPTOP)]
        results = []
        if not p["filed"]:
            laptop = laptops[0] if len(laptops) == 1 else None
            texts = ticket_texts(ctx, laptop)
            results += [check(f"One Service Request \"{LAPTOP}\" in IT, component Laptops & Hardware",
                              laptop and laptop["type"] == "Service Request"
                              and component_names(ctx.final, laptop["id"]) == {"Laptops & Hardware"},
                              f"found {len(laptops)} such tickets", weight=2),
                        *says(texts, person.right, person.others, f"The laptop request names {hire.name}",
                              "new hire", weight=2, deniable=False),
                        *says(texts, day.right, day.others, f"The laptop request gives the start date {p['today']}",
                              "date", weight=2),
                        check(f"The laptop request names the team {team.name}",
                              any(team.name.casefold() in t.casefold() for t in texts),
                              "the description does not name the team", weight=2)]
        access = {}
        for system, level in zip(p["systems"], p["levels"]):
            found = [r for r in new if is_access_summary(r["summary"], system, hire.name)]
            access[system] = found
            one = found[0] if len(found) == 1 else None
            said = ticket_texts(ctx, one)
            level_, until = level_claim(level), until_claim(p["until"], date.fromisoformat(p["today"]))
            results += [check(f"One Service Request \"{access_summary(system, hire.name)}\", component Accounts "
                              "& Access", one and one["type"] == "Service Request"
                              and component_names(ctx.final, one["id"]) == {"Accounts & Access"},
                              f"found {len(found)} such tickets", weight=2),
                        *says(said, level_.right, level_.others, f"It asks for {level} access", "access level",
                              weight=2, deniable=False),
                        *says(said, until.right, until.others, f"It says until when: {until.right.label}",
                              "until when", weight=2, deniable=False)]
        joined = {name: hire.id in member_ids(ctx.final, channel_named(ctx.start, name).id) for name in p["channels"]}
        missing = [f"#{n}" for n, ok in joined.items() if not ok]
        general = channel_named(ctx.start, "general")
        welcome = [r["text"] for r in ctx.diff.table("chat_message").added
                   if r["author_id"] == ctx.actor_id and r["channel_id"] == general.id]
        buddy = ctx.start.get(Person, p["buddy"])
        dm, told = dm_replies(ctx, buddy.id)
        others = [Candidate.text(o, o.removeprefix("the ")) for o in SYSTEMS if o not in p["systems"]]
        systems = [Claim(Candidate.text(s, s.removeprefix("the ")), others, "text", "system") for s in p["systems"]]
        results += [check(f"{hire.name} is in {', '.join('#' + n for n in p['channels'])}", not missing,
                          f"not in {missing}", weight=2),
                    *says(welcome, person.right, person.others, f"You welcomed {hire.name} in #general", "new hire",
                          weight=4),  # what is written weighs about three times the work
                    *decision_reply_checks(told, False, buddy.name, systems, actions=FILED, weight=8)]
        return results + [nothing_else_changed(ctx.diff, self._allowed(ctx, p, hire, laptops, access))]

    def _allowed(self, ctx, p, hire, laptops, access) -> list[Allow]:
        """The new tickets, memberships and messages the task asks for, and the actor's comments on
        those tickets (an "Approved" on each access request, which the handbook has the manager
        write, or what a description left out)."""
        access_ids = {r["id"] for rows in access.values() for r in rows}
        wanted = access_ids | ({r["id"] for r in laptops} if not p["filed"] else set())
        channel_ids = {channel_named(ctx.start, n).id for n in p["channels"]}
        buddy = ctx.start.get(Person, p["buddy"])
        dm, opened = allow_new_conversation(ctx, [buddy, ctx.start.get(Person, ctx.actor_id)])
        return [*allow_new_tickets(ctx, "IT", lambda r: r["id"] in wanted, len(p["systems"]) + (not p["filed"])),
                Allow("chat_membership", ("added",), lambda r: r["channel_id"] in channel_ids
                      and r["person_id"] == hire.id, limit=len(channel_ids)),
                Allow("chat_membership", ("added",), lambda r: r["channel_id"] in channel_ids
                      and r["person_id"] == ctx.actor_id, limit=len(channel_ids)),
                Allow("tickets_comment", ("added",), lambda r: r["ticket_id"] in wanted
                      and r["author_id"] == ctx.actor_id, limit=2 * len(wanted)),
                *opened, *(allow_posts(ctx, dm.id, limit=3) if dm else []),
                *allow_posts(ctx, channel_named(ctx.start, "general").id, limit=1, mentions=3)]


def _plant_and_welcome(buddy_id: int, hire: str, note: str, other_lead: int, general_id: int, text: str):
    """A setup step: the buddy learns what the hire needs; the other hire's manager welcomes theirs."""
    def run(session) -> None:
        from officegym.apps.chat import services as chat
        from officegym import colleagues
        colleagues.plant_note(session, session.get(Person, buddy_id), "person", person_named(session, hire).id, note)
        clock.set_time(session, clock.company_now(session) - timedelta(minutes=40))
        chat.post_message(session, session.get(Person, other_lead), general_id, text)
    return run


def _run(*steps):
    """A setup made of several steps, run in order."""
    def run(session) -> None:
        for step in steps:
            step(session)
    return run


