"""A handover marathon whose cover is named during the episode (difficulty 6), composed from the procedure
library:

- `w.lib_long_handover_cover_to_come`: the Monday handover after a busy on-call week (seven or more open
  incidents, tasks.w_lib_marathon_more's BusyWeekHandover); the engineer the rota puts on call is away and
  writes in the morning that they will name their cover by a stated time; the cover's name comes by DM during
  the episode (LaterWord, an event). The outgoing engineer waits for it, then hands every incident over to the
  cover when in the on-call group, or to the incoming engineer's team lead when not (On-call cover). An agent
  that never waits hands over to the engineer the rota names, who is away."""

from __future__ import annotations

from dataclasses import replace

from officegym.apps.org.models import Person

from .procedures import DirectRequest, Plan
from .procedures.core import trajectory
from .procedures.long_events import LaterWord, time_to_come
from .procedures.oncall import OnCallWeek, handovers
from .registry import register
from .w_lib_marathon_more import BusyWeekHandover

HANDOVER_SAID = "can't take the handover. "  # where the incoming engineer's DM turns to the cover it names


@register
class HandoverCoverToCome(BusyWeekHandover):
    """Hand every open incident of a busy week over on Monday, once the away incoming engineer has named their
    cover by DM during the episode: to the cover when in the on-call group, else to their team lead."""

    id, split = "w.lib_long_handover_cover_to_come", "test"
    summary = ("Hand over every open incident of your on-call group after a busy week (seven or more): the engineer "
               "the rota puts on call is away and names a cover by DM by a stated time: wait for it; the cover takes "
               "over when in the group (else the incoming engineer's team lead); a work note, the new assignee and a "
               "reply in each thread, then tell them.")

    def plan(self, session, rng, instance):
        plan = super().plan(session, rng, instance)
        asked = plan.procedures[0]
        said, named_ = asked.text.split(HANDOVER_SAID)
        stated, at, wait = time_to_come(session, rng)
        first = (f"{said}{HANDOVER_SAID}I'm finding someone to cover for me and will tell you here by {stated} "
                 "who it is.")
        later = LaterWord(asked.requester, asked.actor, first, asked.minutes, named_, at, wait)
        week = next(p for p in plan.procedures if isinstance(p, OnCallWeek)).week
        unaware = [DirectRequest(asked.requester, asked.actor, first, asked.minutes),
                   *handovers(session, week, session.get(Person, asked.requester))]
        return Plan(plan.actor_id, plan.instruction, [later, *plan.procedures[1:]],
                    {**plan.params, "unaware": unaware})

    def sample(self, session, rng, instance):
        inst = super().sample(session, rng, instance)
        return replace(inst, unaware=trajectory(inst.params["unaware"]))
