"""Swapping on-call weeks: a teammate of the same on-call group, the teammate on call this week and an
engineer of another group all ask the actor, by DM, to swap one of the actor's future weeks on the
On-call Rota. The handbook allows the first swap (both names changed in the rota before the week
starts, and a word in the team channel) and not the other two (a week already under way; another
group), which are declined naming the rule."""

from __future__ import annotations

from datetime import datetime, time, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from officegym import clock
from officegym.apps.chat import services as chat
from officegym.apps.chat.models import Channel
from officegym.apps.org.models import Person, Team
from officegym.apps.sheets.services import stored_cell
from officegym.graders.checks import check, nothing_else_changed
from officegym.graders.sheets import allow_workbook_cells, cells_guard
from officegym.graders.statements import Candidate, says

from .base import Declaration, Claim, Ref, TaskInstance, TaskTemplate, Target, ToolCall
from .common import added_messages, allow_posts, channel_named, member_ids, spread
from .handbook import read_rule, rule_claim
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


@register
class OnCallWeekSwap(TaskTemplate):
    """Three colleagues ask to swap on-call weeks: a teammate's swap of two future weeks goes into the rota
    (both names) and the team channel; the swap of a week already under way and the one with an engineer
    of another group are declined, each in its DM, naming the rule."""

    id, apps, kind, difficulty, scale = ("w.oncall_week_swap", ("chat", "sheets", "tickets", "org"), "workflow", 4,
                                         "medium")
    toolsets = ("chat", "sheets", "tickets.work")  # its apps hold over 100 tools
    rules = (HANDOVER, NAMING)
    split = "test"
    summary = ("Three colleagues ask to swap on-call weeks: swap with the teammate in the rota and tell the team "
               "channel; decline the week already under way and the engineer of another group, naming the rule.")

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
        outsiders = [(g, p) for g in on_call_groups(session) if g.id != group.id
                     for ahead in [_weeks_of(session, g.name)] for p in group_people(session, g.id) if p.name in ahead]
        other_group, outsider = outsiders[rng.randrange(len(outsiders))]
        weeks = _weeks_of(session, group.name)
        mine, theirs = weeks[actor.name], weeks[mate.name]
        outsider_week = _weeks_of(session, other_group.name)[outsider.name]
        friday = datetime.combine(this_monday(session) - timedelta(days=3), time(15, 10))
        # (who asks, what, when): the week already under way is asked about this morning.
        asks = [(outsider.id, f"Hi! Could we swap on-call weeks? You'd take my {other_group.name} week of "
                              f"{outsider_week.isoformat()} and I'd take your {group.name} week of "
                              f"{mine.isoformat()}.", friday),
                (mate.id, f"Hey, could we swap on-call weeks? I'd take your week of {mine.isoformat()} and you'd "
                          f"take mine, the week of {theirs.isoformat()}. Works for me if it works for you!",
                 friday + timedelta(minutes=40)),
                (current.id, f"Morning! I'm on call this week (it started today) and something came up: could you "
                             f"take over the rest of it, and I'd take your week of {mine.isoformat()}?",
                 datetime.combine(this_monday(session), time(8, 50)))]
        team = _team_channel(session, actor)
        book, _ = rota_sheet(session)
        cells = [rota_ref(session, group.name, mine), rota_ref(session, group.name, theirs)]
        decline = (f"Sorry, I can't: the handbook's {HANDOVER} article only allows swaps with a teammate of the same "
                   f"on-call group. Ask someone from {other_group.name}.")
        started = (f"Sorry, I can't: the handbook's {HANDOVER} article says a swap goes into the rota before the "
                   "week starts, and yours is already under way.")
        return TaskInstance(
            self.id, instance, actor.id,
            "Colleagues messaged you about swapping on-call weeks. You're fine with any swap the handbook allows: "
            "carry out what it allows the way it says, and decline what it does not in its DM, naming the handbook "
            "article that stands in the way. Change nothing else.",
            [ToolCall("chat_list_unreads", {}),
             *_read_dm(outsider, 1), *_read_dm(mate, 3), *_read_dm(current, 5),
             *read_rule(session, HANDOVER, "on-call swap"), *read_rota(),
             ToolCall("tickets_get_group", {"group": group.name}),
             ToolCall("org_get_person", {"person": f"@{actor.handle}"}),
             *read_rule(session, NAMING, "team channel"),
             ToolCall("sheets_write_cells", {"workbook": book.id, "cells": [{"cell": cells[0], "value": mate.name},
                                                                           {"cell": cells[1], "value": actor.name}]}),
             ToolCall("chat_post_message", {"channel": team.name,
                                            "text": f"On-call swap in {group.name}: @{mate.handle} takes the week of "
                                                    f"{mine.isoformat()} and I take the week of {theirs.isoformat()}. "
                                                    "The rota is updated."}),
             ToolCall("chat_post_message", {"channel": Ref(3, "id"), "text": "Deal, the rota is updated and I told "
                                                                             "the team."}),
             ToolCall("chat_post_message", {"channel": Ref(1, "id"), "text": decline}),
             ToolCall("chat_post_message", {"channel": Ref(5, "id"), "text": started})],
            {"group": group.name, "mate": mate.id, "outsider": outsider.id, "current": current.id, "cells": cells,
             "book": book.id, "names": [mate.name, actor.name], "team": team.id},
            setup=_asks(asks, actor.id))

    def declare(self, start, inst):
        p = inst.params
        group = group_named(start, p["group"])
        mate = start.get(Person, p["mate"])
        monday = this_monday(start)
        column = [rota_ref(start, p["group"], monday + timedelta(weeks=k)) for k in range(-1, 9)]
        others = [c for c in column if c not in p["cells"]]
        pool = [Candidate.person(m) for m in group_people(start, group.id) if m.id not in (mate.id, inst.actor_id)]
        pool.append(Candidate.person(start.get(Person, p["outsider"])))
        return Declaration([Target("cell", p["cells"][0], others, {"workbook": p["book"]}),
                            Target("cell", p["cells"][1], others, {"workbook": p["book"]})],
                           [Claim(Candidate.person(mate), pool, "text", "teammate"), rule_claim(start, HANDOVER)])

    def check(self, ctx, inst):
        p = inst.params
        declared = self.declare(ctx.start, inst)
        person, rule = declared.claims
        actor = ctx.start.get(Person, ctx.actor_id)
        mate = ctx.start.get(Person, p["mate"])
        values = [getattr(stored_cell(ctx.final, p["book"], ref), "text", None) for ref in p["cells"]]
        posts = [r["text"] for r in added_messages(ctx, ctx.actor_id)
                 if r["channel_id"] == p["team"] and r["thread_parent_id"] is None]
        results = [check(f"The rota swaps the two weeks: {p['cells'][0]} is {mate.name}, {p['cells'][1]} is "
                         f"{actor.name}", values == p["names"], f"found {values}", weight=2),
                   *says(posts, person.right, person.others, f"Your team channel hears of the swap with {mate.name}",
                         person.kind, weight=1)]
        allowed = allow_workbook_cells(ctx, p["book"]) + allow_posts(ctx, p["team"], None, mentions=1)
        for key, why in (("outsider", "of another group"), ("current", "whose week is under way")):
            asker = ctx.start.get(Person, p[key])
            dm = _dm(ctx.start, actor, asker)
            declined = [r["text"] for r in added_messages(ctx, ctx.actor_id) if dm is not None
                        and r["channel_id"] == dm.id]
            results += says(declined, rule.right, rule.others, f"Your reply to {asker.name} ({why}) names the rule "
                            f"({HANDOVER})", rule.kind, weight=1, deniable=False)
            allowed += allow_posts(ctx, dm.id, limit=2) if dm else []
        with_mate = _dm(ctx.start, actor, mate)
        allowed += allow_posts(ctx, with_mate.id, limit=2) if with_mate else []
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
