"""Incident talk: production incidents are announced and worked in #incidents by the on-call
engineer who owns them, and employees mention the IT tickets they filed in #it-help.

Every statement matches the tickets app: the key, summary, impact, urgency and priority are the
ticket's own, and "resolved" is said only of tickets that are resolved, at their resolution time."""

from __future__ import annotations

from datetime import datetime, timedelta
from random import Random

from .chat_text import Line, Where
from .org import Org
from .tickets_model import Tickets


def incidents_where(org: Org) -> Where:
    """Members of #incidents: Engineering, IT, the heads of Customer Success and Product, the CEO."""
    ids = {p.id for p in org.people if p.dept in ("Engineering", "IT")}
    ids |= {org.heads[d] for d in ("Executive", "Customer Success", "Product") if d in org.heads}
    head = org.heads.get("Engineering", org.ceo.id)
    return Where(sorted(ids), "Engineering", head, head)


def _at(when: datetime, rng: Random, low: int, high: int, end: datetime) -> datetime:
    return min(when + timedelta(minutes=rng.randint(low, high), seconds=rng.randint(0, 59)), end)


def incident_lines(org: Org, made: Tickets, rng: Random, end: datetime, members: list[int]) -> list[Line]:
    """The threads of #incidents, one per production incident."""
    problems = {source.id: target for source, target, kind in made.links if kind == "caused_by"}
    groups = {g.id: g for g in made.groups.values()}
    lines: list[Line] = []
    for t in made.production_incidents():
        owner = t.assignee_id or t.reporter_id
        if owner not in members:
            continue
        group = groups[t.group_id].name if t.group_id else "on-call"
        reported = f" First reported by {t.account_name}." if t.account_name else ""
        top = Line(owner, f":rotating_light: {t.key} · {t.summary}. Impact {t.impact}, urgency {t.urgency}, so "
                          f"priority {t.priority}. {group} is on it.{reported}", _at(t.created_at, rng, 2, 10, end))
        thread = [top]
        if t.reporter_id != owner and t.reporter_id in members:
            thread.append(Line(t.reporter_id, "Thanks. Customers are noticing, I'll keep support posted.",
                               _at(top.at, rng, 3, 15, end), reply_to=top))
        if t.resolved_at is not None:
            at = _at(t.resolved_at, rng, 0, 5, end)
            problem = problems.get(t.id)
            cause = f" Root cause is tracked in {problem.key}." if problem and problem.created_at <= at else ""
            thread.append(Line(owner, f"{t.key} is resolved ({t.resolution}).{cause}", at, reply_to=top))
        else:
            thread.append(Line(owner, f"Still working on {t.key}; next update in an hour.",
                               _at(top.at, rng, 30, 90, end), reply_to=top))
        lines += [line for line in thread if line.at <= end]
    return lines


def it_help_lines(org: Org, made: Tickets, rng: Random, end: datetime, members: list[int]) -> list[Line]:
    """Employees mention a few of the IT tickets they filed; IT answers in the thread."""
    lines: list[Line] = []
    filed = [t for t in made.tickets if t.project.key == "IT" and t.type in ("Incident", "Service Request")
             and t.component != "Production" and t.reporter_id in members]
    for t in rng.sample(filed, min(len(filed), 6)):
        top = Line(t.reporter_id, f"I filed {t.key} ({t.summary}). Could someone from IT take a look?",
                   _at(t.created_at, rng, 1, 20, end))
        lines.append(top)
        if t.assignee_id and t.assignee_id in members and t.first_response_at:
            lines.append(Line(t.assignee_id, f"Picked up {t.key}, replying on the ticket.",
                              _at(max(t.first_response_at, top.at), rng, 0, 3, end), reply_to=top))
    return [line for line in lines if line.at <= end]
