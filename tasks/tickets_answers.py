"""Ticket answer tasks: count the open tickets of a queue whose SLA is breached right now, count
the open work of an engineering component by type. Expected values are recomputed from the start
state, on the episode's simulated clock, when grading."""

from __future__ import annotations

from collections import Counter

from sqlalchemy import select

from officegym import clock
from officegym.apps.org.models import Person
from officegym.apps.tickets import workflow
from officegym.apps.tickets.models import Component, Group, Project, Ticket, TicketComponent
from officegym.apps.tickets.sla import sla_clocks
from officegym.graders.answers import answer_is_number
from officegym.graders.checks import nothing_else_changed
from officegym.graders.statements import Candidate

from .base import Claim, Declaration, TaskInstance, TaskTemplate, Target, ToolCall
from .common import evenly, nth, other_counts, pick
from .registry import register
from .split import in_split, person_in
from .tickets_common import LOOKALIKES, group_people, project_id, tickets_where


def _count_claim(expected: int) -> Claim:
    return Claim(Candidate.text(str(expected)), other_counts(expected), "answer", "count")


def _asked_about(counted: list[Ticket], queue: list[Ticket], split: str) -> Target:
    """The tickets a count is about: the first counted one of the template's split (the count reads
    tickets of both splits; else the first counted one, or of the queue when none counts), with the
    rest of the queue as look-alikes."""
    first = next((t for t in counted if in_split(split, "ticket", t.key)), None) or (counted or queue)[0]
    return Target("ticket", first.key, [t.key for t in queue if t.id != first.id][:LOOKALIKES])


CLOCKS = ("Time to resolution", "Time to first response")
KINDS = (None, "Incident", "Service Request")


def _breach_counts(session, group_id: int) -> dict[tuple[str, str | None], int]:
    """How many open tickets of a group have breached each SLA clock now, of every type (None) and
    by type, in one pass over the queue (what `_breached` would count for each question)."""
    now, counts = clock.now(session), Counter()
    for ticket in tickets_where(session, Ticket.group_id == group_id):
        if workflow.is_open(ticket.status):
            for name in {c.name for c in sla_clocks(ticket, now) if c.breached}:
                counts[(name, None)] += 1
                counts[(name, ticket.type)] += 1
    return counts


def _breached(session, group_id: int, clock_name: str, kind: str | None) -> list[Ticket]:
    """Open tickets of a group (of one type, when given) whose named SLA clock is over its target now."""
    now = clock.now(session)
    found = []
    for ticket in tickets_where(session, Ticket.group_id == group_id, *([Ticket.type == kind] if kind else [])):
        clocks = sla_clocks(ticket, now)
        if workflow.is_open(ticket.status) and any(c.name == clock_name and c.breached for c in clocks):
            found.append(ticket)
    return found


