"""Procedures whose deciding word comes during the episode (an event):

- `ReconcileWithChangeToCome`: a month-end reconciliation where one deal's owner updates it in the CRM by a
  time the request states, and its row must show the CRM's value once they have (tasks.procedures.revenue's
  ReconcileTab, whose drift of that deal happens at `at` instead of before);
- `LaterWord`: a colleague's direct message that says they will write again by a stated time, and their
  second message, which comes then; the reference waits in the conversation for it and reads it."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from datetime import datetime, timedelta

from officegym import clock
from officegym.colleagues.events import Event

from ..base import ToolCall
from .messages import DirectRequest
from .revenue import FIELD, ReconcileTab, typed_value


@dataclass(frozen=True)
class ReconcileWithChangeToCome(ReconcileTab):
    """A `ReconcileTab` whose drift number `coming` (the owner's change of a deal's amount or close date in
    the CRM) happens during the episode at `at`: the reference first waits `wait` minutes (past the time the
    request states), then reconciles. An agent that never waits finds that row agreeing with the CRM and
    leaves it, which the check of the corrected rows fails."""

    coming: int = 0
    at: datetime | None = None
    wait: int = 0

    def setup(self, session):
        planted = replace(self, drifts=tuple(d for k, d in enumerate(self.drifts) if k != self.coming))
        ReconcileTab.setup(planted, session)

    def events(self):
        drift = self.drifts[self.coming]
        return [Event("update_opportunity", drift.by, {"opportunity": drift.deal, "changes": {
            FIELD[drift.column]: typed_value(drift.right)}}, at=self.at)]

    def steps(self, swap=None):
        return [ToolCall("chat_wait", {"minutes": self.wait})] + super().steps(swap)

    def unaware(self):
        coming = self.drifts[self.coming]
        return super().steps(lambda d: [ToolCall("crm_get_opportunity", {"opportunity": d.deal})]
                             if d is coming else None)


def change_to_come(session, rng, tab: ReconcileTab, avoid: set[int]) -> tuple[ReconcileWithChangeToCome, str]:
    """`tab` with one of its CRM drifts of an amount or a close date, made by someone none of `avoid` (the actor,
    who asks), made to come during the episode, some 10 to 40 minutes before a time 90 to 150 minutes from now;
    and that time as the request states it (HH:MM)."""
    deadline, comes, wait = time_to_come(session, rng)
    choices = [k for k, d in enumerate(tab.drifts) if d.how == "crm" and d.column in FIELD and d.by not in avoid]
    if not choices:
        raise ValueError(f"{tab.title}: no change in the CRM by someone other than {sorted(avoid)} to come")
    coming = rng.choice(choices)
    own = {f.name: getattr(tab, f.name) for f in fields(tab)}
    return ReconcileWithChangeToCome(**own, coming=coming, at=comes, wait=wait), deadline


def time_to_come(session, rng) -> tuple[str, datetime, int]:
    """A time 90 to 150 minutes from now as a message states it (HH:MM), the moment a word comes 10 to 40
    minutes before it, and the minutes a wait takes to pass it."""
    now = clock.company_now(session)
    deadline = (now + timedelta(minutes=60 + 30 * rng.randint(1, 3))).replace(minute=0 if now.minute < 30 else 30)
    return (deadline.strftime("%H:%M"), deadline - timedelta(minutes=rng.randint(10, 40)),
            int((deadline - now).total_seconds() // 60) + 5)


@dataclass(frozen=True)
class LaterWord(DirectRequest):
    """`requester`'s direct message `text` (sent `minutes` before now), saying they will write again by a time,
    and their second message `later`, which comes at `at` (an event): the reference reads the first, waits in
    the conversation up to `wait` minutes (the wait ends when the message arrives) and reads it."""

    later: str = ""
    at: datetime | None = None
    wait: int = 0

    def events(self):
        return [Event("message", self.requester, {"dm_with": self.actor, "text": self.later}, at=self.at)]

    def steps(self):
        return super().steps() + [ToolCall("chat_wait", {"minutes": self.wait, "channel": self.channel}),
                                  ToolCall("chat_list_messages", {"channel": self.channel, "limit": 5})]

    def unaware(self):
        return super().steps()
