"""Workflows: the statuses of each ticket type and the transitions between them.

- Software work (Bug, Task, Story, Sub-task): To Do → In Progress → In Review → Done, with
  Stop progress, Request changes and Reopen. Done with resolution "Done" only after review; the
  other resolutions (Won't Do, Duplicate, Cannot Reproduce) close from any open status.
- Service work (Incident, Service Request, Problem): New → Assigned → In Progress → Resolved →
  Closed, with Waiting on customer (which pauses the resolution SLA clock) and Reopen from Resolved.
  A New ticket becomes Assigned by being given an assignee (tickets.assign_ticket), not by a
  transition; Cancel closes a New ticket that needs no work.
"""

from __future__ import annotations

from dataclasses import dataclass

from .models import SERVICE_TYPES


@dataclass(frozen=True)
class Transition:
    """A named move between statuses; `resolutions` lists the resolutions it may set (it needs
    one when the list is not empty)."""

    name: str
    sources: tuple[str, ...]
    target: str
    resolutions: tuple[str, ...] = ()
    needs_assignee: bool = False


SOFTWARE_OPEN = ("To Do", "In Progress", "In Review")
SOFTWARE_STATUSES = SOFTWARE_OPEN + ("Done",)
SOFTWARE_TRANSITIONS = (
    Transition("Start progress", ("To Do",), "In Progress", needs_assignee=True),
    Transition("Stop progress", ("In Progress",), "To Do"),
    Transition("Submit for review", ("In Progress",), "In Review"),
    Transition("Request changes", ("In Review",), "In Progress"),
    Transition("Done", ("In Review",), "Done", ("Done",)),
    Transition("Close", SOFTWARE_OPEN, "Done", ("Won't Do", "Duplicate", "Cannot Reproduce")),
    Transition("Reopen", ("Done",), "To Do"),
)

SERVICE_OPEN = ("New", "Assigned", "In Progress", "Waiting on customer")
SERVICE_STATUSES = SERVICE_OPEN + ("Resolved", "Closed")
SERVICE_TRANSITIONS = (
    Transition("Start work", ("Assigned",), "In Progress", needs_assignee=True),
    Transition("Wait for customer", ("In Progress",), "Waiting on customer"),
    Transition("Customer replied", ("Waiting on customer",), "In Progress"),
    Transition("Resolve", ("Assigned", "In Progress"), "Resolved",
               ("Fixed", "Workaround", "Duplicate", "Cannot Reproduce", "Cancelled")),
    Transition("Cancel", ("New",), "Resolved", ("Cancelled", "Duplicate")),
    Transition("Reopen", ("Resolved",), "In Progress", needs_assignee=True),
    Transition("Close", ("Resolved",), "Closed"),
)

# Resolutions that mean the work was really done: they need the blockers and sub-tasks finished.
FIXING_RESOLUTIONS = ("Done", "Fixed", "Workaround")
RESOLUTIONS = ("Done", "Fixed", "Workaround", "Won't Do", "Duplicate", "Cannot Reproduce", "Cancelled")
DONE_STATUSES = ("Done", "Resolved", "Closed")
ALL_STATUSES = SOFTWARE_STATUSES + tuple(s for s in SERVICE_STATUSES if s not in SOFTWARE_STATUSES)


def is_service(ticket_type: str) -> bool:
    """Whether a type follows the service workflow."""
    return ticket_type in SERVICE_TYPES


def initial_status(ticket_type: str) -> str:
    """Where a new ticket of this type starts."""
    return "New" if is_service(ticket_type) else "To Do"


def statuses(ticket_type: str) -> tuple[str, ...]:
    """Every status of this type's workflow, in board order."""
    return SERVICE_STATUSES if is_service(ticket_type) else SOFTWARE_STATUSES


def transitions(ticket_type: str) -> tuple[Transition, ...]:
    """Every transition of this type's workflow."""
    return SERVICE_TRANSITIONS if is_service(ticket_type) else SOFTWARE_TRANSITIONS


def available(ticket_type: str, status: str) -> list[Transition]:
    """The transitions a ticket in `status` can take."""
    return [t for t in transitions(ticket_type) if status in t.sources]


def is_open(status: str) -> bool:
    """Whether work on a ticket in this status is still to be done."""
    return status not in DONE_STATUSES