@register
class BreachedSlaCount(TaskTemplate):
    id, apps, difficulty = "tickets.breached_sla_count", ("tickets",), 2
    summary = "Count the open tickets of your group's queue whose SLA is breached now."
    answered = True

    def sample(self, session, rng, instance):
        questions = []  # (group, clock, type, count): those whose answer is at least 1, counting a ticket of the split
        for group in session.scalars(select(Group).order_by(Group.id)):
            ours = [p for p in group_people(session, group.id) if person_in(self.split, p.id)]
            counts = _breach_counts(session, group.id) if ours else {}
            questions += [(group, name, kind, counts[(name, kind)]) for name in CLOCKS for kind in KINDS
                          if counts.get((name, kind)) and any(in_split(self.split, "ticket", t.key) for t in
                                                              _breached(session, group.id, name, kind))]
        group, clock_name, kind, count = evenly(rng, instance, questions, lambda q: q[3])
        # The group's people ask in turn: each answer comes up once per round of the answers, so a
        # question asked again is asked by someone else.
        actor = nth([p for p in group_people(session, group.id) if person_in(self.split, p.id)],
                    instance // len({q[3] for q in questions}))
        words = "resolution" if clock_name == "Time to resolution" else "first-response"
        what = {None: "tickets", "Incident": "incidents", "Service Request": "service requests"}[kind]
        return TaskInstance(
            self.id, instance, actor.id,
            f"How many open {what} assigned to the {group.name} group have breached their {words} SLA right now? "
            "Submit the number with submit_answer.",
            [ToolCall("tickets_search_tickets", {"query": f"group = \"{group.name}\" AND statusCategory != Done"}),
             ToolCall("submit_answer", {"answer": str(count)})],
            {"group": group.id, "clock": clock_name, "kind": kind})

    def declare(self, start, inst):
        p = inst.params
        breached = _breached(start, p["group"], p["clock"], p["kind"])
        queue = tickets_where(start, Ticket.group_id == p["group"])
        queue = [t for t in queue if workflow.is_open(t.status)] or queue
        return Declaration([_asked_about(breached, queue, self.split)], [_count_claim(len(breached))])

    def check(self, ctx, inst):
        expected = int(self.declare(ctx.start, inst).claims[0].right.label)
        return [answer_is_number(ctx.answer, expected, weight=2), nothing_else_changed(ctx.diff, [])]


def _component_work(session, component_id: int, kind: str) -> list[Ticket]:
    ids = select(TicketComponent.ticket_id).where(TicketComponent.component_id == component_id)
    return [t for t in tickets_where(session, Ticket.id.in_(ids), Ticket.type == kind) if workflow.is_open(t.status)]


@register
class OpenWorkCount(TaskTemplate):
    id, apps, difficulty = "tickets.open_work_count", ("tickets",), 1
    summary = "Count the unfinished tickets of one type in one component of a software project."
    answered = True

    def sample(self, session, rng, instance):
        components = list(session.scalars(select(Component).where(Component.project_id.in_(
            [project_id(session, "ENG"), project_id(session, "SOPS")])).order_by(Component.id)))
        questions = [(c, kind, _component_work(session, c.id, kind)) for c in components
                     for kind in ("Bug", "Story", "Task", "Sub-task")]
        questions = [(c, kind, len(work)) for c, kind, work in questions  # about a ticket of the split
                     if any(in_split(self.split, "ticket", t.key) for t in work)]
        component, kind, count = evenly(rng, instance, questions, lambda q: q[2])
        department = session.get(Project, component.project_id).department_id
        actor = pick(rng, [p for p in session.scalars(select(Person).where(Person.department_id == department)
                                                      .order_by(Person.id)) if person_in(self.split, p.id)])
        key = "ENG" if component.project_id == project_id(session, "ENG") else "SOPS"
        plural = {"Bug": "bugs", "Story": "stories", "Task": "tasks", "Sub-task": "sub-tasks"}[kind]
        return TaskInstance(
            self.id, instance, actor.id,
            f"How many {plural} of the {component.name} component in {key} are not finished yet? Submit the "
            "number with submit_answer.",
            [ToolCall("tickets_search_tickets", {"query": f"project = {key} AND component = \"{component.name}\" AND "
                                                          f"type = \"{kind}\" AND statusCategory != Done"}),
             ToolCall("submit_answer", {"answer": str(count)})],
            {"component": component.id, "kind": kind})

    def declare(self, start, inst):
        p = inst.params
        counted = _component_work(start, p["component"], p["kind"])
        project = start.get(Component, p["component"]).project_id
        queue = sorted(tickets_where(start, Ticket.project_id == project), key=lambda t: (t.type != p["kind"], t.id))
        return Declaration([_asked_about(counted, queue, self.split)], [_count_claim(len(counted))])

    def check(self, ctx, inst):
        expected = int(self.declare(ctx.start, inst).claims[0].right.label)
        return [answer_is_number(ctx.answer, expected, weight=2), nothing_else_changed(ctx.diff, [])]
