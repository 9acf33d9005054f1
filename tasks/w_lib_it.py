"""Deep templates of IT and people operations composed from the procedure library: equipment requests worked
by the handbook's Equipment requests, Offboarding a leaver and Approvals when the approver is away
(tasks.procedures.it, drawn by tasks.procedures.it_draws).

`w.lib_it_equipment_queue`: the IT Support Lead hands an IT agent four equipment requests: fulfil those whose
approval counts once the requester's equipment of the year is added up, leave the rest open, and say which
wait and on whom. The other templates are in tasks.w_lib_it_more, tasks.w_lib_it_team and
tasks.w_lib_it_leavers; their shared helpers in tasks.w_lib_it_queue."""

from __future__ import annotations

from . import w_lib_it_leavers, w_lib_it_more, w_lib_it_team
from .procedures import Composed
from .procedures.access import AWAY
from .procedures.it import EQUIPMENT
from .registry import register
from .w_lib_it_queue import queue_plan


@register
class EquipmentQueue(Composed):
    """Four equipment requests: fulfil those whose approval counts once the year's equipment is added up,
    leave the others open, and tell the IT Support Lead which wait and on whose approval."""

    id, kind, difficulty, split, scale = "w.lib_it_equipment_queue", "workflow", 5, "train", "medium"
    apps, rules = ("chat", "tickets", "org"), (EQUIPMENT, AWAY)
    hard = ("summed", "exception", "away", "stale")
    summary = ("Work through four equipment requests: add up each requester's equipment of the year (not last "
               "year's, cancelled ones or a lost laptop's replacement) to know whether the manager or the Head of IT "
               "approves, fulfil those whose approval counts, and tell the IT Support Lead which wait and on whom.")

    def plan(self, session, rng, instance):
        states = [rng.choice(["noise", "over_manager", "over_head"]), "replacement", rng.choice(["cover", "skip"]),
                  "own"]
        return queue_plan(session, rng, self, instance, rng.sample(states, 4), self.rules)


ALSO_REGISTERED = (w_lib_it_leavers, w_lib_it_more, w_lib_it_team)  # the registry imports only this module
