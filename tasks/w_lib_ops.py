"""On-call handovers composed from the procedure library (tasks.procedures.oncall). Monday morning, the
engineer whose on-call week ended hands the group's open incidents over, as On-call handover says; but
the engineer the rota puts on call this week is away, and has named a cover by direct message. On-call
cover says the handover goes to the cover, a member of the same group, and the rota stays as it is; a
cover outside the group does not count, and the incoming engineer's team lead takes over instead."""

from __future__ import annotations

from officegym.apps.org.models import Person, Team

from .base import ToolCall
from .common import channel_named, member_ids, pick
from .decisions import twin_outcome
from .procedures import Composed, DirectRequest, Plan, ReadRule, Reads, Reply
from .procedures.oncall import COVER, Handover, OnCallWeek, draw_handover, handovers
from .registry import register
from .tickets_common import group_named, group_people
from .w_incidents import HANDOVER
from .w_people_replies import people_claim

HANDED = ("handed over", "handed", "assigned", "reassigned")
ILL = ("I'm off sick today", "I'm out today for a family emergency", "I've lost my voice and I'm staying home today")


@register
class HandoverToTheCover(Composed):
    """Hand every open incident of the group to the cover the away incoming engineer named: a work note, the
    cover as assignee and a reply in each thread."""

    id, apps, kind, difficulty = "w.lib_ops_handover_cover", ("tickets", "sheets", "chat"), "workflow", 5
    toolsets = ("chat", "sheets", "tickets.work")  # its apps hold over 100 tools
    scale, split, rules, hard = "medium", "train", (HANDOVER, COVER), ("away",)
    summary = ("Hand over the group's open incidents on Monday; the engineer the rota puts on call is away and named "
               "a cover by DM: a work note, the cover as the new assignee and a reply naming them in each thread.")

    def plan(self, session, rng, instance, who: str = "from our group covers for me"):
        h = draw_handover(session, rng, self.split, instance)
        inside = member_ids(session, channel_named(session, "incidents").id)
        cover = pick(rng, [p for p in group_people(session, group_named(session, h.group).id)
                           if p.id not in (h.actor, h.incoming) and p.id in inside])
        return cover_plan(session, rng, h, cover, cover, who)


def cover_plan(session, rng, h: Handover, named: Person, taker: Person, who: str) -> Plan:
    """The handover to `taker` after the incoming engineer's DM naming `named` (`who`: how the DM says
    who they are), and the reply to the incoming engineer."""
    incoming, actor = session.get(Person, h.incoming), session.get(Person, h.actor)
    members = group_people(session, group_named(session, h.group).id)
    text = (f"Morning @{actor.handle}, {pick(rng, ILL)} and can't take the handover. {named.name} (@{named.handle}) "
            f"{who}; the rota stays as it is.")
    claim = people_claim([taker], [p for p in members if p.id not in (h.actor, h.incoming, taker.id, named.id)],
                         "engineer taking over")
    lookup = [] if named.id == taker.id else [Reads((ToolCall("org_get_person", {"person": incoming.id}),))]
    why = "" if named.id == taker.id else f"{named.name} is outside our on-call group, so as {COVER} says "
    reply = Reply(incoming.id, incoming.name, actor.id, f"@{incoming.handle} get well soon: {why}I handed over "
                  f"{', '.join(h.keys)} to @{taker.handle}, with a work note on each and a reply in their #incidents "
                  "threads.", False, HANDED, named=(claim,), fact_weight=5,
                  asides=() if named.id == taker.id else (named.name, named.name.split()[0], f"@{named.handle}"))
    return Plan(h.actor, "It's Monday morning and your on-call week has just ended. Do the handover the way the "
                "handbook says, read your messages first, and tell whoever wrote to you. Change nothing else.",
                [DirectRequest(incoming.id, actor.id, text, minutes=40),
                 ReadRule.of(session, HANDOVER, "on-call handover"), ReadRule.of(session, COVER, "on-call cover"),
                 OnCallWeek(h), *lookup, *handovers(session, h, taker, incoming, None if named.id == taker.id else named), reply],
                {"taker": taker.id})


@register
class HandoverCoverOutsideTheGroup(Composed):
    """Hand every open incident of the group to the away incoming engineer's team lead: the cover they named
    is not in the on-call group, which On-call cover says does not count."""

    id, apps, kind, difficulty = "w.lib_ops_handover_cover_outside", ("tickets", "sheets", "chat", "org"), "workflow", 5
    toolsets = ("chat", "sheets", "tickets.work", "org")  # its apps hold over 100 tools
    scale, split, rules, hard = "medium", "train", (HANDOVER, COVER), ("away", "exception")
    summary = ("Hand over the group's open incidents on Monday; the engineer the rota puts on call is away and named a "
               "cover outside the on-call group: hand over to their team lead instead, with a work note, the new "
               "assignee and a reply in each thread.")

    def plan(self, session, rng, instance):
        # An incoming engineer whose team lead is neither of the two and works none of the incidents.
        for attempt in range(20):
            h = draw_handover(session, rng, self.split, instance + 97 * attempt)
            lead = session.get(Team, session.get(Person, h.incoming).team_id).lead_id
            if lead not in (h.actor, h.incoming, None) and lead not in {spec[0] for spec in h.specs}:
                break
        else:
            raise ValueError(f"{self.id} #{instance}: no incoming engineer with a team lead of their own in 20 draws")
        inside = {p.id for p in group_people(session, group_named(session, h.group).id)}
        named = pick(rng, [p for p in group_people(session, group_named(session, h.decoy_group).id)
                           if p.id not in inside])
        return cover_plan(session, rng, h, named, session.get(Person, lead), "covers for me")


@register
class HandoverToWhicheverCovers(Composed):
    """The away incoming engineer names a cover in the same words either way: hand over to the cover when
    they are in the on-call group, to the incoming engineer's team lead when they are not."""

    id, apps, kind, difficulty = "w.lib_ops_handover_cover_either", ("tickets", "sheets", "chat", "org"), "workflow", 5
    toolsets = ("chat", "sheets", "tickets.work", "org")  # its apps hold over 100 tools
    scale, split, rules, hard = "medium", "train", (HANDOVER, COVER), ("away", "exception")
    summary = ("Hand over the group's open incidents on Monday; the engineer the rota puts on call is away and named a "
               "cover: hand over to the cover when they are in the on-call group, else to the incoming engineer's "
               "team lead; a work note, the new assignee and a reply in each thread.")

    def plan(self, session, rng, instance):
        if twin_outcome(self.id, instance).refuse:  # the pair's other half: a cover outside the group
            return HandoverCoverOutsideTheGroup.plan(self, session, rng, instance)
        return HandoverToTheCover.plan(self, session, rng, instance, "covers for me")
