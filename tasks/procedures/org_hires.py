"""A new hire's start date moved (Moving a new hire's start date): IT Support moves the due date of each open
request filed for the hire (the laptop, "New laptop for new hire", whose description names them, and their
access requests) to the new start date, with a comment giving it. A resolved request keeps its date, and so do
another hire's requests. A later start is always possible; an earlier one only once the hire's laptop request
is resolved as Fixed: otherwise nothing moves and the hiring manager hears why, naming the laptop request."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from officegym import clock
from officegym.apps.org.models import Person
from officegym.apps.tickets import services as tickets
from officegym.apps.tickets.models import Ticket
from officegym.graders.checks import Allow, check, guard
from officegym.graders.statements import Candidate, says
from officegym.seed_data.tickets_handbook_org import START_DATES

from ..base import CARRY_OUT, REFUSE, Claim, Declaration, Target, ToolCall
from ..tickets_common import new_comments, ticket_by_key
from ..w_people import LAPTOP, access_summary, day_spellings
from .core import NO_OUTCOME, Graded, Procedure
from .it import HARDWARE, workday_at


def day_claim(day: date, *beside: date, kind: str = "new start date") -> Claim:
    """A claim that a text names `day` among the Mondays and days around it, the dates `beside` excepted (a text
    may say what the date was, or name another hire's)."""
    others = [day + timedelta(days=k) for k in (-14, -7, -3, -1, 1, 3, 7, 14)]
    return Claim(Candidate.text(*spellings(day)), [Candidate.text(*spellings(d)) for d in others if d not in beside],
                 "text", kind)


def spellings(day: date) -> tuple[str, ...]:
    """The ways a text may write a day, a zero-padded day of the month ("06 April") included."""
    padded = (f"{day.day:02d} {day:%B}", f"{day:%B} {day.day:02d}") if day.day < 10 else ()
    return (day.isoformat(), *day_spellings(day), *padded)


def spoken(day: date) -> str:
    """A day as a message writes it: "Monday 6 April"."""
    return f"{day:%A} {day.day} {day:%B}"


@dataclass(frozen=True)
class RedateOnboarding(Procedure):
    """The requests the hiring `manager` filed two weeks ago for the new hire `hire` (joining `team` on `old_day`,
    with the onboarding buddy `buddy` named on the laptop request), IT tickets numbered from `first`: the laptop,
    one access request per `systems`, and, with `granted`, an access request already resolved as Fixed. The IT
    Support `lead` assigned them to the actor; the laptop is resolved as Fixed when `laptop_fixed`.
    `new_day`: the start date the manager now gives (None: this hire's start stays, a look-alike whose requests a
    careless agent moves to `decoy_day`)."""

    rules = (START_DATES,)
    hard = ("exception", "lookalike")

    first: int
    actor: int
    lead: int
    manager: int
    hire: str
    team: str
    buddy: str
    old_day: date
    new_day: date | None
    systems: tuple[str, ...]
    laptop_fixed: bool
    granted: str = ""
    decoy_day: date | None = None
    strict: bool = False  # the re-dating is a guard (one of several hires: missing one fails the whole)

    @property
    def keys(self) -> list[str]:
        """Every request of the hire: the laptop, the open access requests, the granted one."""
        return [f"IT-{self.first + k}" for k in range(1 + len(self.systems) + bool(self.granted))]

    @property
    def laptop_key(self) -> str:
        """The laptop request."""
        return self.keys[0]

    @property
    def open_keys(self) -> list[str]:
        """The requests still open (the laptop unless delivered, and the access requests not granted)."""
        return ([] if self.laptop_fixed else [self.laptop_key]) + self.keys[1:1 + len(self.systems)]

    @property
    def filed(self) -> int:
        """How many IT tickets the setup files."""
        return len(self.keys)

    @property
    def moved(self) -> bool:
        """Whether the requests move: a later start, or an earlier one with the laptop delivered."""
        return self.new_day is not None and (self.new_day > self.old_day or self.laptop_fixed)

    def setup(self, session):
        now, lead = clock.company_now(session), session.get(Person, self.lead)
        manager = session.get(Person, self.manager)
        said = (f"For {self.hire}, who joins {self.team} on {spoken(self.old_day)}. Onboarding buddy: {self.buddy}.")
        filings = [(LAPTOP, HARDWARE, said, self.laptop_fixed)]
        filings += [(access_summary(s, self.hire), "Accounts & Access", f"Read access from day one. {said}", False)
                    for s in self.systems]
        if self.granted:
            filings.append((access_summary(self.granted, self.hire), "Accounts & Access", said, True))
        for k, (summary, component, description, done) in enumerate(filings):
            clock.set_time(session, workday_at(now, 14, 10 + k % 6))
            made = tickets.create_ticket(session, manager, "IT", "Service Request", summary, description,
                                         components=[component], due_date=self.old_day.isoformat())
            assert made.key == self.keys[k], (made.key, self.keys[k])
            clock.set_time(session, workday_at(now, 12, 9 + k % 6))
            tickets.assign_ticket(session, lead, made.key, self.actor)
            if done:
                clock.set_time(session, workday_at(now, 4, 11 + k % 5))
                tickets.transition_ticket(session, session.get(Person, self.actor), made.key, "Resolve",
                                          resolution="Fixed", comment="Done: ready for day one.")

    def comment(self) -> str:
        """The comment on a re-dated request."""
        return (f"{self.hire}'s start date moved to {spoken(self.new_day)} {self.new_day.year}: due date changed to "
                "match.")

    def work(self, day: date | None = None) -> list[ToolCall]:
        """Re-dating the open requests (to `day`, the new start date unless given)."""
        day = day or self.new_day
        return [c for key in self.open_keys for c in (
            ToolCall("tickets_update_ticket", {"key": key, "due_date": day.isoformat()}),
            ToolCall("tickets_add_comment", {"key": key, "body": self.comment() if day == self.new_day else
                                             f"Start date moved: due date now {spoken(day)}."}, role="note"))]

    def reads(self) -> list[ToolCall]:
        """Each request opened, and the laptop request's comments (whether it was delivered)."""
        return [ToolCall("tickets_get_ticket", {"key": key}) for key in self.keys] + [
            ToolCall("tickets_list_comments", {"key": self.laptop_key})]

    def steps(self):
        return self.reads() + (self.work() if self.moved else [])

    def declared(self):
        if self.new_day is None:
            return ("lookalike",) if self.decoy_day else ()
        return ("exception",) if self.new_day < self.old_day else ()

    def fallen(self, kind):
        if kind == "lookalike" and self.new_day is None and self.decoy_day:  # moves another hire's requests too
            return self.reads() + self.work(self.decoy_day)
        if kind == "exception" and self.new_day is not None and self.new_day < self.old_day:
            return self.reads() + ([] if self.moved else self.work())  # misreads whether the laptop is ready
        return None

    def declare(self, start):
        if not self.moved:  # a refusal names the laptop request (among the keys filed around it)
            near = [Candidate.text(f"IT-{n}") for n in range(self.first - 3, self.first + self.filed + 3)
                    if not self.first <= n < self.first + self.filed]
            held = [Claim(Candidate.text(self.laptop_key), near, "text", "laptop request")] if self.new_day else []
            return Declaration([Target("ticket", key, []) for key in self.keys], held)
        near = [k for k in self.keys if k not in self.open_keys]
        return Declaration([Target("ticket", key, near) for key in self.open_keys],
                           [day_claim(self.new_day, self.old_day)])

    def check(self, ctx):
        results, allowed = [], []
        for key in self.keys:
            was = ticket_by_key(ctx.start, key)
            now = ctx.final.get(Ticket, was.id)
            if not self.moved or key not in self.open_keys:
                results.append(guard(f"{key} keeps its due date, {was.due_date}", now.due_date == was.due_date,
                                     f"due {now.due_date}"))
                if self.new_day is not None:  # a word on the hire's own requests, saying why they stay, is fine
                    allowed += self._commented(ctx, was.id, 1)
                continue
            due = f"{key} is due on the new start date, {self.new_day}"
            results.append(guard(due, now.due_date == self.new_day, f"due {now.due_date}") if self.strict else
                           check(due, now.due_date == self.new_day, f"due {now.due_date}", weight=1))
            claim = day_claim(self.new_day, self.old_day)
            results += says([r["body"] for r in new_comments(ctx, was.id)], claim.right, claim.others,
                            f"A comment on {key} gives the new start date", "date", weight=2)
            allowed += self._commented(ctx, was.id, 1, ("due_date",))
        return Graded(results, allowed)

    @staticmethod
    def _commented(ctx, ticket_id: int, limit: int, fields: tuple[str, ...] = ()) -> list[Allow]:
        """Up to `limit` comments of the actor on one ticket, and the ticket's own change (`fields`)."""
        return [Allow("tickets_ticket", ("updated",), lambda r: r["id"] == ticket_id,
                      (*fields, "updated_at", "first_response_at")),
                Allow("tickets_comment", ("added",), lambda r: r["ticket_id"] == ticket_id and
                      r["author_id"] == ctx.actor_id, limit=limit)]

    def outcome(self):
        if self.new_day is None:
            return NO_OUTCOME
        return CARRY_OUT if self.moved else REFUSE
