"""Swapping on-call weeks: three colleagues ask the actor, by DM and in the same words, to swap one of
the actor's future weeks on the On-call Rota. The handbook allows a swap with a teammate of the same
on-call group before the week starts (both names changed in the rota, and a word in the team channel)
and nothing else. The teammate on call this week always asks (their week is under way: declined);
the others are, from instance to instance, a teammate and an engineer of another group (one swap goes
through) or two engineers of other groups (none does). Each decline names the rule and what stands in
the way; the teammate whose swap went through hears it was done."""

from __future__ import annotations

from datetime import datetime, time, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from officegym import clock
from officegym.apps.chat import services as chat
from officegym.apps.chat.models import Channel
from officegym.apps.org.models import Person, Team
from officegym.apps.sheets.services import stored_cell
from officegym.graders.checks import check, guard, nothing_else_changed
from officegym.graders.sheets import allow_workbook_cells, cells_guard
from officegym.graders.statements import Candidate, says

from .base import CARRY_OUT, Claim, Declaration, Outcome, Ref, TaskInstance, TaskTemplate, Target, ToolCall
from .common import added_messages, allow_posts, channel_named, member_ids, spread
from .decisions import reply_checks, twin_outcome
from .handbook import read_rule, rule_claim
from .phrasing import goal_instruction
from .registry import register
from .split import person_in
from .tickets_common import group_named, group_people
from .w_incidents import HANDOVER, on_call, on_call_groups, read_rota, rota_name, rota_ref, rota_sheet, this_monday

NAMING = "Naming conventions"


def _weeks_of(session: Session, group: str) -> dict[str, object]:
    """The future weeks of the rota (next week on) for a group: name -> the first Monday they are on."""
    monday, found = this_monday(session), {}
    for k in range(1, 9):
        name = rota_name(session, group, monday + timedelta(weeks=k))
        if name:
            found.setdefault(name, monday + timedelta(weeks=k))
    return found


def _team_channel(session: Session, person: Person) -> Channel | None:
    """The person's team channel (team-<team slug>), when they are in it."""
    team = session.get(Team, person.team_id) if person.team_id else None
    channel = channel_named(session, f"team-{team.slug}") if team else None
    return channel if channel is not None and person.id in member_ids(session, channel.id) else None


def _dm(session: Session, a: Person, b: Person) -> Channel | None:
    """The DM of two people, if it exists."""
    return session.scalar(select(Channel).where(Channel.name == chat.conversation_name([a, b])))


# What stands in the way of a declined swap, as a reply may say it (named, not asserted: "you're not in
# our group" names it as truly as "only the same group").
OTHER_GROUP = Candidate.text("another group", "other group", "different group", "same group", "same on-call group",
                             "another on-call group", "other on-call group", "different on-call group",
                             "not in my group", "not in our group", "a teammate", "teammates")
UNDER_WAY = Candidate.text("under way", "underway", "already started", "has started", "already begun",
                           "started today", "before the week starts", "before it starts", "this week",
                           "current week", "already running", "in progress")
SWAPPED = ("swapped", "updated", "changed", "done")
WHY = {"outsider": (OTHER_GROUP, "of another group"), "current": (UNDER_WAY, "whose week is under way")}


