"""People-operations templates composed from the procedure library (tasks.procedures.org_transfer, org_hires and
org_privacy), on the handbook's Internal transfers, Moving a new hire's start date and Personal data requests.

- `w.lib_org_transfer_handover`: People tells an engineering team lead that one of their engineers moved to
  another team this morning; the lead does their part as Internal transfers says: the mover's open tickets of
  the team's component taken over with a work note (not the new team's ticket, which follows the mover, nor
  their done tickets or the tickets they only reported or are mentioned in), the mover removed from the team's
  channel, and the new team's lead told which ticket stays with the mover.
- `w.lib_org_transfer_pair`: the same for two engineers who left the team the same morning.

The access templates after a transfer (`r.lib_org_transfer_access`, `w.lib_org_transfer_access_queue`) are in
tasks.w_lib_org_access, the start-date templates (`r.lib_org_start_date_earlier`, `w.lib_org_start_dates_moved`)
in tasks.w_lib_org_hires and the personal data requests (`w.lib_org_data_requests`) in tasks.w_lib_org_privacy;
they register when this module is imported."""

from __future__ import annotations

from sqlalchemy import select

from officegym.apps.org.models import Person, Team
from officegym.graders.statements import Candidate

from .base import Claim
from .common import named
from .phrasing import request_instruction
from .procedures import Composed, DirectRequest, Plan, ReadRule, Reply
from .procedures.org_draws import draw_moves, hand_over
from .procedures.org_transfer import TRANSFERS, HandOverOnTransfer, TellNewLead
from .registry import register
from .split import person_in
from .w_lib_org_access import TransferAccessDecision, TransferAccessQueue  # registered on import
from .w_lib_org_hires import EarlierStartDecision, StartDatesMoved  # registered on import
from .w_lib_org_privacy import DataRequests  # registered on import

__all__ = ["DataRequests", "EarlierStartDecision", "StartDatesMoved", "TransferAccessDecision", "TransferAccessQueue",
           "TransferHandover", "TransferPair"]
DONE = ("done", "handed over", "taken over", "removed")


def people_partner(session, rng, split: str) -> Person:
    """A member of the People Operations team of the split (who tells leads about transfers)."""
    team = session.scalar(select(Team).where(Team.name == "People Operations"))
    return rng.choice([p for p in team.members if person_in(split, p.id) and p.id != team.lead_id])


def tell_new_lead(session, work: HandOverOnTransfer, actor: Person) -> TellNewLead:
    """The direct message to the new team's lead naming the ticket that stays with the mover (the keys of the
    tickets handed over may be named too)."""
    new_lead = session.get(Person, session.get(Team, work.new_team).lead_id)
    near = [Candidate.text(f"ENG-{n}") for n in (work.first - 2, work.first - 1, work.first + 8, work.first + 9)]
    text = (f"Hi @{new_lead.handle}, {work.name} moved to your team today. {work.kept_key} ({work.kept[0]}) stays "
            f"with them; I took over their other open {work.old_component} tickets.")
    return TellNewLead(new_lead.id, new_lead.name, new_lead.handle, actor.id, text,
                       Claim(Candidate.text(work.kept_key), [Candidate.text(k) for k in work.lookalike_keys] + near,
                             "text", "ticket that stays with the mover"))


class Transfers(Composed):
    """Engineers who moved to another team this morning, handed over by their old team's lead (not registered
    itself: see its subclasses)."""

    kind, difficulty, scale = "workflow", 5, "medium"
    apps, rules, hard = ("chat", "tickets", "org"), (TRANSFERS,), ("lookalike", "exception")
    count = 1

    def plan(self, session, rng, instance):
        moves = draw_moves(session, rng, self.split, instance, self.count)
        first = moves[0]
        lead, asker = first.lead, people_partner(session, rng, self.split)
        work, number = [], None
        for move in moves:
            work.append(hand_over(session, rng, move, number, 3 if self.count > 1 else None))
            number = work[-1].first + len(work[-1].handed) + 4
        names = " and ".join(named(session, m.mover) for m in moves)
        ask = (f"Hi @{lead.handle}, {names} moved from {first.old.name} to their new team this morning; the "
               "directory shows it already. Could you do the old team lead's part of the transfer as the handbook "
               "says, and let me know when it's done?")
        reply = Reply(asker.id, asker.name, lead.id, f"@{asker.handle} done: I handed over the open work, updated the "
                      "team channel and told the new leads which tickets stay with them.", False, DONE, weight=2)
        return Plan(lead.id, request_instruction(rng, named(session, asker)),
                    [DirectRequest(asker.id, lead.id, ask), ReadRule.of(session, TRANSFERS, "internal transfer team"),
                     *work, *(tell_new_lead(session, w, lead) for w in work), reply])


@register
class TransferHandover(Transfers):
    """One engineer moved to another team: their old lead's part of the transfer."""

    id, split = "w.lib_org_transfer_handover", "train"
    summary = ("An engineer moved to another team this morning: as their old team lead, take over their open tickets "
               "of your team's component with a handover note (not the new team's ticket, done ones, or tickets they "
               "only reported or are mentioned in), remove them from the team channel, and tell the new lead which "
               "tickets stay with them.")


@register
class TransferPair(Transfers):
    """Two engineers left the same team this morning, each to another team."""

    id, split, count = "w.lib_org_transfer_pair", "test", 2
    summary = ("Two engineers moved from your team this morning: take over each one's open tickets of your team's "
               "component with a handover note, remove both from the team channel, and tell each new lead which "
               "tickets stay with their new report.")
