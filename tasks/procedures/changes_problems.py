"""The problem-record procedure of Problem records for recurring incidents: a production service with three or more
incidents in the last 30 days gets one open Problem ("Recurring failures of <service>", component Production,
priority High, the on-call group of its most recent incident), and every one of those incidents is linked to it
(is caused by). A service that has an open Problem already gets its incidents linked to that one; a service with
fewer incidents gets none. The setup files the service's incidents of the story (over the world's own), a look-alike
incident of another service that mentions it, one of the service from before the window and, where the story has
one, the open Problem filed weeks ago."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from officegym import clock
from officegym.apps.org.models import Person
from officegym.apps.tickets import services as tickets
from officegym.apps.tickets.models import Ticket
from officegym.graders.checks import Allow, check, guard
from officegym.graders.statements import Candidate, says
from officegym.seed_data.tickets_handbook_changes import WINDOW_DAYS

from ..base import CARRY_OUT, REFUSE, Claim, Declaration, Ref, Target, ToolCall
from ..tickets_common import added_tickets, group_named, same_text, ticket_by_key
from ..w_people_replies import dm_replies
from .core import Graded, Procedure

PROBLEMS = "Problem records for recurring incidents"


def problem_summary(service: str) -> str:
    """A Problem's summary, as the article writes it."""
    return f"Recurring failures of {service}"


