"""Service-level agreements of service-desk tickets, computed from the simulated clock.

Two clocks run from a ticket's creation, with targets by priority:
- time to first response: stops at the first public comment by someone other than the reporter;
- time to resolution: stops when the ticket is resolved, and pauses while it is "Waiting on
  customer" (the paused minutes are kept on the ticket, so the pause survives a reopen).
A clock is breached when its elapsed time exceeds its target. Software projects have no SLA.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from .models import LEVELS, PRIORITIES, PRIORITY_RANK, Ticket

HOUR = 60
FIRST_RESPONSE_MINUTES = {"Highest": 15, "High": 1 * HOUR, "Medium": 4 * HOUR, "Low": 8 * HOUR, "Lowest": 24 * HOUR}
RESOLUTION_MINUTES = {"Highest": 4 * HOUR, "High": 24 * HOUR, "Medium": 72 * HOUR, "Low": 120 * HOUR,
                      "Lowest": 240 * HOUR}
WAITING = "Waiting on customer"


@dataclass(frozen=True)
class SlaClock:
    """One SLA clock of one ticket at one moment."""

    name: str
    target_minutes: int
    elapsed_minutes: int
    stopped: bool
    paused: bool
    due_at: datetime | None  # when it breaches if it keeps running (None once stopped or paused)

    @property
    def breached(self) -> bool:
        """Whether the elapsed time is over the target."""
        return self.elapsed_minutes > self.target_minutes

    @property
    def remaining_minutes(self) -> int:
        """Minutes left before the breach (negative once breached)."""
        return self.target_minutes - self.elapsed_minutes

    @property
    def state(self) -> str:
        """met, breached, paused, running or overdue (breached and still running)."""
        if self.stopped:
            return "breached" if self.breached else "met"
        if self.breached:
            return "overdue"
        return "paused" if self.paused else "running"


def incident_priority(impact: str, urgency: str) -> str:
    """Priority from impact × urgency (each High, Medium or Low): High × High is Highest, Low × Low
    is Lowest, one step down per step of either."""
    steps = LEVELS.index(impact) + LEVELS.index(urgency)
    return PRIORITIES[steps]


def priority_rank(priority: str) -> int:
    """5 for Highest down to 1 for Lowest."""
    return PRIORITY_RANK[priority]


def _minutes(delta: timedelta) -> int:
    return max(0, int(delta.total_seconds() // 60))


def paused_minutes(ticket: Ticket, now: datetime) -> int:
    """Minutes the resolution clock has been paused, the current pause included."""
    current = _minutes(now - ticket.paused_since) if ticket.paused_since else 0
    return ticket.paused_minutes + current


def sla_clocks(ticket: Ticket, now: datetime) -> list[SlaClock]:
    """The ticket's SLA clocks (empty outside service desks)."""
    if not ticket.project.is_service_desk:
        return []
    response_end = ticket.first_response_at or now
    response = SlaClock("Time to first response", FIRST_RESPONSE_MINUTES[ticket.priority],
                        _minutes(response_end - ticket.created_at), ticket.first_response_at is not None, False, None)
    if ticket.first_response_at is None:
        response = _with_due(response, now)
    resolution_end = ticket.resolved_at or now
    paused = ticket.paused_since is not None and ticket.resolved_at is None
    resolution = SlaClock("Time to resolution", RESOLUTION_MINUTES[ticket.priority],
                          max(0, _minutes(resolution_end - ticket.created_at) - paused_minutes(ticket, resolution_end)),
                          ticket.resolved_at is not None, paused, None)
    if not resolution.stopped and not paused:
        resolution = _with_due(resolution, now)
    return [response, resolution]


def _with_due(clock: SlaClock, now: datetime) -> SlaClock:
    due = now + timedelta(minutes=clock.remaining_minutes)
    return SlaClock(clock.name, clock.target_minutes, clock.elapsed_minutes, clock.stopped, clock.paused, due)


def is_breached(ticket: Ticket, now: datetime) -> bool:
    """Whether any SLA clock of the ticket is breached."""
    return any(clock.breached for clock in sla_clocks(ticket, now))