@register
class OnCallWeekSwap(TaskTemplate):
    """Three colleagues ask to swap on-call weeks: a teammate's swap of two future weeks goes into the rota
    (both names), the team channel and a reply; the swap of a week already under way and those with
    engineers of other groups are declined, each in its DM, naming the rule and what stands in the way.
    Whether a teammate is among the askers varies from instance to instance."""

    id, apps, kind, difficulty, scale = ("w.oncall_week_swap", ("chat", "sheets", "tickets", "org"), "workflow", 4,
                                         "medium")
    toolsets = ("chat", "sheets", "tickets.work")  # its apps hold over 100 tools
    rules = (HANDOVER, NAMING)
    split = "test"
    summary = ("Three colleagues ask to swap on-call weeks: swap with a teammate in the rota and tell the team "
               "channel and them; decline a week already under way and engineers of other groups, naming the rule.")

    def sample(self, session, rng, instance):
        choices = []
        for group in on_call_groups(session):
            weeks = _weeks_of(session, group.name)
            people = [p for p in group_people(session, group.id) if p.name in weeks]
            current = on_call(session, group.name, this_monday(session))
            for actor in people:
                mates = [p for p in people if p.id != actor.id and weeks[p.name] != weeks[actor.name]
                         and current is not None and current.id not in (p.id, actor.id)]
                if person_in(self.split, actor.id) and mates and _team_channel(session, actor):
                    choices.append((group, actor, mates, current))
        group, actor, mates, current = spread(choices, instance)
        mate = mates[rng.randrange(len(mates))]
        inside = {p.id for p in group_people(session, group.id)}
        outsiders = [(g, p, ahead[p.name]) for g in on_call_groups(session) if g.id != group.id
                     for ahead in [_weeks_of(session, g.name)] for p in group_people(session, g.id)
                     if p.name in ahead and p.id not in inside]
        picked = rng.sample(range(len(outsiders)), 2)
        weeks = _weeks_of(session, group.name)
        mine = weeks[actor.name]
        book, _ = rota_sheet(session)
        # (who asks, their kind, the week they offer, in which group's column)
        second = (mate, "mate", weeks[mate.name], group.name) if twin_outcome(self.id, instance) == CARRY_OUT else \
            (outsiders[picked[1]][1], "outsider", outsiders[picked[1]][2], outsiders[picked[1]][0].name)
        outsider = outsiders[picked[0]]
        askers = [(outsider[1], "outsider", outsider[2], outsider[0].name), second,
                  (current, "current", this_monday(session), group.name)]
        friday = datetime.combine(this_monday(session) - timedelta(days=3), time(15, 10))
        asks = [(who.id, f"Hey, could we swap on-call weeks? I'd take your week of {mine.isoformat()} and you'd take "
                         f"mine, the week of {theirs.isoformat()}. Works for me if it works for you!",
                 friday + timedelta(minutes=40 * k)) for k, (who, kind, theirs, _) in enumerate(askers[:2])]
        asks.append((current.id, f"Morning! I'm on call this week (it started today) and something came up: could "
                                 f"you take over the rest of it, and I'd take your week of {mine.isoformat()}?",
                     datetime.combine(this_monday(session), time(8, 50))))
        team = _team_channel(session, actor)

        def swap(who: Person, theirs, in_group: str) -> ToolCall:
            return ToolCall("sheets_write_cells", {"workbook": book.id, "cells": [
                {"cell": rota_ref(session, group.name, mine), "value": who.name},
                {"cell": rota_ref(session, in_group, theirs), "value": actor.name}]})
        steps = [ToolCall("chat_list_unreads", {}), *_read_dm(askers[0][0], 1), *_read_dm(askers[1][0], 3),
                 *_read_dm(current, 5), *read_rule(session, HANDOVER, "on-call swap"), *read_rota(),
                 ToolCall("tickets_get_group", {"group": group.name}),
                 ToolCall("org_get_person", {"person": f"@{actor.handle}"}),
                 *read_rule(session, NAMING, "team channel")]
        for at, (who, kind, theirs, in_group) in zip((1, 3, 5), askers):
            if kind == "mate":
                steps += [swap(who, theirs, in_group),
                          ToolCall("chat_post_message", {"channel": team.name, "text": (
                              f"On-call swap in {group.name}: @{who.handle} takes the week of {mine.isoformat()} and "
                              f"I take the week of {theirs.isoformat()}. The rota is updated.")}, role="note"),
                          ToolCall("chat_post_message", {"channel": Ref(at, "id"), "text": (
                              f"Deal: swapped. You have the week of {mine.isoformat()}, I have {theirs.isoformat()}; "
                              "the rota is updated and I told the team.")}, role="report")]
            else:
                steps.append(ToolCall("chat_post_message", {"channel": Ref(at, "id"), "text": (
                    f"Sorry, I can't: the handbook's {HANDOVER} article only allows swaps with a teammate of the same "
                    f"on-call group, and you're in {in_group}." if kind == "outsider" else
                    f"Sorry, I can't: the handbook's {HANDOVER} article says a swap goes into the rota before the "
                    "week starts, and yours is already under way.")}, role="refusal",
                    instead=[swap(who, theirs, in_group)]))
        cells = [rota_ref(session, group.name, mine), rota_ref(session, group.name, weeks[mate.name])] \
            if second[1] == "mate" else []
        refused = sum(kind != "mate" for _, kind, _, _ in askers)
        return TaskInstance(
            self.id, instance, actor.id,
            goal_instruction(rng, "Colleagues messaged you about swapping on-call weeks, and you're fine with any swap "
                             "the handbook allows; answer each of them in their DM.", tell="each of them"),
            steps,
            {"group": group.name, "mate": mate.id, "asks": [(who.id, kind) for who, kind, _, _ in askers],
             "cells": cells, "book": book.id, "names": [mate.name, actor.name], "team": team.id},
            setup=_asks(asks, actor.id), outcome=Outcome(3 - refused, refused))

    def _swapped(self, inst) -> bool:
        return any(kind == "mate" for _, kind in inst.params["asks"])

    def declare(self, start, inst):
        p = inst.params
        group = group_named(start, p["group"])
        mate = start.get(Person, p["mate"])
        monday = this_monday(start)
        column = [rota_ref(start, p["group"], monday + timedelta(weeks=k)) for k in range(-1, 9)]
        cells = p["cells"] or column[2:4]
        others = [c for c in column if c not in cells]
        pool = [Candidate.person(m) for m in group_people(start, group.id) if m.id not in (mate.id, inst.actor_id)]
        pool += [Candidate.person(start.get(Person, who)) for who, kind in p["asks"] if kind == "outsider"]
        targets = [Target("cell", cell, others, {"workbook": p["book"]}) for cell in cells]
        claims = [rule_claim(start, HANDOVER)]
        return Declaration(targets, claims + [Claim(Candidate.person(mate), pool, "text", "teammate")]
                           if self._swapped(inst) else claims)

    def check(self, ctx, inst):
        p = inst.params
        declared = self.declare(ctx.start, inst)
        rule = declared.claims[0]
        actor = ctx.start.get(Person, ctx.actor_id)
        allowed = allow_workbook_cells(ctx, p["book"]) + allow_posts(ctx, p["team"], None, mentions=1)
        results = []
        if self._swapped(inst):
            person, mate = declared.claims[1], ctx.start.get(Person, p["mate"])
            values = [getattr(stored_cell(ctx.final, p["book"], ref), "text", None) for ref in p["cells"]]
            posts = [r["text"] for r in added_messages(ctx, ctx.actor_id)
                     if r["channel_id"] == p["team"] and r["thread_parent_id"] is None]
            results += [check(f"The rota swaps the two weeks: {p['cells'][0]} is {mate.name}, {p['cells'][1]} is "
                              f"{actor.name}", values == p["names"], f"found {values}", weight=2),
                        *says(posts, person.right, person.others, f"Your team channel hears of the swap with "
                              f"{mate.name}", person.kind, weight=2)]
        else:
            results.append(guard("No swap was announced in the team channel", not [
                r for r in added_messages(ctx, ctx.actor_id) if r["channel_id"] == p["team"]], "a post was made"))
        for who, kind in p["asks"]:
            asker = ctx.start.get(Person, who)
            dm = _dm(ctx.start, actor, asker)
            replies = [r["text"] for r in added_messages(ctx, ctx.actor_id) if dm is not None
                       and r["channel_id"] == dm.id]
            allowed += allow_posts(ctx, dm.id, limit=1) if dm else []
            if kind == "mate":
                results += reply_checks(replies, False, asker.name, actions=SWAPPED, weight=3)
                continue
            fact, why = WHY[kind]
            results += [*reply_checks(replies, True, asker.name, rule=rule, actions=SWAPPED, weight=2),
                        *says(replies, fact, [], f"Your reply to {asker.name} ({why}) says what stands in the way",
                              "obstacle", weight=3, deniable=False)]
        return results + [cells_guard(ctx, p["book"], p["cells"]), nothing_else_changed(ctx.diff, allowed)]


def _read_dm(person: Person, at: int) -> list[ToolCall]:
    """The reads of one request: open the DM with its asker (step `at`), then its latest messages."""
    return [ToolCall("chat_open_conversation", {"people": [f"@{person.handle}"]}),
            ToolCall("chat_list_messages", {"channel": Ref(at, "id"), "limit": 5})]


def _asks(asks: list[tuple[int, str, datetime]], actor_id: int):
    """Setup: each colleague asks the actor by DM, at the time the story gives."""
    def run(session: Session) -> None:
        actor = session.get(Person, actor_id)
        for person_id, text, when in asks:
            person = session.get(Person, person_id)
            clock.set_time(session, when)
            dm = chat.open_conversation(session, person, [actor.id])
            chat.post_message(session, person, dm.id, text)
    return run