@dataclass(frozen=True)
class OpenProblem(Procedure):
    """The problem record of `service`, asked for by `asker`. `planted`: the incidents the setup files ((summary,
    group, reporter, days ago, resolved), the service's first, then look-alikes of other services, then one of
    the service from before the window), numbered from `first`; `world`: the service's incidents of the window
    the world holds already; `open_problem`: "" or the summary's Problem the setup files weeks ago (then the
    incidents go to it). `count`: how many planted incidents are the service's inside the window; `group`: the
    on-call group of its most recent incident; `needed`: whether it has enough incidents for a Problem."""

    rules = (PROBLEMS,)
    hard = ("lookalike", "exception")

    first: int
    actor: int
    desk: int  # the IT Support Lead, who routes the incidents and filed the open Problem
    asker: int
    service: str
    planted: tuple[tuple[str, str, int, int, bool], ...]
    count: int
    world: tuple[str, ...]
    group: str
    needed: bool
    existing: bool = False  # the setup files an open Problem of the service, weeks ago, before the incidents

    @property
    def keys(self) -> list[str]:
        """The keys of the planted incidents, in the order they are filed (after the open Problem, if any)."""
        return [f"IT-{self.first + self.existing + k}" for k in range(len(self.planted))]

    @property
    def counted(self) -> list[str]:
        """The incidents that count: the world's and the planted ones of the service inside the window."""
        return [*self.world, *self.keys[:self.count]]

    @property
    def lookalikes(self) -> list[str]:
        """The planted incidents that do not count (another service's, or the service's from before the window)."""
        return self.keys[self.count:]

    @property
    def problem_key(self) -> str:
        """The open Problem's key (when the setup files one)."""
        return f"IT-{self.first}" if self.existing else ""

    @property
    def filed(self) -> int:
        """How many IT tickets the setup files."""
        return len(self.planted) + self.existing

    def setup(self, session):
        now = clock.company_now(session)
        lead = session.get(Person, self.desk)
        if self.existing:
            clock.set_time(session, now - timedelta(days=WINDOW_DAYS + 12, hours=3))
            made = tickets.create_ticket(session, lead, "IT", "Problem", problem_summary(self.service),
                                         f"Root cause of the repeated {self.service} incidents.", priority="High",
                                         components=["Production"], group=self.group)
            assert made.key == self.problem_key, (made.key, self.problem_key)
        for (summary, group, reporter, days, resolved), key in zip(self.planted, self.keys):
            clock.set_time(session, now - timedelta(days=days, hours=5))
            made = tickets.create_ticket(session, session.get(Person, reporter), "IT", "Incident", summary,
                                         f"{summary}. Customers see failed requests; paged the on-call engineer.",
                                         impact="High", urgency="Medium", components=["Production"])
            assert made.key == key, (made.key, key)
            tickets.assign_ticket(session, lead, key, reporter, group)
            if resolved:
                clock.set_time(session, now - timedelta(days=days, hours=2))
                tickets.transition_ticket(session, session.get(Person, reporter), key, "Resolve", "Workaround",
                                          "Restarted; watching it.")
        if self.existing:  # the incident from before the window was the first it tracked
            clock.set_time(session, now - timedelta(days=WINDOW_DAYS + 5))
            tickets.link_tickets(session, lead, self.keys[-1], "caused_by", self.problem_key)

    def reads(self) -> list[ToolCall]:
        """The searches for the service's incidents and Problems, and each incident that counts."""
        return [ToolCall("tickets_search_tickets", {"query": f'project = IT AND type = Incident AND summary ~ '
                                                             f'"{self.service}" ORDER BY created DESC'}),
                ToolCall("tickets_search_tickets", {"query": f'project = IT AND type = Problem AND summary ~ '
                                                             f'"{self.service}"'}),
                *(ToolCall("tickets_get_ticket", {"key": key}) for key in self.counted)]

    def work(self, linked: list[str], file: bool | None = None) -> list[ToolCall]:
        """Filing the Problem (unless one is open, or `file` says otherwise) and linking `linked` to it."""
        if not self.needed:
            return []
        file = not self.existing if file is None else file
        calls = [ToolCall("tickets_create_ticket", {
            "project": "IT", "type": "Problem", "summary": problem_summary(self.service), "priority": "High",
            "description": f"Root cause of the repeated {self.service} incidents.", "components": ["Production"],
            "group": self.group})] if file else []
        problem = Ref(len(self.reads()), "key") if file else self.problem_key
        return calls + [ToolCall("tickets_link_tickets", {"key": key, "kind": "caused_by", "other": problem})
                        for key in linked]

    def steps(self):
        return self.reads() + self.work(self.counted)

    def declared(self):
        return ("exception", "lookalike") if self.existing else ("lookalike",) if self.needed else ()

    def fallen(self, kind):
        if kind == "exception" and self.existing:  # files a second Problem beside the open one
            return self.reads() + self.work(self.counted, file=True)
        if kind == "lookalike" and self.needed:  # links the look-alikes too
            return self.reads() + self.work(self.counted + self.lookalikes[:1])
        return None

    def declare(self, start):
        targets = [Target("ticket", key, self.lookalikes) for key in self.counted] if self.needed else []
        claims = [Claim(Candidate.text(self.problem_key), [], "text", "problem record")] if self.existing else []
        return Declaration(targets, claims)

    def _problem(self, ctx) -> tuple[Ticket | None, list[dict]]:
        """The Problem the incidents go to in the final state (the open one, or the one the actor filed), and the
        Problems of the service the actor filed."""
        filed = [r for r in added_tickets(ctx, "IT") if r["type"] == "Problem" and self.service in r["summary"]]
        if self.existing:
            return ticket_by_key(ctx.final, self.problem_key), filed
        return (ctx.final.get(Ticket, filed[0]["id"]) if filed else None), filed

    def check(self, ctx):
        problem, filed = self._problem(ctx)
        links = [r for r in ctx.diff.table("tickets_link").added if r["kind"] == "caused_by"]
        ids = {key: ticket_by_key(ctx.start, key).id for key in (*self.counted, *self.lookalikes)}
        results, allowed = [], []
        if not self.needed:
            results.append(guard(f"No Problem is filed for {self.service}: it has fewer than three incidents in the "
                                 "window", not filed, f"filed: {[r['key'] for r in filed]}"))
            results.append(guard(f"No incident of {self.service} is linked to a Problem", not any(
                r["source_id"] in ids.values() for r in links), ""))
            return Graded(results, [])
        if self.existing:
            results.append(guard(f"No second Problem is filed for {self.service}: {self.problem_key} is open",
                                 not filed, f"filed: {[r['key'] for r in filed]}"))
        else:
            group = group_named(ctx.start, self.group)
            right = [r for r in filed if same_text(r["summary"], problem_summary(self.service))]
            results.append(check(f"A Problem \"{problem_summary(self.service)}\" is filed in IT", len(filed) == 1
                                 and bool(right), f"filed: {[r['summary'] for r in filed]}", weight=2))
            results.append(check(f"It is High, assigned to {self.group}", bool(right) and right[0]["priority"] == "High"
                                 and right[0]["group_id"] == group.id, "", weight=1))
            allowed += [Allow("tickets_ticket", ("added",), lambda r: r["type"] == "Problem"
                              and r["reporter_id"] == ctx.actor_id and same_text(r["summary"], problem_summary(
                                  self.service))),
                        Allow("tickets_ticket_component", ("added",), lambda r: r["ticket_id"] in {
                            x["id"] for x in right}),
                        Allow("tickets_project", ("updated",), lambda r: r["key"] == "IT", ("next_number",))]
        target = problem.id if problem is not None else -1
        for key in self.counted:
            results.append(check(f"{key} is linked to the {self.service} Problem (is caused by)", any(
                r["source_id"] == ids[key] and r["target_id"] == target for r in links), "", weight=1))
        results.append(guard(f"No look-alike ({', '.join(self.lookalikes)}) is linked to a Problem", not any(
            r["source_id"] in {ids[k] for k in self.lookalikes} and r["target_id"] == target for r in links), ""))
        counted = {ids[k] for k in self.counted}
        allowed += [Allow("tickets_link", ("added",), lambda r: r["source_id"] in counted and r["target_id"] == target
                          and r["kind"] == "caused_by", limit=len(counted)),
                    Allow("tickets_ticket", ("updated",), lambda r: r["id"] in counted | {target},
                          ("updated_at", "first_response_at"), limit=len(counted) + 1),
                    Allow("tickets_comment", ("added",), lambda r: r["ticket_id"] in counted | {target}  # a word on each
                          and r["author_id"] == ctx.actor_id, limit=len(counted) + 1)]
        if problem is not None:
            results += self._reply(ctx, problem.key)
        return Graded(results, allowed)

    def _reply(self, ctx, key: str):
        """The reply to the asker names the Problem's key."""
        _, texts = dm_replies(ctx, self.asker)
        return says(texts, Candidate.text(key), [], f"Your reply names the {self.service} Problem, {key}", "problem",
                    weight=2 + 2 * len(self.counted))  # the words that carry the result outweigh the records

    def outcome(self):
        return CARRY_OUT if self.needed else REFUSE

