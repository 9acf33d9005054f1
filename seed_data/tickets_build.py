"""Generation of the seeded tickets: who files what, who works it, how far it got.

A ticket's story is consistent: an assignee belongs to its assignment group (or, without one, to
the project's department); a first response is a public comment by that assignee; resolved
tickets carry a resolution and a resolution time; tickets waiting on the customer have their SLA
clock paused since they started waiting. Incidents take their priority from impact × urgency.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from random import Random

from officegym.apps.tickets.sla import incident_priority

from . import tickets_story as story
from . import tickets_vocab as tv
from .crm_model import Crm, business_time
from .org import Org, PersonRec
from .roster import Roster
from .tickets_model import GroupRec, ProjectRec, TicketRec, Tickets

SERVICE_STATUS = {"New": 3, "Assigned": 2, "In Progress": 3, "Waiting on customer": 1, "Resolved": 3, "Closed": 4}
SOFTWARE_STATUS = {"To Do": 5, "In Progress": 3, "In Review": 2, "Done": 5}
PRIORITY = {"Highest": 1, "High": 3, "Medium": 6, "Low": 3, "Lowest": 1}
DUPLICATE_PHRASES = ["Also seeing this: {s}", "{s} (since this morning)", "Me too - {s}"]


def lower_first(text: str) -> str:
    """'Cannot connect' -> 'cannot connect', but 'SSO login' stays 'SSO login'."""
    return text[0].lower() + text[1:] if text[1:2].islower() else text


def _weighted(rng: Random, weights: dict[str, int]) -> str:
    return rng.choices(list(weights), weights=list(weights.values()))[0]


class TicketMaker:
    """Builds every TicketRec of a world, then numbers them per project."""

    def __init__(self, org: Org, crm: Crm | None, spec, rng: Random, groups: dict[str, GroupRec],
                 projects: dict[str, ProjectRec], sprints: list[dict], end: datetime):
        self.org, self.crm, self.spec, self.rng = org, crm, spec, rng
        self.groups, self.projects, self.sprints, self.end = groups, projects, sprints, end
        # tickets go back three weeks before the chat history, nine with a long ticket history
        self.start = org.window_start - timedelta(days=63 if spec.ticket_history else 21)
        self.tickets: list[TicketRec] = []
        self.links: list[tuple[TicketRec, TicketRec, str]] = []
        self._rosters: dict[int, tuple[list[PersonRec], Roster]] = {}

    # ---------------------------------------------------------------- helpers
    def _count(self, per_person: float, low: int) -> int:
        return max(low, round(self.spec.people * per_person * self.spec.ticket_volume))

    def _someone(self, pool: list[PersonRec], at: datetime) -> PersonRec:
        known = self._rosters.get(id(pool))
        if known is None or known[0] is not pool:  # who of the pool had joined when, remembered per pool
            known = self._rosters[id(pool)] = (pool, Roster(pool, lambda p: p.since))
        present = known[1].at(at) or pool
        return self.rng.choice(present)

    def _people(self, depts: tuple[str, ...] | None = None, exclude: tuple[str, ...] = ()) -> list[PersonRec]:
        return [p for p in self.org.people if (depts is None or p.dept in depts) and p.dept not in exclude]

    def _progress(self, t: TicketRec, workers: list[int]) -> None:
        """Give a filed ticket an assignee, a first response, a pause or a resolution per its status."""
        rng = self.rng
        if t.status in ("New", "To Do"):
            return
        people = [self.org.person(i) for i in workers]
        t.assignee_id = self._someone(people, t.created_at).id
        reply = min(t.created_at + timedelta(minutes=rng.randint(4, 600)), self.end)
        if t.project.kind == "service_desk":
            t.first_response_at = reply
            t.comments.append((t.assignee_id, rng.choice(tv.COMMENTS[:3]), False, reply))
        if t.status in ("Resolved", "Closed", "Done"):
            t.resolved_at = min(reply + timedelta(hours=rng.randint(1, 60)), self.end)
            t.resolution = t.resolution or ("Done" if t.status == "Done" else rng.choice(("Fixed", "Fixed", "Workaround")))
        if t.status == "Waiting on customer":
            t.paused_since = min(reply + timedelta(minutes=rng.randint(10, 240)), self.end)
            t.comments.append((t.assignee_id, "Could you confirm whether it still happens?", False, t.paused_since))
        t.watchers += [t.reporter_id, t.assignee_id]

    def _file(self, project: ProjectRec, type_: str, summary: str, description: str, reporter_pool: list[PersonRec],
              statuses: dict[str, int], priority: str | None = None, at: datetime | None = None, **extra) -> TicketRec:
        when = at or business_time(self.rng, self.start, self.end - timedelta(hours=2))
        reporter = self._someone(reporter_pool, when)
        when = max(when, reporter.since)
        if self.spec.ticket_history:  # a long history: old tickets are mostly finished
            statuses = story.aged(statuses, when, self.end)
        ticket = TicketRec(project, type_, summary, description, _weighted(self.rng, statuses),
                           priority or _weighted(self.rng, PRIORITY), reporter.id, when, **extra)
        if type_ == "Incident":
            ticket.priority = incident_priority(ticket.impact, ticket.urgency)
        self.tickets.append(ticket)
        return ticket

    # ---------------------------------------------------------------- projects
    def it_desk(self) -> None:
        """Employee incidents and requests, their near-duplicates, production incidents and problems."""
        it = self.projects["IT"]
        support = self.groups.get("IT Support")
        workers = support.member_ids if support else it.agents
        staff = self._people(exclude=("IT",))
        incidents = []
        for k in range(self._count(0.35, 6)):
            summary, description, component, impact, urgency = tv.IT_INCIDENTS[k % len(tv.IT_INCIDENTS)]
            t = self._file(it, "Incident", summary, description, staff, SERVICE_STATUS, component=component,
                           impact=impact, urgency=urgency, group_id=support.id if support else None)
            self._progress(t, workers)
            incidents.append(t)
        for original in [t for t in incidents if t.status == "New"][:2]:
            self._duplicates(original, staff)
        for k in range(self._count(0.3, 5)):
            summary, description, component, priority = tv.IT_REQUESTS[k % len(tv.IT_REQUESTS)]
            t = self._file(it, "Service Request", summary, description, staff, SERVICE_STATUS, priority,
                           component=component, group_id=support.id if support else None)
            self._progress(t, workers)
        if self.spec.ticket_history:
            story.production_history(self, it)
        else:
            self._production(it)

    def _duplicates(self, original: TicketRec, staff: list[PersonRec]) -> None:
        for k in range(self.rng.randint(2, 3)):
            at = min(original.created_at + timedelta(hours=self.rng.randint(1, 20)), self.end - timedelta(hours=1))
            summary = DUPLICATE_PHRASES[k].format(s=lower_first(original.summary))
            self._file(original.project, "Incident", summary, original.description, staff, {"New": 1}, at=at,
                       component=original.component, impact=original.impact, urgency=original.urgency,
                       group_id=original.group_id)

    def _production(self, it: ProjectRec) -> None:
        on_call = [g for g in self.groups.values() if g.on_call]
        if not on_call:
            return
        reporters = self._people(("Engineering", "Customer Success"))
        statuses = {"In Progress": 1, "Resolved": 2, "Closed": 3}
        problems = []
        for summary, description, component in tv.PROBLEMS:
            group = self.rng.choice(on_call)
            p = self._file(it, "Problem", summary, description, reporters, {"In Progress": 1, "Assigned": 1}, "High",
                           component=component, group_id=group.id)
            self._progress(p, group.member_ids)
            problems.append(p)
        for k in range(min(len(tv.PROD_INCIDENTS), self._count(0.12, 3))):
            summary, description, component = tv.PROD_INCIDENTS[k]
            group = on_call[k % len(on_call)]
            t = self._file(it, "Incident", summary, description, reporters, statuses, component=component,
                           impact=self.rng.choice(("High", "Medium")), urgency=self.rng.choice(("High", "Medium")),
                           group_id=group.id, labels=["customer-impact"])
            self._progress(t, group.member_ids)
            t.comments.append((t.assignee_id, self.rng.choice(tv.WORK_NOTES), True,
                               min(t.created_at + timedelta(minutes=30), self.end)))
            if k < len(problems):  # the problem record was opened to find the root cause of this incident
                self.links.append((t, problems[k], "caused_by"))

    def engineering(self) -> None:
        """Stories, bugs and tasks per engineering team, sub-tasks, blockers, sprints."""
        eng = self.projects["ENG"]
        teams = [t for t in self.org.teams if t.dept == "Engineering"]
        engineers = self._people(("Engineering", "Product"))
        active = [s for s in self.sprints if s["state"] == "active"]
        future = [s for s in self.sprints if s["state"] == "future"]
        closed = [s for s in self.sprints if s["state"] == "closed"]
        for k in range(self._count(0.8, 10)):
            team = teams[k % len(teams)]
            summary, description, kind = tv.ENG_WORK[self.rng.randrange(len(tv.ENG_WORK))]
            t = self._file(eng, kind, summary.format(area=team.name), description, engineers, SOFTWARE_STATUS,
                           component=team.name, labels=self.rng.sample(tv.LABELS, self.rng.randint(0, 2)))
            t.story_points = self.rng.choice((1, 2, 3, 5, 8)) if kind == "Story" else None
            self._progress(t, team.member_ids)
            if self.spec.ticket_history:  # each fortnight of the history was a sprint
                t.sprint_id = story.sprint_for(self, t)
            else:
                pool = closed if t.status == "Done" and self.rng.random() < 0.6 else active if t.status != "To Do" \
                    else (future if self.rng.random() < 0.3 else active if self.rng.random() < 0.4 else [])
                t.sprint_id = pool[0]["id"] if pool else None
            if kind == "Story" and self.rng.random() < 0.35:
                self._sub_tasks(t, team.member_ids)
        open_work = [t for t in self.tickets if t.project is eng and t.status != "Done" and t.parent is None]
        for k in range(min(len(open_work) // 2, self._count(0.05, 2))):
            blocker, blocked = open_work[2 * k], open_work[2 * k + 1]
            self.links.append((blocker, blocked, "blocks"))

    def _sub_tasks(self, parent: TicketRec, workers: list[int]) -> None:
        for k, summary in enumerate(tv.ENG_SUBTASKS[:self.rng.randint(2, 3)]):
            status = "Done" if parent.status == "Done" else ("Done" if k == 0 and parent.status != "To Do" else "To Do")
            at = min(parent.created_at + timedelta(minutes=5 + k), self.end)
            sub = TicketRec(parent.project, "Sub-task", summary, "", status, parent.priority, parent.reporter_id, at,
                            component=parent.component, parent=parent, sprint_id=parent.sprint_id)
            self._progress(sub, workers)
            self.tickets.append(sub)

    def escalations(self, cases) -> None:
        """Each escalated CRM case becomes an engineering bug naming the customer, due within a week."""
        if self.crm is None or "ENG" not in self.projects:
            return
        eng = self.projects["ENG"]
        teams = [t for t in self.org.teams if t.dept == "Engineering"]
        for case_id, subject, description, account_id, owner_id, created in cases:
            account = self.crm.account(account_id)
            team = teams[case_id % len(teams)]
            at = min(created + timedelta(hours=self.rng.randint(2, 48)), self.end - timedelta(hours=1))
            t = TicketRec(eng, "Bug", f"{account.name}: {subject}", description, _weighted(self.rng, {"To Do": 1, "In Progress": 2}),
                          "High", owner_id, at, component=team.name, labels=["customer-escalation"],
                          account_id=account_id, case_id=case_id, due_date=at.date() + timedelta(days=7))
            self._progress(t, team.member_ids)
            t.watchers.append(owner_id)
            self.tickets.append(t)

    def sales_ops(self) -> None:
        """Requests from sales people to the Sales Operations project."""
        sops = self.projects["SOPS"]
        sellers = self._people(("Sales",))
        accounts = self.crm.accounts if self.crm else []
        team = self.groups.get("Sales Operations")
        workers = team.member_ids if team else [sops.lead_id]
        for k in range(self._count(0.2, 4)):
            summary, description, kind = tv.SOPS_WORK[k % len(tv.SOPS_WORK)]
            values = {"region": self.rng.choice(("North America", "EMEA", "APAC")),
                      "account": self.rng.choice(accounts).name if accounts else "a key account", "quarter": "Q1 2026"}
            t = self._file(sops, kind, summary.format(**values), description.format(**values), sellers, SOFTWARE_STATUS,
                           component=("Territories", "CRM", "Forecasting", "Forecasting", "Quotes", "Forecasting")[k % 6])
            self._progress(t, workers)

    def legal(self) -> None:
        """Contract reviews and NDAs for accounts with live deals, filed by the deal owners and due five
        days before the deal is expected to close."""
        legal = self.projects["LEGAL"]
        group = next((g for g in self.groups.values() if g.name == "Commercial Legal"), None)
        workers = group.member_ids if group else legal.agents
        deals = [d for d in (self.crm.deals if self.crm else []) if d.stage in ("Proposal", "Negotiation")]
        for k in range(self._count(0.2, 4)):
            summary, description, priority = tv.LEGAL_REQUESTS[k % len(tv.LEGAL_REQUESTS)]
            deal = deals[k % len(deals)] if deals and "{account}" in summary else None
            name = deal.account.name if deal else "a customer"
            owner = [self.org.person(deal.owner_id)] if deal else self._people(("Sales", "Marketing"))
            t = self._file(legal, "Service Request", summary.format(account=name), description.format(account=name),
                           owner, SERVICE_STATUS, priority, component="Contracts" if deal else "Trademarks",
                           group_id=group.id if group else None, account_id=deal.account.id if deal else None,
                           due_date=deal.close_date - timedelta(days=5) if deal else None)
            self._progress(t, workers)

    # ---------------------------------------------------------------- all
    def make_all(self, cases) -> Tickets:
        """Every ticket of the world, numbered per project in creation order."""
        if "IT" in self.projects:
            self.it_desk()
        if "ENG" in self.projects:
            self.engineering()
            self.escalations(cases)
        if "SOPS" in self.projects:
            self.sales_ops()
        if "LEGAL" in self.projects:
            self.legal()
        if self.spec.ticket_history:
            for ticket in self.tickets:
                story.story(self, ticket)
        self.tickets.sort(key=lambda t: (t.created_at, t.project.id, t.summary))
        numbers: dict[str, int] = {}
        for ident, ticket in enumerate(self.tickets, start=1):
            ticket.id = ident
            numbers[ticket.project.key] = ticket.number = numbers.get(ticket.project.key, 0) + 1
        sprints = [(s["id"], "ENG", s["name"], s["state"]) for s in self.sprints]
        return Tickets(self.projects, self.groups, self.tickets, self.links, sprints)
