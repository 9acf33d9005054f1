"""Long ticket histories, for the worlds whose spec asks for them (`ticket_history`): old tickets are
mostly finished and recent ones still open, production incidents happen all along the history
(worked by the group's on-call engineer of that week, some reported by a real customer account,
recurring ones tied to a problem record), every ticket keeps its step-by-step field history and
the follow-up conversation of its reporter and assignee, and each fortnight was a sprint.

Everything is drawn from the tickets generator's own random stream, after the small worlds' draws
would have ended, so small worlds never see this module.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING

from . import scale_vocab as sv
from . import tickets_vocab as tv
from . import vocab
from .crm_model import business_time
from .tickets_model import TicketRec

if TYPE_CHECKING:
    from .tickets_build import TicketMaker

DONE = ("Resolved", "Closed", "Done")
SPRINT_GOALS = ["Billing retries and idempotency", "Search relevance fixes", "Onboarding flow polish",
                "On-call toil reduction", "API rate limits", "Mobile performance", "Reporting exports",
                "SSO edge cases", "Data pipeline backfills", "Accessibility fixes", "Webhook reliability",
                "Dependency upgrades", "Observability dashboards", "Checkout latency"]


def aged(statuses: dict[str, int], filed: datetime, end: datetime) -> dict[str, float]:
    """Status weights for a ticket filed at `filed`: recent ones as given, older ones mostly finished
    (a backlog keeps some old To Do work, resolved tickets close after a few days)."""
    age = (end - filed).days
    if len(statuses) == 1 or age <= 4:
        return dict(statuses)
    keep = 0.4 if age <= 14 else 0.05
    out = {s: float(w) if s in DONE else w * (max(keep, 0.3) if s == "To Do" else keep) for s, w in statuses.items()}
    if age > 10 and "Resolved" in out and "Closed" in out:
        out["Closed"] += out["Resolved"] * 0.8
        out["Resolved"] *= 0.2
    return out


def sprint_plan(monday: date, first_day: date) -> list[tuple[str, int]]:
    """(state, offset in days from `monday`) of every sprint: a closed one per fortnight back to the
    first day of the ticket history, then the active and the future one."""
    back = max(1, (monday - first_day).days // 14 + 1)
    return [("closed", -14 * k) for k in range(back, 0, -1)] + [("active", 0), ("future", 14)]


def sprint_goal(k: int, count: int) -> str | None:
    """The goal of the k-th of `count` sprints (None: the three last keep their usual goals)."""
    return None if k >= count - 3 else SPRINT_GOALS[k % len(SPRINT_GOALS)]


def sprint_for(maker: "TicketMaker", t: TicketRec) -> int | None:
    """The sprint a ticket sits in: finished work in the sprint it was done in, work under way in the
    active one, some of the backlog planned into the active or next one."""
    rng, sprints = maker.rng, maker.sprints
    if t.status == "Done" and t.resolved_at is not None:
        day = t.resolved_at.date()
        for s in sprints:
            if s["state"] != "future" and s["start_date"] <= day <= s["end_date"] + timedelta(days=2):
                return s["id"]
        return None
    if t.status != "To Do":
        return next(s["id"] for s in sprints if s["state"] == "active")
    roll = rng.random()
    state = "future" if roll < 0.25 else "active" if roll < 0.45 else None
    return next((s["id"] for s in sprints if s["state"] == state), None)


def production_history(maker: "TicketMaker", it) -> None:
    """Production incidents all along the history, the last few still being worked."""
    on_call = [g for g in maker.groups.values() if g.on_call]
    if not on_call:
        return
    rng, org, end = maker.rng, maker.org, maker.end
    reporters = maker._people(("Engineering", "Customer Success"))
    problems = []
    for summary, description, component in tv.PROBLEMS:
        group = rng.choice(on_call)
        p = maker._file(it, "Problem", summary, description, reporters, {"In Progress": 1, "Assigned": 1}, "High",
                        component=component, group_id=group.id)
        maker._progress(p, group.member_ids)
        problems.append(p)
    weeks = max(1.0, (end - maker.start).days / 7)
    total = max(8, round(len(on_call) * weeks * 0.25 * maker.spec.ticket_volume))
    fresh = max(3, total // 25)  # filed in the last days and still being worked
    accounts = maker.crm.accounts if maker.crm else []
    on_duty: dict[tuple[int, date], int] = {}
    caused: set[int] = set()  # incidents already tied to a problem
    by_service: dict[str, list[TicketRec]] = {}
    for k in range(total):
        recent = k >= total - fresh
        at = business_time(rng, end - timedelta(days=2, hours=6) if recent else maker.start,
                           end - timedelta(hours=2) if recent else end - timedelta(days=3))
        group = rng.choice(on_call)
        week = at.date() - timedelta(days=at.weekday())
        if (group.id, week) not in on_duty:  # one engineer is on call for the group all week
            ready = [i for i in group.member_ids if org.person(i).since <= at - timedelta(weeks=4)] or group.member_ids
            on_duty[(group.id, week)] = rng.choice(ready)
        service = rng.choice(vocab.SERVICES)
        summary, description = (s.format(service=service) for s in rng.choice(sv.PROD_INCIDENTS))
        account = rng.choice(accounts) if accounts and rng.random() < 0.35 else None
        if account is not None:
            description += f" First reported by {account.name}."
        status = {"In Progress": 3, "Assigned": 1} if recent else {"Resolved": 1, "Closed": 4}
        t = maker._file(it, "Incident", summary, description, reporters, status, at=at, component="Production",
                        impact=rng.choice(("High", "Medium")), urgency=rng.choice(("High", "Medium")),
                        group_id=group.id, labels=["customer-impact"],
                        account_id=account.id if account else None, account_name=account.name if account else "")
        maker._progress(t, [on_duty[(group.id, week)]])
        note_at = min(t.created_at + timedelta(minutes=30), end)
        t.comments.append((t.assignee_id, rng.choice(tv.WORK_NOTES), True, note_at))
        by_service.setdefault(service, []).append(t)
        if k < len(problems):
            maker.links.append((t, problems[k], "caused_by"))
            caused.add(id(t))
    for service in sorted(by_service):  # a service that keeps breaking gets a problem record
        incidents = sorted(by_service[service], key=lambda t: t.created_at)
        if len(incidents) < 3:
            continue
        second = incidents[1]
        group = next(g for g in on_call if g.id == second.group_id)
        at = min(second.created_at + timedelta(days=1), end - timedelta(hours=1))
        p = maker._file(it, "Problem", f"Recurring failures of {service}",
                        f"Root cause of the repeated {service} incidents.", reporters,
                        {"In Progress": 2, "Resolved": 1}, "High", at=at, component="Production", group_id=group.id)
        maker._progress(p, group.member_ids)
        for t in incidents[1:]:
            if id(t) not in caused:
                maker.links.append((t, p, "caused_by"))
                caused.add(id(t))


def story(maker: "TicketMaker", t: TicketRec) -> None:
    """A worked ticket's field history (assignment, each status step, the resolution) and the
    follow-up conversation between its reporter and assignee."""
    if t.assignee_id is None:
        return
    rng, end = maker.rng, maker.end
    agent = t.assignee_id
    stop = min(x for x in (t.resolved_at, t.paused_since, end) if x is not None)
    taken = max(t.created_at, (t.first_response_at or t.created_at + timedelta(minutes=rng.randint(5, 240)))
                - timedelta(minutes=rng.randint(0, 3)))
    taken = min(taken, stop)
    started = min(taken + timedelta(minutes=rng.randint(1, 90)), stop)
    name = maker.org.person(agent).name
    events = [("assignee", "", name, agent, taken)]
    if t.project.kind == "service_desk":
        path = [("New", "Assigned", taken)]
        if t.status != "Assigned":
            path.append(("Assigned", "In Progress", started))
        if t.status == "Waiting on customer":
            path.append(("In Progress", "Waiting on customer", t.paused_since))
        if t.status in ("Resolved", "Closed"):
            path.append(("In Progress", "Resolved", t.resolved_at))
        if t.status == "Closed":
            path.append(("Resolved", "Closed", min(t.resolved_at + timedelta(days=rng.randint(1, 4)), end)))
    else:
        path = [("To Do", "In Progress", started)]
        if t.status in ("In Review", "Done"):
            review = min(started + (stop - started) * rng.uniform(0.5, 0.9), stop)
            path.append(("In Progress", "In Review", review))
        if t.status == "Done":
            path.append(("In Review", "Done", t.resolved_at))
    events += [("status", old, new, agent, at) for old, new, at in path]
    if t.resolved_at is not None:
        events.append(("resolution", "", t.resolution, agent, t.resolved_at))
    t.events = events
    _follow_ups(maker, t, max(taken, t.first_response_at or taken), stop)


def _follow_ups(maker: "TicketMaker", t: TicketRec, start: datetime, stop: datetime) -> None:
    rng = maker.rng
    service = t.project.kind == "service_desk"
    if rng.random() > (0.55 if service else 0.45) or stop - start < timedelta(minutes=20):
        return
    span = (stop - start).total_seconds()
    lines = rng.choice(sv.TICKET_THREADS) if service else [
        ("agent" if i % 2 == 0 else "reporter", text, False) for i, text in enumerate(rng.choice(sv.ENG_THREADS))]
    marks = sorted(rng.uniform(0.05, 0.95) for _ in lines)
    for (who, text, internal), mark in zip(lines, marks):
        author = t.assignee_id if who == "agent" else t.reporter_id
        t.comments.append((author, text, internal, start + timedelta(seconds=int(span * mark))))
