"""A leaver whose manager's word comes during the episode (tasks.w_lib_week_it): the Offboarding request was
filed, and this morning the manager wrote on it that they are confirming with HR whether the person stays and
will say so there by a stated time. Their word comes as a comment during the episode (an event): the
offboarding stands (the leaver's open requests are cancelled, as Offboarding a leaver says) or it is withdrawn
(nothing is cancelled). The reference waits for it, reads the comments again, then acts."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from officegym import clock
from officegym.apps.org.models import Person
from officegym.apps.tickets import services as tickets
from officegym.colleagues.events import Event

from ..base import ToolCall
from .it_leavers import CancelForLeaver

PENDING = ("HR is checking with {name} whether they stay after all (they have an offer to stay on another "
           "team). I'll confirm here by {deadline} whether this offboarding stands; please go by what I say then.")
STANDS = "Confirmed with HR: {name} leaves us on Friday. The offboarding stands."
WITHDRAWN = "Good news: {name} is staying after all. This offboarding is withdrawn."


@dataclass(frozen=True)
class LeaverWordToCome(CancelForLeaver):
    """A `CancelForLeaver` whose manager's deciding comment comes at `word_at` (`withdrawn`: it withdraws the
    offboarding; otherwise it confirms it), promised this morning for `deadline` (HH:MM); the reference waits
    `wait` minutes in the ticket's comments. An agent that never waits cancels on the filed offboarding."""

    deadline: str = ""
    word_at: datetime | None = None
    wait: int = 0

    def setup(self, session):
        now = clock.company_now(session)
        CancelForLeaver.setup(replace(self, withdrawn=False), session)
        clock.set_time(session, now - timedelta(hours=1))
        tickets.add_comment(session, session.get(Person, self.manager), self.offboarding_key,
                            PENDING.format(name=self.name, deadline=self.deadline))

    def events(self):
        word = WITHDRAWN if self.withdrawn else STANDS
        return [Event("comment_ticket", self.manager, {"key": self.offboarding_key,
                                                       "body": word.format(name=self.name)}, at=self.word_at)]

    def steps(self):
        waited = [ToolCall("chat_wait", {"minutes": self.wait}),
                  ToolCall("tickets_list_comments", {"key": self.offboarding_key})]
        return self.reads() + waited + ([] if self.withdrawn else self.work())

    def fallen(self, kind):
        if kind == "changed" and self.withdrawn:  # acts on the filed offboarding, not on the word that came
            return self.reads() + self.work()
        return super().fallen(kind)

    def unaware(self):
        return self.reads() + self.work() if self.withdrawn else None

